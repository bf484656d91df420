package io.github.probkit.io;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.GoldenFiles;
import io.github.probkit.cardinality.HyperLogLog;
import io.github.probkit.cardinality.UltraLogLog;
import io.github.probkit.filter.BinaryFuseFilter;
import io.github.probkit.filter.BinaryFuseFilter.FingerprintBits;
import io.github.probkit.filter.BlockedBloomFilter;
import io.github.probkit.filter.BloomFilter;
import io.github.probkit.filter.CountingBloomFilter;
import io.github.probkit.filter.CuckooFilter;
import io.github.probkit.filter.ScalableBloomFilter;
import io.github.probkit.frequency.CountMinSketch;
import io.github.probkit.frequency.HeavyHitters;
import io.github.probkit.hash.HashStrategy;
import io.github.probkit.testing.Bytes;
import io.github.probkit.testing.Keys;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Every reader against hostile bytes: valid files with bits flipped, truncated, extended, length
 * and parameter fields set to huge or negative values, type and version bytes changed — half of
 * them with the checksum recomputed, so that the mutation reaches the structure's own validation
 * instead of stopping at the CRC. Every input must end in a valid structure or a
 * SketchFormatException: never another exception, and never an allocation out of proportion to the
 * input.
 */
class ReaderMutationTest {
  private static final int MUTATIONS_PER_TYPE = 10_000;

  /** A structure type, its reader and a few valid serialized examples. */
  static final class Sample {
    final String name;
    final ReaderContract.Reader reader;
    final List<byte[]> files;

    Sample(String name, ReaderContract.Reader reader, List<byte[]> files) {
      this.name = name;
      this.reader = reader;
      this.files = files;
    }
  }

  static byte[] bytes(GoldenFiles.Writable w) {
    try {
      return GoldenFiles.bytes(w);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  static List<Sample> samples() {
    List<Sample> s = new ArrayList<>();
    BloomFilter small = BloomFilter.withBits(16, 2, HashStrategy.fnv1a());
    small.add("asha");
    BloomFilter mid = BloomFilter.create(500, 0.01);
    Keys.sequential("k", 0, 500).forEach(mid::add);
    s.add(
        new Sample(
            "bloom", BloomFilter::readFrom, List.of(bytes(small::writeTo), bytes(mid::writeTo))));

    CountingBloomFilter counting = CountingBloomFilter.create(300, 0.01);
    Keys.sequential("c", 0, 300).forEach(counting::add);
    s.add(new Sample("counting", CountingBloomFilter::readFrom, List.of(bytes(counting::writeTo))));

    CuckooFilter cuckoo = CuckooFilter.create(300, 0.01);
    Keys.sequential("q", 0, 250).forEach(cuckoo::add);
    s.add(new Sample("cuckoo", CuckooFilter::readFrom, List.of(bytes(cuckoo::writeTo))));

    ScalableBloomFilter scalable = ScalableBloomFilter.create(50, 0.01);
    Keys.sequential("s", 0, 300).forEach(scalable::add);
    s.add(new Sample("scalable", ScalableBloomFilter::readFrom, List.of(bytes(scalable::writeTo))));

    BlockedBloomFilter blocked = BlockedBloomFilter.create(300, 0.01);
    Keys.sequential("b", 0, 300).forEach(blocked::add);
    s.add(new Sample("blocked", BlockedBloomFilter::readFrom, List.of(bytes(blocked::writeTo))));

    BinaryFuseFilter fuse8 =
        BinaryFuseFilter.create(Keys.sequential("f", 0, 300), FingerprintBits.BITS_8);
    BinaryFuseFilter fuse16 =
        BinaryFuseFilter.create(Keys.sequential("f", 0, 40), FingerprintBits.BITS_16);
    BinaryFuseFilter empty = BinaryFuseFilter.create(List.of(), FingerprintBits.BITS_16);
    // Derivation 1 (25 parameter bytes), as files written before derivation 2 hold.
    long[] hashes = {1, 2, 3, 5, 8, 13, 21, 34};
    BinaryFuseFilter fuseV1 =
        BinaryFuseFilter.fromHashes(
            hashes,
            hashes.length,
            FingerprintBits.BITS_8,
            HashStrategy.xxh3(),
            BinaryFuseFilter.Derivation.V1);
    s.add(
        new Sample(
            "binary-fuse",
            BinaryFuseFilter::readFrom,
            List.of(
                bytes(fuse8::writeTo),
                bytes(fuse16::writeTo),
                bytes(empty::writeTo),
                bytes(fuseV1::writeTo))));

    CountMinSketch cms = CountMinSketch.withDimensions(40, 3);
    CountMinSketch conservative =
        CountMinSketch.withDimensions(16, 2, HashStrategy.fnv1a()).withConservativeUpdate();
    for (int i = 0; i < 500; i++) {
      cms.add("t" + (i % 37));
      conservative.add("t" + (i % 11));
    }
    s.add(
        new Sample(
            "count-min",
            CountMinSketch::readFrom,
            List.of(bytes(cms::writeTo), bytes(conservative::writeTo))));

    HeavyHitters top = HeavyHitters.withCapacity(20);
    for (int i = 0; i < 500; i++) {
      top.add("h" + (i * i % 53));
    }
    s.add(new Sample("heavy-hitters", HeavyHitters::readFrom, List.of(bytes(top::writeTo))));

    HyperLogLog sparse = HyperLogLog.create(10);
    Keys.sequential("h", 0, 60).forEach(sparse::add);
    HyperLogLog dense = HyperLogLog.create(6);
    Keys.sequential("h", 0, 300).forEach(dense::add);
    HyperLogLog merged = HyperLogLog.create(6).merge(dense).merge(sparse);
    s.add(
        new Sample(
            "hyperloglog",
            HyperLogLog::readFrom,
            List.of(bytes(sparse::writeTo), bytes(dense::writeTo), bytes(merged::writeTo))));
    UltraLogLog ull = UltraLogLog.create(6);
    Keys.sequential("u", 0, 300).forEach(ull::add);
    UltraLogLog ullMerged = UltraLogLog.create(4).merge(ull).merge(ull.downsize(5));
    s.add(
        new Sample(
            "ultraloglog",
            UltraLogLog::readFrom,
            List.of(bytes(ull::writeTo), bytes(ullMerged::writeTo))));
    return s;
  }

  @TestFactory
  Stream<DynamicTest> everyReaderSurvivesMutatedInput() {
    return samples().stream()
        .map(sample -> DynamicTest.dynamicTest(sample.name, () -> fuzz(sample)));
  }

  private static void fuzz(Sample sample) {
    SplittableRandom r = new SplittableRandom(0x0ddba11cafef00dL ^ sample.name.hashCode());
    int valid = 0;
    for (int i = 0; i < MUTATIONS_PER_TYPE; i++) {
      byte[] original = sample.files.get(i % sample.files.size());
      byte[] input = mutate(original, r);
      boolean crcFixed = r.nextBoolean() && input.length >= 4;
      if (crcFixed) {
        input = Bytes.withCrc(input);
      }
      Object read = ReaderContract.check(sample.name + " mutation " + i, sample.reader, input);
      if (read != null) {
        valid++;
        // Without a recomputed checksum, any change to the file's own bytes (a cut, or a byte
        // changed within its length; bytes appended after it are not part of it) must be caught,
        // by the CRC32C if by nothing else: a reader that skips the checksum fails here.
        assertThat(crcFixed || !changedWithin(original, input))
            .as(
                "%s mutation %d changed the file, kept its checksum, and was read: %s",
                sample.name, i, ReaderContract.hex(input))
            .isTrue();
      }
    }
    // Some mutations must survive (changes confined to unused fields or with fixed checksums),
    // or the mutator is not exercising the happy path at all.
    assertThat(valid).isPositive();
  }

  /**
   * Whether {@code input} is shorter than {@code original} or differs from it within its length.
   */
  static boolean changedWithin(byte[] original, byte[] input) {
    return input.length < original.length
        || !java.util.Arrays.equals(original, 0, original.length, input, 0, original.length);
  }

  static byte[] mutate(byte[] original, SplittableRandom r) {
    byte[] b = original.clone();
    ByteBuffer le = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
    long[] extremes = {
      0,
      1,
      -1,
      Integer.MAX_VALUE,
      Integer.MIN_VALUE,
      Long.MAX_VALUE,
      Long.MIN_VALUE,
      1L << 31,
      1L << 32,
      1L << 40,
      1L << 62
    };
    switch (r.nextInt(9)) {
      case 0: // flip 1..4 bits
        for (int n = 1 + r.nextInt(4); n > 0; n--) {
          int bit = r.nextInt(8 * b.length);
          b[bit >>> 3] ^= (byte) (1 << (bit & 7));
        }
        return b;
      case 1: // truncate
        return java.util.Arrays.copyOf(b, r.nextInt(b.length));
      case 2:
        { // extend with random bytes
          byte[] e = java.util.Arrays.copyOf(b, b.length + 1 + r.nextInt(64));
          for (int i = b.length; i < e.length; i++) {
            e[i] = (byte) r.nextInt(256);
          }
          return e;
        }
      case 3: // the parameter length
        le.putInt(16, (int) extremes[r.nextInt(extremes.length)]);
        return b;
      case 4: // the payload length
        le.putLong(20, extremes[r.nextInt(extremes.length)]);
        return b;
      case 5: // type, version, algorithm or flags byte
        b[4 + r.nextInt(4)] = (byte) r.nextInt(256);
        return b;
      case 6:
        { // a 4- or 8-byte parameter field set to an extreme
          int params = le.getInt(16);
          if (params >= 4) {
            int at = 28 + 4 * r.nextInt(params / 4);
            long v = extremes[r.nextInt(extremes.length)];
            if (at + 8 <= 28 + params && r.nextBoolean()) {
              le.putLong(at, v);
            } else {
              le.putInt(at, (int) v);
            }
          }
          return b;
        }
      case 7:
        { // parameter field and payload length changed together, consistently large
          int params = le.getInt(16);
          if (params >= 8) {
            le.putLong(28, 1L << (20 + r.nextInt(20)));
          }
          le.putLong(20, 1L << (17 + r.nextInt(20)));
          return b;
        }
      default:
        { // random bytes anywhere
          for (int n = 1 + r.nextInt(8); n > 0; n--) {
            b[r.nextInt(b.length)] = (byte) r.nextInt(256);
          }
          return b;
        }
    }
  }
}
