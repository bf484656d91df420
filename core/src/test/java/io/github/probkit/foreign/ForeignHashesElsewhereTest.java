package io.github.probkit.foreign;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.cardinality.HyperLogLog;
import io.github.probkit.cardinality.UltraLogLog;
import io.github.probkit.filter.AgePartitionedBloomFilter;
import io.github.probkit.filter.BinaryFuseFilter;
import io.github.probkit.filter.BinaryFuseFilter.FingerprintBits;
import io.github.probkit.filter.BlockedBloomFilter;
import io.github.probkit.filter.BloomFilter;
import io.github.probkit.filter.CountingBloomFilter;
import io.github.probkit.filter.CuckooFilter;
import io.github.probkit.filter.Filters;
import io.github.probkit.filter.MappedFilter;
import io.github.probkit.filter.MembershipFilter;
import io.github.probkit.filter.ScalableBloomFilter;
import io.github.probkit.filter.SplitBlockBloomFilter;
import io.github.probkit.frequency.CountMinSketch;
import io.github.probkit.frequency.HeavyHitters;
import io.github.probkit.hash.HashAlgorithm;
import io.github.probkit.hash.HashStrategy;
import io.github.probkit.io.SketchFormatException;
import io.github.probkit.io.StructureType;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Guava's and Spark's hashes (ids 6, 7, 8) outside the Bloom filter they exist for. Each structure
 * either answers as it promises with one (blocked and binary fuse filters with guava and guava32:
 * every added key present, whole, read back and mapped, at the rate xxh3 gives) or refuses it when
 * created and when a file's header names it, in one line naming the structure and the hash.
 */
class ForeignHashesElsewhereTest {
  private static final List<HashStrategy> FOREIGN =
      List.of(HashStrategy.guava(), HashStrategy.guavaMitz32(), HashStrategy.spark());

  @TempDir Path dir;

  /** Distinct words: the dictionary's, then generated ones up to 60,000. */
  private static List<String> words() throws IOException {
    Set<String> keys = new LinkedHashSet<>();
    Path dict = Path.of("/usr/share/dict/words");
    if (Files.isReadable(dict)) {
      keys.addAll(Files.readAllLines(dict, StandardCharsets.UTF_8));
    }
    for (int i = 0; keys.size() < 60_000; i++) {
      keys.add("ключ-" + i);
    }
    return new ArrayList<>(keys);
  }

  private static byte[] bytes(MembershipFilter f) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    f.writeTo(out);
    return out.toByteArray();
  }

  @Test
  void blockedAndFuseFiltersWithGuavasHashesLoseNoKey() throws IOException {
    List<String> words = words();
    List<String> added = new ArrayList<>();
    List<String> absent = new ArrayList<>();
    for (int i = 0; i < words.size(); i++) {
      (i % 2 == 0 ? added : absent).add(words.get(i));
    }
    for (HashStrategy h : List.of(HashStrategy.guava(), HashStrategy.guavaMitz32())) {
      // Sized for the words and as many longs.
      BlockedBloomFilter blocked = BlockedBloomFilter.create(2L * added.size(), 0.01, h);
      long[] longs = new long[added.size()];
      long[] hashes = new long[added.size()];
      for (int i = 0; i < added.size(); i++) {
        blocked.add(added.get(i));
        longs[i] = added.get(i).hashCode() * 0x9E3779B97F4A7C15L + i;
        hashes[i] = h.hash64(longs[i]);
      }
      // The batch path, as the command line adds: hashes, mixed by the filter.
      blocked.addAllHashes(hashes, 0, hashes.length);
      BinaryFuseFilter fuse = BinaryFuseFilter.ofStrings(added, FingerprintBits.BITS_16, h);
      Path blockedFile = dir.resolve("blocked-" + h.algorithm().label());
      Files.write(blockedFile, bytes(blocked));
      List<MembershipFilter> readers =
          List.of(
              blocked,
              Filters.readFrom(new ByteArrayInputStream(bytes(blocked))),
              fuse,
              Filters.readFrom(new ByteArrayInputStream(bytes(fuse))));
      try (MappedFilter mapped = MappedFilter.open(blockedFile)) {
        assertAllPresent(mapped, added, h);
        for (long k : longs) {
          assertThat(mapped.mightContain(k)).as("%s mapped long %d", h, k).isTrue();
        }
      }
      for (MembershipFilter f : readers) {
        assertThat(f.hashStrategy()).isEqualTo(h);
        assertAllPresent(f, added, h);
      }
      for (int i = 0; i < 2; i++) {
        MembershipFilter f = readers.get(i);
        boolean[] present = new boolean[hashes.length];
        assertThat(f.mightContainAllHashes(hashes, 0, hashes.length, present))
            .isEqualTo(hashes.length);
        for (long k : longs) {
          assertThat(f.mightContain(k)).as("%s long %d", h, k).isTrue();
        }
      }
      assertThat(readers.get(1)).isEqualTo(blocked);
      assertThat(readers.get(3)).isEqualTo(fuse);
      // As accurate as with xxh3: a hash the filters used badly would show here.
      BlockedBloomFilter reference = BlockedBloomFilter.create(2L * added.size(), 0.01);
      added.forEach(reference::add);
      reference.addAll(longs, 0, longs.length);
      BinaryFuseFilter fuseReference = BinaryFuseFilter.ofStrings(added, FingerprintBits.BITS_16);
      assertThat(falsePositives(blocked, absent))
          .as("%s blocked", h)
          .isLessThan(2 * falsePositives(reference, absent) + 50);
      assertThat(falsePositives(fuse, absent))
          .as("%s fuse", h)
          .isLessThan(2 * falsePositives(fuseReference, absent) + 10);
      assertProbkitRedisPositions(h, added);
    }
  }

  private static void assertAllPresent(MembershipFilter f, List<String> keys, HashStrategy h) {
    int missing = 0;
    for (String k : keys) {
      missing += f.mightContain(k) ? 0 : 1;
    }
    assertThat(missing).as("%s %s: added keys answered absent", h, f).isZero();
  }

  private static int falsePositives(MembershipFilter f, List<String> absent) {
    int n = 0;
    for (String k : absent) {
      n += f.mightContain(k) ? 1 : 0;
    }
    return n;
  }

  /**
   * probkit-redis sets the bits {@link BlockedBloomFilter#positions} gives: they must be the bits
   * the library's filter sets, or a filter moved between them would lose keys.
   */
  private static void assertProbkitRedisPositions(HashStrategy h, List<String> keys)
      throws IOException {
    BlockedBloomFilter f = BlockedBloomFilter.withBits(1 << 16, 6, h);
    long[] words = new long[(1 << 16) / 64];
    long[] pos = new long[6];
    for (String k : keys.subList(0, 3_000)) {
      f.add(k);
      byte[] b = k.getBytes(StandardCharsets.UTF_8);
      BlockedBloomFilter.positions(h, 1 << 16, 6, b, 0, b.length, pos);
      for (long p : pos) {
        words[(int) (p >>> 6)] |= 1L << p;
      }
    }
    byte[] file = bytes(f);
    ByteBuffer payload = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
    int start = 28 + payload.getInt(16);
    for (int i = 0; i < words.length; i++) {
      assertThat(payload.getLong(start + 8 * i)).as("%s word %d", h, i).isEqualTo(words[i]);
    }
  }

  /** One line naming the structure and the hash. */
  private static void assertRefused(Runnable create, String structure, HashStrategy h) {
    assertThatThrownBy(create::run)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(structure)
        .hasMessageContaining(h.algorithm().label() + " hash")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
  }

  @Test
  void everyOtherStructureRefusesThemWhenCreated() throws IOException {
    List<String> some = words().subList(0, 100);
    for (HashStrategy h : FOREIGN) {
      assertRefused(
          () -> ScalableBloomFilter.create(1000, 0.01, 2, 0.9, h), "a scalable Bloom filter", h);
      assertRefused(() -> CountMinSketch.create(0.01, 0.01, h), "a count-min sketch", h);
      assertRefused(() -> CountMinSketch.withDimensions(100, 5, h), "a count-min sketch", h);
      assertRefused(() -> CountingBloomFilter.create(1000, 0.01, h), "a counting Bloom filter", h);
      assertRefused(() -> CountingBloomFilter.withCounters(1000, 3, h), "a counting Bloom", h);
      assertRefused(() -> CuckooFilter.create(1000, 0.01, h), "a cuckoo filter", h);
      assertRefused(() -> HyperLogLog.create(12, h), "a HyperLogLog sketch", h);
      assertRefused(() -> UltraLogLog.create(12, h), "an UltraLogLog sketch", h);
      assertRefused(
          () -> AgePartitionedBloomFilter.create(1000, 0.01, h),
          "an age-partitioned Bloom filter",
          h);
    }
    HashStrategy spark = HashStrategy.spark();
    assertRefused(() -> BlockedBloomFilter.create(1000, 0.01, spark), "a blocked Bloom", spark);
    assertRefused(() -> BlockedBloomFilter.withBits(512, 3, spark), "a blocked Bloom", spark);
    assertRefused(
        () -> BinaryFuseFilter.ofStrings(some, FingerprintBits.BITS_8, spark),
        "a binary fuse filter",
        spark);
    assertRefused(
        () -> BinaryFuseFilter.ofLongs(new long[0], FingerprintBits.BITS_16, spark),
        "a binary fuse filter",
        spark);
    assertRefused(
        () -> BinaryFuseFilter.fromHashes(new long[] {1, 2}, FingerprintBits.BITS_8, spark),
        "a binary fuse filter",
        spark);
  }

  /** A reader of one structure type, as a test names it. */
  private interface Reader {
    Object read(ByteArrayInputStream in) throws IOException;
  }

  /** {@code file} with its header's hash algorithm replaced and its checksum made right again. */
  private static byte[] withAlgorithm(byte[] file, HashAlgorithm a) {
    assertThat(file[4]).as("a version 1 file: one checksum at the end").isEqualTo((byte) 1);
    byte[] b = file.clone();
    b[6] = (byte) a.id();
    CRC32C crc = new CRC32C();
    crc.update(b, 0, b.length - 4);
    ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putInt(b.length - 4, (int) crc.getValue());
    return b;
  }

  @Test
  void everyOtherStructureRefusesAFileWhoseHeaderNamesThem() throws IOException {
    List<String> some = words().subList(0, 500);
    List<Object[]> cases = new ArrayList<>();
    ScalableBloomFilter scalable = ScalableBloomFilter.create(1000, 0.01);
    CountingBloomFilter counting = CountingBloomFilter.create(1000, 0.01);
    CuckooFilter cuckoo = CuckooFilter.create(1000, 0.01);
    BlockedBloomFilter blocked = BlockedBloomFilter.create(1000, 0.01);
    BinaryFuseFilter fuse = BinaryFuseFilter.ofStrings(some, FingerprintBits.BITS_8);
    SplitBlockBloomFilter split = SplitBlockBloomFilter.create(1000, 0.01);
    AgePartitionedBloomFilter window = AgePartitionedBloomFilter.create(1000, 0.01);
    CountMinSketch cms = CountMinSketch.withDimensions(200, 4);
    HyperLogLog hll = HyperLogLog.create(10);
    UltraLogLog ull = UltraLogLog.create(10);
    HeavyHitters top = HeavyHitters.create(0.01);
    for (String k : some) {
      scalable.add(k);
      counting.add(k);
      cuckoo.add(k);
      blocked.add(k);
      split.add(k);
      window.add(k);
      cms.add(k);
      hll.add(k);
      ull.add(k);
      top.add(k);
    }
    cases.add(new Object[] {bytes(scalable), (Reader) ScalableBloomFilter::readFrom, FOREIGN});
    cases.add(new Object[] {bytes(counting), (Reader) CountingBloomFilter::readFrom, FOREIGN});
    cases.add(new Object[] {bytes(cuckoo), (Reader) CuckooFilter::readFrom, FOREIGN});
    cases.add(new Object[] {bytes(split), (Reader) SplitBlockBloomFilter::readFrom, FOREIGN});
    cases.add(new Object[] {bytes(window), (Reader) AgePartitionedBloomFilter::readFrom, FOREIGN});
    cases.add(
        new Object[] {
          bytes(blocked), (Reader) BlockedBloomFilter::readFrom, List.of(HashStrategy.spark())
        });
    cases.add(
        new Object[] {
          bytes(fuse), (Reader) BinaryFuseFilter::readFrom, List.of(HashStrategy.spark())
        });
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    cms.writeTo(out);
    cases.add(new Object[] {out.toByteArray(), (Reader) CountMinSketch::readFrom, FOREIGN});
    out = new ByteArrayOutputStream();
    hll.writeTo(out);
    cases.add(new Object[] {out.toByteArray(), (Reader) HyperLogLog::readFrom, FOREIGN});
    out = new ByteArrayOutputStream();
    ull.writeTo(out);
    cases.add(new Object[] {out.toByteArray(), (Reader) UltraLogLog::readFrom, FOREIGN});
    out = new ByteArrayOutputStream();
    top.writeTo(out);
    cases.add(new Object[] {out.toByteArray(), (Reader) HeavyHitters::readFrom, FOREIGN});

    for (Object[] c : cases) {
      byte[] file = (byte[]) c[0];
      Reader reader = (Reader) c[1];
      StructureType type = StructureType.byId(file[5]);
      // The same bytes with their own hash read: the rewritten checksum is right.
      assertThat(
              reader.read(
                  new ByteArrayInputStream(withAlgorithm(file, HashAlgorithm.byId(file[6])))))
          .as(type.label())
          .isNotNull();
      @SuppressWarnings("unchecked")
      List<HashStrategy> refused = (List<HashStrategy>) c[2];
      for (HashStrategy h : refused) {
        byte[] bad = withAlgorithm(file, h.algorithm());
        assertThat(type.accepts(h.algorithm())).as("%s %s", type.label(), h).isFalse();
        assertThatThrownBy(() -> reader.read(new ByteArrayInputStream(bad)))
            .as("%s %s", type.label(), h)
            .isInstanceOf(SketchFormatException.class)
            .hasMessageContaining(
                "a " + type.label() + " structure with the " + h.algorithm().label() + " hash")
            .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
        if (type == StructureType.BLOCKED_BLOOM_FILTER) {
          Path p = dir.resolve("blocked-spark");
          Files.write(p, bad);
          assertThatThrownBy(() -> MappedFilter.open(p))
              .hasMessageContaining("a blocked structure with the spark hash");
        }
      }
    }
    // The pairs that answer as they promise are read.
    for (HashStrategy h : FOREIGN) {
      BloomFilter b = BloomFilter.create(100, 0.01, h);
      b.add("a");
      assertThat(Filters.readFrom(new ByteArrayInputStream(bytes(b))).mightContain("a")).isTrue();
      assertThat(StructureType.BLOOM_FILTER.accepts(h.algorithm())).isTrue();
    }
  }
}
