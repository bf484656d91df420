package io.github.probkit.filter;

import static io.github.probkit.internal.Preconditions.checkAllocatable;
import static io.github.probkit.internal.Preconditions.checkArgument;
import static io.github.probkit.internal.Preconditions.checkOpenUnit;
import static io.github.probkit.internal.Preconditions.formatBytes;

import io.github.probkit.Concurrency;
import io.github.probkit.hash.DoubleHashing;
import io.github.probkit.hash.HashAlgorithm;
import io.github.probkit.hash.HashStrategy;
import io.github.probkit.internal.BatchPasses;
import io.github.probkit.internal.Compatibility;
import io.github.probkit.internal.ForeignProbes;
import io.github.probkit.internal.KeyBuffer;
import io.github.probkit.internal.LongBitArray;
import io.github.probkit.internal.MappedBytes;
import io.github.probkit.internal.Probes;
import io.github.probkit.io.SketchFormatException;
import io.github.probkit.io.SketchReader;
import io.github.probkit.io.StructureType;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.Objects;

/**
 * The standard Bloom filter (Bloom 1970): m bits and k probes per key, derived by double hashing.
 *
 * <p>Cheat sheet, for n keys and a false-positive rate p:
 *
 * <pre>
 *   bits        m = ceil(-n ln p / (ln 2)^2)      about 9.59 bits per key at p = 1 %
 *   probes      k = round(m/n * ln 2)             7 at 10 bits per key
 *   fpp         p = (1 - e^(-kn/m))^k             0.82 % at m/n = 10, k = 7
 *   each tenfold drop of p costs about 4.8 bits per key
 * </pre>
 *
 * <p>Thread safety: chosen when the filter is created or read ({@link Concurrency}).
 *
 * <ul>
 *   <li>{@link Concurrency#CONCURRENT} (the default): {@code add} is lock-free and may be called
 *       from many threads at once (an atomic compare-and-exchange on each 64-bit word whose bit it
 *       sets); {@code mightContain} may run concurrently with adds and sees every add that
 *       happened-before it. {@code merge}, {@code intersect} and {@code writeTo} are not atomic
 *       with respect to concurrent adds: a key added during one of them may be missed by it.
 *   <li>{@link Concurrency#SINGLE_WRITER}: {@code add}, {@code merge} and {@code intersect} use
 *       plain stores, and one thread at a time may call them; queries from other threads need
 *       external synchronization with it (they may see an add partly done). The fastest way to
 *       build a filter from one thread.
 * </ul>
 *
 * Both modes write the same bits for the same keys and the same bytes to a file.
 */
public final class BloomFilter implements MergeableFilter {
  /** The most bits a filter can have: the largest long[] a JVM allocates. */
  public static final long MAX_BITS = LongBitArray.MAX_BITS;

  /** The most probes per key. */
  public static final int MAX_HASHES = 255;

  private static final double LN2 = StrictMath.log(2);

  /*
   * Design notes.
   *
   * One 64-bit XXH3 hash per key; probe i is reduce(h1 + i*h2, m) (Kirsch & Mitzenmacher [1]) with
   * Lemire's multiply-high range reduction [2], which is exact in distribution for any m and avoids
   * a 64-bit division per probe. Positions are 64-bit, so m may exceed 2^32.
   *
   * The FNV-1a strategy instead computes (h1 + i*h2) mod m exactly, as the specification's Python
   * does with unbounded integers, so that its 16-bit walkthrough can be reproduced bit for bit.
   *
   * Sizing follows the specification's formulas exactly (including Python's round-half-even for k),
   * so create(1_000_000, 0.01) has 9,585,059 bits and 7 hashes.
   *
   * [1] Kirsch, Mitzenmacher. Less hashing, same performance: building a better Bloom filter. 2006.
   * [2] Lemire. Fast random integer generation in an interval. 2019.
   * [3] Swamidass, Baldi. Mathematical correction for fingerprint similarity measures. 2007
   *     (the estimate of the number of keys from the number of set bits).
   */

  private final LongBitArray bits;
  private final long[] words;
  private final boolean concurrent;
  private final long m;
  private final int k;
  private final HashStrategy hash;
  private final boolean exact;

  /** The algorithm when it places Guava's or Spark's probes (then {@code exact} too), else null. */
  private final HashAlgorithm foreign;

  private final long expectedKeys;
  private final double fpp;

  private BloomFilter(
      LongBitArray bits,
      int k,
      HashStrategy hash,
      long expectedKeys,
      double fpp,
      Concurrency concurrency) {
    this.bits = bits;
    this.words = bits.words();
    this.concurrent = Objects.requireNonNull(concurrency, "concurrency") == Concurrency.CONCURRENT;
    this.m = bits.bitSize();
    this.k = k;
    this.hash = hash;
    this.exact = hash.exactModulo();
    this.foreign = hash.foreignProbes() ? hash.algorithm() : null;
    this.expectedKeys = expectedKeys;
    this.fpp = fpp;
  }

  /**
   * A filter sized for {@code expectedKeys} keys at false-positive rate {@code fpp}, hashed with
   * XXH3.
   */
  public static BloomFilter create(long expectedKeys, double fpp) {
    return create(expectedKeys, fpp, HashStrategy.xxh3());
  }

  public static BloomFilter create(long expectedKeys, double fpp, HashStrategy hash) {
    return create(expectedKeys, fpp, hash, Concurrency.CONCURRENT);
  }

  /** As {@link #create(long, double)}, in the given write mode. */
  public static BloomFilter create(long expectedKeys, double fpp, Concurrency concurrency) {
    return create(expectedKeys, fpp, HashStrategy.xxh3(), concurrency);
  }

  public static BloomFilter create(
      long expectedKeys, double fpp, HashStrategy hash, Concurrency concurrency) {
    checkArgument(expectedKeys > 0, "expectedKeys must be positive, was %d", expectedKeys);
    checkOpenUnit("fpp", fpp);
    long m = optimalBits(expectedKeys, fpp);
    return allocate(m, optimalHashes(m, expectedKeys), hash, expectedKeys, fpp, concurrency);
  }

  /** A filter of exactly {@code bits} bits and {@code hashes} probes per key, hashed with XXH3. */
  public static BloomFilter withBits(long bits, int hashes) {
    return withBits(bits, hashes, HashStrategy.xxh3());
  }

  public static BloomFilter withBits(long bits, int hashes, HashStrategy hash) {
    return withBits(bits, hashes, hash, Concurrency.CONCURRENT);
  }

  public static BloomFilter withBits(
      long bits, int hashes, HashStrategy hash, Concurrency concurrency) {
    return allocate(bits, hashes, hash, 0, 0, concurrency);
  }

  /**
   * A filter of {@code 64 * words.length} bits holding a copy of {@code words} (bit i is bit {@code
   * i mod 64} of word {@code i / 64}), with {@code hashes} probes per key: how the bits of a filter
   * another library wrote come in ({@code foreign.GuavaBloomFilter.toProbkit}), with the hash whose
   * probes are that library's.
   */
  public static BloomFilter ofWords(long[] words, int hashes, HashStrategy hash) {
    long m = 64L * words.length;
    checkArgument(m >= 1 && m <= MAX_BITS, "bits must be in [1, %d], was %d", MAX_BITS, m);
    checkArgument(
        hashes >= 1 && hashes <= MAX_HASHES,
        "hashes must be in [1, %d], was %d",
        MAX_HASHES,
        hashes);
    Objects.requireNonNull(hash, "hash");
    return new BloomFilter(
        new LongBitArray(m, words.clone()), hashes, hash, 0, 0, Concurrency.CONCURRENT);
  }

  /** A copy of the bit array: bit i is bit {@code i mod 64} of word {@code i / 64}. */
  public long[] words() {
    return bits.words().clone();
  }

  private static BloomFilter allocate(
      long m, int k, HashStrategy hash, long n, double p, Concurrency c) {
    checkArgument(m >= 1 && m <= MAX_BITS, "bits must be in [1, %d], was %d", MAX_BITS, m);
    checkArgument(k >= 1 && k <= MAX_HASHES, "hashes must be in [1, %d], was %d", MAX_HASHES, k);
    Objects.requireNonNull(hash, "hash");
    Objects.requireNonNull(c, "concurrency");
    checkAllocatable(8L * LongBitArray.wordsFor(m), "a Bloom filter of " + m + " bits");
    return new BloomFilter(new LongBitArray(m), k, hash, n, p, c);
  }

  /**
   * The bits for {@code n} keys at rate {@code p}: {@code ceil(-n ln p / (ln 2)^2)}, computed as
   * the specification does (1,000,000 keys at 0.01 give 9,585,059).
   */
  public static long optimalBits(long n, double p) {
    checkArgument(n > 0, "expectedKeys must be positive, was %d", n);
    checkOpenUnit("fpp", p);
    double m = Math.ceil(-n * StrictMath.log(p) / (LN2 * LN2));
    checkArgument(
        m <= MAX_BITS,
        "%d keys at fpp %s need %.0f bits (%s), more than the maximum of %d bits (%s)",
        n,
        p,
        m,
        formatBytes((long) (m / 8)),
        MAX_BITS,
        formatBytes(MAX_BITS / 8));
    return (long) m;
  }

  /**
   * The probes per key that minimise the rate: {@code round(m/n * ln 2)}, half to even, at least 1.
   */
  public static int optimalHashes(long m, long n) {
    checkArgument(m > 0, "bits must be positive, was %d", m);
    checkArgument(n > 0, "expectedKeys must be positive, was %d", n);
    return (int) Math.max(1, Math.min(MAX_HASHES, Math.rint((double) m / n * LN2)));
  }

  /** The theoretical false-positive rate {@code (1 - e^(-kn/m))^k}. */
  public static double falsePositiveRate(long m, long n, int k) {
    return Math.pow(-Math.expm1(-(double) k * n / m), k);
  }

  // ---- keys

  @Override
  public boolean add(byte[] key, int off, int len) {
    long h1 = hash.hash64(key, off, len);
    return addHashes(h1, hash.secondHash(key, off, len, h1));
  }

  @Override
  public boolean add(long key) {
    long h1 = hash.hash64(key);
    return addHashes(h1, hash.secondHash(key, h1));
  }

  /**
   * Sets the key's bits without reading them first, where {@link #add(byte[], int, int)} reads each
   * word to tell whether the key was new: the faster call for loading a single-writer filter. A
   * concurrent or exact-modulo filter adds as {@code add} does.
   */
  @Override
  public void put(byte[] key, int off, int len) {
    long h1 = hash.hash64(key, off, len);
    putHashes(h1, hash.secondHash(key, off, len, h1));
  }

  /** {@link #put(byte[], int, int)} of the 8 little-endian bytes of {@code key}. */
  @Override
  public void put(long key) {
    long h1 = hash.hash64(key);
    putHashes(h1, hash.secondHash(key, h1));
  }

  @Override
  public boolean mightContain(byte[] key, int off, int len) {
    long h1 = hash.hash64(key, off, len);
    return containsHashes(h1, hash.secondHash(key, off, len, h1));
  }

  @Override
  public boolean mightContain(long key) {
    long h1 = hash.hash64(key);
    return containsHashes(h1, hash.secondHash(key, h1));
  }

  // The hot paths are kept under the JIT's inlining limit (325 bytes of bytecode), one method per
  // case.

  private boolean addHashes(long h1, long h2) {
    if (exact) {
      return addExact(h1, h2);
    }
    if (concurrent) {
      return addConcurrently(h1, h2);
    }
    // k = 7 (1 %, the default rate) given as a constant: the JIT then unrolls the loop.
    return k == 7 ? addPlain(h1, h2, 7) : addPlain(h1, h2, k);
  }

  private boolean addPlain(long h1, long h2, int k) {
    long[] w = words;
    long fresh = 0;
    for (int i = 0; i < k; i++, h1 += h2) {
      long p = DoubleHashing.reduce(h1, m);
      int at = (int) (p >>> 6);
      long old = w[at];
      w[at] = old | (1L << p);
      fresh |= ~old & (1L << p);
    }
    return fresh != 0;
  }

  private void putHashes(long h1, long h2) {
    if (exact || concurrent) {
      addHashes(h1, h2);
    } else if (k == 7) {
      putPlain(h1, h2, 7);
    } else {
      putPlain(h1, h2, k);
    }
  }

  private void putPlain(long h1, long h2, int k) {
    long[] w = words;
    for (int i = 0; i < k; i++, h1 += h2) {
      long p = DoubleHashing.reduce(h1, m);
      w[(int) (p >>> 6)] |= 1L << p;
    }
  }

  /**
   * Every word is read before any atomic operation: a locked instruction waits for the loads before
   * it, so reading first lets the k cache misses overlap. Then one compare-and-exchange per bit
   * still clear (bit i of {@code clear} for probe i; probes from 64 on are always tried).
   */
  private boolean addConcurrently(long h1, long h2) {
    long[] w = words;
    long clear = 0;
    long s = h1;
    for (int i = 0; i < k; i++, s += h2) {
      long p = DoubleHashing.reduce(s, m);
      if ((w[(int) (p >>> 6)] & (1L << p)) == 0) {
        clear |= 1L << i;
      }
    }
    if (clear == 0 && k <= 64) {
      return false;
    }
    boolean changed = false;
    s = h1;
    for (int i = 0; i < k; i++, s += h2) {
      if (i >= 64 || (clear & (1L << i)) != 0) {
        long p = DoubleHashing.reduce(s, m);
        changed |= LongBitArray.orWord(w, (int) (p >>> 6), 1L << p);
      }
    }
    return changed;
  }

  /** The adds of the exact-modulo scheme (FNV-1a, the specification's walkthroughs). */
  private boolean addExact(long h1, long h2) {
    boolean changed = false;
    if (foreign != null) {
      long s = ForeignProbes.start(foreign, h1, h2);
      for (int i = 0; i < k; i++, s = ForeignProbes.next(foreign, s, h2)) {
        long p = ForeignProbes.position(foreign, s, m);
        changed |= concurrent ? bits.set(p) : bits.setPlain(p);
      }
      return changed;
    }
    long step = Probes.stride(h2, m, true);
    long s = Probes.start(h1, m, true);
    for (int i = 0; i < k; i++, s = Probes.next(s, step, m, true)) {
      changed |= concurrent ? bits.set(s) : bits.setPlain(s);
    }
    return changed;
  }

  private boolean containsHashes(long h1, long h2) {
    if (exact) {
      return containsExact(h1, h2);
    }
    return k == 7 ? containsPlain(h1, h2, 7) : containsPlain(h1, h2, k);
  }

  private boolean containsPlain(long h1, long h2, int k) {
    long[] w = words;
    long all = 1;
    // Branch-free: ANDing all k bits costs less than the misprediction of an early exit at the
    // first clear bit, which is unpredictable (measured with long keys at 10^6: 15.9 against 20.9
    // ns,
    // FastFilter's early-exit Bloom 16.6 in the same runs).
    for (int i = 0; i < k; i++, h1 += h2) {
      long p = DoubleHashing.reduce(h1, m);
      all &= w[(int) (p >>> 6)] >>> p;
    }
    return (all & 1) != 0;
  }

  private boolean containsExact(long h1, long h2) {
    if (foreign != null) {
      long s = ForeignProbes.start(foreign, h1, h2);
      for (int i = 0; i < k; i++, s = ForeignProbes.next(foreign, s, h2)) {
        if (!bits.get(ForeignProbes.position(foreign, s, m))) {
          return false;
        }
      }
      return true;
    }
    long step = Probes.stride(h2, m, true);
    long s = Probes.start(h1, m, true);
    for (int i = 0; i < k; i++, s = Probes.next(s, step, m, true)) {
      if (!bits.get(s)) {
        return false;
      }
    }
    return true;
  }

  // ---- batches: hash a chunk, touch every probed word, then test or set (see
  // internal.BatchPasses). The exact-modulo scheme (FNV-1a) hashes each key twice; it takes one
  // key at a time.

  @Override
  public int mightContainAll(long[] keys, int from, int to, boolean[] present) {
    if (exact) {
      return MergeableFilter.super.mightContainAll(keys, from, to, present);
    }
    BatchPasses.checkRange(from, to, keys.length, present.length);
    return (int)
        BatchPasses.overLongs(
            hash, keys, from, to, (h, ints, n, at) -> containsChunk(h, n, present, at));
  }

  @Override
  public int mightContainAll(
      byte[] buf, int[] offsets, int[] lengths, int count, boolean[] present) {
    if (exact) {
      return MergeableFilter.super.mightContainAll(buf, offsets, lengths, count, present);
    }
    BatchPasses.checkSlices(buf, offsets, lengths, count);
    BatchPasses.checkRange(0, count, count, present.length);
    return (int)
        BatchPasses.overSlices(
            hash,
            buf,
            offsets,
            lengths,
            count,
            (h, ints, n, at) -> containsChunk(h, n, present, at));
  }

  @Override
  public long addAll(long[] keys, int from, int to) {
    if (exact) {
      return MergeableFilter.super.addAll(keys, from, to);
    }
    Objects.checkFromToIndex(from, to, keys.length);
    return BatchPasses.overLongs(hash, keys, from, to, (h, ints, n, at) -> addChunk(h, n));
  }

  @Override
  public long addAll(byte[] buf, int[] offsets, int[] lengths, int count) {
    if (exact) {
      return MergeableFilter.super.addAll(buf, offsets, lengths, count);
    }
    BatchPasses.checkSlices(buf, offsets, lengths, count);
    return BatchPasses.overSlices(
        hash, buf, offsets, lengths, count, (h, ints, n, at) -> addChunk(h, n));
  }

  /** True unless hashed with FNV-1a, whose second hash is a second pass over the key. */
  @Override
  public boolean hashSuffices() {
    return !exact;
  }

  @Override
  public int mightContainAllHashes(long[] hashes, int from, int to, boolean[] present) {
    if (exact) {
      return MergeableFilter.super.mightContainAllHashes(hashes, from, to, present);
    }
    BatchPasses.checkRange(from, to, hashes.length, present.length);
    return (int)
        BatchPasses.overHashes(
            hashes, from, to, (h, ints, n, at) -> containsChunk(h, n, present, at));
  }

  @Override
  public long addAllHashes(long[] hashes, int from, int to) {
    if (exact) {
      return MergeableFilter.super.addAllHashes(hashes, from, to);
    }
    Objects.checkFromToIndex(from, to, hashes.length);
    return BatchPasses.overHashes(hashes, from, to, (h, ints, n, at) -> addChunk(h, n));
  }

  /**
   * Loads the word of every probe of every key of the chunk. Only XXH3 comes here, whose second
   * hash is derived from the first without the key (hence the 0 passed as the key).
   */
  private void touch(long[] h, int n) {
    long[] w = words;
    long touched = 0;
    for (int i = 0; i < n; i++) {
      long s = h[i];
      long step = hash.secondHash(0L, s);
      for (int j = 0; j < k; j++, s += step) {
        touched += w[(int) (DoubleHashing.reduce(s, m) >>> 6)];
      }
    }
    BatchPasses.consume(touched);
  }

  private int containsChunk(long[] h, int n, boolean[] present, int at) {
    touch(h, n);
    int found = 0;
    for (int i = 0; i < n; i++) {
      boolean p = containsHashes(h[i], hash.secondHash(0L, h[i]));
      present[at + i] = p;
      found += p ? 1 : 0;
    }
    return found;
  }

  private int addChunk(long[] h, int n) {
    touch(h, n);
    int changed = 0;
    for (int i = 0; i < n; i++) {
      changed += addHashes(h[i], hash.secondHash(0L, h[i])) ? 1 : 0;
    }
    return changed;
  }

  /** The k bit positions of {@code key}, in probe order (for explaining and teaching). */
  public long[] positions(byte[] key, int off, int len) {
    long[] out = new long[k];
    positions(hash, m, k, key, off, len, out);
    return out;
  }

  /**
   * Writes into {@code out[0..hashes)} the positions, in probe order, that a filter of {@code bits}
   * bits, {@code hashes} probes and {@code hash} gives the key, without allocating the filter: for
   * stores that keep the bit array elsewhere (probkit-redis). The counting filter of the same shape
   * probes the same positions (docs/FORMAT.md).
   */
  public static void positions(
      HashStrategy hash, long bits, int hashes, byte[] key, int off, int len, long[] out) {
    long h1 = hash.hash64(key, off, len);
    if (hash.foreignProbes()) {
      HashAlgorithm a = hash.algorithm();
      long h2 = hash.secondHash(key, off, len, h1);
      long s = ForeignProbes.start(a, h1, h2);
      for (int i = 0; i < hashes; i++, s = ForeignProbes.next(a, s, h2)) {
        out[i] = ForeignProbes.position(a, s, bits);
      }
      return;
    }
    boolean exact = hash.exactModulo();
    long step = Probes.stride(hash.secondHash(key, off, len, h1), bits, exact);
    long s = Probes.start(h1, bits, exact);
    for (int i = 0; i < hashes; i++, s = Probes.next(s, step, bits, exact)) {
      out[i] = Probes.position(s, bits, exact);
    }
  }

  /** The positions of the UTF-8 bytes of {@code key}. */
  public long[] positions(CharSequence key) {
    KeyBuffer b = KeyBuffer.utf8(key);
    try {
      return positions(b.bytes(), 0, b.length());
    } finally {
      b.release();
    }
  }

  /** Whether bit {@code index} is set. */
  public boolean bit(long index) {
    checkArgument(index >= 0 && index < m, "index must be in [0, %d), was %d", m, index);
    return bits.get(index);
  }

  // ---- combining

  /**
   * Adds every key of {@code other} to this filter (bitwise OR): afterwards this filter answers
   * present for every key either answered present for. Both must have the same bits, hashes and
   * hash strategy.
   */
  @Override
  public BloomFilter merge(MembershipFilter other) {
    compatibility("merge", other).orThrow();
    bits.or(((BloomFilter) other).bits, concurrent);
    return this;
  }

  /**
   * Keeps only the bits set in both filters (bitwise AND). Every key added to both is still
   * present; the false-positive rate may be higher than that of a filter built from the
   * intersection, and {@link #approximateCount()} then overestimates.
   */
  public BloomFilter intersect(BloomFilter other) {
    compatibility("intersect", other).orThrow();
    bits.and(other.bits, concurrent);
    return this;
  }

  /** Whether {@link #merge} would accept {@code other}. */
  @Override
  public boolean isCompatible(MembershipFilter other) {
    return compatibility("merge", other).ok();
  }

  private Compatibility compatibility(String op, MembershipFilter other) {
    BloomFilter o = other instanceof BloomFilter ? (BloomFilter) other : this;
    return Compatibility.of(op, this, other, BloomFilter.class)
        .require(m == o.m, "filters of different sizes: %d bits and %d bits", m, o.m)
        .require(k == o.k, "filters with different hash counts: %d and %d", k, o.k)
        .require(hash.equals(o.hash), "filters with different hashing: %s and %s", hash, o.hash);
  }

  /** An independent filter with the same bits, in the same write mode. */
  @Override
  public BloomFilter copy() {
    return new BloomFilter(bits.copy(), k, hash, expectedKeys, fpp, concurrency());
  }

  // ---- introspection

  @Override
  public long bitSize() {
    return m;
  }

  /** The bytes of the bit array: {@code 8 * ceil(m / 64)}. */
  @Override
  public long byteSize() {
    return 8L * bits.words().length;
  }

  public int hashCount() {
    return k;
  }

  /** The write mode this filter was created or read in. */
  public Concurrency concurrency() {
    return concurrent ? Concurrency.CONCURRENT : Concurrency.SINGLE_WRITER;
  }

  /** The number of bits set (a scan of the whole array). */
  public long bitCount() {
    return bits.cardinality();
  }

  /** The keys this filter was sized for by {@link #create}, or 0 when built {@link #withBits}. */
  public long expectedKeys() {
    return expectedKeys;
  }

  /** The rate this filter was sized for by {@link #create}, or 0 when built {@link #withBits}. */
  public double targetFpp() {
    return fpp;
  }

  /** {@code (bitCount / m)^k}: the chance that k random positions are all set now. */
  @Override
  public double expectedFpp() {
    return Math.pow((double) bitCount() / m, k);
  }

  /**
   * The number of distinct keys added, from the fill: {@code -m/k ln(1 - X/m)} for X set bits
   * (Swamidass and Baldi). Saturated filters return {@link Long#MAX_VALUE}.
   */
  @Override
  public long approximateCount() {
    return BloomShape.approximateCount(bitCount(), m, k);
  }

  @Override
  public HashStrategy hashStrategy() {
    return hash;
  }

  @Override
  public StructureType type() {
    return StructureType.BLOOM_FILTER;
  }

  // ---- serialization

  /**
   * Parameters: bits (u64), hashes (u32), expectedKeys (u64), fpp (f64). Payload: the ceil(m/64)
   * words of the bit array, little-endian; unused high bits of the last word are 0.
   */
  @Override
  public void writeTo(OutputStream out) throws IOException {
    new BloomShape(m, k, expectedKeys, fpp).write(out, type(), hash, bits.words());
  }

  /** Reads a filter written by {@link #writeTo}; corrupt input throws SketchFormatException. */
  public static BloomFilter readFrom(InputStream in) throws IOException {
    return readFrom(in, Concurrency.CONCURRENT);
  }

  /** As {@link #readFrom(InputStream)}, the filter then written in the given mode. */
  public static BloomFilter readFrom(InputStream in, Concurrency concurrency) throws IOException {
    Objects.requireNonNull(concurrency, "concurrency");
    return read(SketchReader.open(in, StructureType.BLOOM_FILTER), concurrency);
  }

  static BloomFilter read(SketchReader r, Concurrency concurrency) throws IOException {
    BloomShape s = readShape(r);
    long m = s.cells;
    int words = LongBitArray.wordsFor(m);
    long[] data = r.readLongs(words, "bit array");
    r.finish();
    checkTail(m, data[words - 1]);
    return new BloomFilter(
        new LongBitArray(m, data), s.hashes, r.hash(), s.expectedKeys, s.fpp, concurrency);
  }

  /** The parameters, checked, and the payload length they imply (the part a mapped view reads). */
  static BloomShape readShape(SketchReader r) throws IOException {
    BloomShape s =
        BloomShape.read(
            r, "bits", b -> b >= 1 && b <= MAX_BITS, "in [1, " + MAX_BITS + "]", MAX_HASHES);
    r.expectPayloadLength(8L * LongBitArray.wordsFor(s.cells));
    return s;
  }

  /** Refuses a last word with bits set beyond bit m - 1. */
  static void checkTail(long m, long lastWord) throws SketchFormatException {
    if ((m & 63) != 0 && (lastWord >>> (m & 63)) != 0) {
      throw new SketchFormatException("bloom bit array has bits set beyond its " + m + " bits");
    }
  }

  /**
   * The query of a filter of {@code m} bits and {@code k} probes whose words are read from a mapped
   * file ({@link MappedFilter}); the positions are those of {@link #containsHashes}.
   */
  static boolean containsIn(MappedBytes words, long m, int k, HashStrategy hash, long h1, long h2) {
    if (hash.foreignProbes()) {
      HashAlgorithm a = hash.algorithm();
      long s = ForeignProbes.start(a, h1, h2);
      for (int i = 0; i < k; i++, s = ForeignProbes.next(a, s, h2)) {
        long p = ForeignProbes.position(a, s, m);
        if ((words.getLong(8 * (p >>> 6)) & (1L << p)) == 0) {
          return false;
        }
      }
      return true;
    }
    boolean exact = hash.exactModulo();
    long step = Probes.stride(h2, m, exact);
    long s = Probes.start(h1, m, exact);
    for (int i = 0; i < k; i++, s = Probes.next(s, step, m, exact)) {
      long p = Probes.position(s, m, exact);
      if ((words.getLong(8 * (p >>> 6)) & (1L << p)) == 0) {
        return false;
      }
    }
    return true;
  }

  // ---- identity

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof BloomFilter)) {
      return false;
    }
    BloomFilter f = (BloomFilter) o;
    return m == f.m
        && k == f.k
        && hash.equals(f.hash)
        && Arrays.equals(bits.words(), f.bits.words());
  }

  @Override
  public int hashCode() {
    return Objects.hash(m, k, hash);
  }

  @Override
  public String toString() {
    return "BloomFilter{bits=" + m + ", hashes=" + k + ", hash=" + hash + "}";
  }
}
