package io.github.probkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.cardinality.CardinalitySketch;
import io.github.probkit.cardinality.HyperLogLog;
import io.github.probkit.cardinality.UltraLogLog;
import io.github.probkit.filter.BinaryFuseFilter;
import io.github.probkit.filter.BinaryFuseFilter.FingerprintBits;
import io.github.probkit.filter.BlockedBloomFilter;
import io.github.probkit.filter.BloomFilter;
import io.github.probkit.filter.CountingBloomFilter;
import io.github.probkit.filter.CuckooFilter;
import io.github.probkit.filter.MembershipFilter;
import io.github.probkit.frequency.FrequencyGoldenFiles;
import io.github.probkit.hash.HashStrategy;
import io.github.probkit.testing.Binomial;
import io.github.probkit.testing.Bytes;
import io.github.probkit.testing.Keys;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The recipes of the golden files of format versions 1 and 2 in src/test/resources/golden: each
 * file is the structure built from the keys written here. {@link GoldenFilesTest} rebuilds every
 * file from its recipe and compares the bytes, and pins each file's SHA-256. {@link #main} writes
 * the files that do not exist yet, once, by hand, when a structure or format version is introduced;
 * an existing file is never rewritten (docs/FORMAT.md, "Golden files"). Run it from the repository
 * root with {@code java -cp core/target/classes:core/target/test-classes:<hash4j jar>
 * io.github.probkit.GoldenFiles}.
 */
public final class GoldenFiles {
  private GoldenFiles() {}

  /** Anything with a {@code writeTo(OutputStream)}. */
  public interface Writable {
    void writeTo(OutputStream out) throws IOException;
  }

  /**
   * Golden files today's code cannot rebuild from their keys (see the comment in {@link #recipes}).
   */
  public static final java.util.Set<String> WITHOUT_RECIPE = java.util.Set.of("scalable-v1.bin");

  /** File name to the structure it holds, built from its documented keys. */
  public static Map<String, Supplier<Writable>> recipes() {
    Map<String, Supplier<Writable>> r = new LinkedHashMap<>();
    // Seed 000's 16-bit FNV-1a walkthrough filter.
    r.put(
        "bloom-fnv-seed000-v1.bin",
        () -> {
          BloomFilter seed = BloomFilter.withBits(16, 2, HashStrategy.fnv1a());
          for (String name : new String[] {"asha", "ravi", "meera"}) {
            seed.add(name);
          }
          return seed::writeTo;
        });
    // "user:0" .. "user:999" at 1 %.
    r.put(
        "bloom-xxh3-v1.bin",
        () -> {
          BloomFilter users = BloomFilter.create(1000, 0.01);
          Keys.sequential("user:", 0, 1000).forEach(users::add);
          return users::writeTo;
        });
    // 100 keys at 1 %, one key added twice, one removed.
    r.put(
        "counting-v1.bin",
        () -> {
          CountingBloomFilter counting = CountingBloomFilter.create(100, 0.01);
          Keys.sequential("golden:", 0, 100).forEach(counting::add);
          counting.add("twice");
          counting.add("twice");
          counting.remove("golden:99");
          return counting::writeTo;
        });
    // 200 keys at 1 %, the first 50 removed, one key added three times. Written by create(200,
    // 0.01)
    // when it took ceil(200 / 3.6) = 56 buckets (create leaves more room since): the table is built
    // with those 56 buckets of 10 bits, and the header keeps the request, 200 keys at 1 %.
    r.put(
        "cuckoo-v1.bin",
        () -> {
          CuckooFilter cuckoo = CuckooFilter.withBuckets(56, 10);
          Keys.sequential("golden:", 0, 200).forEach(cuckoo::add);
          Keys.sequential("golden:", 0, 50).forEach(cuckoo::remove);
          for (int i = 0; i < 3; i++) {
            cuckoo.add("thrice");
          }
          // Parameters after the 28-byte header: buckets (u64), bits (u32), expectedKeys (u64), fpp
          // (f64).
          return out ->
              out.write(Bytes.putDouble(Bytes.putLong(bytes(cuckoo::writeTo), 40, 200), 48, 0.01));
        });
    // scalable-v1.bin: initial capacity 100 at 1 %, keys "golden:0" .. "golden:349", layers of 100,
    // 200 and 400 keys. create() has since sized the first layer for at least 1,000 keys with a
    // margin on the rate, and no public factory builds the old layers, so this file has no recipe:
    // it is pinned by its hash, read and written back, and checked by ScalableBloomFilterTest.
    // 1000 keys at 1 %.
    r.put(
        "blocked-v1.bin",
        () -> {
          BlockedBloomFilter blocked = BlockedBloomFilter.create(1000, 0.01);
          Keys.sequential("golden-", 0, 1000).forEach(blocked::add);
          return blocked::writeTo;
        });
    // The same 1000 keys, with 8- and with 16-bit fingerprints: derivation 1 (mix64, the only one
    // before issue 31), and derivation 2 (x = h * seed), the default since.
    for (FingerprintBits bits : FingerprintBits.values()) {
      r.put(
          "binary-fuse" + bits.bits() + "-v1.bin",
          () -> fuse(bits, BinaryFuseFilter.Derivation.V1)::writeTo);
      r.put(
          "binary-fuse" + bits.bits() + "-derivation2-v1.bin",
          () -> fuse(bits, BinaryFuseFilter.Derivation.V2)::writeTo);
    }
    // Format version 2 (a checksum per 64 KiB chunk): "user:0" .. "user:999" in 2^23 bits with 7
    // probes, a payload of exactly 1 MiB, the smallest written as version 2.
    r.put(
        "bloom-xxh3-v2.bin",
        () -> {
          BloomFilter users = BloomFilter.withBits(1L << 23, 7);
          Keys.sequential("user:", 0, 1000).forEach(users::add);
          return users::writeTo;
        });
    // Seed 000's 2 x 8 sketch; 3 x 64 sketches of "item-i" x (i + 1); a hand-worked Space-Saving.
    r.put("count-min-v1.bin", () -> FrequencyGoldenFiles.seedSketch()::writeTo);
    r.put("count-min-xxh3-v1.bin", () -> FrequencyGoldenFiles.xxh3Sketch(false)::writeTo);
    r.put("count-min-conservative-v1.bin", () -> FrequencyGoldenFiles.xxh3Sketch(true)::writeTo);
    r.put("heavy-hitters-v1.bin", () -> FrequencyGoldenFiles.heavyHitters()::writeTo);
    // Keys "user:0", "user:1", ...: HyperLogLog dense and sparse, UltraLogLog.
    r.put("hyperloglog-v1.bin", () -> sketch(HyperLogLog.create(12), 20_000));
    r.put("hyperloglog-sparse-v1.bin", () -> sketch(HyperLogLog.create(14), 300));
    r.put("ultraloglog-v1.bin", () -> sketch(UltraLogLog.create(12), 20_000));
    return r;
  }

  private static Writable sketch(CardinalitySketch s, int keys) {
    Keys.sequential("user:", 0, keys).forEach(s::add);
    return s::writeTo;
  }

  /** The bytes of the golden file {@code name}, failing the test when there is no such file. */
  public static byte[] golden(String name) throws IOException {
    try (java.io.InputStream in = GoldenFiles.class.getResourceAsStream("/golden/" + name)) {
      if (in == null) {
        throw new AssertionError(name + " (written by io.github.probkit.GoldenFiles) is missing");
      }
      return in.readAllBytes();
    }
  }

  /**
   * Asserts that a filter read from a golden file of the keys "golden-0" .. "golden-999" holds each
   * of them, and answers at most the false positives rate {@code fpp} allows (a binomial bound at
   * 99.9 %) among {@code probes} keys "absent-0", ... never added.
   */
  public static void assertHoldsTheGoldenKeys(MembershipFilter f, int probes, double fpp) {
    for (int i = 0; i < 1000; i++) {
      assertThat(f.mightContain("golden-" + i)).as("golden-%d", i).isTrue();
    }
    long fp = 0;
    for (int i = 0; i < probes; i++) {
      fp += f.mightContain("absent-" + i) ? 1 : 0;
    }
    assertThat(fp).isLessThanOrEqualTo(Binomial.upper(probes, fpp, 0.999));
  }

  /** The bytes {@code w} writes. */
  public static byte[] bytes(Writable w) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    w.writeTo(out);
    return out.toByteArray();
  }

  /** The golden keys' XXH3 hashes (what create() hashes them to) in a binary fuse filter. */
  private static BinaryFuseFilter fuse(FingerprintBits bits, BinaryFuseFilter.Derivation d) {
    List<byte[]> keys = Keys.sequential("golden-", 0, 1000);
    long[] hashes = new long[keys.size()];
    for (int i = 0; i < hashes.length; i++) {
      hashes[i] = HashStrategy.xxh3().hash64(keys.get(i), 0, keys.get(i).length);
    }
    return BinaryFuseFilter.fromHashes(hashes, hashes.length, bits, HashStrategy.xxh3(), d);
  }

  public static void main(String[] args) throws IOException {
    Path dir = Path.of(args.length > 0 ? args[0] : "core/src/test/resources/golden");
    Files.createDirectories(dir);
    for (Map.Entry<String, Supplier<Writable>> e : recipes().entrySet()) {
      Path file = dir.resolve(e.getKey());
      if (Files.exists(file)) {
        System.out.println("kept " + file + " (golden files are never regenerated)");
        continue;
      }
      Files.write(file, bytes(e.getValue().get()));
      System.out.println("wrote " + file + ": pin its SHA-256 in GoldenFilesTest");
    }
  }
}
