package io.github.probkit.foreign;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.github.probkit.cardinality.HyperLogLog;
import io.github.probkit.hash.HashStrategy;
import io.github.probkit.io.SketchFormatException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.datasketches.hll.HllSketch;
import org.apache.datasketches.hll.TgtHllType;
import org.apache.datasketches.hll.Union;
import org.junit.jupiter.api.Test;

/**
 * DataSketchesHll against datasketches-java 6.2.0 itself (test scope): sketches it made, of 10^0 to
 * 10^6 strings and longs, read in every type, mode and serial form, with its estimates; its unions;
 * and sketches probkit writes, read back by it.
 */
class DataSketchesHllTest {
  private static final int[] LG_KS = {4, 7, 12, 21};
  private static final int MAX_N = ComparisonSize.KEYS;
  private static final int MAX_LG_K = 21;
  private static List<Snapshot> stringSnapshots;

  private static String item(int i) {
    return (i % 3 == 0 ? "ключ-" : "key:") + i + (i % 7 == 0 ? "€𝄞" : "");
  }

  /** A sketch of DataSketches and probkit's sketch of the same items, snapped at each size. */
  private record Snapshot(int lgK, int n, HllSketch ds, HyperLogLog probkit) {}

  private static List<Snapshot> snapshots(boolean longs, long seed) {
    List<Snapshot> out = new ArrayList<>();
    SplittableRandom random = new SplittableRandom(seed);
    for (int lgK : LG_KS) {
      HllSketch ds = new HllSketch(lgK, TgtHllType.HLL_8);
      int p = Math.min(lgK, HyperLogLog.MAX_PRECISION);
      HyperLogLog probkit = HyperLogLog.create(p, HashStrategy.datasketches(p));
      int next = 1;
      // Small sketches are in HLL mode from a few items on: 10^5 is plenty for them.
      // lgK 21 is in HLL mode from 196,609 coupons on.
      int n = lgK < 12 ? MAX_N / 10 : lgK == MAX_LG_K ? Math.min(300_000, MAX_N) : MAX_N;
      for (int i = 0; i < n; i++) {
        if (longs) {
          long v = random.nextLong();
          ds.update(v);
          probkit.add(v);
        } else {
          ds.update(item(i));
          probkit.add(item(i));
        }
        // lgK 21: sizes in LIST, SET and HLL mode only; each look at 2^21 slots costs.
        boolean snap = lgK < MAX_LG_K ? i + 1 == next || i + 1 == 3 * next : i + 1 == 3 * next;
        if (snap && (lgK < MAX_LG_K || next == 1 || next == 1_000 || next == 100_000)) {
          out.add(new Snapshot(lgK, i + 1, ds.copy(), probkit.copy()));
        }
        if (i + 1 == 3 * next) {
          next *= 10;
        }
      }
      out.add(new Snapshot(lgK, n, ds, probkit));
    }
    return out;
  }

  /** Shared by the reading and the writing test: 4 x 10^6 items each way cost seconds. */
  private static synchronized List<Snapshot> stringSnapshots() {
    if (stringSnapshots == null) {
      stringSnapshots = snapshots(false, 0);
    }
    return stringSnapshots;
  }

  private static void readsAsDataSketches(List<Snapshot> snapshots) throws SketchFormatException {
    double worst = 0;
    for (Snapshot s : snapshots) {
      for (TgtHllType type : TgtHllType.values()) {
        HllSketch ds = s.ds().copyAs(type);
        for (byte[] bytes : List.of(ds.toCompactByteArray(), ds.toUpdatableByteArray())) {
          String what = s.n() + " items, lgK " + s.lgK() + ", " + type + ", " + bytes.length + " B";
          DataSketchesHll read = DataSketchesHll.read(bytes);
          assertThat(read.mode()).as(what).isEqualTo(modeOf(ds));
          assertThat(read.type().name()).as(what).isEqualTo(type.name());
          double expected = ds.getEstimate();
          if (read.mode() == DataSketchesHll.Mode.HLL) {
            // Not out of order: the HIP accumulator, DataSketches' own value.
            assertThat(read.estimate()).as(what).isEqualTo(expected);
          } else {
            double diff = Math.abs(read.estimate() - expected);
            assertThat(diff).as(what).isLessThanOrEqualTo(expected * read.relativeStandardError());
            worst = Math.max(worst, diff / expected);
          }
          // The registers are those probkit's DataSketches hash sets for the same items.
          HyperLogLog converted = read.toHyperLogLog();
          assertThat(converted.registers()).as(what).isEqualTo(s.probkit().registers());
          assertThat(converted.hashStrategy()).isEqualTo(s.probkit().hashStrategy());
        }
      }
    }
    System.out.printf("coupon estimates: worst relative difference %.2e%n", worst);
  }

  @Test
  void stringSketchesReadWithDataSketchesEstimateAndProbkitsRegisters() throws Exception {
    readsAsDataSketches(stringSnapshots());
  }

  @Test
  void longSketchesReadWithDataSketchesEstimateAndProbkitsRegisters() throws Exception {
    readsAsDataSketches(snapshots(true, 0x5eed_da7a_5ce7_c4e5L));
  }

  /** DataSketches' mode, which it does not make public, from its preamble's mode byte. */
  private static DataSketchesHll.Mode modeOf(HllSketch s) {
    return DataSketchesHll.Mode.values()[s.toCompactByteArray()[7] & 3];
  }

  private static boolean isOutOfOrder(HllSketch s) {
    return (s.toCompactByteArray()[5] & 16) != 0;
  }

  /** The slot bytes of a DataSketches sketch in HLL mode: its HLL_8 compact form after 40 bytes. */
  private static byte[] slotsOf(HllSketch s) {
    byte[] b = s.copyAs(TgtHllType.HLL_8).toCompactByteArray();
    return Arrays.copyOfRange(b, 40, b.length);
  }

  @Test
  void writtenSketchesReadBackInDataSketchesWithTheSameRegistersAndEstimate() throws Exception {
    for (Snapshot s : stringSnapshots()) {
      if (s.lgK() > HyperLogLog.MAX_PRECISION) {
        continue;
      }
      String what = s.n() + " items, lgK " + s.lgK();
      DataSketchesHll written = DataSketchesHll.of(s.probkit());
      HllSketch back = HllSketch.heapify(written.toCompactBytes());
      assertThat(back.getEstimate()).as(what).isEqualTo(written.estimate());
      assertThat(back.getLgConfigK()).isEqualTo(s.lgK());
      // The registers equal DataSketches' own for the same items: its union with them is itself.
      assertThat(slotsOf(back)).as(what).isEqualTo(registersOf(s.ds()));
      Union union = new Union(s.lgK());
      union.update(back);
      union.update(s.ds());
      assertThat(slotsOf(union.getResult())).as(what).isEqualTo(slotsOf(back));
      // Martingale and HIP are the same estimator: within the HIP's documented error.
      double relative = Math.abs(back.getEstimate() - s.ds().getEstimate()) / s.n();
      assertThat(relative).as(what).isLessThan(3 * 0.8326 / Math.sqrt(1 << s.lgK()) + 1e-9);
      // Read again by probkit: the same registers.
      assertThat(DataSketchesHll.read(written.toCompactBytes()).toHyperLogLog().registers())
          .isEqualTo(s.probkit().registers());
    }
  }

  /** The registers of a DataSketches sketch in any mode, through its union into HLL mode at lgK. */
  private static byte[] registersOf(HllSketch s) {
    if (modeOf(s) == DataSketchesHll.Mode.HLL) {
      return slotsOf(s);
    }
    byte[] out = new byte[1 << s.getLgConfigK()];
    // A LIST/SET sketch's coupons: read by DataSketchesHll, checked against DataSketches' own
    // estimate by the reading tests above.
    int[] r;
    try {
      r = DataSketchesHll.read(s.toCompactByteArray()).registers();
    } catch (SketchFormatException e) {
      throw new AssertionError(e);
    }
    for (int i = 0; i < r.length; i++) {
      out[i] = (byte) r[i];
    }
    return out;
  }

  @Test
  void unionsAreDataSketchesUnions() throws Exception {
    SplittableRandom random = new SplittableRandom(0x0bad_cafe_f00d_1234L);
    int[] sizes = {0, 1, 5, 30, 200, 1_000, 20_000, 100_000};
    int compared = 0;
    double worst = 0;
    for (int round = 0; round < 30; round++) {
      int lgA = 4 + random.nextInt(15);
      int lgB = 4 + random.nextInt(15);
      TgtHllType typeA = TgtHllType.values()[random.nextInt(3)];
      TgtHllType typeB = TgtHllType.values()[random.nextInt(3)];
      int nA = sizes[random.nextInt(sizes.length)];
      int nB = sizes[random.nextInt(sizes.length)];
      int overlap = random.nextInt(nA + 1);
      HllSketch a = new HllSketch(lgA, typeA);
      HllSketch b = new HllSketch(lgB, typeB);
      for (int i = 0; i < nA; i++) {
        a.update(item(i));
      }
      for (int i = 0; i < nB; i++) {
        b.update(item(nA - overlap + i));
      }
      Union union = new Union(Math.max(lgA, lgB));
      union.update(a);
      union.update(b);
      HllSketch expected = union.getResult(TgtHllType.HLL_8);
      String what =
          "round "
              + round
              + ": "
              + nA
              + " at lgK "
              + lgA
              + " "
              + typeA
              + " + "
              + nB
              + " at "
              + lgB
              + " "
              + typeB;

      DataSketchesHll mine =
          DataSketchesHll.read(a.toCompactByteArray())
              .union(DataSketchesHll.read(b.toUpdatableByteArray()));
      assertThat(mine.lgK()).as(what).isEqualTo(expected.getLgConfigK());
      assertThat(mine.mode()).as(what).isEqualTo(modeOf(expected));
      assertThat(mine.isOutOfOrder()).as(what).isEqualTo(isOutOfOrder(expected));
      HllSketch back = HllSketch.heapify(mine.toCompactBytes());
      assertThat(registersOf(back)).as(what).isEqualTo(registersOf(expected));
      double e = expected.getEstimate();
      double diff = Math.abs(mine.estimate() - e);
      if (!isOutOfOrder(expected) && mine.mode() == DataSketchesHll.Mode.HLL) {
        assertThat(diff).as(what).isLessThanOrEqualTo(1e-9 * e);
      } else {
        assertThat(diff).as(what).isLessThanOrEqualTo(e * mine.relativeStandardError() / 2 + 1e-9);
      }
      if (e > 0) {
        worst = Math.max(worst, diff / e / mine.relativeStandardError());
        compared++;
      }
    }
    assertThat(compared).isGreaterThan(18);
    System.out.printf("unions: worst |probkit - DataSketches| = %.3f standard errors%n", worst);
  }

  @Test
  void aSketchAboveProbkitsPrecisionConvertsAsDataSketchesFoldsIt() throws Exception {
    HllSketch ds = new HllSketch(21, TgtHllType.HLL_4);
    HyperLogLog probkit = HyperLogLog.create(18, HashStrategy.datasketches(18));
    for (int i = 0; i < 400_000; i++) {
      ds.update(item(i));
      probkit.add(item(i));
    }
    HyperLogLog converted = DataSketchesHll.read(ds.toCompactByteArray()).toHyperLogLog();
    assertThat(converted.precision()).isEqualTo(18);
    assertThat(converted.registers()).isEqualTo(probkit.registers());
  }

  @Test
  void aSketchOfAnotherHashOrPrecisionIsNotWritten() {
    HyperLogLog xxh3 = HyperLogLog.create(12);
    assertThatThrownBy(() -> DataSketchesHll.of(xxh3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("xxh3");
    HyperLogLog otherLgK = HyperLogLog.create(12, HashStrategy.datasketches(14));
    assertThatThrownBy(() -> DataSketchesHll.of(otherLgK))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("precision 12");
  }

  @Test
  void probkitsOwnFileKeepsTheDataSketchesHashAndRefusesABadLgK() throws Exception {
    HyperLogLog h = HyperLogLog.create(14, HashStrategy.datasketches(14));
    for (int i = 0; i < 5_000; i++) {
      h.add(item(i));
    }
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    h.writeTo(out);
    byte[] file = out.toByteArray();
    HyperLogLog back = HyperLogLog.readFrom(new java.io.ByteArrayInputStream(file));
    assertThat(back.hashStrategy()).isEqualTo(HashStrategy.datasketches(14));
    assertThat(back.registers()).isEqualTo(h.registers());
    // The seed's bits 32..39 hold lgK (offset 8 + 4): 30 is no DataSketches lgK.
    file[12] = 30;
    assertThat(catchThrowable(() -> HyperLogLog.readFrom(new java.io.ByteArrayInputStream(file))))
        .isInstanceOf(SketchFormatException.class)
        .hasMessageContaining("lgK");
  }

  /**
   * Damaged bytes: every truncation and every appended byte is refused; a byte flipped in the
   * preamble of any mode is refused; in the registers only what leaves them invalid can be seen
   * (DataSketches has no checksum). Reading never fails with anything but SketchFormatException.
   */
  @Test
  void damagedBytesAreRefusedInOneLine() throws Exception {
    List<byte[]> samples = new ArrayList<>();
    for (int n : new int[] {0, 3, 50, 5_000}) {
      HllSketch s = new HllSketch(10, TgtHllType.HLL_8);
      for (int i = 0; i < n; i++) {
        s.update(item(i));
      }
      for (TgtHllType t : TgtHllType.values()) {
        samples.add(s.copyAs(t).toCompactByteArray());
        samples.add(s.copyAs(t).toUpdatableByteArray());
      }
    }
    int flips = 0;
    int refused = 0;
    for (byte[] good : samples) {
      DataSketchesHll.read(good);
      for (int cut = 0; cut < good.length; cut += Math.max(1, good.length / 40)) {
        byte[] shorter = Arrays.copyOf(good, cut);
        assertThat(catchThrowable(() -> DataSketchesHll.read(shorter)))
            .as("cut to %d of %d, mode byte %d", cut, good.length, good[7])
            .isInstanceOf(SketchFormatException.class)
            .hasMessageStartingWith("datasketches hll: ");
      }
      byte[] longer = Arrays.copyOf(good, good.length + 4);
      assertThat(catchThrowable(() -> DataSketchesHll.read(longer)))
          .as("%d bytes, mode byte %d, flags %d, appended", good.length, good[7], good[5])
          .isInstanceOf(SketchFormatException.class);
      for (int at = 0; at < good.length; at++) {
        byte[] bad = good.clone();
        bad[at] ^= (byte) 0x5A;
        flips++;
        try {
          DataSketchesHll.read(bad);
          assertThat(isUsedPreambleByte(good, at))
              .as("flip at %d of %d (mode byte %d) read", at, good.length, good[7])
              .isFalse();
        } catch (SketchFormatException e) {
          assertThat(e.getMessage()).startsWith("datasketches hll: ").doesNotContain("\n");
          refused++;
        }
      }
    }
    System.out.printf("damaged: %d of %d flipped bytes refused%n", refused, flips);
  }

  /**
   * The preamble bytes the reader checks whatever the form: ids, lgK, flags, mode, the LIST count
   * or curMin, the SET count; in HLL mode curMin's count, the exception count, kxq0's and kxq1's
   * exponents and, unless out of order, the HIP accumulator's. (lgArr is unused in compact forms;
   * the low bytes of the doubles cannot be told from DataSketches' rounding.)
   */
  private static boolean isUsedPreambleByte(byte[] good, int at) {
    int mode = good[7] & 3;
    if (at < 8) {
      return at != 4 && !(at == 6 && mode == 1);
    }
    if (mode == 1) {
      return at < 12;
    }
    if (mode == 0) {
      return false;
    }
    boolean outOfOrder = (good[5] & 16) != 0;
    return at >= 32 && at < 40
        || at == 22
        || at == 23
        || at == 31
        || !outOfOrder && (at == 14 || at == 15);
  }

  /**
   * looksLikeHll: true for DataSketches' HLL sketches in each mode (LIST, SET, HLL), compact and
   * updatable; false for 7 bytes, another serial version, family or preamble size.
   */
  @Test
  void looksLikeHllKnowsDataSketchesHllSketchesAndNothingElse() {
    for (int n : new int[] {0, 3, 50, 5_000}) {
      HllSketch ds = new HllSketch(10, TgtHllType.HLL_8);
      for (int i = 0; i < n; i++) {
        ds.update(item(i));
      }
      byte[] b = ds.toCompactByteArray();
      assertThat(DataSketchesHll.looksLikeHll(b)).as("n=%d", n).isTrue();
      assertThat(DataSketchesHll.looksLikeHll(ds.toUpdatableByteArray())).as("n=%d", n).isTrue();
      assertThat(DataSketchesHll.looksLikeHll(Arrays.copyOf(b, 7))).isFalse();
      // The preamble ints next to each of the three valid ones (2, 3, 10).
      for (int preInts : new int[] {1, 4, 9, 11}) {
        byte[] c = b.clone();
        c[0] = (byte) preInts;
        assertThat(DataSketchesHll.looksLikeHll(c)).as("n=%d preInts %d", n, preInts).isFalse();
      }
      for (int at = 1; at < 3; at++) {
        byte[] c = b.clone();
        c[at]++;
        assertThat(DataSketchesHll.looksLikeHll(c)).as("n=%d byte %d + 1", n, at).isFalse();
        c[at] -= 2;
        assertThat(DataSketchesHll.looksLikeHll(c)).as("n=%d byte %d - 1", n, at).isFalse();
      }
    }
    assertThat(DataSketchesHll.looksLikeHll(new byte[8])).isFalse();
  }

  /**
   * The relative standard error DataSketches states: sqrt(ln 2) / sqrt(K) for an HLL sketch built
   * in order (HIP), sqrt(3 ln 2 - 1) / sqrt(K) for one out of order (a union's), the coupon RSE
   * below.
   */
  @Test
  void relativeStandardErrorIsDataSketchesFactorForTheSketch() throws Exception {
    HllSketch ds = new HllSketch(12, TgtHllType.HLL_8);
    for (int i = 0; i < 20_000; i++) {
      ds.update(item(i));
    }
    DataSketchesHll inOrder = DataSketchesHll.read(ds.toCompactByteArray());
    assertThat(inOrder.isOutOfOrder()).isFalse();
    assertThat(inOrder.relativeStandardError())
        .isCloseTo(Math.sqrt(Math.log(2)) / 64, org.assertj.core.data.Offset.offset(1e-12));
    Union u = new Union(12);
    u.update(ds);
    HllSketch other = new HllSketch(12, TgtHllType.HLL_8);
    for (int i = 10_000; i < 30_000; i++) {
      other.update(item(i));
    }
    u.update(other);
    DataSketchesHll outOfOrder =
        DataSketchesHll.read(u.getResult(TgtHllType.HLL_8).toCompactByteArray());
    assertThat(outOfOrder.isOutOfOrder()).isTrue();
    assertThat(outOfOrder.relativeStandardError())
        .isCloseTo(Math.sqrt(3 * Math.log(2) - 1) / 64, org.assertj.core.data.Offset.offset(1e-12));
    HllSketch few = new HllSketch(12, TgtHllType.HLL_8);
    few.update("one");
    assertThat(DataSketchesHll.read(few.toCompactByteArray()).relativeStandardError())
        .isCloseTo(0.409 / 8192, org.assertj.core.data.Offset.offset(1e-12));
  }
}
