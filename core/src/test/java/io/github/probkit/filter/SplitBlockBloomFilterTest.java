package io.github.probkit.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.dynatrace.hash4j.hashing.Hashing;
import io.github.probkit.Concurrency;
import io.github.probkit.GoldenFiles;
import io.github.probkit.hash.HashStrategy;
import io.github.probkit.hash.Xxh64;
import io.github.probkit.internal.Mix;
import io.github.probkit.testing.Theory;
import io.github.probkit.testing.Threads;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.apache.parquet.column.values.bloomfilter.BlockSplitBloomFilter;
import org.apache.parquet.io.api.Binary;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

/** SplitBlockBloomFilter against parquet-java's BlockSplitBloomFilter, the format's reference. */
class SplitBlockBloomFilterTest {

  private static final int N = 1_000_000;

  /** parquet-java's filter as parquet-hadoop sizes it for n distinct values at rate p. */
  private static BlockSplitBloomFilter parquet(long n, double p) {
    return new BlockSplitBloomFilter(BlockSplitBloomFilter.optimalNumOfBits(n, p) / 8);
  }

  private static byte[] bitset(BlockSplitBloomFilter f) throws IOException {
    return GoldenFiles.bytes(f::writeTo);
  }

  /** n distinct longs: a bijection (a finalizer) of distinct counters. */
  private static long[] distinctLongs(int n, long seed) {
    long[] keys = new long[n];
    for (int i = 0; i < n; i++) {
      keys[i] = Mix.mix64(seed + i);
    }
    return keys;
  }

  @Test
  void longKeysGiveParquetJavasBitsAndAnswers() throws IOException {
    long[] keys = distinctLongs(2 * N, 0x9a3f17c2e5b80d41L);
    SplitBlockBloomFilter ours = SplitBlockBloomFilter.create(N, 0.01);
    BlockSplitBloomFilter theirs = parquet(N, 0.01);
    for (int i = 0; i < N; i++) {
      ours.add(keys[i]);
      theirs.insertHash(theirs.hash(keys[i]));
    }
    assertThat(ours.toParquetBitset()).isEqualTo(bitset(theirs));
    int differ = 0;
    int absent = 0;
    int falsePositives = 0;
    for (int i = 0; i < 2 * N; i++) {
      boolean expected = theirs.findHash(theirs.hash(keys[i]));
      differ += ours.mightContain(keys[i]) != expected ? 1 : 0;
      absent += i < N && !ours.mightContain(keys[i]) ? 1 : 0;
      falsePositives += i >= N && expected ? 1 : 0;
    }
    assertThat(differ).as("answers unlike parquet-java's").isZero();
    assertThat(absent).as("added keys reported absent").isZero();
    // The absent half did meet false positives: the comparison covered both answers.
    assertThat(falsePositives).isPositive();
  }

  /**
   * Strings are BYTE_ARRAY values: the dictionary's words, non-ASCII strings and generated keys,
   * 10^6 added and 10^6 absent.
   */
  @Test
  void stringKeysGiveParquetJavasBitsAndAnswers() throws IOException {
    List<String> keys = new ArrayList<>(2 * N);
    Set<String> seen = new HashSet<>();
    Path dict = Path.of("/usr/share/dict/words");
    if (Files.isReadable(dict)) {
      for (String w : Files.readAllLines(dict, StandardCharsets.UTF_8)) {
        if (seen.add(w)) {
          keys.add(w);
        }
      }
    }
    // Distinct by construction, and from the words: each prefix has a character no word has.
    SplittableRandom r = new SplittableRandom(0x2c6e0f9d41b7a358L);
    String[] parts = {"user:", "grüße-", "世界/", "café "};
    for (long i = 0; keys.size() < 2 * N; i++) {
      keys.add(parts[(int) (i & 3)] + Long.toString(Mix.mix64(i) >>> (i % 61), 36) + "." + i);
    }
    // Shuffle so that both halves hold words and generated keys.
    for (int i = keys.size() - 1; i > 0; i--) {
      int j = r.nextInt(i + 1);
      keys.set(i, keys.set(j, keys.get(i)));
    }
    SplitBlockBloomFilter ours = SplitBlockBloomFilter.create(N, 0.05, Concurrency.SINGLE_WRITER);
    BlockSplitBloomFilter theirs = parquet(N, 0.05);
    for (int i = 0; i < N; i++) {
      ours.add(keys.get(i));
      theirs.insertHash(theirs.hash(Binary.fromString(keys.get(i))));
    }
    assertThat(ours.toParquetBitset()).isEqualTo(bitset(theirs));
    int differ = 0;
    int absent = 0;
    int falsePositives = 0;
    for (int i = 0; i < 2 * N; i++) {
      String k = keys.get(i);
      boolean expected = theirs.findHash(theirs.hash(Binary.fromString(k)));
      boolean answer = ours.mightContain(k);
      differ += answer != expected ? 1 : 0;
      absent += i < N && !answer ? 1 : 0;
      falsePositives += i >= N && expected ? 1 : 0;
    }
    assertThat(differ).as("answers unlike parquet-java's").isZero();
    assertThat(absent).as("added keys reported absent").isZero();
    assertThat(falsePositives).isPositive();
  }

  /** The sizes parquet-java gives for the same n and p, over its whole range. */
  @Test
  void sizesAreParquetJavas() {
    for (double p : new double[] {0.5, 0.1, 0.05, 0.01, 0.001, 1e-4, 1e-6}) {
      for (long n = 1; n <= 20_000_000; n = n * 3 + 1) {
        long expected = parquet(n, p).getBitsetSize();
        if (expected >= BlockSplitBloomFilter.UPPER_BOUND_BYTES) {
          break;
        }
        assertThat(SplitBlockBloomFilter.optimalBytes(n, p))
            .as("n=%d p=%s", n, p)
            .isEqualTo(expected);
      }
    }
    // Beyond parquet-java's cap the size goes on doubling instead of capping the rate.
    assertThat(SplitBlockBloomFilter.optimalBytes(200_000_000, 0.01)).isEqualTo(1L << 28);
  }

  @Test
  void falsePositiveRateIsTheExactMixture() {
    // Theory's Poisson loads are the binomial's limit: close for many blocks.
    for (long n : new long[] {0, 100_000, 1_000_000}) {
      for (long bytes : new long[] {1 << 16, 1 << 20}) {
        Theory.Rate t = Theory.splitBlock(bytes / 32, n);
        assertThat(SplitBlockBloomFilter.falsePositiveRate(bytes, n))
            .as("n=%d bytes=%d", n, bytes)
            .isCloseTo(t.mean(), Offset.offset(1e-3 * t.mean()));
      }
    }
    // One block: each word holds n independent bits.
    assertThat(SplitBlockBloomFilter.falsePositiveRate(32, 1))
        .isCloseTo(Math.pow(32, -8), Offset.offset(1e-24));
    assertThat(SplitBlockBloomFilter.falsePositiveRate(32, 10))
        .isCloseTo(Math.pow(1 - Math.pow(31.0 / 32, 10), 8), Offset.offset(1e-15));
  }

  @Test
  void xxh64OfALongIsHash4jsOfItsBytes() {
    SplittableRandom r = new SplittableRandom(0x63d0a8e2f1b94c57L);
    for (int i = 0; i < 10_000; i++) {
      long v = i < 3 ? new long[] {0, -1, Long.MIN_VALUE}[i] : r.nextLong();
      long seed = i % 2 == 0 ? 0 : r.nextLong();
      byte[] le = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(v).array();
      assertThat(Xxh64.hashLong(v, seed)).isEqualTo(Hashing.xxh64(seed).hashBytesToLong(le));
      if (seed == 0) {
        assertThat(HashStrategy.xxh64().hash64(v)).isEqualTo(HashStrategy.xxh64().hash64(le));
      }
    }
  }

  /** Concurrent adds (the default mode) lose no atomic OR: the serial filter's bits, every key. */
  @Test
  void concurrentAddsLoseNothing() throws Exception {
    int perThread = 20_000;
    // A small filter: the threads' keys share words often, where a lost OR would show.
    SplitBlockBloomFilter shared = SplitBlockBloomFilter.create(Threads.COUNT * perThread, 0.05);
    SplitBlockBloomFilter serial =
        SplitBlockBloomFilter.create(Threads.COUNT * perThread, 0.05, Concurrency.SINGLE_WRITER);
    ConcurrentAdds.raceAndReplay(shared, serial, perThread);
    assertThat(shared.toParquetBitset()).isEqualTo(serial.toParquetBitset());
  }

  /** Both modes, one by one and in batches, set the same bits; a concurrent build loses no key. */
  @Test
  void modesAndBatchesSetTheSameBits() throws InterruptedException {
    long[] keys = distinctLongs(200_000, 0x1f5c9be02a7d3864L);
    SplitBlockBloomFilter one =
        SplitBlockBloomFilter.create(keys.length, 0.01, Concurrency.SINGLE_WRITER);
    long changed = 0;
    for (long k : keys) {
      changed += one.add(k) ? 1 : 0;
    }
    SplitBlockBloomFilter batch =
        SplitBlockBloomFilter.create(keys.length, 0.01, Concurrency.SINGLE_WRITER);
    assertThat(batch.addAll(keys)).isEqualTo(changed);
    assertThat(batch.toParquetBitset()).isEqualTo(one.toParquetBitset());

    SplitBlockBloomFilter shared = SplitBlockBloomFilter.create(keys.length, 0.01);
    Thread[] threads = new Thread[4];
    for (int t = 0; t < threads.length; t++) {
      int from = t * keys.length / threads.length;
      int to = (t + 1) * keys.length / threads.length;
      threads[t] =
          new Thread(
              () -> {
                for (int i = from; i < to; i++) {
                  shared.add(keys[i]);
                }
              });
      threads[t].start();
    }
    for (Thread t : threads) {
      t.join();
    }
    assertThat(shared.toParquetBitset()).isEqualTo(one.toParquetBitset());

    long[] probe = distinctLongs(100_000, 0x7e4b2d90c3a1f865L);
    boolean[] present = new boolean[probe.length];
    int found = one.mightContainAll(probe, present);
    int expectedFound = 0;
    for (int i = 0; i < probe.length; i++) {
      assertThat(present[i]).isEqualTo(one.mightContain(probe[i]));
      expectedFound += present[i] ? 1 : 0;
    }
    assertThat(found).isEqualTo(expectedFound);
    boolean[] all = new boolean[keys.length];
    assertThat(shared.mightContainAll(keys, all)).isEqualTo(keys.length);
  }

  @Test
  void mergeIsTheUnionAndRefusesOtherSizes() {
    long[] keys = distinctLongs(20_000, 0x4d8a6c2e19f07b35L);
    SplitBlockBloomFilter a = SplitBlockBloomFilter.withBytes(1 << 14);
    SplitBlockBloomFilter b = SplitBlockBloomFilter.withBytes(1 << 14, Concurrency.SINGLE_WRITER);
    SplitBlockBloomFilter all = SplitBlockBloomFilter.withBytes(1 << 14);
    for (int i = 0; i < keys.length; i++) {
      (i % 2 == 0 ? a : b).add(keys[i]);
      all.add(keys[i]);
    }
    SplitBlockBloomFilter c = b.copy().merge(a);
    assertThat(c.toParquetBitset()).isEqualTo(all.toParquetBitset());
    assertThat(a.merge(b).toParquetBitset()).isEqualTo(all.toParquetBitset());
    assertThatThrownBy(() -> a.merge(SplitBlockBloomFilter.withBytes(1 << 13)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("16384 bytes and 8192 bytes");
  }

  /** A Parquet bitset read in answers as parquet-java does over it, and writes back the same. */
  @Test
  void aParquetBitsetReadsAndWritesBack() throws IOException {
    BlockSplitBloomFilter theirs = new BlockSplitBloomFilter(1 << 12);
    long[] keys = distinctLongs(4_000, 0x0b7e3a95d2c6f148L);
    for (int i = 0; i < 2_000; i++) {
      theirs.insertHash(theirs.hash(keys[i]));
    }
    byte[] bits = bitset(theirs);
    byte[] framed = new byte[bits.length + 10];
    System.arraycopy(bits, 0, framed, 7, bits.length);
    SplitBlockBloomFilter ours =
        SplitBlockBloomFilter.fromParquetBitset(framed, 7, bits.length, Concurrency.CONCURRENT);
    for (long k : keys) {
      assertThat(ours.mightContain(k)).isEqualTo(theirs.findHash(theirs.hash(k)));
    }
    assertThat(ours.toParquetBitset()).isEqualTo(bits);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ours.writeTo(out);
    SplitBlockBloomFilter back =
        SplitBlockBloomFilter.readFrom(new ByteArrayInputStream(out.toByteArray()));
    assertThat(back.toParquetBitset()).isEqualTo(bits);
    assertThatThrownBy(
            () -> SplitBlockBloomFilter.fromParquetBitset(bits, 0, 48, Concurrency.CONCURRENT))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("48");
    assertThatThrownBy(() -> SplitBlockBloomFilter.withBytes(100))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("100");
  }
}
