package io.github.probkit.filter;

import static io.github.probkit.internal.Preconditions.checkAllocatable;
import static io.github.probkit.internal.Preconditions.checkArgument;
import static io.github.probkit.internal.Preconditions.checkOpenUnit;
import static io.github.probkit.internal.Preconditions.checkUniformHash;

import io.github.probkit.hash.DoubleHashing;
import io.github.probkit.hash.HashStrategy;
import io.github.probkit.internal.BatchPasses;
import io.github.probkit.internal.Compatibility;
import io.github.probkit.internal.PackedArray;
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
 * A counting Bloom filter (Fan, Cao, Almeida and Broder 2000): a Bloom filter with a 4-bit counter
 * in place of each bit, so that keys can be removed. It answers exactly as a {@link BloomFilter} of
 * the same size and hashing would (a key is present when all of its k counters are non-zero), at
 * four times the memory.
 *
 * <p>Cheat sheet, for n keys and a false-positive rate p (the sizing of {@link BloomFilter}):
 *
 * <pre>
 *   counters    m = ceil(-n ln p / (ln 2)^2)      9.59 counters per key at p = 1 %
 *   memory      4 m bits                          38.3 bits per key at p = 1 %, 57.5 at 0.1 %
 *   probes      k = round(m/n * ln 2)             7 at p = 1 %
 *   fpp         p = (1 - e^(-kn/m))^k             as the Bloom filter of m bits
 *   overflow    P(any counter reaches 16) &lt;= m * 1.37e-15 at the optimal k (Fan et al.)
 * </pre>
 *
 * <p>Counters saturate at 15 and a saturated counter is never decremented: it can no longer tell
 * how many keys hashed to it, and decrementing it could take it to 0 while keys remain. The cost is
 * that a cell which once saturated stays set for good; keys removed from it keep it set, and the
 * false-positive rate no longer falls when they leave. At the sizes above that needs 15 or more
 * keys on one counter, which practically only happens when one key is added 15 or more times: all
 * its counters then saturate ({@link #count} is 15), and it reads present however often it is
 * removed. That is a false positive, never a false negative.
 *
 * <p>{@link #remove} refuses (returns {@code false}, changing nothing) when any counter of the key
 * is 0, since such a key is certainly absent. It cannot detect the removal of an absent key whose
 * counters are all non-zero (a false positive); removing it takes evidence from other keys and can
 * create false negatives, so remove only keys that were added.
 *
 * <p>Thread safety: not thread-safe. Concurrent {@code mightContain} calls are safe while nothing
 * modifies the filter; any {@code add}, {@code remove} or {@code merge} needs external locking.
 */
public final class CountingBloomFilter implements DeletableFilter, MergeableFilter {
  /** Bits per counter. */
  public static final int COUNTER_BITS = 4;

  /** The value at which a counter saturates. */
  public static final int MAX_COUNT = (1 << COUNTER_BITS) - 1;

  /** The most counters a filter can have. */
  public static final long MAX_COUNTERS = PackedArray.MAX_BITS / COUNTER_BITS;

  /** The most probes per key. */
  public static final int MAX_HASHES = BloomFilter.MAX_HASHES;

  /*
   * Design notes.
   *
   * The probe positions are exactly those of BloomFilter (internal.Probes), so a counting filter and
   * a Bloom filter of the same m, k and hashing agree on every key. Sixteen counters share a long;
   * nothing straddles a word.
   *
   * remove() decrements probe by probe and, when it meets a 0 (possible even after the first pass
   * saw none, if two probes of the key hit one counter), re-increments what it had decremented, so
   * a refused removal leaves every counter as it was.
   *
   * [1] Fan, Cao, Almeida, Broder. Summary cache: a scalable wide-area web cache sharing protocol.
   *     IEEE/ACM Transactions on Networking, 2000 (the counting filter and its 4-bit bound).
   * [2] Kirsch, Mitzenmacher. Less hashing, same performance: building a better Bloom filter. 2006.
   */

  private final PackedArray counters;
  private final long[] words;
  private final long m;
  private final int k;
  private final HashStrategy hash;
  private final boolean exact;
  private final long expectedKeys;
  private final double fpp;

  private CountingBloomFilter(
      PackedArray counters, int k, HashStrategy hash, long expectedKeys, double fpp) {
    this.counters = counters;
    this.words = counters.words();
    this.m = counters.length();
    this.k = k;
    this.hash = hash;
    this.exact = hash.exactModulo();
    this.expectedKeys = expectedKeys;
    this.fpp = fpp;
  }

  /**
   * A filter sized for {@code expectedKeys} keys at false-positive rate {@code fpp}, hashed with
   * XXH3.
   */
  public static CountingBloomFilter create(long expectedKeys, double fpp) {
    return create(expectedKeys, fpp, HashStrategy.xxh3());
  }

  /**
   * As {@link #create(long, double)}, hashed with {@code hash}. Refuses a hash that {@link
   * HashStrategy#needsMixing() needs mixing} (FNV-1a), whose similar keys would crowd a few
   * counters until they saturate.
   */
  public static CountingBloomFilter create(long expectedKeys, double fpp, HashStrategy hash) {
    checkArgument(expectedKeys > 0, "expectedKeys must be positive, was %d", expectedKeys);
    checkOpenUnit("fpp", fpp);
    long m = BloomFilter.optimalBits(expectedKeys, fpp);
    return allocate(m, BloomFilter.optimalHashes(m, expectedKeys), hash, expectedKeys, fpp);
  }

  /**
   * A filter of exactly {@code counters} counters and {@code hashes} probes per key, hashed with
   * XXH3.
   */
  public static CountingBloomFilter withCounters(long counters, int hashes) {
    return withCounters(counters, hashes, HashStrategy.xxh3());
  }

  /**
   * As {@link #withCounters(long, int)}, hashed with {@code hash}. Refuses a hash that {@link
   * HashStrategy#needsMixing() needs mixing} (FNV-1a), whose similar keys would crowd a few
   * counters until they saturate.
   */
  public static CountingBloomFilter withCounters(long counters, int hashes, HashStrategy hash) {
    return allocate(counters, hashes, hash, 0, 0);
  }

  private static CountingBloomFilter allocate(long m, int k, HashStrategy hash, long n, double p) {
    checkArgument(
        m >= 1 && m <= MAX_COUNTERS, "counters must be in [1, %d], was %d", MAX_COUNTERS, m);
    checkArgument(k >= 1 && k <= MAX_HASHES, "hashes must be in [1, %d], was %d", MAX_HASHES, k);
    checkUniformHash(hash, "a counting Bloom filter");
    checkAllocatable(
        8L * PackedArray.wordsFor(m, COUNTER_BITS),
        "a counting Bloom filter of " + m + " counters");
    return new CountingBloomFilter(new PackedArray(m, COUNTER_BITS), k, hash, n, p);
  }

  // ---- keys

  /**
   * Increments the key's k counters (those at 15 stay there). Returns whether any counter changed,
   * which is {@code false} only when all of them are saturated: as for a cuckoo filter, {@code
   * true} means this add was recorded and may be matched by one {@link #remove}. Adding a key twice
   * counts it twice; it then takes two removals to remove it ({@link #addIfAbsent} counts it once).
   */
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

  private boolean containsHashes(long h1, long h2) {
    if (exact) {
      return minCount(h1, h2) != 0;
    }
    long[] w = words;
    for (int i = 0; i < k; i++, h1 += h2) {
      long p = DoubleHashing.reduce(h1, m);
      if (((w[(int) (p >>> 4)] >>> (((int) p & 15) << 2)) & MAX_COUNT) == 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * True unless hashed with FNV-1a (files written before it was refused), whose second hash reads
   * the key.
   */
  @Override
  public boolean hashSuffices() {
    return !exact;
  }

  @Override
  public long addAllHashes(long[] hashes, int from, int to) {
    if (exact) {
      return MergeableFilter.super.addAllHashes(hashes, from, to);
    }
    // XXH3's second hash comes from the first alone (the key is not read).
    return BatchPasses.eachHash(hashes, from, to, h -> addHashes(h, hash.secondHash(0L, h)));
  }

  @Override
  public int mightContainAllHashes(long[] hashes, int from, int to, boolean[] present) {
    if (exact) {
      return MergeableFilter.super.mightContainAllHashes(hashes, from, to, present);
    }
    return BatchPasses.eachHash(
        hashes, from, to, present, h -> containsHashes(h, hash.secondHash(0L, h)));
  }

  // Counter p is the nibble at bit 4 (p mod 16) of word p / 16. The multiply-high probes (XXH3) are
  // computed inline, as in BloomFilter; the exact-modulo scheme (files written with FNV-1a) goes
  // through Probes.

  private boolean addHashes(long h1, long h2) {
    if (exact) {
      return addExact(h1, h2);
    }
    // k = 7 (1 %, the default rate) given as a constant: the JIT then unrolls the loop (the
    // query's, which exits at the first zero counter, gains nothing so).
    return k == 7 ? addPlain(h1, h2, 7) : addPlain(h1, h2, k);
  }

  private boolean addPlain(long h1, long h2, int k) {
    long[] w = words;
    boolean changed = false;
    for (int i = 0; i < k; i++, h1 += h2) {
      long p = DoubleHashing.reduce(h1, m);
      int at = (int) (p >>> 4);
      long old = w[at];
      // A saturated counter is rare, so this branch is all but always predicted: fewer
      // instructions than a branch-free increment.
      if (((old >>> (p << 2)) & MAX_COUNT) != MAX_COUNT) {
        w[at] = old + (1L << (p << 2));
        changed = true;
      }
    }
    return changed;
  }

  private boolean addExact(long h1, long h2) {
    boolean changed = false;
    long step = Probes.stride(h2, m, true);
    long s = Probes.start(h1, m, true);
    for (int i = 0; i < k; i++, s = Probes.next(s, step, m, true)) {
      long c = counters.get(s);
      if (c < MAX_COUNT) {
        counters.set(s, c + 1);
        changed = true;
      }
    }
    return changed;
  }

  /**
   * The smallest of the key's k counters (0 when the key is absent), without a branch per probe.
   */
  private long minCount(long h1, long h2) {
    if (exact) {
      long step = Probes.stride(h2, m, true);
      long min = MAX_COUNT;
      long s = Probes.start(h1, m, true);
      for (int i = 0; i < k; i++, s = Probes.next(s, step, m, true)) {
        min = Math.min(min, counters.get(s));
      }
      return min;
    }
    long[] w = words;
    long min = MAX_COUNT;
    for (int i = 0; i < k; i++, h1 += h2) {
      long p = DoubleHashing.reduce(h1, m);
      min = Math.min(min, (w[(int) (p >>> 4)] >>> (((int) p & 15) << 2)) & MAX_COUNT);
    }
    return min;
  }

  /**
   * Decrements the key's k counters (saturated ones stay at 15). Returns {@code false}, changing
   * nothing, when one of them is 0: the key is certainly absent.
   */
  @Override
  public boolean remove(byte[] key, int off, int len) {
    long h1 = hash.hash64(key, off, len);
    long step = Probes.stride(hash.secondHash(key, off, len, h1), m, exact);
    long start = Probes.start(h1, m, exact);
    long s = start;
    int done = 0;
    for (; done < k; done++, s = Probes.next(s, step, m, exact)) {
      long p = Probes.position(s, m, exact);
      long c = counters.get(p);
      if (c == 0) {
        break;
      }
      if (c < MAX_COUNT) {
        counters.set(p, c - 1);
      }
    }
    if (done == k) {
      return true;
    }
    // A counter decremented above is now below 14, one left alone is still 15: so "below 15" says
    // exactly which ones to give back.
    s = start;
    for (int i = 0; i < done; i++, s = Probes.next(s, step, m, exact)) {
      long p = Probes.position(s, m, exact);
      long c = counters.get(p);
      if (c < MAX_COUNT) {
        counters.set(p, c + 1);
      }
    }
    return false;
  }

  /**
   * The smallest of the key's counters: at least the number of times the key was added and not
   * removed (unless absent keys were removed), and {@link #MAX_COUNT} when they are all saturated,
   * which they stay: such a key can no longer be removed (a {@link #remove} of it returns {@code
   * true} and changes nothing).
   */
  @Override
  public int count(byte[] key, int off, int len) {
    long h1 = hash.hash64(key, off, len);
    return (int) minCount(h1, hash.secondHash(key, off, len, h1));
  }

  /** The value of counter {@code index}, in [0, 15]. */
  public int counter(long index) {
    checkArgument(index >= 0 && index < m, "index must be in [0, %d), was %d", m, index);
    return (int) counters.get(index);
  }

  // ---- combining

  /**
   * Adds the counters of {@code other} to this filter's, each sum capped at 15: afterwards this
   * filter holds the keys of both, and a key added to both may be removed once from each. Both must
   * have the same counters, hashes and hash strategy.
   */
  @Override
  public CountingBloomFilter merge(MembershipFilter other) {
    compatibility(other).orThrow();
    PackedArray theirs = ((CountingBloomFilter) other).counters;
    for (long i = 0; i < m; i++) {
      long o = theirs.get(i);
      if (o != 0) {
        counters.set(i, Math.min(MAX_COUNT, counters.get(i) + o));
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
    CountingBloomFilter o =
        other instanceof CountingBloomFilter ? (CountingBloomFilter) other : this;
    return Compatibility.of("merge", this, other, CountingBloomFilter.class)
        .require(m == o.m, "filters of different sizes: %d counters and %d counters", m, o.m)
        .require(k == o.k, "filters with different hash counts: %d and %d", k, o.k)
        .require(hash.equals(o.hash), "filters with different hashing: %s and %s", hash, o.hash);
  }

  @Override
  public CountingBloomFilter copy() {
    return new CountingBloomFilter(counters.copy(), k, hash, expectedKeys, fpp);
  }

  // ---- introspection

  /** The number of counters, m (the filter answers as a Bloom filter of m bits). */
  public long counterCount() {
    return m;
  }

  /** The bits of the counter array: {@code 4 m}. */
  @Override
  public long bitSize() {
    return COUNTER_BITS * m;
  }

  /** The bytes of the counter array: {@code 8 * ceil(m / 16)}. */
  @Override
  public long byteSize() {
    return 8L * counters.words().length;
  }

  public int hashCount() {
    return k;
  }

  /**
   * The keys this filter was sized for by {@link #create}, or 0 when built {@link #withCounters}.
   */
  public long expectedKeys() {
    return expectedKeys;
  }

  /**
   * The rate this filter was sized for by {@link #create}, or 0 when built {@link #withCounters}.
   */
  public double targetFpp() {
    return fpp;
  }

  /** The number of non-zero counters (a scan of the whole array). */
  public long nonZeroCounters() {
    long c = 0;
    for (long w : counters.words()) {
      // One bit per non-zero nibble, then count them.
      long any = (w | (w >>> 1) | (w >>> 2) | (w >>> 3)) & 0x1111_1111_1111_1111L;
      c += Long.bitCount(any);
    }
    return c;
  }

  /** The number of counters stuck at 15 (a scan of the whole array). */
  public long saturatedCounters() {
    long c = 0;
    for (long w : counters.words()) {
      long all = w & (w >>> 1) & (w >>> 2) & (w >>> 3) & 0x1111_1111_1111_1111L;
      c += Long.bitCount(all);
    }
    return c;
  }

  /** {@code (nonZero / m)^k}: the chance that k random counters are all non-zero now. */
  @Override
  public double expectedFpp() {
    return Math.pow((double) nonZeroCounters() / m, k);
  }

  /**
   * The number of distinct keys present, from the fill: {@code -m/k ln(1 - X/m)} for X non-zero
   * counters, as {@link BloomFilter#approximateCount()}.
   */
  @Override
  public long approximateCount() {
    return BloomShape.approximateCount(nonZeroCounters(), m, k);
  }

  @Override
  public HashStrategy hashStrategy() {
    return hash;
  }

  @Override
  public StructureType type() {
    return StructureType.COUNTING_BLOOM_FILTER;
  }

  // ---- serialization

  /**
   * Parameters: counters (u64), hashes (u32), expectedKeys (u64), fpp (f64). Payload: ceil(m/16)
   * words, counter i in bits [4(i mod 16), 4(i mod 16) + 4) of word i/16; unused nibbles are 0.
   */
  @Override
  public void writeTo(OutputStream out) throws IOException {
    new BloomShape(m, k, expectedKeys, fpp).write(out, type(), hash, counters.words());
  }

  /** Reads a filter written by {@link #writeTo}; corrupt input throws SketchFormatException. */
  public static CountingBloomFilter readFrom(InputStream in) throws IOException {
    return read(SketchReader.open(in, StructureType.COUNTING_BLOOM_FILTER));
  }

  static CountingBloomFilter read(SketchReader r) throws IOException {
    BloomShape s =
        BloomShape.read(
            r,
            "counters",
            c -> c >= 1 && c <= MAX_COUNTERS,
            "in [1, " + MAX_COUNTERS + "]",
            MAX_HASHES);
    long m = s.cells;
    int words = PackedArray.wordsFor(m, COUNTER_BITS);
    r.expectPayloadLength(8L * words);
    long[] data = r.readLongs(words, "counters");
    r.finish();
    if (!PackedArray.tailIsClear(data, COUNTER_BITS * m)) {
      throw new SketchFormatException(
          "counting counter array has bits set beyond its " + m + " counters");
    }
    return new CountingBloomFilter(
        new PackedArray(m, COUNTER_BITS, data), s.hashes, r.hash(), s.expectedKeys, s.fpp);
  }

  // ---- identity

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof CountingBloomFilter)) {
      return false;
    }
    CountingBloomFilter f = (CountingBloomFilter) o;
    return m == f.m
        && k == f.k
        && hash.equals(f.hash)
        && Arrays.equals(counters.words(), f.counters.words());
  }

  @Override
  public int hashCode() {
    return Objects.hash(m, k, hash);
  }

  @Override
  public String toString() {
    return "CountingBloomFilter{counters=" + m + ", hashes=" + k + ", hash=" + hash + "}";
  }
}
