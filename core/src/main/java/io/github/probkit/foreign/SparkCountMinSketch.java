package io.github.probkit.foreign;

import static io.github.probkit.internal.Preconditions.checkArgument;

import io.github.probkit.hash.SparkMurmur3;
import io.github.probkit.io.SketchFormatException;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.Random;

/**
 * Spark's {@code org.apache.spark.util.sketch.CountMinSketch} (what {@code
 * df.stat().countMinSketch(...)} returns) in the form its {@code writeTo} writes and its {@code
 * readFrom} reads, estimating item for item as Spark does.
 *
 * <pre>
 *   offset  size  field (big-endian)
 *        0     4  version: 1
 *        4     8  total count
 *       12     4  depth d, > 0
 *       16     4  width w, > 0
 *       20    8d  the rows' hash multipliers a_r
 *   20 + 8d  8dw  the counters, row by row
 * </pre>
 *
 * <p>Items as Spark types them: a string is its UTF-8 bytes; a byte array is itself; an integral
 * value is a long. A long x counts in row r at column {@code ((int) (y & (2^31 - 1))) mod w} for
 * {@code y = a_r * x} plus {@code y >> 32} (64-bit arithmetic); bytes count at {@code |(h1 + r *
 * h2) mod w|} with Spark's Murmur3_x86_32 hashes h1 (seed 0) and h2 (seed h1), 32-bit arithmetic.
 *
 * <p>Thread safety: not thread-safe for {@code add}; estimates may run from many threads while
 * nothing is added.
 */
public final class SparkCountMinSketch {
  private static final int VERSION = 1;
  private static final long PRIME_MODULUS = (1L << 31) - 1;

  private final int depth;
  private final int width;
  private final long[] multipliers;
  private final long[] table;
  private long totalCount;

  private SparkCountMinSketch(int depth, int width, long[] multipliers, long[] table, long total) {
    this.depth = depth;
    this.width = width;
    this.multipliers = multipliers;
    this.table = table;
    this.totalCount = total;
  }

  /** An empty sketch as Spark's {@code CountMinSketch.create(depth, width, seed)} makes it. */
  public static SparkCountMinSketch create(int depth, int width, int seed) {
    checkArgument(depth > 0, "depth must be > 0, was %d", depth);
    checkArgument(width > 0, "width must be > 0, was %d", width);
    checkArgument(
        (long) depth * width <= Integer.MAX_VALUE - 8,
        "depth %d times width %d counters are more than probkit holds",
        depth,
        width);
    Random random = new Random(seed);
    long[] multipliers = new long[depth];
    for (int r = 0; r < depth; r++) {
      multipliers[r] = random.nextInt(Integer.MAX_VALUE);
    }
    return new SparkCountMinSketch(depth, width, multipliers, new long[depth * width], 0);
  }

  /**
   * Reads what Spark's {@code writeTo} wrote.
   *
   * @throws SketchFormatException naming the field and the value: another version, a depth or width
   *     not > 0 or too large, a stream that ends early
   */
  public static SparkCountMinSketch readFrom(InputStream in) throws IOException {
    DataInputStream data = new DataInputStream(in);
    long total;
    int depth;
    int width;
    try {
      int version = data.readInt();
      if (version != VERSION) {
        throw new SketchFormatException(
            "spark CountMinSketch: version is " + version + ", probkit reads version 1");
      }
      total = data.readLong();
      depth = data.readInt();
      width = data.readInt();
    } catch (EOFException e) {
      throw new SketchFormatException(
          "spark CountMinSketch: the stream ends within the 20-byte header");
    }
    if (depth <= 0 || width <= 0 || (long) depth * width > Integer.MAX_VALUE - 8) {
      throw new SketchFormatException(
          "spark CountMinSketch: depth "
              + depth
              + " and width "
              + width
              + " must be > 0, with at most "
              + (Integer.MAX_VALUE - 8)
              + " counters");
    }
    long[] multipliers = Longs.read(data, depth, "spark CountMinSketch");
    long[] table = Longs.read(data, depth * width, "spark CountMinSketch");
    return new SparkCountMinSketch(depth, width, multipliers, table, total);
  }

  /** Writes the form Spark's {@code CountMinSketch.readFrom} reads. */
  public void writeTo(OutputStream out) throws IOException {
    DataOutputStream data = new DataOutputStream(out);
    data.writeInt(VERSION);
    data.writeLong(totalCount);
    data.writeInt(depth);
    data.writeInt(width);
    for (long a : multipliers) {
      data.writeLong(a);
    }
    for (long c : table) {
      data.writeLong(c);
    }
    data.flush();
  }

  // ---- adding and estimating, as Spark's addString/Binary/Long and estimateCount

  /** Adds {@code count} (>= 0) occurrences of {@code item}, as Spark's addString. */
  public void add(CharSequence item, long count) {
    add(item.toString().getBytes(StandardCharsets.UTF_8), count);
  }

  public void add(byte[] item, long count) {
    checkCount(count);
    int h1 = SparkMurmur3.hashBytes(item, 0);
    int h2 = SparkMurmur3.hashBytes(item, h1);
    for (int r = 0; r < depth; r++) {
      table[r * width + Math.abs((h1 + r * h2) % width)] += count;
    }
    totalCount += count;
  }

  public void add(long item, long count) {
    checkCount(count);
    for (int r = 0; r < depth; r++) {
      table[r * width + column(item, r)] += count;
    }
    totalCount += count;
  }

  private static void checkCount(long count) {
    checkArgument(count >= 0, "count must be >= 0, was %d", count);
  }

  /** Spark's estimateCount of a string item: the least of its counters. */
  public long estimateCount(CharSequence item) {
    return estimateCount(item.toString().getBytes(StandardCharsets.UTF_8));
  }

  public long estimateCount(byte[] item) {
    int h1 = SparkMurmur3.hashBytes(item, 0);
    int h2 = SparkMurmur3.hashBytes(item, h1);
    long min = Long.MAX_VALUE;
    for (int r = 0; r < depth; r++) {
      min = Math.min(min, table[r * width + Math.abs((h1 + r * h2) % width)]);
    }
    return min;
  }

  public long estimateCount(long item) {
    long min = Long.MAX_VALUE;
    for (int r = 0; r < depth; r++) {
      min = Math.min(min, table[r * width + column(item, r)]);
    }
    return min;
  }

  private int column(long item, int row) {
    long hash = multipliers[row] * item;
    hash += hash >> 32;
    hash &= PRIME_MODULUS;
    return ((int) hash) % width;
  }

  // ---- combining and describing

  /** Adds the counts of {@code other} (Spark's mergeInPlace: same depth, width and multipliers). */
  public SparkCountMinSketch merge(SparkCountMinSketch other) {
    checkArgument(
        other.depth == depth
            && other.width == width
            && Arrays.equals(other.multipliers, multipliers),
        "cannot merge a Spark count-min sketch of depth %d, width %d%s into one of depth %d,"
            + " width %d",
        other.depth,
        other.width,
        other.depth == depth && other.width == width ? " and other hash multipliers" : "",
        depth,
        width);
    for (int i = 0; i < table.length; i++) {
      table[i] += other.table[i];
    }
    totalCount += other.totalCount;
    return this;
  }

  public int depth() {
    return depth;
  }

  public int width() {
    return width;
  }

  public long totalCount() {
    return totalCount;
  }

  /** Spark's relativeError: 2 / width. */
  public double relativeError() {
    return 2.0 / width;
  }

  /** Spark's confidence: 1 - 2^-depth. */
  public double confidence() {
    return 1 - 1 / Math.pow(2, depth);
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof SparkCountMinSketch)) {
      return false;
    }
    SparkCountMinSketch s = (SparkCountMinSketch) o;
    return s.depth == depth
        && s.width == width
        && s.totalCount == totalCount
        && Arrays.equals(s.multipliers, multipliers)
        && Arrays.equals(s.table, table);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(table) * 31 + Long.hashCode(totalCount);
  }

  @Override
  public String toString() {
    return String.format(
        Locale.ROOT, "SparkCountMinSketch{depth=%d, width=%d, total=%d}", depth, width, totalCount);
  }
}
