package io.github.probkit.cardinality;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.withinPercentage;

import io.github.probkit.GoldenFiles;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Kept state = recomputed state. HyperLogLog keeps its register histogram and change sum,
 * UltraLogLog its estimator inputs and change probability, up to date as registers change; a reader
 * computes them afresh from the registers. After every step of seeded random sequences of adds,
 * merges (into an empty sketch, from an empty one, of a higher precision, with itself), copies,
 * downsizes and write-reads, a sketch must be indistinguishable from the one read from its bytes —
 * not only now (estimate, martingale) but after more keys, which is where a stale change sum or
 * change probability shows — and its registers must be those of a sketch that was only ever given
 * all of its keys one by one.
 */
class KeptStateTest {

  enum Kind {
    HLL,
    ULL;

    CardinalitySketch create(int p) {
      return this == HLL ? HyperLogLog.create(p) : UltraLogLog.create(p);
    }

    CardinalitySketch read(byte[] bytes) throws IOException {
      ByteArrayInputStream in = new ByteArrayInputStream(bytes);
      return this == HLL ? HyperLogLog.readFrom(in) : UltraLogLog.readFrom(in);
    }
  }

  private static byte[] bytes(CardinalitySketch s) throws IOException {
    return GoldenFiles.bytes(s::writeTo);
  }

  private static Object registers(CardinalitySketch s) {
    return s instanceof HyperLogLog
        ? ((HyperLogLog) s).registers()
        : (Object) ((UltraLogLog) s).registers();
  }

  /** A sketch and every hash it was given, directly or through merges. */
  private static final class Tracked {
    CardinalitySketch sketch;
    final Set<Long> hashes;

    Tracked(CardinalitySketch sketch, Set<Long> hashes) {
      this.sketch = sketch;
      this.hashes = hashes;
    }
  }

  /**
   * Hashes drawn from a pool a few times the sketch's size, so that repeats are common; some with
   * the top bits cleared, which gives the largest register values (and ULL's saturation).
   */
  private static long nextHash(SplittableRandom r) {
    long h = r.nextLong();
    return r.nextInt(8) == 0 ? h >>> (20 + r.nextInt(40)) : h;
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void everyKeptSummaryIsTheOneRecomputedFromTheRegisters(Kind kind) throws IOException {
    for (long seed = 0; seed < 30; seed++) {
      SplittableRandom r = new SplittableRandom(0x6b657074L * 31 + seed);
      List<Tracked> pool = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        int p = 4 + r.nextInt(9);
        pool.add(new Tracked(kind.create(p), new HashSet<>()));
      }
      List<String> steps = new ArrayList<>();
      for (int step = 0; step < 40; step++) {
        int i = r.nextInt(pool.size());
        Tracked t = pool.get(i);
        int p = t.sketch.precision();
        String op;
        switch (r.nextInt(9)) {
          case 0:
          case 1:
            {
              // Small and large runs: HLL's sparse form, its growth and its switch to dense.
              int n = r.nextInt(3) == 0 ? r.nextInt(12_000) : r.nextInt(200);
              for (int j = 0; j < n; j++) {
                long h = nextHash(r);
                t.sketch.addHash(h);
                t.hashes.add(h);
              }
              op = "add " + n;
              break;
            }
          case 2:
            {
              Tracked o = pool.get(r.nextInt(pool.size()));
              if (o.sketch.precision() >= p) {
                t.sketch.merge(o.sketch);
                if (o != t) {
                  t.hashes.addAll(o.hashes);
                }
                op = "merge p" + o.sketch.precision() + (o == t ? " (itself)" : "");
              } else {
                op = "merge refused";
              }
              break;
            }
          case 3:
            {
              // Into an empty sketch: it adopts the other's registers and inputs.
              Tracked o = pool.get(r.nextInt(pool.size()));
              int q = 4 + r.nextInt(o.sketch.precision() - 3);
              pool.set(i, new Tracked(kind.create(q).merge(o.sketch), new HashSet<>(o.hashes)));
              op = "empty p" + q + " merge p" + o.sketch.precision();
              break;
            }
          case 4:
            t.sketch.merge(kind.create(p + r.nextInt(19 - p)));
            op = "merge an empty one";
            break;
          case 5:
            t.sketch = t.sketch.copy();
            op = "copy";
            break;
          case 6:
            {
              int q = 4 + r.nextInt(p - 3);
              t.sketch = t.sketch.downsize(q);
              op = "downsize " + q;
              break;
            }
          case 7:
            t.sketch = kind.read(bytes(t.sketch));
            op = "read";
            break;
          default:
            {
              // A copy of another, which then lives on its own.
              Tracked o = pool.get(r.nextInt(pool.size()));
              pool.set(i, new Tracked(o.sketch.copy(), new HashSet<>(o.hashes)));
              op = "copy of another";
              break;
            }
        }
        steps.add("sketch " + i + ": " + op);
        check(kind, pool.get(i), r.nextLong(), "seed " + seed + ", after " + steps);
      }
    }
  }

  /** HyperLogLog's register of a hash at precision p, from the papers' definition. */
  private static int hllRank(long h, int p) {
    long rest = h << p;
    return rest == 0 ? 65 - p : Long.numberOfLeadingZeros(rest) + 1;
  }

  /**
   * The registers, the packed bytes (Redis's dense layout: register i in bits 6i .. 6i + 5 of the
   * array read as one little-endian number) and the sizes of HyperLogLog, computed here from the
   * hashes alone, through the sparse form and after the switch to dense: the kept-state check
   * compares the sketch with itself re-read, which the same wrong packing or sizing would pass.
   */
  @org.junit.jupiter.api.Test
  void hyperLogLogRegistersBytesAndSizesAreTheKeys() throws IOException {
    for (int p : new int[] {4, 5, 9, 14}) {
      SplittableRandom r = new SplittableRandom(0x68_6c_6cL + p);
      HyperLogLog s = HyperLogLog.create(p);
      int[] expected = new int[1 << p];
      java.util.Map<Integer, Integer> sparse = new java.util.HashMap<>();
      boolean wasDense = false;
      // The sparse table doubles while the next size is still smaller than the dense registers,
      // and is at most 3/4 full: past that many entries the sketch is dense.
      int slotsAtMost = Integer.highestOneBit((6 * (1 << p) / 8 - 1) / 4);
      int sparseAtMost = slotsAtMost < 8 ? 0 : slotsAtMost / 4 * 3;
      List<Long> given = new ArrayList<>();
      for (int n = 1; n <= 6_000; n++) {
        long h = nextHash(r);
        given.add(h);
        boolean wasSparse = s.isSparse();
        int i = (int) (h >>> (64 - p));
        Integer old = sparse.get((int) (h >>> 39));
        boolean raises =
            wasSparse ? old == null || old < hllRank(h, 25) : expected[i] < hllRank(h, p);
        assertThat(s.addHash(h)).as("p=%d n=%d: add's answer", p, n).isEqualTo(raises);
        expected[i] = Math.max(expected[i], hllRank(h, p));
        sparse.merge((int) (h >>> 39), hllRank(h, 25), Math::max);
        assertThat(s.isSparse()).as("p=%d n=%d", p, n).isEqualTo(sparse.size() <= sparseAtMost);
        if (s.isSparse()) {
          HyperLogLog read = (HyperLogLog) Kind.HLL.read(bytes(s));
          assertThat(read.byteSize()).as("p=%d n=%d read back", p, n).isEqualTo(s.byteSize());
          assertThat(wasDense).as("p=%d n=%d: dense again", p, n).isFalse();
          assertThat(s.sparseEntries()).as("p=%d n=%d", p, n).isEqualTo(sparse.size());
          long slots = s.byteSize() / 4;
          assertThat(Long.bitCount(slots)).isEqualTo(1);
          assertThat(slots)
              .isGreaterThanOrEqualTo(8)
              .isGreaterThanOrEqualTo(sparse.size() * 4L / 3);
          assertThat(s.byteSize()).as("p=%d n=%d", p, n).isLessThan(6L * (1 << p) / 8);
        } else {
          wasDense = true;
          assertThat(s.sparseEntries()).isZero();
          assertThat(s.byteSize()).as("p=%d n=%d", p, n).isEqualTo(6L * (1 << p) / 8);
        }
        if (Long.bitCount(n) == 1 || n % 1_000 == 0) {
          String where = "p=" + p + " n=" + n;
          assertThat(s.registers()).as(where).isEqualTo(expected);
          byte[] packed = new byte[6 * (1 << p) / 8];
          for (int j = 0; j < expected.length; j++) {
            for (int b = 0; b < 6; b++) {
              if ((expected[j] >>> b & 1) != 0) {
                packed[(6 * j + b) / 8] |= (byte) (1 << (6 * j + b) % 8);
              }
            }
          }
          assertThat(s.denseRegisters()).as(where).isEqualTo(packed);
          HyperLogLog back = HyperLogLog.fromDenseRegisters(p, s.hashStrategy(), packed);
          assertThat(back.registers()).as(where).isEqualTo(expected);
          assertThat(back.isSparse()).isFalse();
          assertThat(back.martingaleEstimate()).isEmpty();
          if (!s.isSparse()) {
            assertThat(back).as(where).isEqualTo(s).hasSameHashCodeAs(s);
            assertThat(back.estimate()).as(where).isEqualTo(s.estimate());
          }
          // Downsized: the sketch built at the lower precision from the same keys, form included.
          for (int q = 4; q <= p; q += 2) {
            HyperLogLog direct = HyperLogLog.create(q);
            given.forEach(direct::addHash);
            HyperLogLog small = s.downsize(q);
            assertThat(small).as("%s downsized to %d", where, q).isEqualTo(direct);
            assertThat(small.estimate())
                .as("%s downsized to %d", where, q)
                .isEqualTo(direct.estimate());
          }
        }
      }
      // Sparse form only while smaller than the dense one (8 slots of 4 bytes below 48 bytes: from
      // p = 6 on), and gone by 6,000 keys.
      assertThat(wasDense).as("p=%d", p).isTrue();
      assertThat(HyperLogLog.create(p).isSparse()).as("p=%d", p).isEqualTo(p > 5);
    }
  }

  /**
   * A merge gives the sketch of the union of the keys, form included (sparse while the union's
   * entries fit the sparse table, as when adding them), for every pair of sizes around the switch
   * to dense, both ways round, from the same and from a higher precision; the martingale estimate
   * ends unless one side was empty. The kept-state check only compares registers across forms.
   */
  @org.junit.jupiter.api.Test
  void hyperLogLogMergesAreTheSketchOfTheUnion() {
    SplittableRandom r = new SplittableRandom(0x6d657267L);
    int[] sizes = {0, 3, 40, 70, 600, 5_000};
    for (int p : new int[] {6, 8, 12}) {
      for (int d : new int[] {0, 2}) {
        for (int na : sizes) {
          for (int nb : sizes) {
            HyperLogLog a = HyperLogLog.create(p);
            HyperLogLog b = HyperLogLog.create(p + d);
            HyperLogLog union = HyperLogLog.create(p);
            for (int j = 0; j < Math.max(na, nb); j++) {
              long x = nextHash(r);
              long y = nextHash(r);
              if (j < na) {
                a.addHash(x);
                union.addHash(x);
              }
              if (j < nb) {
                b.addHash(y);
                union.addHash(y);
              }
            }
            String where = "p=" + p + "+" + d + " " + na + " and " + nb;
            assertThat(a.isCompatible(b)).isTrue();
            HyperLogLog merged = a.copy().merge(b);
            assertThat(merged).as(where).isEqualTo(union);
            assertThat(merged.estimate()).as(where).isEqualTo(union.estimate());
            assertThat(merged.martingaleEstimate().isPresent())
                .as(where)
                .isEqualTo(na == 0 || nb == 0);
            if (d == 0) {
              assertThat(b.copy().merge(a)).as("%s, the other way", where).isEqualTo(union);
            }
          }
        }
      }
    }
    assertThat(HyperLogLog.create(8).isCompatible(HyperLogLog.create(6))).isFalse();
    assertThat(
            HyperLogLog.create(8)
                .isCompatible(HyperLogLog.create(8, io.github.probkit.hash.HashStrategy.xxh3(7))))
        .isFalse();
  }

  /**
   * UltraLogLog's registers ({@code u << 2 | seen(u - 1) << 1 | seen(u - 2)} of the update values
   * seen by each), add's answer and size, computed here from the hashes alone; equality, and every
   * bad precision refused naming its value.
   */
  @org.junit.jupiter.api.Test
  void ultraLogLogRegistersAnswersAndIdentityAreTheKeys() {
    for (int p : new int[] {4, 7, 12}) {
      SplittableRandom r = new SplittableRandom(0x756c6cL + p);
      UltraLogLog s = UltraLogLog.create(p);
      java.util.Map<Integer, java.util.TreeSet<Integer>> values = new java.util.HashMap<>();
      byte[] expected = new byte[1 << p];
      for (int n = 1; n <= 20_000; n++) {
        long h = nextHash(r);
        int i = (int) (h >>> (64 - p));
        java.util.TreeSet<Integer> v = values.computeIfAbsent(i, x -> new java.util.TreeSet<>());
        v.add(hllRank(h, p));
        int u = v.last();
        int reg = u << 2 | (v.contains(u - 1) ? 2 : 0) | (v.contains(u - 2) ? 1 : 0);
        boolean changes = reg != (expected[i] & 0xFF);
        expected[i] = (byte) reg;
        assertThat(s.addHash(h)).as("p=%d n=%d: add's answer", p, n).isEqualTo(changes);
        if (Long.bitCount(n) == 1) {
          assertThat(s.registers()).as("p=%d n=%d", p, n).isEqualTo(expected);
        }
      }
      assertThat(s.byteSize()).isEqualTo(1L << p);
      UltraLogLog c = s.copy();
      assertThat(c).isEqualTo(s).hasSameHashCodeAs(s).isNotEqualTo("a sketch");
      assertThat(s.toString()).contains("precision=" + p);
      assertThat(s.isCompatible(c)).isTrue();
      int free = 0;
      while ((expected[free] & 0xFF) >>> 2 == 65 - p) {
        free++;
      }
      // The largest update value, into a register that has not seen it.
      assertThat(c.addHash((long) free << (64 - p))).isTrue();
      assertThat(c).isNotEqualTo(s);
    }
    assertThat(UltraLogLog.create(8).isCompatible(UltraLogLog.create(6))).isFalse();
    assertThat(UltraLogLog.create(8))
        .isNotEqualTo(UltraLogLog.create(7))
        .isNotEqualTo(UltraLogLog.create(8, io.github.probkit.hash.HashStrategy.xxh3(7)));
    assertThat(
            UltraLogLog.create(8)
                .isCompatible(UltraLogLog.create(8, io.github.probkit.hash.HashStrategy.xxh3(7))))
        .isFalse();
    assertThat(UltraLogLog.create(4).precision()).isEqualTo(4);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> UltraLogLog.create(3))
        .hasMessageContaining("was 3");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> UltraLogLog.create(UltraLogLog.MAX_PRECISION + 1))
        .hasMessageContaining("was " + (UltraLogLog.MAX_PRECISION + 1));
    UltraLogLog ten = UltraLogLog.create(10);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> ten.downsize(11))
        .hasMessageContaining("[4, 10], was 11");
    assertThat(ten.downsize(4).precision()).isEqualTo(4);
  }

  /**
   * Equality is the precision, hashing, form and registers; every bad argument is refused naming
   * its value.
   */
  @org.junit.jupiter.api.Test
  void hyperLogLogIdentityAndLimits() throws IOException {
    HyperLogLog a = HyperLogLog.create(10);
    HyperLogLog b = HyperLogLog.create(10);
    for (long i = 0; i < 50; i++) {
      a.addHash(i * 0x9E3779B97F4A7C15L);
      b.addHash((49 - i) * 0x9E3779B97F4A7C15L);
    }
    assertThat(a).isEqualTo(b).hasSameHashCodeAs(b).isNotEqualTo("a sketch");
    assertThat(a.toString()).contains("precision=10", "sparse", "entries=50");
    assertThat(Kind.HLL.read(bytes(a))).isEqualTo(a);
    HyperLogLog other = b.copy();
    assertThat(other.addHash(-1L)).isTrue(); // the last register, which no key of a set
    assertThat(other).isNotEqualTo(a);
    assertThat(HyperLogLog.create(11)).isNotEqualTo(HyperLogLog.create(10));
    assertThat(HyperLogLog.create(10, io.github.probkit.hash.HashStrategy.xxh3(7)))
        .isNotEqualTo(HyperLogLog.create(10));
    HyperLogLog dense = a.copy();
    for (long i = 0; i < 2_000; i++) {
      dense.addHash(i * 0xC2B2AE3D27D4EB4FL);
    }
    assertThat(dense.toString()).contains("precision=10", "dense").doesNotContain("sparse");
    // A sparse and a dense sketch are not equal, even with the same registers.
    HyperLogLog asDense = HyperLogLog.fromDenseRegisters(10, a.hashStrategy(), a.denseRegisters());
    assertThat(asDense.registers()).isEqualTo(a.registers());
    assertThat(asDense).isNotEqualTo(a);
    assertThat(HyperLogLog.create(10))
        .isNotEqualTo(HyperLogLog.fromDenseRegisters(10, a.hashStrategy(), new byte[768]));

    assertThat(HyperLogLog.create(4).precision()).isEqualTo(4);
    assertThat(HyperLogLog.create(18).precision()).isEqualTo(18);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> HyperLogLog.create(3))
        .hasMessageContaining("[4, 18], was 3");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> HyperLogLog.create(19))
        .hasMessageContaining("[4, 18], was 19");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> HyperLogLog.denseBytes(19))
        .hasMessageContaining("was 19");
    assertThat(HyperLogLog.denseBytes(18)).isEqualTo(6 * (1 << 18) / 8);
    assertThat(a.downsize(4).precision()).isEqualTo(4);
    assertThat(a.downsize(10)).isEqualTo(a);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> a.downsize(11))
        .hasMessageContaining("[4, 10], was 11");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> a.downsize(3))
        .hasMessageContaining("[4, 10], was 3");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> HyperLogLog.fromDenseRegisters(10, a.hashStrategy(), new byte[767]))
        .hasMessageContaining("768 bytes at precision 10, were 767");
    byte[] high = new byte[768];
    high[6] = 56; // register 8: bits 48..53, the low six of byte 6; at most 65 - 10
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> HyperLogLog.fromDenseRegisters(10, a.hashStrategy(), high))
        .hasMessageContaining("register 8 is 56, must be at most 55 at precision 10");
    high[6] = 55;
    assertThat(HyperLogLog.fromDenseRegisters(10, a.hashStrategy(), high).registers()[8])
        .isEqualTo(55);
  }

  private static void check(Kind kind, Tracked t, long seed, String where) throws IOException {
    CardinalitySketch live = t.sketch;
    byte[] bytes = bytes(live);
    CardinalitySketch read = kind.read(bytes);
    assertThat(live.estimate()).as(where).isEqualTo(read.estimate());
    assertThat(live.martingaleEstimate()).as(where).isEqualTo(read.martingaleEstimate());
    assertThat(live.isEmpty()).as(where).isEqualTo(read.isEmpty()).isEqualTo(t.hashes.isEmpty());
    assertThat(live.byteSize()).as(where).isEqualTo(read.byteSize());
    assertThat(registers(live)).as(where).isEqualTo(registers(read));

    // The registers of a sketch given the same keys one by one, at the same precision; and, where
    // it has the same form (HyperLogLog sparse or dense), the same estimate.
    CardinalitySketch direct = kind.create(live.precision());
    t.hashes.forEach(direct::addHash);
    assertThat(registers(live)).as(where).isEqualTo(registers(direct));
    if (!(live instanceof HyperLogLog)
        || ((HyperLogLog) live).isSparse() == ((HyperLogLog) direct).isSparse()) {
      assertThat(live.estimate()).as(where).isEqualTo(direct.estimate());
    }

    // More keys into both: a stale change sum or change probability shows in the martingale, stale
    // inputs in the estimate, and each add must report a change alike.
    SplittableRandom r = new SplittableRandom(seed);
    CardinalitySketch a = live.copy();
    for (int j = 0; j < 300; j++) {
      long h = nextHash(r);
      assertThat(a.addHash(h)).as("%s, add %d more", where, j).isEqualTo(read.addHash(h));
    }
    assertThat(a.estimate()).as("%s, then 300 more", where).isEqualTo(read.estimate());
    // The live sketch updates its change sum (probability) add by add, the one read sums it afresh:
    // they may differ in the last bits, a stale one by far more.
    assertThat(a.martingaleEstimate().isPresent())
        .as("%s, then 300 more", where)
        .isEqualTo(read.martingaleEstimate().isPresent());
    if (a.martingaleEstimate().isPresent()) {
      assertThat(a.martingaleEstimate().getAsDouble())
          .as("%s, then 300 more", where)
          .isCloseTo(read.martingaleEstimate().getAsDouble(), withinPercentage(1e-9));
    }
    assertThat(registers(a)).as("%s, then 300 more", where).isEqualTo(registers(read));
  }
}
