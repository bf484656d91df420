package io.github.probkit.foreign;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.io.SketchFormatException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.SplittableRandom;
import java.util.function.BiConsumer;
import java.util.function.BiPredicate;
import java.util.function.IntFunction;
import org.apache.spark.util.sketch.BloomFilter;
import org.junit.jupiter.api.Test;

/**
 * SparkBloomFilter against Spark's sketch jar (test scope, the project's Spark version): a million
 * present and a million absent keys get Spark's answers for strings, longs and byte arrays, and the
 * bytes written are Spark's, both ways.
 */
class SparkBloomFilterTest {
  private static final int N = ComparisonSize.KEYS;

  private static byte[] bytesOf(BloomFilter f) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    f.writeTo(out);
    return out.toByteArray();
  }

  private static byte[] bytesOf(SparkBloomFilter f) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    f.writeTo(out);
    return out.toByteArray();
  }

  private static SparkBloomFilter read(byte[] b) throws IOException {
    return SparkBloomFilter.readFrom(new ByteArrayInputStream(b));
  }

  private static <T> void agreesWithSpark(
      IntFunction<T> present,
      IntFunction<T> absent,
      BiConsumer<SparkBloomFilter, T> put,
      BiPredicate<SparkBloomFilter, T> query)
      throws IOException {
    BloomFilter spark = BloomFilter.create(N, 0.03);
    SparkBloomFilter probkit = SparkBloomFilter.create(N, 0.03);
    for (int i = 0; i < N; i++) {
      spark.put(present.apply(i));
      put.accept(probkit, present.apply(i));
    }
    byte[] sparkBytes = bytesOf(spark);
    assertThat(bytesOf(probkit)).isEqualTo(sparkBytes);

    SparkBloomFilter fromSpark = read(sparkBytes);
    assertThat(BloomFilter.readFrom(new ByteArrayInputStream(bytesOf(fromSpark)))).isEqualTo(spark);
    int falsePositives = 0;
    for (int i = 0; i < N; i++) {
      assertThat(query.test(fromSpark, present.apply(i))).as("present key %d", i).isTrue();
      T a = absent.apply(i);
      boolean answer = query.test(fromSpark, a);
      if (answer != spark.mightContain(a)) {
        throw new AssertionError("absent key " + i + ": probkit " + answer + ", Spark not");
      }
      falsePositives += answer ? 1 : 0;
    }
    assertThat(falsePositives).isBetween(N / 100, N / 15);
  }

  @Test
  void stringsAnswerAsSpark() throws IOException {
    agreesWithSpark(
        i -> (i % 3 == 0 ? "ключ-" : "key:") + i + (i % 7 == 0 ? "€𝄞" : ""),
        i -> "absent:" + i,
        SparkBloomFilter::put,
        SparkBloomFilter::mightContain);
  }

  @Test
  void longsAnswerAsSpark() throws IOException {
    long seed = 0x6a09e667f3bcc908L;
    agreesWithSpark(
        i -> i * seed,
        i -> -1 - i * seed,
        (f, k) -> f.put((long) k),
        (f, k) -> f.mightContain((long) k));
  }

  @Test
  void byteArraysOfEveryTailLengthAnswerAsSpark() throws IOException {
    agreesWithSpark(
        i -> bytes(1, 0xb5e8_1f2a_0000_0000L + i),
        i -> bytes(2, 0x7777_0000_0000_0000L + i),
        SparkBloomFilter::put,
        SparkBloomFilter::mightContain);
  }

  /**
   * {@code tag}, then 4 to 40 pseudo-random bytes (some negative, as Spark's tail sign-extends).
   */
  private static byte[] bytes(int tag, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    byte[] b = new byte[5 + r.nextInt(37)];
    r.nextBytes(b);
    b[0] = (byte) tag;
    return b;
  }

  @Test
  void mergeIsSparksMergeInPlace() throws Exception {
    BloomFilter a = BloomFilter.create(10_000, 0.01);
    BloomFilter b = BloomFilter.create(10_000, 0.01);
    for (int i = 0; i < 8_000; i++) {
      a.putString("a" + i);
      b.putLong(i);
    }
    SparkBloomFilter merged = read(bytesOf(a)).merge(read(bytesOf(b)));
    a.mergeInPlace(b);
    assertThat(bytesOf(merged)).isEqualTo(bytesOf(a));
    assertThatThrownBy(() -> merged.merge(SparkBloomFilter.create(10, 0.5)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "cannot merge a Spark filter of 1 hashes, 64 bits into one of 7 hashes, 95872 bits");
  }

  @Test
  void refusesWhatItCannotReadInOneLine() {
    assertRefused(
        new byte[] {0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 1},
        "spark BloomFilter: version is 2, probkit reads version 1");
    assertRefused(
        new byte[] {0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1},
        "spark BloomFilter: number of hash functions is 0, must be > 0");
    assertRefused(
        new byte[] {0, 0, 0, 1, 0, 0, 0, 3, -1, -1, -1, -1},
        "spark BloomFilter: bit array length is -1 longs, must be > 0");
    assertRefused(
        new byte[] {0, 0, 0, 1, 0, 0},
        "spark BloomFilter: the stream ends within the 12-byte header");
    assertRefused(
        new byte[] {0, 0, 0, 1, 0, 0, 0, 3, 0x7f, -1, -1, -1},
        "spark BloomFilter: the stream ends after 0 of 2147483647 longs");
  }

  private static void assertRefused(byte[] bytes, String message) {
    assertThatThrownBy(() -> read(bytes))
        .isInstanceOf(SketchFormatException.class)
        .hasMessage(message);
  }

  /** Every put says, as Spark's does, whether it changed a bit; the counts and rate are Spark's. */
  @Test
  void putsAnswerAndFiltersDescribeThemselvesAsSpark() throws IOException {
    BloomFilter spark = BloomFilter.create(2_000, 0.03);
    SparkBloomFilter probkit = SparkBloomFilter.create(2_000, 0.03);
    assertThat(probkit.bitSize()).isEqualTo(spark.bitSize());
    SparkBloomFilter empty = probkit.copy();
    for (int i = 0; i < 3_000; i++) {
      // Every key twice: the second put of a key never changes a bit.
      String s = "s" + (i % 1_500);
      byte[] b = bytes(3, i % 1_500);
      long l = i % 1_500;
      assertThat(probkit.put(s)).as("string %d", i).isEqualTo(spark.putString(s));
      assertThat(probkit.put(b)).as("bytes %d", i).isEqualTo(spark.putBinary(b));
      assertThat(probkit.put(l)).as("long %d", i).isEqualTo(spark.putLong(l));
    }
    assertThat(bytesOf(probkit)).isEqualTo(bytesOf(spark));
    assertThat(probkit.bitCount()).isEqualTo(spark.cardinality());
    assertThat(probkit.expectedFpp()).isEqualTo(spark.expectedFpp());
    assertThat(probkit.toString())
        .isEqualTo(
            "SparkBloomFilter{hashes=" + probkit.hashCount() + ", bits=" + spark.bitSize() + "}");
    // The copy taken before the puts is still empty, and unlike the filter.
    assertThat(empty.bitCount()).isZero();
    assertThat(empty).isNotEqualTo(probkit).isNotEqualTo("a filter");
    SparkBloomFilter same = read(bytesOf(spark));
    assertThat(same).isEqualTo(probkit).hasSameHashCodeAs(probkit);
    assertThat(probkit.copy()).isEqualTo(probkit);
    // Same bits, another hash count: not the same filter.
    byte[] otherK = bytesOf(spark);
    otherK[7]++;
    assertThat(read(otherK)).isNotEqualTo(probkit);
  }

  /** A Spark filter's bytes: version 1, the hash count, one word of bits. */
  private static byte[] oneWord(int hashes) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    java.io.DataOutputStream data = new java.io.DataOutputStream(out);
    data.writeInt(1);
    data.writeInt(hashes);
    data.writeInt(1);
    data.writeLong(0x5DEECE66DL);
    return out.toByteArray();
  }

  @Test
  void conversionsCheckWhatTheOtherSideCanHoldAndWritesReachTheStream() throws IOException {
    // probkit's Bloom filters take up to 255 hash functions: 255 convert, 256 are refused.
    assertThat(read(oneWord(255)).toProbkit().hashCount()).isEqualTo(255);
    assertThatThrownBy(() -> read(oneWord(256)).toProbkit())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("256");
    // Spark holds whole words of bits only.
    io.github.probkit.filter.BloomFilter odd =
        io.github.probkit.filter.BloomFilter.create(
            1000, 0.01, io.github.probkit.hash.HashStrategy.spark());
    assertThat(odd.bitSize() % 64).isNotZero();
    assertThatThrownBy(() -> SparkBloomFilter.fromProbkit(odd))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("multiple of 64");
    // writeTo flushes what it wrote through a caller's buffered stream.
    SparkBloomFilter f = read(oneWord(3));
    ByteArrayOutputStream raw = new ByteArrayOutputStream();
    f.writeTo(new java.io.BufferedOutputStream(raw, 1 << 16));
    assertThat(raw.toByteArray()).isEqualTo(oneWord(3));
  }

  @Test
  void sizingIsSparksAndBadArgumentsAreRefused() {
    for (long n : new long[] {1, 10, 1_000, 123_457}) {
      for (double fpp : new double[] {0.5, 0.03, 1e-6}) {
        SparkBloomFilter probkit = SparkBloomFilter.create(n, fpp);
        BloomFilter spark = BloomFilter.create(n, fpp);
        assertThat(probkit.bitSize()).as("%d at %s", n, fpp).isEqualTo(spark.bitSize());
        assertThat(probkit.hashCount()).as("%d at %s", n, fpp).isGreaterThanOrEqualTo(1);
      }
    }
    assertThatThrownBy(() -> SparkBloomFilter.create(0, 0.03))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("expectedItems must be > 0, was 0");
    for (double fpp : new double[] {0, 1}) {
      assertThatThrownBy(() -> SparkBloomFilter.create(10, fpp))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("fpp must be in (0, 1), was ");
    }
    SparkBloomFilter.create(10, Double.MIN_VALUE);
    SparkBloomFilter.create(1_000, 0.99);
    assertThatThrownBy(() -> SparkBloomFilter.create(1, 0.99))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("1 items at fpp 0.99 give no bits");
    assertThatThrownBy(() -> SparkBloomFilter.create(Long.MAX_VALUE / 64, 0.5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageEndingWith("bits are more than Spark allows");
    assertRefused(
        new byte[] {0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0, 0},
        "spark BloomFilter: bit array length is 0 longs, must be > 0");
  }
}
