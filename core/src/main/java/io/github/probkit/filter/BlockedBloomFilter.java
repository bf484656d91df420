package io.github.probkit.filter;

import static io.github.probkit.internal.Preconditions.checkAllocatable;
import static io.github.probkit.internal.Preconditions.checkArgument;
import static io.github.probkit.internal.Preconditions.checkOpenUnit;
import static io.github.probkit.internal.Preconditions.checkWideHash;
import static io.github.probkit.internal.Preconditions.formatBytes;

import io.github.probkit.Concurrency;
import io.github.probkit.hash.DoubleHashing;
import io.github.probkit.hash.HashStrategy;
import io.github.probkit.internal.BatchPasses;
import io.github.probkit.internal.Compatibility;
import io.github.probkit.internal.LongBitArray;
import io.github.probkit.internal.MappedBytes;
import io.github.probkit.internal.Mix;
import io.github.probkit.io.SketchReader;
import io.github.probkit.io.StructureType;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;
import java.util.PrimitiveIterator;

/**
 * A cache-blocked Bloom filter: every probe of a key falls in one 512-bit block (a 64-byte cache
 * line), so a query costs one memory access however many probes it makes. It is the fastest filter
 * that keys can be added to, at the price of slightly more memory than a standard {@link
 * BloomFilter} for the same false-positive rate, because keys are spread unevenly over the blocks.
 *
 * <p>Cheat sheet, for n keys in B blocks of 512 bits (m = 512 B bits, load per block {@code lambda
 * = n / B}) and k probes:
 *
 * <pre>
 *   fpp   p = sum_j Poisson(j; lambda) * E[(X_j / 512)^k]
 *         where X_j, the set bits of a block holding j keys, has mean 512 (1 - (1 - 1/512)^(jk));
 *         the expectation is taken to second order in the variance of X_j (see falsePositiveRate)
 *   size  create(n, p) takes the fewest blocks for which the best k gives a rate at most p:
 *           p = 1 %     9.92 bits/key, k = 6   (standard filter 9.59: 1.035x the memory)
 *           p = 0.1 %  15.55 bits/key, k = 9   (standard 14.38: 1.08x)
 *           p = 0.01 % 22.03 bits/key, k = 12  (standard 19.17: 1.15x)
 *   rate at a given bits/key, against the standard filter's with its best k:
 *           8 bits/key 2.33 % (1.08x), 9.585 bits/key 1.15 % (1.15x), 10 bits/key 0.97 % (1.18x),
 *           12 bits/key 0.41 % (1.32x); the gap grows with bits/key, so below about 0.01 % a
 *           standard filter is the better choice
 * </pre>
 *
 * <p>Thread safety: chosen when the filter is created or read ({@link Concurrency}).
 *
 * <ul>
 *   <li>{@link Concurrency#CONCURRENT} (the default): {@code add} and {@code merge} may be called
 *       from many threads at once: an add holds, for its few stores to one cache line, one of 256
 *       spin locks striped over the blocks (one locked instruction per add, where an atomic
 *       operation per changed word costs four or five). {@code mightContain} takes no lock, may run
 *       concurrently with adds and sees every add that happened-before it. {@code writeTo} is not
 *       atomic with respect to concurrent adds: a key added during it may be missed by it.
 *   <li>{@link Concurrency#SINGLE_WRITER}: {@code add} and {@code merge} use plain stores, and one
 *       thread at a time may call them; queries from other threads need external synchronization
 *       with it. The fastest way to build a filter from one thread.
 * </ul>
 *
 * Both modes write the same bits for the same keys and the same bytes to a file.
 */
public final class BlockedBloomFilter implements MergeableFilter {
  /** The bits of a block: one 64-byte cache line. */
  public static final int BLOCK_BITS = 512;

  /** The most bits a filter can have: whole blocks in the largest long[] a JVM allocates. */
  public static final long MAX_BITS = LongBitArray.MAX_BITS / BLOCK_BITS * BLOCK_BITS;

  /** The most probes per key. */
  public static final int MAX_HASHES = 64;

  /*
   * Design notes.
   *
   * Layout: block b is words [LEAD + 8b, LEAD + 8b + 8) of one long[], so its 512 bits share a
   * cache line when word LEAD is 64-byte aligned. The JVM promises no alignment, but G1 starts every
   * humongous array (over half a region: the filters too large for the cache, where alignment
   * matters) at a region boundary, and an array's data follows a 16-byte header; LEAD = 6 unused
   * words put block 0 on the next line. Unaligned, a block spans two lines, and a query waits for
   * both (bench/NOTES.md has the figures). The file holds no lead.
   *
   * Probes (in the spirit of RocksDB's FastLocalBloom [1]): one 64-bit hash h per key. The block is
   * reduce(h, B), Lemire's multiply-high [2], which reads the high bits of h and needs no division.
   * The positions inside the block are 9-bit fields of g = h * 0x9E3779B97F4A7C15 (the golden
   * ratio, odd): 3 bits pick the word and 6 the bit, seven fields per 64-bit value. The product
   * matters: when B is a power of two the top bits of h ARE the block number, and fields taken from h
   * itself would be shared by every key of a block (simulated: 1.26 % instead of 0.97 % at 10
   * bits/key); the product's bits depend on all of h's bits, and give the rate the formula predicts.
   * Probes 8 and up (k > 7, below about 0.5 %) take their fields from mix64(h + i * golden) for the
   * i-th group: multiplying g again would not do, because the low bits of a product depend only on
   * the low bits of its factors, so the eighth probe would be a function of the first (measured:
   * 1.18 % instead of 1.14 % at k = 9). Probes are drawn with replacement (two may hit the same
   * bit), which the formula accounts for.
   *
   * A query is branch-free: it ANDs the k probed bits (all in one line, so after the first load the
   * rest hit L1) and tests the result once, instead of a hard-to-predict early exit per probe.
   * Long keys are hashed with HashStrategy.hash64(long), without going through bytes.
   *
   * FNV-1a (a selectable strategy kept for the specification's walkthroughs) has weak low bits, so
   * its hash is passed through a full-avalanche finalizer first; XXH3's hash is used as is.
   *
   * FPR: a key's block is uniform, so block loads are Poisson(n/B), and the rate is the average over
   * loads of the rate of a 512-bit filter with that many keys (Putze, Sanders, Singler [3]). The
   * uneven loads are what cost the extra memory; sizing solves the formula numerically (StrictMath,
   * so every JVM sizes alike and filters built on different machines merge).
   *
   * [1] RocksDB, util/bloom_impl.h, FastLocalBloomImpl (Dillinger, 2019).
   * [2] Lemire. Fast random integer generation in an interval. 2019.
   * [3] Putze, Sanders, Singler. Cache-, hash- and space-efficient Bloom filters. 2007.
   */

  private static final int BLOCK_WORDS = BLOCK_BITS / Long.SIZE;

  /**
   * Unused words before block 0, which align the blocks to cache lines (see Layout above). The
   * offset costs a query of a filter in the cache a little and saves a batch query of a filter
   * larger than the cache much more (bench/NOTES.md).
   */
  private static final int LEAD = 6;

  /** Spin locks of the concurrent mode: block b is guarded by lock b mod LOCKS. */
  private static final int LOCKS = 256;

  /** Ints between two locks: 64 bytes, so that no two share a cache line. */
  private static final int LOCK_STRIDE = 16;

  private static final VarHandle LOCK = MethodHandles.arrayElementVarHandle(int[].class);
  private static final long REMIX = 0x9E3779B97F4A7C15L;
  private static final int FIELDS_PER_REMIX = 7;

  /** LEAD zero words, then the table. */
  private final long[] words;

  private final boolean concurrent;

  /** The spin locks of the concurrent mode (null in the single-writer mode). */
  private final int[] locks;

  private final long blocks;
  private final int k;
  private final HashStrategy hash;
  private final boolean spread;
  private final long expectedKeys;
  private final double fpp;

  private BlockedBloomFilter(
      long[] words,
      int k,
      HashStrategy hash,
      long expectedKeys,
      double fpp,
      Concurrency concurrency) {
    this.words = words;
    this.concurrent = Objects.requireNonNull(concurrency, "concurrency") == Concurrency.CONCURRENT;
    this.locks = concurrent ? new int[LOCKS * LOCK_STRIDE] : null;
    this.blocks = (words.length - LEAD) / BLOCK_WORDS;
    this.k = k;
    this.hash = hash;
    this.spread = hash.needsMixing();
    this.expectedKeys = expectedKeys;
    this.fpp = fpp;
  }

  /**
   * A filter sized for {@code expectedKeys} keys at false-positive rate {@code fpp}, hashed with
   * XXH3.
   */
  public static BlockedBloomFilter create(long expectedKeys, double fpp) {
    return create(expectedKeys, fpp, HashStrategy.xxh3());
  }

  public static BlockedBloomFilter create(long expectedKeys, double fpp, HashStrategy hash) {
    return create(expectedKeys, fpp, hash, Concurrency.CONCURRENT);
  }

  /** As {@link #create(long, double)}, in the given write mode. */
  public static BlockedBloomFilter create(long expectedKeys, double fpp, Concurrency concurrency) {
    return create(expectedKeys, fpp, HashStrategy.xxh3(), concurrency);
  }

  public static BlockedBloomFilter create(
      long expectedKeys, double fpp, HashStrategy hash, Concurrency concurrency) {
    long m = optimalBits(expectedKeys, fpp);
    return allocate(m, optimalHashes(m, expectedKeys), hash, expectedKeys, fpp, concurrency);
  }

  /**
   * A filter of {@code bits} bits, rounded up to whole 512-bit blocks, and {@code hashes} probes
   * per key, hashed with XXH3.
   */
  public static BlockedBloomFilter withBits(long bits, int hashes) {
    return withBits(bits, hashes, HashStrategy.xxh3());
  }

  public static BlockedBloomFilter withBits(long bits, int hashes, HashStrategy hash) {
    return withBits(bits, hashes, hash, Concurrency.CONCURRENT);
  }

  public static BlockedBloomFilter withBits(
      long bits, int hashes, HashStrategy hash, Concurrency concurrency) {
    checkArgument(bits >= 1 && bits <= MAX_BITS, "bits must be in [1, %d], was %d", MAX_BITS, bits);
    return allocate(roundUp(bits), hashes, hash, 0, 0, concurrency);
  }

  private static long roundUp(long bits) {
    return (bits + BLOCK_BITS - 1) / BLOCK_BITS * BLOCK_BITS;
  }

  private static BlockedBloomFilter allocate(
      long m, int k, HashStrategy hash, long n, double p, Concurrency c) {
    checkArgument(k >= 1 && k <= MAX_HASHES, "hashes must be in [1, %d], was %d", MAX_HASHES, k);
    checkWideHash(hash, "a blocked Bloom filter");
    Objects.requireNonNull(c, "concurrency");
    checkAllocatable(m / 8, "a blocked Bloom filter of " + m + " bits");
    return new BlockedBloomFilter(new long[LEAD + LongBitArray.wordsFor(m)], k, hash, n, p, c);
  }

  // ---- sizing

  /**
   * The bits for {@code n} keys at rate {@code p}: the fewest whole blocks for which {@link
   * #falsePositiveRate} with the best number of probes is at most {@code p}.
   */
  public static long optimalBits(long n, double p) {
    checkArgument(n > 0, "expectedKeys must be positive, was %d", n);
    checkOpenUnit("fpp", p);
    // A standard filter of the same bits does at least as well, so its size is a lower bound.
    double standard = Math.ceil(-n * StrictMath.log(p) / (StrictMath.log(2) * StrictMath.log(2)));
    long maxBlocks = MAX_BITS / BLOCK_BITS;
    long lo = (long) Math.max(1, Math.min(maxBlocks, Math.floor(standard / BLOCK_BITS)));
    if (bestRate(lo, n) <= p) {
      return lo * BLOCK_BITS;
    }
    long hi = lo;
    do {
      lo = hi;
      checkArgument(
          hi < maxBlocks,
          "%d keys at fpp %s need at least %s, more than the largest blocked Bloom filter (%d"
              + " bits, %s)",
          n,
          p,
          formatBytes((long) (Math.max(standard, MAX_BITS) / 8)),
          MAX_BITS,
          formatBytes(MAX_BITS / 8));
      hi = Math.min(maxBlocks, 2 * hi);
    } while (bestRate(hi, n) > p);
    // Invariant: rate(lo) > p >= rate(hi).
    while (hi - lo > 1) {
      long mid = (lo + hi) >>> 1;
      if (bestRate(mid, n) <= p) {
        hi = mid;
      } else {
        lo = mid;
      }
    }
    return hi * BLOCK_BITS;
  }

  private static double bestRate(long blocks, long n) {
    long m = blocks * BLOCK_BITS;
    return falsePositiveRate(m, n, optimalHashes(m, n));
  }

  /**
   * The probes per key that minimise {@link #falsePositiveRate} for {@code n} keys in {@code bits}.
   */
  public static int optimalHashes(long bits, long n) {
    checkArgument(bits > 0, "bits must be positive, was %d", bits);
    checkArgument(n > 0, "expectedKeys must be positive, was %d", n);
    // The rate is unimodal in k: walk up from 1 while it falls.
    int k = 1;
    double best = falsePositiveRate(bits, n, 1);
    while (k < MAX_HASHES) {
      double next = falsePositiveRate(bits, n, k + 1);
      if (!(next < best)) {
        break;
      }
      best = next;
      k++;
    }
    return k;
  }

  /**
   * The theoretical false-positive rate of {@code n} keys in {@code bits} bits (rounded up to whole
   * blocks) with {@code k} probes: the Poisson mixture over block loads of the rate of one 512-bit
   * block, where a block holding j keys has X set bits after jk uniform throws and a query hits
   * {@code E[(X/512)^k] ~ mu^k + C(k,2) mu^(k-2) var} (mean and variance of X/512, which are exact;
   * the expansion to second order is within about 1 % of simulation at 10 bits/key).
   */
  public static double falsePositiveRate(long bits, long n, int k) {
    checkArgument(bits > 0, "bits must be positive, was %d", bits);
    checkArgument(n >= 0, "keys must be non-negative, was %d", n);
    checkArgument(k >= 1, "hashes must be positive, was %d", k);
    if (n == 0) {
      return 0;
    }
    double lambda = (double) n / ((bits + BLOCK_BITS - 1) / BLOCK_BITS);
    double sd = Math.sqrt(lambda);
    long lo = (long) Math.max(0, Math.floor(lambda - 12 * sd - 8));
    long hi = (long) Math.ceil(lambda + 12 * sd + 8);
    // Past a few thousand terms the Poisson weights are smooth: sample them with a stride.
    long stride = Math.max(1, (hi - lo) / 4096);
    double logLambda = StrictMath.log(lambda);
    double weight = 0;
    double sum = 0;
    for (long j = lo; j <= hi; j += stride) {
      double w = StrictMath.exp(j * logLambda - lambda - logFactorial(j));
      weight += w;
      sum += w * blockRate(j, k);
    }
    return sum / weight;
  }

  /** E[(X/512)^k] for X the set bits of a block after j keys of k probes each, to second order. */
  private static double blockRate(long j, int k) {
    double t = (double) j * k;
    double a = StrictMath.exp(t * StrictMath.log1p(-1.0 / BLOCK_BITS)); // P(a given bit is clear)
    double b =
        StrictMath.exp(t * StrictMath.log1p(-2.0 / BLOCK_BITS)); // P(two given bits are clear)
    double mu = 1 - a;
    double var = Math.max(0, a / BLOCK_BITS + (1 - 1.0 / BLOCK_BITS) * b - a * a);
    double first = StrictMath.pow(mu, k);
    return k < 2 ? first : first + 0.5 * k * (k - 1) * StrictMath.pow(mu, k - 2) * var;
  }

  /** ln(j!): exact below 32, Stirling's series above (error below 1e-13). */
  private static double logFactorial(long j) {
    if (j < 32) {
      double f = 0;
      for (int i = 2; i <= j; i++) {
        f += StrictMath.log(i);
      }
      return f;
    }
    double x = j + 1.0;
    double inv = 1 / x;
    double inv2 = inv * inv;
    return (x - 0.5) * StrictMath.log(x)
        - x
        + 0.5 * StrictMath.log(2 * Math.PI)
        + inv * (1.0 / 12 - inv2 * (1.0 / 360 - inv2 * (1.0 / 1260)));
  }

  // ---- keys

  private long hashOf(byte[] key, int off, int len) {
    long h = hash.hash64(key, off, len);
    return spread ? Mix.mix64(h) : h;
  }

  private long hashOf(long key) {
    long h = hash.hash64(key);
    return spread ? Mix.mix64(h) : h;
  }

  private int blockBase(long h) {
    return LEAD + (int) DoubleHashing.reduce(h, blocks) * BLOCK_WORDS;
  }

  @Override
  public boolean add(byte[] key, int off, int len) {
    long h = hashOf(key, off, len);
    return addAt(blockBase(h), h);
  }

  @Override
  public boolean add(long key) {
    long h = hashOf(key);
    return addAt(blockBase(h), h);
  }

  @Override
  public boolean mightContain(byte[] key, int off, int len) {
    long h = hashOf(key, off, len);
    return containsAt(blockBase(h), h);
  }

  @Override
  public boolean mightContain(long key) {
    long h = hashOf(key);
    return containsAt(blockBase(h), h);
  }

  // The hot paths are kept under the JIT's inlining limit (325 bytes of bytecode): one method per
  // case, the common one (k <= 7, one group of fields) first; a whole add in one method was not
  // inlined, and slower.

  /** Sets the key's bits in the block at word {@code base}; whether any was clear. */
  private boolean addAt(int base, long h) {
    return concurrent ? addLocked(base, h) : addUnlocked(base, h);
  }

  private boolean addUnlocked(int base, long h) {
    // k = 6 (1 %, the default rate) given as a constant: the JIT then unrolls the loop, faster than
    // the loop over k or one unrolled by hand.
    if (k == 6) {
      return addPlain(base, h, 6);
    }
    return k > FIELDS_PER_REMIX ? addPlainGroups(base, h) : addPlain(base, h, k);
  }

  private boolean addPlain(int base, long h, int k) {
    long[] w = words;
    long g = h * REMIX;
    long fresh = 0;
    for (int i = 0; i < k; i++, g >>>= 9) {
      int at = base + ((int) g & 7);
      long bit = 1L << (g >>> 3);
      long old = w[at];
      w[at] = old | bit;
      fresh |= ~old & bit;
    }
    return fresh != 0;
  }

  private boolean addPlainGroups(int base, long h) {
    long[] w = words;
    long g = h * REMIX;
    long fresh = 0;
    for (int i = 0, group = 1; ; group++) {
      for (int end = Math.min(k, i + FIELDS_PER_REMIX); i < end; i++, g >>>= 9) {
        int at = base + ((int) g & 7);
        long bit = 1L << (g >>> 3);
        long old = w[at];
        w[at] = old | bit;
        fresh |= ~old & bit;
      }
      if (i == k) {
        return fresh != 0;
      }
      g = Mix.mix64(h + group * REMIX);
    }
  }

  /**
   * The concurrent add: the plain stores of {@link #addUnlocked}, under the spin lock of the key's
   * block: one locked instruction per add, where a compare-and-exchange per changed word took four
   * or five.
   */
  private boolean addLocked(int base, long h) {
    int lock = lockOf(base);
    lock(lock);
    try {
      return addUnlocked(base, h);
    } finally {
      LOCK.setRelease(locks, lock, 0);
    }
  }

  /**
   * The lock of the block at word {@code base}: one of {@link #LOCKS}, each on its own cache line.
   */
  private static int lockOf(int base) {
    return ((base / BLOCK_WORDS) & (LOCKS - 1)) * LOCK_STRIDE;
  }

  /**
   * Held for a few stores to one cache line. A thread that finds it held spins, and yields now and
   * then in case the holder has lost its core.
   */
  private void lock(int lock) {
    for (int spins = 1; !LOCK.weakCompareAndSetAcquire(locks, lock, 0, 1); spins++) {
      if ((spins & 63) == 0) {
        Thread.yield();
      } else {
        Thread.onSpinWait();
      }
    }
  }

  /** Whether all the key's bits are set in the block at word {@code base}. */
  private boolean containsAt(int base, long h) {
    // k = 6 (1 %, the default rate) given as a constant: the JIT unrolls the loop, each load's word
    // and shift then coming from g by constant shifts.
    if (k == 6) {
      return containsInOneGroup(base, h, 6);
    }
    return k > FIELDS_PER_REMIX ? containsGroups(base, h) : containsInOneGroup(base, h, k);
  }

  private boolean containsInOneGroup(int base, long h, int k) {
    long[] w = words;
    long g = h * REMIX;
    long all = 1;
    for (int i = 0; i < k; i++, g >>>= 9) {
      // A long shift uses the low 6 bits of its count: g >>> 3 selects bits 3..8 of the field.
      all &= w[base + ((int) g & 7)] >>> (g >>> 3);
    }
    return (all & 1) != 0;
  }

  private boolean containsGroups(int base, long h) {
    long[] w = words;
    long all = 1;
    long g = h * REMIX;
    for (int i = 0, group = 1; ; group++) {
      for (int end = Math.min(k, i + FIELDS_PER_REMIX); i < end; i++, g >>>= 9) {
        all &= w[base + ((int) g & 7)] >>> (g >>> 3);
      }
      if (i == k) {
        return (all & 1) != 0;
      }
      g = Mix.mix64(h + group * REMIX);
    }
  }

  // ---- batches: hash a chunk, touch each key's block, then test or set (see internal.BatchPasses)

  @Override
  public int mightContainAll(long[] keys, int from, int to, boolean[] present) {
    BatchPasses.checkRange(from, to, keys.length, present.length);
    return (int)
        BatchPasses.overLongs(
            hash, keys, from, to, (h, base, n, at) -> containsChunk(h, base, n, present, at));
  }

  @Override
  public int mightContainAll(
      byte[] buf, int[] offsets, int[] lengths, int count, boolean[] present) {
    BatchPasses.checkSlices(buf, offsets, lengths, count);
    BatchPasses.checkRange(0, count, count, present.length);
    return (int)
        BatchPasses.overSlices(
            hash,
            buf,
            offsets,
            lengths,
            count,
            (h, base, n, at) -> containsChunk(h, base, n, present, at));
  }

  @Override
  public long addAll(long[] keys, int from, int to) {
    Objects.checkFromToIndex(from, to, keys.length);
    return BatchPasses.overLongs(hash, keys, from, to, (h, base, n, at) -> addChunk(h, base, n));
  }

  @Override
  public long addAll(byte[] buf, int[] offsets, int[] lengths, int count) {
    BatchPasses.checkSlices(buf, offsets, lengths, count);
    return BatchPasses.overSlices(
        hash, buf, offsets, lengths, count, (h, base, n, at) -> addChunk(h, base, n));
  }

  /** True: the probes come from the key's hash alone (mixed first when the strategy needs it). */
  @Override
  public boolean hashSuffices() {
    return true;
  }

  @Override
  public int mightContainAllHashes(long[] hashes, int from, int to, boolean[] present) {
    BatchPasses.checkRange(from, to, hashes.length, present.length);
    return (int)
        BatchPasses.overHashes(
            hashes, from, to, (h, base, n, at) -> containsChunk(h, base, n, present, at));
  }

  @Override
  public long addAllHashes(long[] hashes, int from, int to) {
    Objects.checkFromToIndex(from, to, hashes.length);
    return BatchPasses.overHashes(hashes, from, to, (h, base, n, at) -> addChunk(h, base, n));
  }

  /**
   * Turns the strategy's hashes of a chunk into the probes' ({@link #hashOf}), finds each key's
   * block and loads its first and last word. A long[]'s elements start 16 bytes past a cache line,
   * so a block straddles two lines; touching only one left a miss in most tests.
   */
  private void prepare(long[] h, int[] base, int n) {
    for (int i = 0; i < n; i++) {
      if (spread) {
        h[i] = Mix.mix64(h[i]);
      }
      base[i] = blockBase(h[i]);
    }
    // A loop of bare loads, apart from the arithmetic above: more of them fit in the processor's
    // window.
    long[] w = words;
    long touched = 0;
    if (8L * w.length >= BatchPasses.ALIGNED_BYTES && BatchPasses.largeArraysAligned()) {
      // Each block is one cache line (see Layout): one load brings it.
      for (int i = 0; i < n; i++) {
        touched += w[base[i]];
      }
    } else {
      // A block may span two lines: touch both, or the test waits for the second one key by key.
      for (int i = 0; i < n; i++) {
        touched += w[base[i]] + w[base[i] + BLOCK_WORDS - 1];
      }
    }
    BatchPasses.consume(touched);
  }

  private int containsChunk(long[] h, int[] base, int n, boolean[] present, int at) {
    prepare(h, base, n);
    int found = 0;
    for (int i = 0; i < n; i++) {
      boolean p = containsAt(base[i], h[i]);
      present[at + i] = p;
      found += p ? 1 : 0;
    }
    return found;
  }

  private int addChunk(long[] h, int[] base, int n) {
    prepare(h, base, n);
    int changed = 0;
    for (int i = 0; i < n; i++) {
      changed += addAt(base[i], h[i]) ? 1 : 0;
    }
    return changed;
  }

  /**
   * Writes into {@code out[0..hashes)} the bit positions in {@code [0, bits)}, in probe order, that
   * a blocked filter of {@code bits} bits (a multiple of 512), {@code hashes} probes and {@code
   * hash} gives the key, without allocating the filter: for stores that keep the table elsewhere
   * (probkit-redis). All of them lie in one 512-bit block; bit {@code i} is bit {@code i mod 64} of
   * word {@code i / 64}, as in the serialized payload (docs/FORMAT.md).
   */
  public static void positions(
      HashStrategy hash, long bits, int hashes, byte[] key, int off, int len, long[] out) {
    long h = hash.hash64(key, off, len);
    if (hash.exactModulo()) {
      h = Mix.mix64(h);
    }
    long base = DoubleHashing.reduce(h, bits / BLOCK_BITS) * BLOCK_WORDS;
    long g = h * REMIX;
    for (int i = 0, group = 1; ; group++) {
      for (int end = Math.min(hashes, i + FIELDS_PER_REMIX); i < end; i++, g >>>= 9) {
        out[i] = (base + ((int) g & 7)) * Long.SIZE + ((g >>> 3) & 63);
      }
      if (i == hashes) {
        return;
      }
      g = Mix.mix64(h + group * REMIX);
    }
  }

  // ---- combining

  /**
   * Adds every key of {@code other} to this filter (bitwise OR): afterwards this filter answers
   * present for every key either answered present for. Both must have the same bits, hashes and
   * hash strategy.
   */
  @Override
  public BlockedBloomFilter merge(MembershipFilter other) {
    compatibility(other).orThrow();
    long[] theirs = ((BlockedBloomFilter) other).words;
    if (!concurrent) {
      for (int i = LEAD; i < words.length; i++) {
        words[i] |= theirs[i];
      }
      return this;
    }
    // Block by block under its lock, as the adds write.
    for (int base = LEAD; base < words.length; base += BLOCK_WORDS) {
      int lock = lockOf(base);
      lock(lock);
      try {
        for (int i = base; i < base + BLOCK_WORDS; i++) {
          words[i] |= theirs[i];
        }
      } finally {
        LOCK.setRelease(locks, lock, 0);
      }
    }
    return this;
  }

  /** Whether {@link #merge} would accept {@code other}. */
  @Override
  public boolean isCompatible(MembershipFilter other) {
    return compatibility(other).ok();
  }

  private Compatibility compatibility(MembershipFilter other) {
    BlockedBloomFilter o = other instanceof BlockedBloomFilter ? (BlockedBloomFilter) other : this;
    return Compatibility.of("merge", this, other, BlockedBloomFilter.class)
        .require(
            blocks == o.blocks,
            "filters of different sizes: %d bits and %d bits",
            bitSize(),
            o.bitSize())
        .require(k == o.k, "filters with different hash counts: %d and %d", k, o.k)
        .require(hash.equals(o.hash), "filters with different hashing: %s and %s", hash, o.hash);
  }

  /** An independent filter with the same bits, in the same write mode. */
  @Override
  public BlockedBloomFilter copy() {
    return new BlockedBloomFilter(words.clone(), k, hash, expectedKeys, fpp, concurrency());
  }

  // ---- introspection

  /** The bits of the table: 512 times the number of blocks. */
  @Override
  public long bitSize() {
    return blocks * BLOCK_BITS;
  }

  /** The bytes of the table: 64 per block. */
  @Override
  public long byteSize() {
    return 8L * BLOCK_WORDS * blocks;
  }

  public long blockCount() {
    return blocks;
  }

  public int hashCount() {
    return k;
  }

  /** The write mode this filter was created or read in. */
  public Concurrency concurrency() {
    return concurrent ? Concurrency.CONCURRENT : Concurrency.SINGLE_WRITER;
  }

  /** The number of bits set (a scan of the whole table). */
  public long bitCount() {
    long c = 0;
    for (int i = LEAD; i < words.length; i++) {
      c += Long.bitCount(words[i]);
    }
    return c;
  }

  /** The keys this filter was sized for by {@link #create}, or 0 when built {@link #withBits}. */
  public long expectedKeys() {
    return expectedKeys;
  }

  /** The rate this filter was sized for by {@link #create}, or 0 when built {@link #withBits}. */
  public double targetFpp() {
    return fpp;
  }

  /**
   * The chance that a key never added is reported present now: the mean over blocks of {@code (bits
   * set in the block / 512)^k}, which is exact for uniform hashing (a scan of the table).
   */
  @Override
  public double expectedFpp() {
    return expectedFpp(populations(), blocks, k);
  }

  /**
   * The number of distinct keys added, from the fill of each block: the sum over blocks with X bits
   * set of {@code ln(1 - X/512) / (k ln(1 - 1/512))}, which inverts the expected fill of a block.
   * Summing per block avoids the bias that uneven loads give an estimate from the whole table, and
   * the exact {@code ln(1 - 1/512)} avoids the 0.1 % excess of the usual {@code -1/512}. A block
   * with every bit set gives {@link Long#MAX_VALUE}.
   */
  @Override
  public long approximateCount() {
    return approximateCount(populations(), k);
  }

  /** The bits set in each block, in block order. */
  private PrimitiveIterator.OfInt populations() {
    return new PrimitiveIterator.OfInt() {
      int base = LEAD;

      @Override
      public boolean hasNext() {
        return base < words.length;
      }

      @Override
      public int nextInt() {
        int c = 0;
        for (int i = base; i < base + BLOCK_WORDS; i++) {
          c += Long.bitCount(words[i]);
        }
        base += BLOCK_WORDS;
        return c;
      }
    };
  }

  /** {@link #expectedFpp()} of a table whose blocks have these populations, in block order. */
  static double expectedFpp(PrimitiveIterator.OfInt populations, long blocks, int k) {
    double[] rate = new double[BLOCK_BITS + 1];
    for (int c = 0; c <= BLOCK_BITS; c++) {
      rate[c] = Math.pow((double) c / BLOCK_BITS, k);
    }
    double sum = 0;
    while (populations.hasNext()) {
      sum += rate[populations.nextInt()];
    }
    return sum / blocks;
  }

  /** {@link #approximateCount()} of a table whose blocks have these populations, in block order. */
  static long approximateCount(PrimitiveIterator.OfInt populations, int k) {
    double sum = 0;
    while (populations.hasNext()) {
      int x = populations.nextInt();
      if (x == BLOCK_BITS) {
        return Long.MAX_VALUE;
      }
      sum += Math.log1p(-(double) x / BLOCK_BITS);
    }
    return Math.round(sum / (k * Math.log1p(-1.0 / BLOCK_BITS)));
  }

  @Override
  public HashStrategy hashStrategy() {
    return hash;
  }

  @Override
  public StructureType type() {
    return StructureType.BLOCKED_BLOOM_FILTER;
  }

  // ---- serialization

  /**
   * Parameters: bits (u64, a multiple of 512), hashes (u32), expectedKeys (u64), fpp (f64).
   * Payload: the bits / 64 words of the table, little-endian, block b being words [8b, 8b + 8).
   */
  @Override
  public void writeTo(OutputStream out) throws IOException {
    new BloomShape(bitSize(), k, expectedKeys, fpp)
        .write(out, type(), hash, words, LEAD, words.length - LEAD);
  }

  /** Reads a filter written by {@link #writeTo}; corrupt input throws SketchFormatException. */
  public static BlockedBloomFilter readFrom(InputStream in) throws IOException {
    return readFrom(in, Concurrency.CONCURRENT);
  }

  /** As {@link #readFrom(InputStream)}, the filter then written in the given mode. */
  public static BlockedBloomFilter readFrom(InputStream in, Concurrency concurrency)
      throws IOException {
    Objects.requireNonNull(concurrency, "concurrency");
    return read(SketchReader.open(in, StructureType.BLOCKED_BLOOM_FILTER), concurrency);
  }

  static BlockedBloomFilter read(SketchReader r, Concurrency concurrency) throws IOException {
    BloomShape s = readShape(r);
    long m = s.cells;
    long[] data = r.readLongs(LongBitArray.wordsFor(m), LEAD, "table");
    r.finish();
    return new BlockedBloomFilter(data, s.hashes, r.hash(), s.expectedKeys, s.fpp, concurrency);
  }

  /** The parameters, checked, and the payload length they imply (the part a mapped view reads). */
  static BloomShape readShape(SketchReader r) throws IOException {
    BloomShape s =
        BloomShape.read(
            r,
            "bits",
            b -> b >= BLOCK_BITS && b <= MAX_BITS && b % BLOCK_BITS == 0,
            "a multiple of " + BLOCK_BITS + " in [" + BLOCK_BITS + ", " + MAX_BITS + "]",
            MAX_HASHES);
    r.expectPayloadLength(8L * LongBitArray.wordsFor(s.cells));
    return s;
  }

  /**
   * The query of a filter of {@code blocks} blocks and {@code k} probes whose words are read from a
   * mapped file ({@link MappedFilter}), {@code h} being the key's hash as {@link #hashOf} gives it;
   * the bits are those of {@link #containsAt} and {@link #containsGroups}.
   */
  static boolean containsIn(MappedBytes words, long blocks, int k, long h) {
    long at = 8L * BLOCK_WORDS * DoubleHashing.reduce(h, blocks);
    // The block's 64 bytes lie in one region: it is looked up once, not per word.
    ByteBuffer region = words.region(at);
    int base = words.offsetIn(at);
    if (k == 6) {
      // As containsAt: k = 6 as a constant, the region looked up once.
      return containsInOneGroup(region, base, h, 6);
    }
    if (k <= FIELDS_PER_REMIX) {
      return containsInOneGroup(region, base, h, k);
    }
    long all = 1;
    long g = h * REMIX;
    for (int i = 0, group = 1; ; group++) {
      for (int end = Math.min(k, i + FIELDS_PER_REMIX); i < end; i++, g >>>= 9) {
        all &= region.getLong(base + 8 * ((int) g & 7)) >>> (g >>> 3);
      }
      if (i == k) {
        return (all & 1) != 0;
      }
      g = Mix.mix64(h + group * REMIX);
    }
  }

  private static boolean containsInOneGroup(ByteBuffer region, int base, long h, int k) {
    long all = 1;
    long g = h * REMIX;
    for (int i = 0; i < k; i++, g >>>= 9) {
      all &= region.getLong(base + 8 * ((int) g & 7)) >>> (g >>> 3);
    }
    return (all & 1) != 0;
  }

  /** The hash the probes of a key are taken from: the strategy's, mixed when it needs it. */
  static long hashOf(HashStrategy hash, long h) {
    return hash.needsMixing() ? Mix.mix64(h) : h;
  }

  // ---- identity

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof BlockedBloomFilter)) {
      return false;
    }
    BlockedBloomFilter f = (BlockedBloomFilter) o;
    return blocks == f.blocks && k == f.k && hash.equals(f.hash) && Arrays.equals(words, f.words);
  }

  @Override
  public int hashCode() {
    return Objects.hash(blocks, k, hash);
  }

  @Override
  public String toString() {
    return "BlockedBloomFilter{bits=" + bitSize() + ", hashes=" + k + ", hash=" + hash + "}";
  }
}
