package io.github.probkit.foreign;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.io.SketchFormatException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.SplittableRandom;
import org.apache.spark.util.sketch.CountMinSketch;
import org.junit.jupiter.api.Test;

/**
 * SparkCountMinSketch against Spark's sketch jar: the same items give the same bytes, and a million
 * present and a million absent items get Spark's estimates, for strings, longs and byte arrays.
 */
class SparkCountMinSketchTest {
  private static final int N = ComparisonSize.KEYS;

  private static byte[] bytesOf(CountMinSketch s) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    s.writeTo(out);
    return out.toByteArray();
  }

  private static byte[] bytesOf(SparkCountMinSketch s) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    s.writeTo(out);
    return out.toByteArray();
  }

  private static SparkCountMinSketch read(byte[] b) throws IOException {
    return SparkCountMinSketch.readFrom(new ByteArrayInputStream(b));
  }

  private static byte[] bytes(int tag, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    byte[] b = new byte[2 + r.nextInt(30)];
    r.nextBytes(b);
    b[0] = (byte) tag;
    return b;
  }

  @Test
  void estimatesAndBytesAreSparks() throws IOException {
    CountMinSketch spark = CountMinSketch.create(5, 20_011, 0x2b7e1516);
    SparkCountMinSketch probkit = SparkCountMinSketch.create(5, 20_011, 0x2b7e1516);
    assertThat(bytesOf(probkit)).isEqualTo(bytesOf(spark));
    long seed = 0x6a09e667f3bcc908L;
    for (int i = 0; i < N; i++) {
      long count = 1 + i % 4;
      switch (i % 3) {
        case 0:
          spark.addString("item-" + i + (i % 11 == 0 ? "ü€" : ""), count);
          probkit.add("item-" + i + (i % 11 == 0 ? "ü€" : ""), count);
          break;
        case 1:
          spark.addLong(i * seed, count);
          probkit.add(i * seed, count);
          break;
        default:
          spark.addBinary(bytes(1, i), count);
          probkit.add(bytes(1, i), count);
      }
    }
    byte[] sparkBytes = bytesOf(spark);
    assertThat(bytesOf(probkit)).isEqualTo(sparkBytes);

    SparkCountMinSketch fromSpark = read(sparkBytes);
    assertThat(CountMinSketch.readFrom(new ByteArrayInputStream(bytesOf(fromSpark))))
        .isEqualTo(spark);
    assertThat(fromSpark.totalCount()).isEqualTo(spark.totalCount());
    for (int i = 0; i < N; i++) {
      long present;
      long expected;
      switch (i % 3) {
        case 0:
          String s = "item-" + i + (i % 11 == 0 ? "ü€" : "");
          present = fromSpark.estimateCount(s);
          expected = spark.estimateCount(s);
          break;
        case 1:
          present = fromSpark.estimateCount(i * seed);
          expected = spark.estimateCount(i * seed);
          break;
        default:
          present = fromSpark.estimateCount(bytes(1, i));
          expected = spark.estimateCount(bytes(1, i));
      }
      assertThat(present).as("item %d", i).isEqualTo(expected).isGreaterThanOrEqualTo(1 + i % 4);
      assertThat(fromSpark.estimateCount("absent-" + i))
          .isEqualTo(spark.estimateCount("absent-" + i));
      assertThat(fromSpark.estimateCount(-1 - i * seed))
          .isEqualTo(spark.estimateCount(-1 - i * seed));
      assertThat(fromSpark.estimateCount(bytes(2, i))).isEqualTo(spark.estimateCount(bytes(2, i)));
    }
  }

  @Test
  void mergeIsSparksMergeInPlace() throws Exception {
    CountMinSketch a = CountMinSketch.create(4, 1000, 7);
    CountMinSketch b = CountMinSketch.create(4, 1000, 7);
    for (int i = 0; i < 5_000; i++) {
      a.addString("a" + (i % 700));
      b.addLong(i % 300, 3);
    }
    SparkCountMinSketch merged = read(bytesOf(a)).merge(read(bytesOf(b)));
    a.mergeInPlace(b);
    assertThat(bytesOf(merged)).isEqualTo(bytesOf(a));
    assertThatThrownBy(() -> merged.merge(SparkCountMinSketch.create(4, 1000, 8)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "cannot merge a Spark count-min sketch of depth 4, width 1000 and other hash"
                + " multipliers into one of depth 4, width 1000");
  }

  @Test
  void refusesWhatItCannotReadInOneLine() {
    assertRefused(
        new byte[] {0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1},
        "spark CountMinSketch: version is 2, probkit reads version 1");
    assertRefused(
        new byte[] {0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1},
        "spark CountMinSketch: depth 0 and width 1 must be > 0, with at most 2147483639 counters");
    assertRefused(
        new byte[] {0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0},
        "spark CountMinSketch: depth 65536 and width 65536 must be > 0, with at most 2147483639"
            + " counters");
    assertRefused(
        new byte[] {0, 0, 0, 1, 0, 0, 0, 0},
        "spark CountMinSketch: the stream ends within the 20-byte header");
    assertRefused(
        new byte[] {0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 0},
        "spark CountMinSketch: the stream ends after 0 of 2 longs");
  }

  private static void assertRefused(byte[] bytes, String message) {
    assertThatThrownBy(() -> read(bytes))
        .isInstanceOf(SketchFormatException.class)
        .hasMessage(message);
  }

  /** A negative count would lower the counters under other items' true counts. */
  @Test
  void negativeCountsAreRefusedAndZeroAccepted() {
    SparkCountMinSketch s = SparkCountMinSketch.create(2, 100, 1);
    s.add("zero", 0);
    s.add(new byte[] {1}, 0);
    s.add(5L, 0);
    assertThat(s.totalCount()).isZero();
    assertThatThrownBy(() -> s.add("minus", -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("count must be >= 0, was -1");
    assertThatThrownBy(() -> s.add(new byte[] {1}, -1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> s.add(5L, -1)).isInstanceOf(IllegalArgumentException.class);
    assertThat(s.totalCount()).isZero();
  }

  @Test
  void dimensionsAreCheckedEachSideOfTheirLimits() {
    SparkCountMinSketch one = SparkCountMinSketch.create(1, 1, 1);
    one.add("x", 3);
    assertThat(one.estimateCount("y")).isEqualTo(3);
    assertThatThrownBy(() -> SparkCountMinSketch.create(0, 1, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("depth must be > 0, was 0");
    assertThatThrownBy(() -> SparkCountMinSketch.create(1, 0, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("width must be > 0, was 0");
    assertThatThrownBy(() -> SparkCountMinSketch.create(2, (Integer.MAX_VALUE - 7) / 2 + 1, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("counters are more than probkit holds");
    // The reader: a width of 0 is refused; the most counters pass the header (and the stream then
    // ends), one more does not.
    assertRefused(
        new byte[] {0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0},
        "spark CountMinSketch: depth 1 and width 0 must be > 0, with at most 2147483639 counters");
    assertRefused(
        new byte[] {0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0x7f, -1, -1, -9},
        "spark CountMinSketch: the stream ends after 0 of 1 longs");
    assertRefused(
        new byte[] {0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0x7f, -1, -1, -8},
        "spark CountMinSketch: depth 1 and width 2147483640 must be > 0, with at most 2147483639"
            + " counters");
  }

  @Test
  void dimensionsErrorAndEqualityAreSparks() throws IOException {
    CountMinSketch spark = CountMinSketch.create(5, 300, 9);
    SparkCountMinSketch probkit = read(bytesOf(spark));
    assertThat(probkit.depth()).isEqualTo(spark.depth());
    assertThat(probkit.width()).isEqualTo(spark.width());
    assertThat(probkit.relativeError()).isEqualTo(spark.relativeError());
    assertThat(probkit.confidence()).isEqualTo(spark.confidence());
    assertThat(probkit.toString()).isEqualTo("SparkCountMinSketch{depth=5, width=300, total=0}");

    SparkCountMinSketch same = SparkCountMinSketch.create(5, 300, 9);
    assertThat(probkit).isEqualTo(same).hasSameHashCodeAs(same).isNotEqualTo("a sketch");
    same.add("x", 1);
    assertThat(probkit).isNotEqualTo(same);
    probkit.add("x", 1);
    assertThat(probkit).isEqualTo(same).hasSameHashCodeAs(same);
    assertThat(probkit).isNotEqualTo(SparkCountMinSketch.create(5, 300, 10));
    assertThat(SparkCountMinSketch.create(5, 300, 9))
        .isNotEqualTo(SparkCountMinSketch.create(4, 300, 9))
        .isNotEqualTo(SparkCountMinSketch.create(5, 301, 9));
    // The same counters and total, other multipliers: not the same sketch.
    assertThat(SparkCountMinSketch.create(1, 1, 1))
        .isNotEqualTo(SparkCountMinSketch.create(1, 1, 2));
  }
}
