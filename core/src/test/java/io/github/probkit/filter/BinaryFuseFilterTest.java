package io.github.probkit.filter;

import static io.github.probkit.filter.FilterProbes.falsePositives;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.GoldenFiles;
import io.github.probkit.filter.BinaryFuseFilter.FingerprintBits;
import io.github.probkit.hash.HashStrategy;
import io.github.probkit.io.SketchFormatException;
import io.github.probkit.testing.Binomial;
import io.github.probkit.testing.Keys;
import io.github.probkit.testing.Threads;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class BinaryFuseFilterTest {

  private static byte[] bytes(MembershipFilter f) throws IOException {
    return GoldenFiles.bytes(f::writeTo);
  }

  private static long[] randomLongs(int n, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    long[] out = new long[n];
    for (int i = 0; i < n; i++) {
      out[i] = r.nextLong();
    }
    return out;
  }

  @Test
  void fingerprintWidthFollowsTheRate() {
    assertThat(FingerprintBits.forFpp(0.5)).isEqualTo(FingerprintBits.BITS_8);
    assertThat(FingerprintBits.forFpp(1.0 / 256)).isEqualTo(FingerprintBits.BITS_8);
    assertThat(FingerprintBits.forFpp(0.0039)).isEqualTo(FingerprintBits.BITS_16);
    assertThat(FingerprintBits.forFpp(1.0 / 65536)).isEqualTo(FingerprintBits.BITS_16);
    assertThatThrownBy(() -> FingerprintBits.forFpp(1e-5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("2^-16")
        .hasMessageContaining("1.0E-5");
    assertThat(FingerprintBits.BITS_16.fpp()).isEqualTo(1.0 / 65536);
  }

  @Test
  void duplicateKeysAreStoredOnce() {
    List<byte[]> distinct = Keys.randomBytes(10_000, 0xd0b1e5L);
    List<byte[]> repeated = new ArrayList<>();
    for (int copy = 0; copy < 3; copy++) {
      for (byte[] k : distinct) {
        repeated.add(k.clone());
      }
    }
    Collections.shuffle(repeated, new java.util.Random(0x5eed0101L));
    BinaryFuseFilter f = BinaryFuseFilter.create(repeated, FingerprintBits.BITS_8);
    assertThat(f.keyCount()).isEqualTo(10_000);
    for (byte[] k : distinct) {
      assertThat(f.mightContain(k)).isTrue();
    }
    // Sized for the distinct keys, not the 30,000 given.
    assertThat(f.byteSize())
        .isEqualTo(BinaryFuseFilter.create(distinct, FingerprintBits.BITS_8).byteSize());
  }

  @Test
  void oneKeyRepeatedAMillionTimes() {
    long[] same = new long[1_000_000];
    java.util.Arrays.fill(same, 7L);
    BinaryFuseFilter f = BinaryFuseFilter.ofLongs(same, FingerprintBits.BITS_8);
    assertThat(f.keyCount()).isEqualTo(1);
    assertThat(f.mightContain(7L)).isTrue();
    assertThat(f.byteSize()).isLessThan(100);
  }

  @Test
  void sequentialKeysBuildAndKeepTheirRate() {
    int n = 200_000;
    long[] seq = new long[n];
    for (int i = 0; i < n; i++) {
      seq[i] = i;
    }
    BinaryFuseFilter longs = BinaryFuseFilter.ofLongs(seq, FingerprintBits.BITS_8);
    for (long i = 0; i < n; i++) {
      assertThat(longs.mightContain(i)).isTrue();
    }
    int probes = 1_000_000;
    long[] ok = Binomial.interval(probes, 1.0 / 256, 0.999);
    assertThat(falsePositives(longs, n, probes)).isBetween(ok[0], ok[1]);

    List<String> strings = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      strings.add("user:" + (1_000_000_000L + i));
    }
    BinaryFuseFilter s = BinaryFuseFilter.ofStrings(strings, FingerprintBits.BITS_8);
    for (String k : strings) {
      assertThat(s.mightContain(k)).isTrue();
    }
  }

  @Test
  void tinySetsOfOneToTenKeys() throws IOException {
    for (int n = 1; n <= 10; n++) {
      for (FingerprintBits bits : FingerprintBits.values()) {
        long[] keys = randomLongs(n, 0x7157L + n);
        BinaryFuseFilter f = BinaryFuseFilter.ofLongs(keys, bits);
        assertThat(f.keyCount()).isEqualTo(n);
        BinaryFuseFilter g =
            (BinaryFuseFilter) Filters.readFrom(new ByteArrayInputStream(bytes(f)));
        assertThat(g).isEqualTo(f);
        for (long k : keys) {
          assertThat(f.mightContain(k)).as("n = %d, %s", n, bits).isTrue();
          assertThat(g.mightContain(k)).isTrue();
        }
      }
    }
  }

  @Test
  void emptySetAnswersAbsentToEverything() throws IOException {
    for (FingerprintBits bits : FingerprintBits.values()) {
      BinaryFuseFilter f = BinaryFuseFilter.create(List.of(), bits);
      assertThat(f.keyCount()).isZero();
      assertThat(f.bitSize()).isZero();
      assertThat(f.byteSize()).isZero();
      assertThat(f.expectedFpp()).isZero();
      assertThat(falsePositives(f, 0, 10_000)).isZero();
      assertThat(f.mightContain("")).isFalse();
      MembershipFilter g = Filters.readFrom(new ByteArrayInputStream(bytes(f)));
      assertThat(g).isEqualTo(f);
      assertThat(g.mightContain(0L)).isFalse();
    }
  }

  @Test
  void aMillionKeysTakeAboutNineBitsPerKeyAtEightBits() {
    int n = 1_000_000;
    long[] keys = randomLongs(n, 0x1e6L);
    BinaryFuseFilter f = BinaryFuseFilter.ofLongs(keys, FingerprintBits.BITS_8);
    // Size factor 1.125 for n >= 10^6 [Graf & Lemire], plus at most two segments of rounding:
    // 1.125 * 8 = 9.0 bits/key, within 1.135x of the 8-bit lower bound.
    assertThat(f.bitsPerKey()).isBetween(9.0, 1.135 * 8);
    for (int i = 0; i < n; i += 97) {
      assertThat(f.mightContain(keys[i])).isTrue();
    }
    int probes = 2_000_000;
    long[] ok = Binomial.interval(probes, 1.0 / 256, 0.999);
    // Absent: SplittableRandom with another seed repeats none of these longs in practice; the
    // probes are offsets far from them.
    assertThat(falsePositives(f, Long.MIN_VALUE, probes)).isBetween(ok[0], ok[1]);
  }

  @Test
  void sixteenBitFingerprintsHaveRateTwoToTheMinusSixteen() {
    int n = 100_000;
    BinaryFuseFilter f =
        BinaryFuseFilter.ofLongs(randomLongs(n, 0x16b175L), FingerprintBits.BITS_16);
    assertThat(f.bitsPerKey()).isBetween(16.0, 1.25 * 16);
    int probes = 4_000_000;
    long[] ok = Binomial.interval(probes, 1.0 / 65536, 0.999);
    assertThat(falsePositives(f, Long.MIN_VALUE, probes)).isBetween(ok[0], ok[1]);
  }

  @Test
  void sameKeysGiveTheSameBytesInAnyOrderAndFromHashes() throws IOException {
    List<byte[]> keys = Keys.randomBytes(5_000, 0x0dd5L);
    List<byte[]> shuffled = new ArrayList<>(keys);
    Collections.shuffle(shuffled, new java.util.Random(0x5eed0102L));
    byte[] a = bytes(BinaryFuseFilter.create(keys, FingerprintBits.BITS_16));
    assertThat(bytes(BinaryFuseFilter.create(shuffled, FingerprintBits.BITS_16))).isEqualTo(a);
    long[] hashes = new long[keys.size()];
    for (int i = 0; i < hashes.length; i++) {
      hashes[i] = HashStrategy.xxh3().hash64(keys.get(i));
    }
    long[] copy = hashes.clone();
    assertThat(
            bytes(
                BinaryFuseFilter.fromHashes(hashes, FingerprintBits.BITS_16, HashStrategy.xxh3())))
        .isEqualTo(a);
    assertThat(hashes).as("fromHashes leaves its argument alone").isEqualTo(copy);
  }

  @Test
  void fromHashesWithDuplicatesLeavesItsArgumentAlone() {
    // Duplicates make the first attempt fail and the build deduplicate: on a copy, not the
    // argument.
    long[] hashes = new long[4_000];
    SplittableRandom r = new SplittableRandom(0xd0b1edL);
    for (int i = 0; i < hashes.length; i += 2) {
      hashes[i] = hashes[i + 1] = r.nextLong();
    }
    long[] copy = hashes.clone();
    BinaryFuseFilter f =
        BinaryFuseFilter.fromHashes(hashes, FingerprintBits.BITS_8, HashStrategy.xxh3());
    assertThat(hashes).isEqualTo(copy);
    assertThat(f.keyCount()).isEqualTo(hashes.length / 2);
  }

  @Test
  void otherHashStrategiesWork() {
    int n = 20_000;
    List<byte[]> keys = Keys.sequential("k", 0, n);
    BinaryFuseFilter f =
        BinaryFuseFilter.create(keys, FingerprintBits.BITS_8, HashStrategy.fnv1a());
    assertThat(f.hashStrategy()).isEqualTo(HashStrategy.fnv1a());
    for (byte[] k : keys) {
      assertThat(f.mightContain(k)).isTrue();
    }
    int probes = 200_000;
    long fp = 0;
    for (byte[] k : Keys.sequential("q", 0, probes)) {
      fp += f.mightContain(k) ? 1 : 0;
    }
    assertThat(fp).isLessThanOrEqualTo(Binomial.upper(probes, 1.0 / 256, 0.999));
  }

  @Test
  void goldenFilesRead() throws IOException {
    for (FingerprintBits bits : FingerprintBits.values()) {
      for (BinaryFuseFilter.Derivation d : BinaryFuseFilter.Derivation.values()) {
        goldenFileReads(bits, d);
      }
    }
  }

  private static void goldenFileReads(FingerprintBits bits, BinaryFuseFilter.Derivation d)
      throws IOException {
    String name =
        "binary-fuse"
            + bits.bits()
            + (d == BinaryFuseFilter.Derivation.V1 ? "" : "-derivation2")
            + "-v1.bin";
    byte[] golden = GoldenFiles.golden(name);
    // Written by io.github.probkit.GoldenFiles: the keys "golden-0" .. "golden-999".
    BinaryFuseFilter f = BinaryFuseFilter.readFrom(new ByteArrayInputStream(golden));
    assertThat(f.derivation()).isEqualTo(d);
    // Derivation 2 appends one parameter byte: 25 or 26 parameter bytes (offset 16, u32).
    assertThat(ByteBuffer.wrap(golden).order(ByteOrder.LITTLE_ENDIAN).getInt(16))
        .isEqualTo(24 + d.number());
    assertThat(f.fingerprintBits()).isEqualTo(bits);
    assertThat(f.keyCount()).isEqualTo(1000);
    assertThat(f.hashStrategy()).isEqualTo(HashStrategy.xxh3());
    // n = 1000: segments of 2^floor(ln 1000 / ln 3.33 + 2.25) = 128 slots, a table of
    // 1000 * (0.875 + 0.25 * ln 10^6 / ln 1000) = 1375 slots: 11 segments, 9 of them first ones.
    assertThat(f.segmentLength()).isEqualTo(128);
    assertThat(f.segmentCount()).isEqualTo(9);
    GoldenFiles.assertHoldsTheGoldenKeys(f, 100_000, bits.fpp());
    assertThat(bytes(f)).isEqualTo(golden);
  }

  @Test
  void corruptParametersAreNamed() throws IOException {
    byte[] b = bytes(BinaryFuseFilter.ofLongs(new long[] {1, 2, 3}, FingerprintBits.BITS_8));
    // Parameters start at byte 28: fingerprintBits (u8), segmentLength (u32), segmentCount (u32),
    // keys (u64), seed (u64).
    byte[] badBits = b.clone();
    badBits[28] = 12;
    assertThatThrownBy(() -> Filters.readFrom(new ByteArrayInputStream(badBits)))
        .isInstanceOf(SketchFormatException.class)
        .hasMessageContaining("'fingerprintBits' is 12");
    byte[] badLength = b.clone();
    ByteBuffer.wrap(badLength).order(ByteOrder.LITTLE_ENDIAN).putInt(29, 48);
    assertThatThrownBy(() -> Filters.readFrom(new ByteArrayInputStream(badLength)))
        .isInstanceOf(SketchFormatException.class)
        .hasMessageContaining("'segmentLength' is 48");
    byte[] badCount = b.clone();
    ByteBuffer.wrap(badCount).order(ByteOrder.LITTLE_ENDIAN).putInt(33, Integer.MAX_VALUE);
    assertThatThrownBy(() -> Filters.readFrom(new ByteArrayInputStream(badCount)))
        .isInstanceOf(SketchFormatException.class)
        .hasMessageContaining("'segmentCount' is 2147483647");
    byte[] badKeys = b.clone();
    ByteBuffer.wrap(badKeys).order(ByteOrder.LITTLE_ENDIAN).putLong(37, 1L << 40);
    assertThatThrownBy(() -> Filters.readFrom(new ByteArrayInputStream(badKeys)))
        .isInstanceOf(SketchFormatException.class)
        .hasMessageContaining("'keys' is 1099511627776");
  }

  @Test
  void isNotMutable() {
    MembershipFilter f = BinaryFuseFilter.ofLongs(new long[] {1}, FingerprintBits.BITS_8);
    assertThat(f).isNotInstanceOf(MutableFilter.class);
    assertThat(f.type().label()).isEqualTo("binary-fuse");
  }

  @Test
  void concurrentQueriesGiveTheSerialAnswers() throws Exception {
    List<byte[]> keys = Keys.sequential("shared-", 0, 50_000);
    BinaryFuseFilter f = BinaryFuseFilter.create(keys, FingerprintBits.BITS_8);
    int probes = 50_000;
    boolean[] serial = new boolean[probes];
    for (int i = 0; i < probes; i++) {
      serial[i] = f.mightContain((long) i);
    }
    Threads.run(
        Threads.COUNT,
        t -> {
          for (byte[] k : keys) {
            if (!f.mightContain(k)) {
              throw new AssertionError(
                  new String(k, java.nio.charset.StandardCharsets.UTF_8) + " absent");
            }
          }
          for (int i = 0; i < probes; i++) {
            if (f.mightContain((long) i) != serial[i]) {
              throw new AssertionError("thread " + t + " answered differently for " + i);
            }
          }
        });
  }
}
