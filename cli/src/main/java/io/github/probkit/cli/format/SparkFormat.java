package io.github.probkit.cli.format;

import io.github.probkit.cli.output.CliException;
import io.github.probkit.cli.output.Json;
import io.github.probkit.foreign.SparkBloomFilter;
import io.github.probkit.foreign.SparkCountMinSketch;
import io.github.probkit.frequency.CountMinSketch;
import io.github.probkit.io.SketchFormatException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Spark's sketch {@code BloomFilter} and {@code CountMinSketch} in their {@code writeTo} forms
 * ({@link SparkBloomFilter}, {@link SparkCountMinSketch}), recognized by their version, 1, as a
 * big-endian int (a probkit file starts "PKIT"). The command says which of the two a file holds;
 * the other's header does not fit its length, which the reader refuses. Neither has a checksum:
 * answers come from unverified bits and counters.
 */
public final class SparkFormat implements Format {
  public static final SparkFormat INSTANCE = new SparkFormat();

  /** Why a Spark count-min sketch is not converted to probkit's. */
  static final String COUNT_MIN_UNCONVERTED =
      "spark: a Spark count-min sketch places a long by per-row multipliers drawn from"
          + " java.util.Random(seed) and bytes by Murmur3-32, columns probkit's CountMinSketch does"
          + " not place (its columns come from one 64-bit hash); query it as it is (cms query)";

  private SparkFormat() {}

  /**
   * Whether {@code file}, a Spark file by its first bytes, holds a count-min sketch rather than a
   * Bloom filter: both start with version 1, and a filter is exactly 12 + 8n bytes for the n of
   * longs its header gives ({@code probkit info} then describes it as {@code cms info} does).
   */
  public static boolean holdsCountMin(Path file) {
    try (InputStream in = Files.newInputStream(file)) {
      byte[] head = in.readNBytes(12);
      if (head.length < 12 || !INSTANCE.recognizes(head)) {
        return false;
      }
      long longs = ByteBuffer.wrap(head, 8, 4).getInt();
      return Files.size(file) != 12 + 8 * longs;
    } catch (IOException e) {
      return false; // the filter reader then says what is wrong with it
    }
  }

  /** What a Spark file holds, by its header and length: {@link #holds}. */
  public enum Holds {
    BLOOM("a Spark Bloom filter"),
    COUNT_MIN("a Spark count-min sketch");

    private final String description;

    Holds(String description) {
      this.description = description;
    }

    public String description() {
      return description;
    }
  }

  /**
   * Which of Spark's two sketches {@code file} holds: the one whose header (the same version, 1,
   * for both) gives exactly the file's length; null when neither or both do, or when the file is
   * not a regular one (a pipe is not read twice): the reader then says what is wrong.
   */
  public static Holds holds(Path file) {
    if (!Files.isRegularFile(file)) {
      return null;
    }
    try (InputStream in = Files.newInputStream(file)) {
      byte[] head = in.readNBytes(20);
      if (head.length < 12 || !INSTANCE.recognizes(head)) {
        return null;
      }
      long size = Files.size(file);
      ByteBuffer b = ByteBuffer.wrap(head);
      // A filter: version, hash count, n, then n longs.
      int hashes = b.getInt(4);
      long words = b.getInt(8);
      boolean bloom = hashes > 0 && words > 0 && size == 12 + 8 * words;
      // A count-min sketch: version, total, depth, width, depth multipliers, depth * width
      // counters.
      boolean countMin = false;
      if (head.length == 20) {
        long depth = b.getInt(12);
        long width = b.getInt(16);
        countMin = depth > 0 && width > 0 && size == 20 + 8 * depth * (width + 1);
      }
      return bloom == countMin ? null : bloom ? Holds.BLOOM : Holds.COUNT_MIN;
    } catch (IOException e) {
      return null;
    }
  }

  /**
   * Refuses, in one line naming the file, what it holds and the command that reads that, a Spark
   * file given to a command of the other family: read as the family asked, a count-min sketch's
   * total would be taken for a filter's hash count ("number of hash functions is 0").
   */
  public static void checkHolds(Path file, Kind<?> kind) {
    Holds h = holds(file);
    if (h == null || h == Holds.BLOOM && kind == Kind.FILTER) {
      return;
    }
    if (h == Holds.COUNT_MIN && kind == Kind.COUNT_MIN) {
      return;
    }
    throw new CliException(
        file
            + ": "
            + h.description()
            + ", not "
            + kind.description()
            + (h == Holds.BLOOM
                ? ": filter import --format spark converts it to a probkit Bloom filter; filter"
                    + " query and filter info read it as it is"
                : ": no probkit structure holds its columns (cms import refuses it); cms query and"
                    + " cms info read it as it is"));
  }

  @Override
  public boolean hasMagic() {
    return true;
  }

  @Override
  public String name() {
    return "spark";
  }

  @Override
  public boolean recognizes(byte[] head) {
    return head.length >= 4 && head[0] == 0 && head[1] == 0 && head[2] == 0 && head[3] == 1;
  }

  /** A Spark filter is read as the probkit Bloom filter of its bits and probes (hash spark). */
  @Override
  @SuppressWarnings("unchecked")
  public <T> T read(InputStream in, Kind<T> kind) throws IOException {
    if (kind == Kind.COUNT_MIN) {
      throw new SketchFormatException(COUNT_MIN_UNCONVERTED);
    }
    if (kind != Kind.FILTER) {
      throw new SketchFormatException(
          "spark: a Spark file holds a Bloom filter or a count-min sketch, not "
              + kind.description());
    }
    SparkBloomFilter f = SparkBloomFilter.readFrom(in);
    try {
      return (T) f.toProbkit();
    } catch (IllegalArgumentException e) {
      throw new SketchFormatException("spark: " + e.getMessage());
    }
  }

  /** Only a Bloom filter of Spark's hashing, such as {@link #read} gives, has Spark's answers. */
  @Override
  public void write(Object structure, OutputStream out) throws IOException {
    if (structure instanceof CountMinSketch) {
      throw new CliException(COUNT_MIN_UNCONVERTED);
    }
    Format.fromBloom(this, structure, "Spark", SparkBloomFilter::fromProbkit).writeTo(out);
  }

  @Override
  public ForeignFilter filter(InputStream in) throws IOException {
    SparkBloomFilter f = SparkBloomFilter.readFrom(in);
    return ForeignFilter.of(
        f::mightContain,
        f::mightContain,
        () ->
            ForeignFilter.describeBloom(
                "spark",
                "type",
                "bloom",
                f.hashCount(),
                f.bitSize(),
                f.bitCount(),
                f.expectedFpp()));
  }

  @Override
  public ForeignCounts counts(InputStream in) throws IOException {
    SparkCountMinSketch s = SparkCountMinSketch.readFrom(in);
    return new ForeignCounts() {
      @Override
      public long estimate(byte[] item, int off, int len) {
        return s.estimateCount(ForeignFilter.keyBytes(item, off, len));
      }

      @Override
      public long estimate(long item) {
        return s.estimateCount(item);
      }

      @Override
      public Json describe() {
        return new Json()
            .put("format", "spark")
            .put("type", "count-min")
            .put("width", s.width())
            .put("depth", s.depth())
            .put("totalCount", s.totalCount())
            .put("relativeError", s.relativeError())
            .put("confidence", s.confidence())
            .put("checksum", "none in the format");
      }
    };
  }
}
