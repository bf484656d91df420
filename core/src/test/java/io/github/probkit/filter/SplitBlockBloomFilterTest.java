package io.github.probkit.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.dynatrace.hash4j.hashing.Hashing;
import io.github.probkit.Concurrency;
import io.github.probkit.GoldenFiles;
import io.github.probkit.hash.HashStrategy;
import io.github.probkit.hash.Xxh64;
import io.github.probkit.internal.BatchPasses;
import io.github.probkit.internal.Mix;
import io.github.probkit.io.SketchFormatException;
import io.github.probkit.testing.Bytes;
import io.github.probkit.testing.Corruption;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** SplitBlockBloomFilter against parquet-java's BlockSplitBloomFilter, the format's reference. */
class SplitBlockBloomFilterTest {

  /**
   * Keys per Parquet comparison: a million, fewer under PIT (the pitest profile's
   * probkit.foreign.keys), which runs these comparisons again for every surviving mutant.
   */
  private static final int N = Integer.getInteger("probkit.foreign.keys", 1_000_000);

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

  /**
   * Both modes: add(long) and mightContain(long) hash the key themselves, apart from the batches
   * and the byte keys, and a single-writer add stores without the atomic OR; a bit either path lost
   * would make the bitsets differ and its key answer absent.
   */
  @ParameterizedTest
  @EnumSource(Concurrency.class)
  void longKeysGiveParquetJavasBitsAndAnswers(Concurrency mode) throws IOException {
    long[] keys = distinctLongs(2 * N, 0x9a3f17c2e5b80d41L);
    SplitBlockBloomFilter ours = SplitBlockBloomFilter.create(N, 0.01, mode);
    BlockSplitBloomFilter theirs = parquet(N, 0.01);
    for (int i = 0; i < N; i++) {
      ours.add(keys[i]);
      theirs.insertHash(theirs.hash(keys[i]));
    }
    assertThat(ours.toParquetBitset()).isEqualTo(bitset(theirs));
    // Every one of a block's 256 bit positions (32 in each of the 8 words) was set by some key, so
    // the equality above compared each word's every bit, not only those a few keys reach.
    long[] everyBlock = new long[4];
    ByteBuffer set = ByteBuffer.wrap(ours.toParquetBitset()).order(ByteOrder.LITTLE_ENDIAN);
    for (int i = 0; set.hasRemaining(); i++) {
      everyBlock[i % 4] |= set.getLong();
    }
    assertThat(everyBlock).containsOnly(-1L);
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

  /**
   * add answers whether the key was new to the filter: true exactly when a query before it said
   * absent. A small filter, so that many new keys are already reported present and both answers are
   * checked; long, String and byte keys, in both modes.
   */
  @Test
  void addAnswersWhetherTheKeyWasReportedAbsentBefore() {
    for (Concurrency c : Concurrency.values()) {
      SplitBlockBloomFilter f = SplitBlockBloomFilter.withBytes(1 << 10, c);
      long[] keys = distinctLongs(3_000, 0x3b9e0c57a1d4f826L);
      int[] answers = new int[2];
      for (int i = 0; i < keys.length; i++) {
        boolean before;
        boolean added;
        if (i % 3 == 0) {
          before = f.mightContain(keys[i]);
          added = f.add(keys[i]);
          assertThat(f.add(keys[i])).as("%s: long %d again", c, i).isFalse();
        } else if (i % 3 == 1) {
          String k = "key-" + keys[i];
          before = f.mightContain(k);
          added = f.add(k);
          assertThat(f.add(k)).as("%s: string %d again", c, i).isFalse();
        } else {
          byte[] k = ("b" + keys[i]).getBytes(StandardCharsets.UTF_8);
          before = f.mightContain(k, 0, k.length);
          added = f.add(k, 0, k.length);
          assertThat(f.add(k, 0, k.length)).as("%s: bytes %d again", c, i).isFalse();
        }
        assertThat(added).as("%s: key %d, present before: %s", c, i, before).isEqualTo(!before);
        answers[added ? 1 : 0]++;
      }
      assertThat(Math.min(answers[0], answers[1])).as("%s: both answers met", c).isGreaterThan(100);
    }
  }

  /** The batches of slices and of hashes answer and count as the keys one by one. */
  @Test
  void batchesOfSlicesAndHashesAgreeWithOneByOne() {
    int n = 5_000;
    byte[] buf = new byte[n * 12];
    int[] offsets = new int[n];
    int[] lengths = new int[n];
    long[] hashes = new long[n];
    SplitBlockBloomFilter one = SplitBlockBloomFilter.withBytes(1 << 12, Concurrency.SINGLE_WRITER);
    long changed = 0;
    int pos = 0;
    for (int i = 0; i < n; i++) {
      byte[] k = ("s" + i).getBytes(StandardCharsets.UTF_8);
      System.arraycopy(k, 0, buf, pos, k.length);
      offsets[i] = pos;
      lengths[i] = k.length;
      pos += k.length;
      hashes[i] = HashStrategy.xxh64().hash64(k);
      if (i % 2 == 0) {
        changed += one.add(k, 0, k.length) ? 1 : 0;
      }
    }
    assertThat(one.hashSuffices()).isTrue();
    for (Concurrency c : Concurrency.values()) {
      SplitBlockBloomFilter bySlices = SplitBlockBloomFilter.withBytes(1 << 12, c);
      SplitBlockBloomFilter byHashes = SplitBlockBloomFilter.withBytes(1 << 12, c);
      int[] evenOffsets = new int[n / 2];
      int[] evenLengths = new int[n / 2];
      long[] evenHashes = new long[n / 2];
      for (int i = 0; i < n / 2; i++) {
        evenOffsets[i] = offsets[2 * i];
        evenLengths[i] = lengths[2 * i];
        evenHashes[i] = hashes[2 * i];
      }
      assertThat(bySlices.addAll(buf, evenOffsets, evenLengths, n / 2)).isEqualTo(changed);
      assertThat(byHashes.addAllHashes(evenHashes, 0, n / 2)).isEqualTo(changed);
      assertThat(bySlices.toParquetBitset()).isEqualTo(one.toParquetBitset());
      assertThat(byHashes.toParquetBitset()).isEqualTo(one.toParquetBitset());
      boolean[] fromSlices = new boolean[n];
      boolean[] fromHashes = new boolean[n];
      int found = 0;
      for (int i = 0; i < n; i++) {
        found += one.mightContain(buf, offsets[i], lengths[i]) ? 1 : 0;
      }
      assertThat(bySlices.mightContainAll(buf, offsets, lengths, n, fromSlices)).isEqualTo(found);
      assertThat(byHashes.mightContainAllHashes(hashes, 0, n, fromHashes)).isEqualTo(found);
      for (int i = 0; i < n; i++) {
        boolean expected = one.mightContain(buf, offsets[i], lengths[i]);
        assertThat(fromSlices[i]).as("slice %d", i).isEqualTo(expected);
        assertThat(fromHashes[i]).as("hash %d", i).isEqualTo(expected);
        if (i % 2 == 0) {
          assertThat(expected).as("added key %d", i).isTrue();
        }
      }
      // Both answers occur among the odd (never added) keys.
      assertThat(found).isBetween(n / 2 + 1, n - 1);
    }
  }

  /** A results array too short for the batch is refused before any answer is written. */
  @Test
  void aBatchWithTooFewResultsIsRefusedBeforeAnswering() {
    long[] keys = distinctLongs(100, 0x58c2e7a9134bd06fL);
    SplitBlockBloomFilter f = SplitBlockBloomFilter.withBytes(1 << 10);
    f.addAll(keys);
    boolean[] present = new boolean[keys.length - 1];
    assertThatThrownBy(() -> f.mightContainAll(keys, 0, keys.length, present))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(String.valueOf(keys.length - 1));
    assertThat(present).containsOnly(false);

    // The same for the batches of slices and of hashes.
    int n = 3 * BatchPasses.CHUNK;
    byte[] buf = new byte[8 * n];
    int[] offsets = new int[n];
    int[] lengths = new int[n];
    long[] hashes = new long[n];
    for (int i = 0; i < n; i++) {
      ByteBuffer.wrap(buf, 8 * i, 8).order(ByteOrder.LITTLE_ENDIAN).putLong(i);
      offsets[i] = 8 * i;
      lengths[i] = 8;
      hashes[i] = HashStrategy.xxh64().hash64(buf, 8 * i, 8);
    }
    SplitBlockBloomFilter g = SplitBlockBloomFilter.withBytes(1 << 12);
    g.addAll(buf, offsets, lengths, n);
    boolean[] fewer = new boolean[n - 1];
    assertThatThrownBy(() -> g.mightContainAll(buf, offsets, lengths, n, fewer))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(String.valueOf(n - 1));
    assertThat(fewer).containsOnly(false);
    assertThatThrownBy(() -> g.mightContainAllHashes(hashes, 0, n, fewer))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(String.valueOf(n - 1));
    assertThat(fewer).containsOnly(false);

    // A bad slice past the first chunk: refused before any key of the batch is added or answered.
    int[] badOffsets = offsets.clone();
    badOffsets[n - 1] = buf.length;
    SplitBlockBloomFilter empty = SplitBlockBloomFilter.withBytes(1 << 12);
    assertThatThrownBy(() -> empty.addAll(buf, badOffsets, lengths, n))
        .isInstanceOf(RuntimeException.class);
    assertThat(empty).isEqualTo(SplitBlockBloomFilter.withBytes(1 << 12));
    boolean[] answers = new boolean[n];
    assertThatThrownBy(() -> g.mightContainAll(buf, badOffsets, lengths, n, answers))
        .isInstanceOf(RuntimeException.class);
    assertThat(answers).containsOnly(false);
  }

  /**
   * falsePositiveRate is the binomial mixture of its documentation, every term included: with few
   * keys the last loads matter (10 keys in 2 blocks: all 10 in one block is 1/512 of the filters).
   */
  @Test
  void falsePositiveRateWithFewKeysSumsEveryLoad() {
    for (long z : new long[] {2, 3, 5}) {
      for (int n : new int[] {1, 2, 10, 40}) {
        double expected = 0;
        double q = 1.0 / z;
        for (int j = 0; j <= n; j++) {
          double choose = 1;
          for (int i = 0; i < j; i++) {
            choose = choose * (n - i) / (i + 1);
          }
          double pmf = choose * Math.pow(q, j) * Math.pow(1 - q, n - j);
          expected += pmf * Math.pow(1 - Math.pow(31.0 / 32, j), 8);
        }
        assertThat(SplitBlockBloomFilter.falsePositiveRate(32 * z, n))
            .as("z=%d n=%d", z, n)
            .isCloseTo(expected, Offset.offset(1e-9 * expected));
      }
    }
    assertThatThrownBy(() -> SplitBlockBloomFilter.falsePositiveRate(31, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("31");
    assertThatThrownBy(() -> SplitBlockBloomFilter.falsePositiveRate(64, -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-1");
  }

  /** The sizes at their limits: one block accepted everywhere, no keys and too many refused. */
  @Test
  void sizesAtTheirLimits() throws IOException {
    assertThat(SplitBlockBloomFilter.withBytes(32).blockCount()).isEqualTo(1);
    assertThat(SplitBlockBloomFilter.withBytes(1 << 14).blockCount()).isEqualTo(512);
    assertThatThrownBy(() -> SplitBlockBloomFilter.withBytes(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("was 0");
    assertThatThrownBy(() -> SplitBlockBloomFilter.withBytes(SplitBlockBloomFilter.MAX_BYTES + 32))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must be a multiple");
    // The largest size passes the size check; the heap (below 8 GiB here) is what refuses it.
    if (Runtime.getRuntime().maxMemory() < SplitBlockBloomFilter.MAX_BYTES) {
      assertThatThrownBy(() -> SplitBlockBloomFilter.withBytes(SplitBlockBloomFilter.MAX_BYTES))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("maximum heap")
          .hasMessageNotContaining("must be a multiple");
    }
    assertThatThrownBy(() -> SplitBlockBloomFilter.optimalBytes(0, 0.01))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("was 0");
    assertThatThrownBy(() -> SplitBlockBloomFilter.optimalBytes(10_000_000_000L, 1e-9))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("10000000000 keys");
    assertThat(SplitBlockBloomFilter.optimalBytes(1, 0.5)).isEqualTo(32);
    byte[] one = new byte[32];
    one[5] = 1;
    SplitBlockBloomFilter f =
        SplitBlockBloomFilter.fromParquetBitset(one, 0, 32, Concurrency.CONCURRENT);
    assertThat(f.toParquetBitset()).isEqualTo(one);
    SplitBlockBloomFilter back = SplitBlockBloomFilter.readFrom(new ByteArrayInputStream(bytes(f)));
    assertThat(back.toParquetBitset()).isEqualTo(one);
  }

  private static byte[] bytes(SplitBlockBloomFilter f) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    f.writeTo(out);
    return out.toByteArray();
  }

  private static SplitBlockBloomFilter read(byte[] b) throws IOException {
    return SplitBlockBloomFilter.readFrom(new ByteArrayInputStream(b));
  }

  /**
   * The reader refuses a bit count that is not a multiple of 256 or beyond the largest filter, a
   * hash count other than 8, and damaged or truncated bytes; the largest bit count itself passes
   * its check (and the payload's length then refuses it).
   */
  @Test
  void corruptFilesAreRefusedByName() throws IOException {
    SplitBlockBloomFilter f = SplitBlockBloomFilter.withBytes(64);
    f.add("a");
    f.add("b");
    byte[] b = bytes(f);
    int bits = Bytes.PARAMS;
    int hashes = Bytes.PARAMS + 8;
    assertThatThrownBy(() -> read(Bytes.putLong(b, bits, 128)))
        .isInstanceOf(SketchFormatException.class)
        .hasMessageContaining("'bits' is 128");
    assertThatThrownBy(
            () -> read(Bytes.putLong(b, bits, 8 * SplitBlockBloomFilter.MAX_BYTES + 256)))
        .isInstanceOf(SketchFormatException.class)
        .hasMessageContaining("'bits' is " + (8 * SplitBlockBloomFilter.MAX_BYTES + 256));
    assertThatThrownBy(() -> read(Bytes.putLong(b, bits, 8 * SplitBlockBloomFilter.MAX_BYTES)))
        .isInstanceOf(SketchFormatException.class)
        .hasMessageNotContaining("'bits'");
    assertThatThrownBy(() -> read(Bytes.putInt(b, hashes, 7)))
        .isInstanceOf(SketchFormatException.class)
        .hasMessageContaining("'hashes' is 7");
    assertThat(read(b).toParquetBitset()).isEqualTo(f.toParquetBitset());
    Corruption.assertTruncationsAndBitFlipsRefused(
        b, 0x71c3e8a05d2f94b6L, SplitBlockBloomFilterTest::read);
  }

  /** What a filter reports of itself: its mode, sizing, block count and the rate of its bits. */
  @Test
  void introspectionReportsTheFiltersState() throws IOException {
    SplitBlockBloomFilter sized = SplitBlockBloomFilter.create(1_000, 0.02);
    assertThat(sized.concurrency()).isEqualTo(Concurrency.CONCURRENT);
    assertThat(sized.expectedKeys()).isEqualTo(1_000);
    assertThat(sized.targetFpp()).isEqualTo(0.02);
    SplitBlockBloomFilter back = read(bytes(sized));
    assertThat(back.expectedKeys()).isEqualTo(1_000);
    assertThat(back.targetFpp()).isEqualTo(0.02);
    SplitBlockBloomFilter single =
        SplitBlockBloomFilter.create(1_000, 0.02, Concurrency.SINGLE_WRITER);
    assertThat(single.concurrency()).isEqualTo(Concurrency.SINGLE_WRITER);
    assertThat(single.copy().concurrency()).isEqualTo(Concurrency.SINGLE_WRITER);
    assertThat(sized.copy().concurrency()).isEqualTo(Concurrency.CONCURRENT);
    assertThat(sized.copy().expectedKeys()).isEqualTo(1_000);
    assertThat(SplitBlockBloomFilter.withBytes(64).expectedKeys()).isZero();
    assertThat(SplitBlockBloomFilter.withBytes(64).targetFpp()).isZero();
    assertThat(sized.toString()).contains(String.valueOf(sized.byteSize()));

    // expectedFpp: two blocks; block 0's eight words have 16, 8, 32, 4, 16, 24, 2, 32 bits set,
    // block 1's are empty but one: the mean over blocks of the product of the fills.
    int[] counts = {16, 8, 32, 4, 16, 24, 2, 32};
    ByteBuffer bits = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
    double product = 1;
    for (int c : counts) {
      bits.putInt((int) ((1L << c) - 1));
      product *= c / 32.0;
    }
    bits.putInt(-1);
    SplitBlockBloomFilter two =
        SplitBlockBloomFilter.fromParquetBitset(bits.array(), 0, 64, Concurrency.SINGLE_WRITER);
    assertThat(two.expectedFpp()).isCloseTo(product / 2, Offset.offset(1e-15));
    assertThat(SplitBlockBloomFilter.withBytes(64).expectedFpp()).isZero();
  }

  /** approximateCount: within 3 % of the distinct keys added; a full word makes it unbounded. */
  @Test
  void approximateCountIsNearTheKeysAdded() {
    assertThat(SplitBlockBloomFilter.withBytes(1 << 14).approximateCount()).isZero();
    for (int n : new int[] {1_000, 20_000}) {
      SplitBlockBloomFilter f = SplitBlockBloomFilter.create(20_000, 0.01);
      long[] keys = distinctLongs(n, 0x2a7f0c3e95b1d846L + n);
      for (long k : keys) {
        f.add(k);
        f.add(k);
      }
      assertThat(f.approximateCount()).as("n=%d", n).isCloseTo(n, Offset.offset(n * 3L / 100));
    }
    SplitBlockBloomFilter full = SplitBlockBloomFilter.withBytes(32);
    full.addAll(distinctLongs(2_000, 0x11d5b2c9e07a63f4L));
    assertThat(full.approximateCount()).isEqualTo(Long.MAX_VALUE);
  }

  /** Equal when the bits are, whatever the mode; sizes differ, nothing merges or equals. */
  @Test
  void equalityAndCompatibilityFollowTheBits() {
    SplitBlockBloomFilter a = SplitBlockBloomFilter.withBytes(1 << 10);
    SplitBlockBloomFilter b = SplitBlockBloomFilter.withBytes(1 << 10, Concurrency.SINGLE_WRITER);
    a.add("x");
    b.add("x");
    assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
    assertThat(a.isCompatible(b)).isTrue();
    b.add("y");
    assertThat(a).isNotEqualTo(b);
    SplitBlockBloomFilter other = SplitBlockBloomFilter.withBytes(1 << 11);
    assertThat(a.isCompatible(other)).isFalse();
    assertThat(a).isNotEqualTo(other);
    assertThat(a.isCompatible(BloomFilter.create(100, 0.01))).isFalse();
    assertThat((Object) a).isNotEqualTo("x");
  }
}
