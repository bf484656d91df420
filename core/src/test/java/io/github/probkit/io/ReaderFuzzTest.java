package io.github.probkit.io;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.github.probkit.cardinality.HyperLogLog;
import io.github.probkit.cardinality.UltraLogLog;
import io.github.probkit.filter.BinaryFuseFilter;
import io.github.probkit.filter.BlockedBloomFilter;
import io.github.probkit.filter.BloomFilter;
import io.github.probkit.filter.CountingBloomFilter;
import io.github.probkit.filter.CuckooFilter;
import io.github.probkit.filter.Filters;
import io.github.probkit.filter.ScalableBloomFilter;
import io.github.probkit.frequency.CountMinSketch;
import io.github.probkit.frequency.HeavyHitters;
import io.github.probkit.testing.Bytes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;

/**
 * Coverage-guided fuzzing of every reader with Jazzer: one target per structure type, each holding
 * the {@link ReaderContract} on the raw input and on the input with its checksum recomputed (so
 * that the fuzzer reaches the validation behind the CRC). Tagged {@code fuzz}, so not part of
 * {@code mvn verify}; docs/TESTING.md says how to run one target, and where findings go.
 *
 * <p>Without {@code JAZZER_FUZZ=1} each target only replays its seeds, from {@code
 * src/test/resources/io/github/probkit/io/ReaderFuzzTestInputs/<target>/}, written by {@link #main}
 * from {@link ReaderMutationTest#samples()}. An input the fuzzer fails on is to be kept as a plain
 * test (in the reader's own test class), which the default build runs.
 */
@Tag("fuzz")
class ReaderFuzzTest {
  private static final String DURATION = "3m";

  @FuzzTest(maxDuration = DURATION)
  void bloom(byte[] data) {
    fuzz("bloom", BloomFilter::readFrom, data);
  }

  @FuzzTest(maxDuration = DURATION)
  void counting(byte[] data) {
    fuzz("counting", CountingBloomFilter::readFrom, data);
  }

  @FuzzTest(maxDuration = DURATION)
  void cuckoo(byte[] data) {
    fuzz("cuckoo", CuckooFilter::readFrom, data);
  }

  @FuzzTest(maxDuration = DURATION)
  void scalable(byte[] data) {
    fuzz("scalable", ScalableBloomFilter::readFrom, data);
  }

  @FuzzTest(maxDuration = DURATION)
  void blocked(byte[] data) {
    fuzz("blocked", BlockedBloomFilter::readFrom, data);
  }

  @FuzzTest(maxDuration = DURATION)
  void binaryFuse(byte[] data) {
    fuzz("binary-fuse", BinaryFuseFilter::readFrom, data);
  }

  /** Any filter, through the dispatch on the type byte that the CLI uses. */
  @FuzzTest(maxDuration = DURATION)
  void anyFilter(byte[] data) {
    fuzz("filter", Filters::readFrom, data);
  }

  @FuzzTest(maxDuration = DURATION)
  void countMin(byte[] data) {
    fuzz("count-min", CountMinSketch::readFrom, data);
  }

  @FuzzTest(maxDuration = DURATION)
  void heavyHitters(byte[] data) {
    fuzz("heavy-hitters", HeavyHitters::readFrom, data);
  }

  @FuzzTest(maxDuration = DURATION)
  void hyperloglog(byte[] data) {
    fuzz("hyperloglog", HyperLogLog::readFrom, data);
  }

  @FuzzTest(maxDuration = DURATION)
  void ultraloglog(byte[] data) {
    fuzz("ultraloglog", UltraLogLog::readFrom, data);
  }

  private static void fuzz(String type, ReaderContract.Reader reader, byte[] data) {
    if (data == null) {
      return;
    }
    ReaderContract.check(type, reader, data);
    if (data.length >= 4) {
      ReaderContract.check(type + " (checksum fixed)", reader, Bytes.withCrc(data));
    }
  }

  /**
   * Writes the seed corpus: the sample files of {@link ReaderMutationTest#samples()}, one directory
   * per target (every filter sample for {@code anyFilter}). Run from the repository root, once,
   * when a type is added; the seeds are then checked in.
   */
  public static void main(String[] args) throws IOException {
    Path root =
        Path.of(
            args.length > 0
                ? args[0]
                : "core/src/test/resources/io/github/probkit/io/ReaderFuzzTestInputs");
    for (ReaderMutationTest.Sample s : ReaderMutationTest.samples()) {
      boolean filter =
          !List.of("count-min", "heavy-hitters", "hyperloglog", "ultraloglog").contains(s.name);
      for (int i = 0; i < s.files.size(); i++) {
        write(root.resolve(target(s.name)).resolve("seed-" + i), s.files.get(i));
        if (filter) {
          write(root.resolve("anyFilter").resolve(s.name + "-" + i), s.files.get(i));
        }
      }
    }
  }

  /** "binary-fuse" -> "binaryFuse": the fuzz target (method) of a sample. */
  static String target(String sampleName) {
    StringBuilder b = new StringBuilder();
    for (String part : sampleName.split("-")) {
      b.append(b.length() == 0 ? part : Character.toUpperCase(part.charAt(0)) + part.substring(1));
    }
    return b.toString();
  }

  private static void write(Path file, byte[] bytes) throws IOException {
    Files.createDirectories(file.getParent());
    Files.write(file, bytes);
    System.out.println("wrote " + file + " (" + bytes.length + " bytes)");
  }
}
