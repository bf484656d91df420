package io.github.probkit.foreign;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.hash.Funnels;
import io.github.probkit.filter.BloomFilter;
import io.github.probkit.filter.MappedFilter;
import io.github.probkit.hash.HashStrategy;
import io.github.probkit.io.SketchFormatException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Guava's and Spark's filters converted to probkit's format and back, against the real libraries
 * (test scope): after the conversion, the probkit file (read whole and mapped) gives the library's
 * answer for every present and absent key, strings, longs and byte arrays; converting back gives
 * the library's bytes; a flipped byte in the probkit file is refused.
 */
class ForeignBloomConversionTest {
  private static final int N = 200_000;

  @TempDir Path dir;

  /** 2N distinct strings: the dictionary's words, non-ASCII ones and generated ones. */
  private static List<String> strings() throws IOException {
    Set<String> keys = new LinkedHashSet<>();
    Path dict = Path.of("/usr/share/dict/words");
    if (Files.isReadable(dict)) {
      for (String w : Files.readAllLines(dict, StandardCharsets.UTF_8)) {
        if (keys.size() < N) {
          keys.add(w);
        }
      }
    }
    for (int i = 0; keys.size() < 2 * N; i++) {
      keys.add(i % 3 == 0 ? "ключ-" + i + "-€" : "user:" + i);
    }
    List<String> list = new ArrayList<>(keys);
    java.util.Collections.shuffle(list, new java.util.Random(28));
    return list;
  }

  /** 2N distinct byte arrays of lengths 0..40 (every tail length of both Murmurs). */
  private static List<byte[]> arrays() {
    Set<String> seen = new LinkedHashSet<>();
    List<byte[]> keys = new ArrayList<>();
    SplittableRandom r = new SplittableRandom(28);
    while (keys.size() < 2 * N) {
      byte[] b = new byte[r.nextInt(41)];
      r.nextBytes(b);
      if (seen.add(java.util.Arrays.toString(b))) {
        keys.add(b);
      }
    }
    return keys;
  }

  private static long[] longs() {
    long[] keys = new long[2 * N];
    SplittableRandom r = new SplittableRandom(28);
    Set<Long> seen = new java.util.HashSet<>();
    for (int i = 0; i < keys.length; ) {
      long v = i % 4 == 0 ? i : r.nextLong();
      if (seen.add(v)) {
        keys[i++] = v;
      }
    }
    return keys;
  }

  private byte[] probkitBytes(BloomFilter f) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    f.writeTo(out);
    return out.toByteArray();
  }

  private MappedFilter mapped(BloomFilter f) throws IOException {
    Path file = Files.createTempFile(dir, "f", ".bin");
    Files.write(file, probkitBytes(f));
    return MappedFilter.open(file);
  }

  private static void checkFlippedByteRefused(byte[] probkit) {
    SplittableRandom r = new SplittableRandom(7);
    for (int t = 0; t < 50; t++) {
      byte[] bad = probkit.clone();
      int at = r.nextInt(bad.length);
      bad[at] ^= (byte) (1 << r.nextInt(8));
      assertThatThrownBy(() -> BloomFilter.readFrom(new ByteArrayInputStream(bad)))
          .as("byte %d flipped", at)
          .isInstanceOf(SketchFormatException.class);
    }
  }

  @Test
  void guavaFiltersConvertLosslesslyForStringsLongsAndByteArrays() throws IOException {
    List<String> strings = strings();
    List<byte[]> arrays = arrays();
    long[] longs = longs();
    com.google.common.hash.BloomFilter<CharSequence> gs =
        com.google.common.hash.BloomFilter.create(
            Funnels.stringFunnel(StandardCharsets.UTF_8), N, 0.02);
    com.google.common.hash.BloomFilter<byte[]> gb =
        com.google.common.hash.BloomFilter.create(Funnels.byteArrayFunnel(), N, 0.02);
    com.google.common.hash.BloomFilter<Long> gl =
        com.google.common.hash.BloomFilter.create(Funnels.longFunnel(), N, 0.02);
    for (int i = 0; i < N; i++) {
      gs.put(strings.get(i));
      gb.put(arrays.get(i));
      gl.put(longs[i]);
    }
    BloomFilter ps = guavaToProbkit(gs);
    BloomFilter pb = guavaToProbkit(gb);
    BloomFilter pl = guavaToProbkit(gl);
    try (MappedFilter ms = mapped(ps);
        MappedFilter mb = mapped(pb);
        MappedFilter ml = mapped(pl)) {
      int falsePositives = 0;
      for (int i = 0; i < 2 * N; i++) {
        boolean expected = gs.mightContain(strings.get(i));
        assertThat(ps.mightContain(strings.get(i))).as("string %d", i).isEqualTo(expected);
        assertThat(ms.mightContain(strings.get(i))).as("mapped string %d", i).isEqualTo(expected);
        expected = gb.mightContain(arrays.get(i));
        assertThat(pb.mightContain(arrays.get(i))).as("array %d", i).isEqualTo(expected);
        assertThat(mb.mightContain(arrays.get(i))).as("mapped array %d", i).isEqualTo(expected);
        expected = gl.mightContain(longs[i]);
        assertThat(pl.mightContain(longs[i])).as("long %d", i).isEqualTo(expected);
        assertThat(ml.mightContain(longs[i])).as("mapped long %d", i).isEqualTo(expected);
        falsePositives += i >= N && expected ? 1 : 0;
      }
      // Guava's own answers for absent keys are mostly "absent": the comparison means something.
      assertThat(falsePositives).isBetween(1, N / 20);
    }
    // Keys added to the converted filter in probkit are then in Guava's filter too.
    for (int i = N; i < N + 1000; i++) {
      pl.add(longs[i]);
    }
    com.google.common.hash.BloomFilter<Long> back =
        com.google.common.hash.BloomFilter.readFrom(
            new ByteArrayInputStream(guavaBytes(GuavaBloomFilter.fromProbkit(pl))),
            Funnels.longFunnel());
    for (int i = 0; i < N + 1000; i++) {
      assertThat(back.mightContain(longs[i])).as("long %d added in probkit", i).isTrue();
    }
  }

  private BloomFilter guavaToProbkit(com.google.common.hash.BloomFilter<?> guava)
      throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    guava.writeTo(out);
    byte[] guavaBytes = out.toByteArray();
    BloomFilter converted =
        GuavaBloomFilter.readFrom(new ByteArrayInputStream(guavaBytes)).toProbkit();
    byte[] probkit = probkitBytes(converted);
    checkFlippedByteRefused(probkit);
    BloomFilter read = BloomFilter.readFrom(new ByteArrayInputStream(probkit));
    assertThat(read.hashStrategy()).isEqualTo(HashStrategy.guava());
    // Back to Guava's form: its bytes exactly.
    assertThat(guavaBytes(GuavaBloomFilter.fromProbkit(read))).isEqualTo(guavaBytes);
    return read;
  }

  private static byte[] guavaBytes(GuavaBloomFilter f) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    f.writeTo(out);
    return out.toByteArray();
  }

  @Test
  void guavasOlderMitz32StrategyConvertsLosslessly() throws IOException {
    // Guava creates only MURMUR128_MITZ_64 filters; its readFrom makes a MITZ_32 one from bytes.
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    com.google.common.hash.BloomFilter.create(Funnels.longFunnel(), 50_000, 0.02).writeTo(out);
    byte[] empty = out.toByteArray();
    empty[0] = 0;
    com.google.common.hash.BloomFilter<Long> guava =
        com.google.common.hash.BloomFilter.readFrom(
            new ByteArrayInputStream(empty), Funnels.longFunnel());
    long[] keys = longs();
    for (int i = 0; i < 50_000; i++) {
      guava.put(keys[i]);
    }
    out.reset();
    guava.writeTo(out);
    byte[] guavaBytes = out.toByteArray();
    BloomFilter converted =
        BloomFilter.readFrom(
            new ByteArrayInputStream(
                probkitBytes(
                    GuavaBloomFilter.readFrom(new ByteArrayInputStream(guavaBytes)).toProbkit())));
    assertThat(converted.hashStrategy()).isEqualTo(HashStrategy.guavaMitz32());
    for (int i = 0; i < 200_000; i++) {
      assertThat(converted.mightContain(keys[i]))
          .as("long %d", i)
          .isEqualTo(guava.mightContain(keys[i]));
    }
    assertThat(guavaBytes(GuavaBloomFilter.fromProbkit(converted))).isEqualTo(guavaBytes);
  }

  @Test
  void sparkFiltersConvertLosslesslyForStringsLongsAndByteArrays() throws IOException {
    List<String> strings = strings();
    List<byte[]> arrays = arrays();
    long[] longs = longs();
    org.apache.spark.util.sketch.BloomFilter spark =
        org.apache.spark.util.sketch.BloomFilter.create(3L * N, 0.03);
    for (int i = 0; i < N; i++) {
      spark.putString(strings.get(i));
      spark.putBinary(arrays.get(i));
      spark.putLong(longs[i]);
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    spark.writeTo(out);
    byte[] sparkBytes = out.toByteArray();
    BloomFilter converted =
        SparkBloomFilter.readFrom(new ByteArrayInputStream(sparkBytes)).toProbkit();
    byte[] probkit = probkitBytes(converted);
    checkFlippedByteRefused(probkit);
    BloomFilter read = BloomFilter.readFrom(new ByteArrayInputStream(probkit));
    assertThat(read.hashStrategy()).isEqualTo(HashStrategy.spark());
    try (MappedFilter m = mapped(read)) {
      int falsePositives = 0;
      for (int i = 0; i < 2 * N; i++) {
        boolean expected = spark.mightContainString(strings.get(i));
        assertThat(read.mightContain(strings.get(i))).as("string %d", i).isEqualTo(expected);
        assertThat(m.mightContain(strings.get(i))).as("mapped string %d", i).isEqualTo(expected);
        falsePositives += i >= N && expected ? 1 : 0;
        expected = spark.mightContainBinary(arrays.get(i));
        assertThat(read.mightContain(arrays.get(i))).as("array %d", i).isEqualTo(expected);
        assertThat(m.mightContain(arrays.get(i))).as("mapped array %d", i).isEqualTo(expected);
        expected = spark.mightContainLong(longs[i]);
        assertThat(read.mightContain(longs[i])).as("long %d", i).isEqualTo(expected);
        assertThat(m.mightContain(longs[i])).as("mapped long %d", i).isEqualTo(expected);
      }
      assertThat(falsePositives).isBetween(1, N / 10);
    }
    out.reset();
    SparkBloomFilter.fromProbkit(read).writeTo(out);
    assertThat(out.toByteArray()).isEqualTo(sparkBytes);
  }

  @Test
  void concurrentAddsToAConvertedFilterLoseNoKey() throws Exception {
    // Empty Guava and Spark filters, converted (concurrent mode), filled by 4 threads at once: no
    // key is lost, in probkit or in the library that reads the bits back. Small filters, so that
    // the threads meet in the same words.
    long[] keys = longs();
    int threads = 4;
    int perThread = 4_000;
    for (int round = 0; round < 20; round++) {
      ByteArrayOutputStream g = new ByteArrayOutputStream();
      com.google.common.hash.BloomFilter.create(Funnels.longFunnel(), 4 * perThread, 0.5)
          .writeTo(g);
      ByteArrayOutputStream sp = new ByteArrayOutputStream();
      org.apache.spark.util.sketch.BloomFilter.create(4L * perThread, 0.5).writeTo(sp);
      BloomFilter guava =
          GuavaBloomFilter.readFrom(new ByteArrayInputStream(g.toByteArray())).toProbkit();
      BloomFilter spark =
          SparkBloomFilter.readFrom(new ByteArrayInputStream(sp.toByteArray())).toProbkit();
      int base = round * threads * perThread;
      java.util.concurrent.CountDownLatch start = new java.util.concurrent.CountDownLatch(1);
      List<Thread> workers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int from = base + t * perThread;
        Thread w =
            new Thread(
                () -> {
                  try {
                    start.await();
                  } catch (InterruptedException e) {
                    return;
                  }
                  for (int i = from; i < from + perThread; i++) {
                    guava.add(keys[i]);
                    spark.add(keys[i]);
                  }
                });
        w.start();
        workers.add(w);
      }
      start.countDown();
      for (Thread w : workers) {
        w.join();
      }
      com.google.common.hash.BloomFilter<Long> guavaBack =
          com.google.common.hash.BloomFilter.readFrom(
              new ByteArrayInputStream(guavaBytes(GuavaBloomFilter.fromProbkit(guava))),
              Funnels.longFunnel());
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      SparkBloomFilter.fromProbkit(spark).writeTo(out);
      org.apache.spark.util.sketch.BloomFilter sparkBack =
          org.apache.spark.util.sketch.BloomFilter.readFrom(
              new ByteArrayInputStream(out.toByteArray()));
      for (int i = base; i < base + threads * perThread; i++) {
        assertThat(guava.mightContain(keys[i])).as("round %d key %d", round, i).isTrue();
        assertThat(guavaBack.mightContain(keys[i])).as("round %d key %d", round, i).isTrue();
        assertThat(spark.mightContain(keys[i])).as("round %d key %d", round, i).isTrue();
        assertThat(sparkBack.mightContainLong(keys[i])).as("round %d key %d", round, i).isTrue();
      }
    }
  }

  @Test
  void aFilterOfAnotherHashIsNotExportedToGuavaOrSpark() {
    BloomFilter xxh3 = BloomFilter.withBits(6400, 5);
    assertThatThrownBy(() -> GuavaBloomFilter.fromProbkit(xxh3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("a Bloom filter hashed with xxh3(seed=0x0) is not a Guava filter");
    assertThatThrownBy(() -> SparkBloomFilter.fromProbkit(xxh3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("a Bloom filter hashed with xxh3(seed=0x0) is not a Spark filter");
    BloomFilter odd = BloomFilter.withBits(6401, 5, HashStrategy.guava());
    assertThatThrownBy(() -> GuavaBloomFilter.fromProbkit(odd))
        .hasMessage("a Guava filter has a multiple of 64 bits, this one 6401");
  }

  @Test
  void aGuavaFilterOfAnUnknownStrategyIsRefusedInOneLine() {
    byte[] b = {2, 3, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0};
    assertThatThrownBy(() -> GuavaBloomFilter.readFrom(new ByteArrayInputStream(b)).toProbkit())
        .isInstanceOf(SketchFormatException.class)
        .hasMessage(
            "guava BloomFilter: strategy ordinal 2 is not one probkit reads"
                + " (0 MURMUR128_MITZ_32, 1 MURMUR128_MITZ_64)");
  }
}
