package io.github.probkit;

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
import io.github.probkit.filter.ScalableBloomFilter;
import io.github.probkit.frequency.FrequencyGoldenFiles;
import io.github.probkit.hash.HashStrategy;
import io.github.probkit.testing.Keys;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes the golden files of format version 1 into src/test/resources/golden. Run once, by hand,
 * when a structure or format version is introduced; the files are then checked in and never
 * regenerated for that version:
 * {@code mvn -q test-compile exec:java} is not configured, so run this main from the IDE or with
 * {@code java -cp core/target/classes:core/target/test-classes:<hash4j jar> io.github.probkit.GoldenFiles}.
 */
public final class GoldenFiles {
  private GoldenFiles() {}

  public static void main(String[] args) throws IOException {
    Path dir = Path.of(args.length > 0 ? args[0] : "core/src/test/resources/golden");
    Files.createDirectories(dir);

    BloomFilter seed = BloomFilter.withBits(16, 2, HashStrategy.fnv1a());
    for (String name : new String[] {"asha", "ravi", "meera"}) {
      seed.add(name);
    }
    write(dir.resolve("bloom-fnv-seed000-v1.bin"), seed);

    BloomFilter users = BloomFilter.create(1000, 0.01);
    Keys.sequential("user:", 0, 1000).forEach(users::add);
    write(dir.resolve("bloom-xxh3-v1.bin"), users);

    // 100 keys at 1 %, one key added twice, one removed.
    CountingBloomFilter counting = CountingBloomFilter.create(100, 0.01);
    Keys.sequential("golden:", 0, 100).forEach(counting::add);
    counting.add("twice");
    counting.add("twice");
    counting.remove("golden:99");
    write(dir.resolve("counting-v1.bin"), counting);

    // 200 keys at 1 %, the first 50 removed, one key added three times.
    CuckooFilter cuckoo = CuckooFilter.create(200, 0.01);
    Keys.sequential("golden:", 0, 200).forEach(cuckoo::add);
    Keys.sequential("golden:", 0, 50).forEach(cuckoo::remove);
    for (int i = 0; i < 3; i++) {
      cuckoo.add("thrice");
    }
    write(dir.resolve("cuckoo-v1.bin"), cuckoo);

    // Initial capacity 100 at 1 %, 350 keys: layers of 100, 200 and 400 keys.
    ScalableBloomFilter scalable = ScalableBloomFilter.create(100, 0.01);
    Keys.sequential("golden:", 0, 350).forEach(scalable::add);
    write(dir.resolve("scalable-v1.bin"), scalable);

    // 1000 keys at 1 %.
    BlockedBloomFilter blocked = BlockedBloomFilter.create(1000, 0.01);
    Keys.sequential("golden-", 0, 1000).forEach(blocked::add);
    write(dir.resolve("blocked-v1.bin"), blocked);

    // The same 1000 keys, with 8- and with 16-bit fingerprints.
    for (FingerprintBits bits : FingerprintBits.values()) {
      write(dir.resolve("binary-fuse" + bits.bits() + "-v1.bin"),
          BinaryFuseFilter.create(Keys.sequential("golden-", 0, 1000), bits));
    }

    // Seed 000's 2 x 8 sketch; 3 x 64 sketches of "item-i" x (i + 1); a hand-worked Space-Saving.
    write(dir.resolve("count-min-v1.bin"), FrequencyGoldenFiles.seedSketch()::writeTo);
    write(dir.resolve("count-min-xxh3-v1.bin"), FrequencyGoldenFiles.xxh3Sketch(false)::writeTo);
    write(dir.resolve("count-min-conservative-v1.bin"), FrequencyGoldenFiles.xxh3Sketch(true)::writeTo);
    write(dir.resolve("heavy-hitters-v1.bin"), FrequencyGoldenFiles.heavyHitters()::writeTo);

    // Keys "user:0", "user:1", ...: HyperLogLog dense and sparse, UltraLogLog.
    write(dir.resolve("hyperloglog-v1.bin"), sketch(HyperLogLog.create(12), 20_000));
    write(dir.resolve("hyperloglog-sparse-v1.bin"), sketch(HyperLogLog.create(14), 300));
    write(dir.resolve("ultraloglog-v1.bin"), sketch(UltraLogLog.create(12), 20_000));
  }

  private static Writable sketch(CardinalitySketch s, int keys) {
    Keys.sequential("user:", 0, keys).forEach(s::add);
    return s::writeTo;
  }

  /** Anything with a {@code writeTo(OutputStream)}. */
  private interface Writable {
    void writeTo(OutputStream out) throws IOException;
  }

  private static void write(Path file, MembershipFilter f) throws IOException {
    write(file, f::writeTo);
  }

  private static void write(Path file, Writable f) throws IOException {
    if (Files.exists(file)) {
      System.out.println("kept " + file + " (golden files are never regenerated)");
      return;
    }
    try (OutputStream out = Files.newOutputStream(file)) {
      f.writeTo(out);
    }
    System.out.println("wrote " + file);
  }
}
