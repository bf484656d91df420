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
import io.github.probkit.io.SketchFormatException;
import io.github.probkit.io.SketchReader;
import io.github.probkit.io.SketchWriter;
import io.github.probkit.io.StructureType;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;

/**
 * A cuckoo filter (Fan, Andersen, Kaminsky and Mitzenmacher 2014): a table of buckets of 4
 * fingerprints, each key stored as a short fingerprint in one of two buckets. Keys can be removed,
 * and, unlike a counting Bloom filter, at about the memory of a Bloom filter.
 *
 * <p>Cheat sheet, for n keys, a false-positive rate p, fingerprints of f bits and load a (the
 * fraction of the 4B slots in use):
 *
 * <pre>
 *   fingerprint  f = ceil(log2(8 / p)), at least 6   10 bits at p = 1 %, 13 at 0.1 %
 *                (exactly: the least f with 8 / (2^f - 1) &lt;= p; create() uses 6 bits up to p = 12.7 %)
 *   fpp          1 - (1 - 1/(2^f - 1))^(8a)          ~ 8a / 2^f: 0.70 % at f = 10, a = 0.9
 *   slots        n / a + 6 sqrt(n / a), a = 0.9      create(): a = 0.88 at f = 6; the root term
 *                                                    is the room small tables need (0.6 % at 10^6)
 *   bits/key     f / a                                11.2 at p = 1 %, 14.5 at 0.1 % (n = 10^6)
 *   max load     about 96 % at f &gt;= 8, 95 % at 7, 94 % at 6; beyond it adds start to fail
 * </pre>
 *
 * <p>An add that finds no room after 500 relocations returns {@code false} and leaves the filter
 * exactly as it was: no key already stored is ever dropped. The load at which that first happens
 * varies from table to table: for large tables it was never below 93 % at f = 6 and 94 % at f &gt;=
 * 7 in the measurements behind {@link #bucketsFor}, but 4- and 5-bit fingerprints (only 15 or 31
 * alternate buckets per bucket) stalled at 69 % and 81 % for some bucket counts, which is why
 * {@link #create} never uses them (6 bits then hold a key in no more memory). Small tables stall
 * early by chance (one key in a hundred failed before 90 % below 64 keys), hence the root term. So
 * {@code create(n, p)} holds n distinct keys. Adding a key k times stores k copies of its
 * fingerprint (so it can be removed k times); a key fits at most 8 times, its two buckets full
 * ({@link #maxCopies}), and the next add of it fails however empty the table is. {@link
 * #addIfAbsent} stores it once however often it comes, at the risk of false negatives it states.
 *
 * <p>Thread safety: not thread-safe. Concurrent {@code mightContain} and {@code count} calls are
 * safe while nothing modifies the filter; {@code add}, {@code remove} and {@code merge} need
 * external locking.
 */
public final class CuckooFilter implements DeletableFilter, MergeableFilter {
  /** Fingerprints per bucket. */
  public static final int SLOTS_PER_BUCKET = 4;

  public static final int MIN_FINGERPRINT_BITS = 4;
  public static final int MAX_FINGERPRINT_BITS = 32;

  /** The fewest fingerprint bits {@link #create} uses (see the class comment). */
  public static final int MIN_CREATE_FINGERPRINT_BITS = 6;

  /**
   * The load {@link #create} sizes the table for at the expected number of keys, with 7 or more
   * fingerprint bits.
   */
  public static final double SIZING_LOAD = 0.9;

  /** The sizing load with 6-bit fingerprints. */
  private static final double SIZING_LOAD_6_BITS = 0.88;

  /** Slots beyond n / a, in units of sqrt(n / a): the room a small table needs to hold its keys. */
  private static final double SMALL_TABLE_ROOM = 6;

  /** Relocations tried before an add gives up. */
  public static final int MAX_KICKS = 500;

  /** The most buckets a table can have. */
  public static final long MAX_BUCKETS =
      PackedArray.MAX_BITS / (SLOTS_PER_BUCKET * MAX_FINGERPRINT_BITS);

  private static final long EMPTY = 0;
  private static final long GOLDEN = 0x9E3779B97F4A7C15L;

  /*
   * Design notes.
   *
   * One 64-bit hash per key. Its high bits choose the first bucket i1 = reduce(h, B) (multiply-high,
   * whatever the hash strategy), its low 32 bits the fingerprint, mapped onto [1, 2^f - 1] so that 0
   * can mark an empty slot. The second bucket comes from the first and the fingerprint alone
   * ("partial-key cuckoo hashing" [1]), so a stored fingerprint can be moved without its key:
   *
   *   i2 = (g(fp) - i1) mod B,   g(fp) = reduce(fp * 0x9E3779B97F4A7C15, B)
   *
   * which is an involution (applied to i2 it gives back i1) for any B. The paper's i1 xor hash(fp)
   * needs B to be a power of two, which can waste nearly half the memory; this form does not.
   *
   * Insertion is the paper's random walk: try both buckets, else evict a random fingerprint of one
   * of them to its other bucket, up to 500 times. The walk records which slot it took at each step;
   * on failure it walks back through the same buckets (each found as the involution of the next)
   * restoring every fingerprint, so the table ends as it started and the new key is refused rather
   * than some old key lost. The walk's random numbers come from a per-instance xorshift generator
   * with a fixed seed: the same operations give the same table, with no global state.
   *
   * Fingerprints are packed f bits each (internal.PackedArray); slot j of bucket b is field 4b + j.
   * This implementation does not semi-sort buckets [1, section 5.2], which would save 1 bit per key.
   *
   * [1] Fan, Andersen, Kaminsky, Mitzenmacher. Cuckoo filter: practically better than Bloom.
   *     CoNEXT 2014.
   * [2] Lemire. Fast random integer generation in an interval. 2019 (reduce).
   */

  private final PackedArray slots;
  private final long[] words;
  private final long buckets;
  private final int f;

  /**
   * Whether a bucket's 4 fingerprints fit in one long (f <= 16): then it is compared as a whole.
   */
  private final boolean narrow;

  /** Whether buckets lie within words (4f divides 64: f = 8 or 16). */
  private final boolean aligned;

  /** The low bit of each of the 4 fields of a bucket. */
  private final long lows;

  /** The low f - 1 bits of each field. */
  private final long lowBits;

  /** The high bit of each field. */
  private final long highs;

  private final long bucketMask;
  private final long fingerprints;
  private final HashStrategy hash;
  private final long expectedKeys;
  private final double fpp;
  private final byte[] walk = new byte[MAX_KICKS];
  private long size;
  private long random = 0x2545F4914F6CDD1DL;

  private CuckooFilter(
      PackedArray slots, long size, HashStrategy hash, long expectedKeys, double fpp) {
    this.slots = slots;
    this.words = slots.words();
    this.size = size;
    this.buckets = slots.length() / SLOTS_PER_BUCKET;
    this.f = slots.width();
    this.narrow = SLOTS_PER_BUCKET * f <= Long.SIZE;
    this.aligned = Long.SIZE % (SLOTS_PER_BUCKET * f) == 0;
    long l = 0;
    for (int j = 0; j < SLOTS_PER_BUCKET && narrow; j++) {
      l |= 1L << (j * f);
    }
    this.lows = l;
    this.highs = l << (f - 1);
    this.lowBits = highs - lows;
    this.bucketMask = narrow ? -1L >>> (Long.SIZE - SLOTS_PER_BUCKET * f) : 0;
    this.fingerprints = (1L << f) - 1;
    this.hash = hash;
    this.expectedKeys = expectedKeys;
    this.fpp = fpp;
  }

  /**
   * A filter that holds {@code expectedKeys} distinct keys ({@link #bucketsFor}), with fingerprints
   * long enough for a false-positive rate of {@code fpp} at full load (at least {@link
   * #MIN_CREATE_FINGERPRINT_BITS}), hashed with XXH3.
   */
  public static CuckooFilter create(long expectedKeys, double fpp) {
    return create(expectedKeys, fpp, HashStrategy.xxh3());
  }

  /**
   * As {@link #create(long, double)}, hashed with {@code hash}. Refuses a hash that {@link
   * HashStrategy#needsMixing() needs mixing} (FNV-1a), whose similar keys would crowd a few buckets
   * and fill the table early.
   */
  public static CuckooFilter create(long expectedKeys, double fpp, HashStrategy hash) {
    int bits = Math.max(MIN_CREATE_FINGERPRINT_BITS, fingerprintBits(fpp));
    return allocate(bucketsFor(expectedKeys, bits), bits, hash, expectedKeys, fpp);
  }

  /**
   * The buckets {@link #create} takes for {@code expectedKeys} keys with fingerprints of {@code
   * fingerprintBits} (6 or more): {@code ceil((n / a + 6 sqrt(n / a)) / 4)} with the sizing load a
   * = 0.9 (0.88 at 6 bits). In simulations of 250,000 tables of 1 to 10,000 keys per width and of
   * large tables, no table so sized failed to hold its keys.
   */
  public static long bucketsFor(long expectedKeys, int fingerprintBits) {
    checkArgument(expectedKeys > 0, "expectedKeys must be positive, was %d", expectedKeys);
    checkArgument(
        fingerprintBits >= MIN_CREATE_FINGERPRINT_BITS && fingerprintBits <= MAX_FINGERPRINT_BITS,
        "fingerprintBits must be in [%d, %d], was %d",
        MIN_CREATE_FINGERPRINT_BITS,
        MAX_FINGERPRINT_BITS,
        fingerprintBits);
    double load = fingerprintBits == 6 ? SIZING_LOAD_6_BITS : SIZING_LOAD;
    double slots = expectedKeys / load;
    double b = Math.ceil((slots + SMALL_TABLE_ROOM * Math.sqrt(slots)) / SLOTS_PER_BUCKET);
    checkArgument(
        b <= MAX_BUCKETS,
        "%d keys need %.0f buckets, more than the maximum of %d",
        expectedKeys,
        b,
        MAX_BUCKETS);
    return (long) b;
  }

  /**
   * A table of exactly {@code buckets} buckets of 4 fingerprints of {@code fingerprintBits}, hashed
   * with XXH3.
   */
  public static CuckooFilter withBuckets(long buckets, int fingerprintBits) {
    return withBuckets(buckets, fingerprintBits, HashStrategy.xxh3());
  }

  /**
   * As {@link #withBuckets(long, int)}, hashed with {@code hash}. Refuses a hash that {@link
   * HashStrategy#needsMixing() needs mixing} (FNV-1a), whose similar keys would crowd a few buckets
   * and fill the table early.
   */
  public static CuckooFilter withBuckets(long buckets, int fingerprintBits, HashStrategy hash) {
    return allocate(buckets, fingerprintBits, hash, 0, 0);
  }

  private static CuckooFilter allocate(long b, int bits, HashStrategy hash, long n, double p) {
    checkArgument(b >= 1 && b <= MAX_BUCKETS, "buckets must be in [1, %d], was %d", MAX_BUCKETS, b);
    checkArgument(
        bits >= MIN_FINGERPRINT_BITS && bits <= MAX_FINGERPRINT_BITS,
        "fingerprintBits must be in [%d, %d], was %d",
        MIN_FINGERPRINT_BITS,
        MAX_FINGERPRINT_BITS,
        bits);
    checkUniformHash(hash, "a cuckoo filter");
    long slots = b * SLOTS_PER_BUCKET;
    checkAllocatable(
        8L * PackedArray.wordsFor(slots, bits), "a cuckoo filter of " + b + " buckets");
    return new CuckooFilter(new PackedArray(slots, bits), 0, hash, n, p);
  }

  /**
   * The fingerprint bits for a false-positive rate of at most {@code fpp} with full buckets: the
   * least f of at least 4 with {@code 8 / (2^f - 1) <= fpp}, about {@code ceil(log2(8 / fpp))} (the
   * paper's bound 2b / 2^f for b = 4, with 0 reserved for the empty slot).
   */
  public static int fingerprintBits(double fpp) {
    checkOpenUnit("fpp", fpp);
    double min = 8.0 / ((1L << MAX_FINGERPRINT_BITS) - 1);
    checkArgument(fpp >= min, "fpp must be in [%s, 1) for a cuckoo filter, was %s", min, fpp);
    int bits = MIN_FINGERPRINT_BITS;
    // The smallest f with 8 / (2^f - 1) <= fpp, by exact comparison rather than a rounded log.
    while (8.0 / ((1L << bits) - 1) > fpp) {
      bits++;
    }
    return bits;
  }

  /**
   * The theoretical false-positive rate at load {@code load}: {@code 1 - (1 - 1/(2^f - 1))^(8
   * load)}.
   */
  public static double falsePositiveRate(int fingerprintBits, double load) {
    return -Math.expm1(
        2 * SLOTS_PER_BUCKET * load * Math.log1p(-1.0 / ((1L << fingerprintBits) - 1)));
  }

  // ---- hashing

  private long bucketOf(long h) {
    return DoubleHashing.reduce(h, buckets);
  }

  private long fingerprintOf(long h) {
    // The low 32 bits scaled onto [0, 2^f - 2], then shifted past 0 (the empty slot).
    return 1 + (((h & 0xFFFF_FFFFL) * fingerprints) >>> 32);
  }

  private long alternate(long bucket, long fp) {
    long a = DoubleHashing.reduce(fp * GOLDEN, buckets) - bucket;
    return a < 0 ? a + buckets : a;
  }

  private int nextRandom() {
    long x = random;
    x ^= x << 13;
    x ^= x >>> 7;
    x ^= x << 17;
    random = x;
    return (int) (x >>> 32);
  }

  // ---- buckets
  //
  // With f <= 16 a bucket's 4 fingerprints are one 4f-bit value (read from one or two words), and a
  // fingerprint is looked for in all 4 slots at once: XOR the bucket with the fingerprint repeated
  // in each field, and find the fields that became 0 (exactly, by the carry-free test of
  // zeroFields). Wider fingerprints are read slot by slot.

  /** The 4f bits of bucket {@code b}, slot j in bits [jf, (j+1)f). Only when {@link #narrow}. */
  private long bucketBits(long b) {
    long bit = b * (SLOTS_PER_BUCKET * f);
    int w = (int) (bit >>> 6);
    int shift = (int) bit & 63;
    long[] ws = words;
    if (aligned) {
      // 8- or 16-bit fingerprints: buckets never straddle words. Reading the next word anyway
      // reached into another cache line for one bucket in 8, ~1.5 ns an add at 8 bits.
      return (ws[w] >>> shift) & bucketMask;
    }
    // The next word, or this one again at the end of the table: its bits then land above the
    // bucket's and are masked off; (x << 1) << (63 - shift) is 0 when shift is 0.
    long next = ws[Math.min(w + 1, ws.length - 1)];
    return ((ws[w] >>> shift) | ((next << 1) << (63 - shift))) & bucketMask;
  }

  /** The high bit of each field of {@code x} that is 0. */
  private long zeroFields(long x) {
    return ~(((x & lowBits) + lowBits) | x) & highs;
  }

  /** The slot of the first (lowest) field of bucket {@code b} equal to {@code v}, or -1. */
  private int find(long b, long v) {
    long z = zeroFields(bucketBits(b) ^ (v * lows));
    return z == 0 ? -1 : Long.numberOfTrailingZeros(z) / f;
  }

  private boolean put(long bucket, long fp) {
    long base = bucket * SLOTS_PER_BUCKET;
    if (narrow) {
      // The first empty field's bit from its high bit, and the fingerprint ORed into the zeros:
      // find's division by f and the general set's masking cost ~2 ns of an add.
      long z = zeroFields(bucketBits(bucket));
      if (z == 0) {
        return false;
      }
      long at = base * f + Long.numberOfTrailingZeros(z) - (f - 1);
      int w = (int) (at >>> 6);
      int shift = (int) at & 63;
      words[w] |= fp << shift;
      if (shift + f > 64) {
        words[w + 1] |= fp >>> (64 - shift);
      }
      return true;
    }
    for (int j = 0; j < SLOTS_PER_BUCKET; j++) {
      if (slots.get(base + j) == EMPTY) {
        slots.set(base + j, fp);
        return true;
      }
    }
    return false;
  }

  private boolean has(long bucket, long fp) {
    if (narrow) {
      return zeroFields(bucketBits(bucket) ^ (fp * lows)) != 0;
    }
    long base = bucket * SLOTS_PER_BUCKET;
    for (int j = 0; j < SLOTS_PER_BUCKET; j++) {
      if (slots.get(base + j) == fp) {
        return true;
      }
    }
    return false;
  }

  private int occurrences(long bucket, long fp) {
    if (narrow) {
      return Long.bitCount(zeroFields(bucketBits(bucket) ^ (fp * lows)));
    }
    long base = bucket * SLOTS_PER_BUCKET;
    int c = 0;
    for (int j = 0; j < SLOTS_PER_BUCKET; j++) {
      c += slots.get(base + j) == fp ? 1 : 0;
    }
    return c;
  }

  private boolean take(long bucket, long fp) {
    long base = bucket * SLOTS_PER_BUCKET;
    if (narrow) {
      int j = find(bucket, fp);
      if (j < 0) {
        return false;
      }
      slots.set(base + j, EMPTY);
      return true;
    }
    for (int j = 0; j < SLOTS_PER_BUCKET; j++) {
      if (slots.get(base + j) == fp) {
        slots.set(base + j, EMPTY);
        return true;
      }
    }
    return false;
  }

  /** Stores {@code fp} in {@code bucket} or its alternate; on failure the table is unchanged. */
  private boolean insert(long bucket, long fp) {
    if (put(bucket, fp)) {
      size++;
      return true;
    }
    // The alternate only when needed: at the loads filters are used at, most keys fit at home.
    long alt = alternate(bucket, fp);
    if (put(alt, fp)) {
      size++;
      return true;
    }
    long b = (nextRandom() & 1) == 0 ? bucket : alt;
    long homeless = fp;
    for (int n = 0; n < MAX_KICKS; n++) {
      int j = nextRandom() & (SLOTS_PER_BUCKET - 1);
      walk[n] = (byte) j;
      long slot = b * SLOTS_PER_BUCKET + j;
      long victim = slots.get(slot);
      slots.set(slot, homeless);
      homeless = victim;
      b = alternate(b, homeless);
      if (put(b, homeless)) {
        size++;
        return true;
      }
    }
    // Undo: the last swap was in the bucket the homeless fingerprint came from, alternate(b, it);
    // putting it back there frees the fingerprint that displaced it, whose own origin is found the
    // same way, down to the new key's fingerprint.
    for (int n = MAX_KICKS - 1; n >= 0; n--) {
      b = alternate(b, homeless);
      long slot = b * SLOTS_PER_BUCKET + walk[n];
      long displaced = slots.get(slot);
      slots.set(slot, homeless);
      homeless = displaced;
    }
    assert homeless == fp;
    return false;
  }

  // ---- keys

  /**
   * Stores the key's fingerprint. Returns {@code true} when it was stored (even if the key was
   * present already: each add can be matched by a remove), and {@code false} when the table has no
   * room for it, in which case the filter is unchanged and every key stored before is still there.
   * No room is either a full table or, at any load, a key already stored {@link #maxCopies} times:
   * {@code count(key) >= maxCopies(key)} tells the second.
   */
  @Override
  public boolean add(byte[] key, int off, int len) {
    long h = hash.hash64(key, off, len);
    return insert(bucketOf(h), fingerprintOf(h));
  }

  @Override
  public boolean add(long key) {
    long h = hash.hash64(key);
    return insert(bucketOf(h), fingerprintOf(h));
  }

  /**
   * Stores the key's fingerprint as {@link #add(byte[], int, int)} does. A cuckoo filter's add
   * answers whether the key could be stored at all, so add is the call to use; put, which has no
   * answer to give, throws rather than lose the key.
   *
   * @throws IllegalStateException when the table has no room for the key (the filter is unchanged)
   */
  @Override
  public void put(byte[] key, int off, int len) {
    if (!add(key, off, len)) {
      throw noRoom();
    }
  }

  /** {@link #put(byte[], int, int)} of the 8 little-endian bytes of {@code key}. */
  @Override
  public void put(long key) {
    if (!add(key)) {
      throw noRoom();
    }
  }

  private IllegalStateException noRoom() {
    return new IllegalStateException(
        "the cuckoo filter has no room for the key (" + size() + " fingerprints stored)");
  }

  /** True: a key's buckets and fingerprint come from its hash alone. */
  @Override
  public boolean hashSuffices() {
    return true;
  }

  @Override
  public long addAllHashes(long[] hashes, int from, int to) {
    return BatchPasses.eachHash(hashes, from, to, h -> insert(bucketOf(h), fingerprintOf(h)));
  }

  @Override
  public int mightContainAllHashes(long[] hashes, int from, int to, boolean[] present) {
    return BatchPasses.eachHash(hashes, from, to, present, this::containsHash);
  }

  /** As {@link DeletableFilter#addIfAbsent}, hashing the key once. */
  @Override
  public boolean addIfAbsent(byte[] key, int off, int len) {
    long h = hash.hash64(key, off, len);
    long fp = fingerprintOf(h);
    long b = bucketOf(h);
    return !has(b, fp) && !has(alternate(b, fp), fp) && insert(b, fp);
  }

  @Override
  public boolean mightContain(byte[] key, int off, int len) {
    return containsHash(hash.hash64(key, off, len));
  }

  @Override
  public boolean mightContain(long key) {
    return containsHash(hash.hash64(key));
  }

  private boolean containsHash(long h) {
    long fp = fingerprintOf(h);
    long b = bucketOf(h);
    if (narrow) {
      // Both buckets, without a branch between them.
      long v = fp * lows;
      return (zeroFields(bucketBits(b) ^ v) | zeroFields(bucketBits(alternate(b, fp)) ^ v)) != 0;
    }
    return has(b, fp) || has(alternate(b, fp), fp);
  }

  /**
   * Removes one copy of the key's fingerprint; returns {@code false}, changing nothing, when
   * neither of its buckets holds it (the key is certainly absent).
   */
  @Override
  public boolean remove(byte[] key, int off, int len) {
    long h = hash.hash64(key, off, len);
    long fp = fingerprintOf(h);
    long b = bucketOf(h);
    if (take(b, fp) || take(alternate(b, fp), fp)) {
      size--;
      return true;
    }
    return false;
  }

  /**
   * The copies of the key's fingerprint in its two buckets: the number of times it was added and
   * not removed, plus any other keys that share its fingerprint and a bucket (0 to 8).
   */
  @Override
  public int count(byte[] key, int off, int len) {
    long h = hash.hash64(key, off, len);
    long fp = fingerprintOf(h);
    long b = bucketOf(h);
    long alt = alternate(b, fp);
    return occurrences(b, fp) + (alt == b ? 0 : occurrences(alt, fp));
  }

  /**
   * The most copies of the key's fingerprint the filter can hold: 8, its two buckets of 4 full of
   * it, or 4 for a key whose two buckets are one (about one key in {@link #bucketCount}).
   */
  public int maxCopies(byte[] key, int off, int len) {
    long h = hash.hash64(key, off, len);
    long b = bucketOf(h);
    return alternate(b, fingerprintOf(h)) == b ? SLOTS_PER_BUCKET : 2 * SLOTS_PER_BUCKET;
  }

  // ---- combining

  /**
   * Stores every fingerprint of {@code other} in this filter, each in one of its two buckets, so
   * that this filter then holds the keys of both (a key in both is stored twice). All or nothing:
   * when they do not all fit, this filter is left unchanged and an IllegalStateException is thrown.
   * Both must have the same buckets, fingerprint bits and hash strategy.
   */
  @Override
  public CuckooFilter merge(MembershipFilter filter) {
    compatibility(filter).orThrow();
    CuckooFilter other = (CuckooFilter) filter;
    if (size + other.size > buckets * SLOTS_PER_BUCKET) {
      throw new IllegalStateException(
          String.format(
              Locale.ROOT,
              "cannot merge: %d + %d keys exceed the %d slots",
              size,
              other.size,
              buckets * SLOTS_PER_BUCKET));
    }
    long[] saved = slots.words().clone();
    long savedSize = size;
    for (long s = 0; s < other.slots.length(); s++) {
      long fp = other.slots.get(s);
      if (fp != EMPTY && !insert(s / SLOTS_PER_BUCKET, fp)) {
        System.arraycopy(saved, 0, slots.words(), 0, saved.length);
        size = savedSize;
        throw new IllegalStateException(
            String.format(
                Locale.ROOT,
                "cannot merge: the union of %d and %d keys does not fit in %d buckets (load %.1f %%)",
                savedSize,
                other.size,
                buckets,
                100.0 * (savedSize + other.size) / (buckets * SLOTS_PER_BUCKET)));
      }
    }
    return this;
  }

  /** Whether {@link #merge} would accept {@code other}'s shape (it may still not fit). */
  @Override
  public boolean isCompatible(MembershipFilter other) {
    return compatibility(other).ok();
  }

  private Compatibility compatibility(MembershipFilter other) {
    CuckooFilter o = other instanceof CuckooFilter ? (CuckooFilter) other : this;
    return Compatibility.of("merge", this, other, CuckooFilter.class)
        .require(
            buckets == o.buckets,
            "filters of different sizes: %d buckets and %d buckets",
            buckets,
            o.buckets)
        .require(f == o.f, "filters with different fingerprint bits: %d and %d", f, o.f)
        .require(hash.equals(o.hash), "filters with different hashing: %s and %s", hash, o.hash);
  }

  @Override
  public CuckooFilter copy() {
    return new CuckooFilter(slots.copy(), size, hash, expectedKeys, fpp);
  }

  // ---- introspection

  public long bucketCount() {
    return buckets;
  }

  public int fingerprintBits() {
    return f;
  }

  /** The number of fingerprints stored: adds that succeeded minus removes that succeeded. */
  public long size() {
    return size;
  }

  /** The fraction of slots in use. */
  public double load() {
    return (double) size / (buckets * SLOTS_PER_BUCKET);
  }

  /**
   * The keys this filter was sized for by {@link #create}, or 0 when built {@link #withBuckets}.
   */
  public long expectedKeys() {
    return expectedKeys;
  }

  /**
   * The rate this filter was sized for by {@link #create}, or 0 when built {@link #withBuckets}.
   */
  public double targetFpp() {
    return fpp;
  }

  /** The bits of the table: {@code 4 B f}. */
  @Override
  public long bitSize() {
    return slots.length() * f;
  }

  /** The bytes of the table: {@code 8 * ceil(4 B f / 64)}. */
  @Override
  public long byteSize() {
    return 8L * slots.words().length;
  }

  /** The theoretical rate at the current load, {@link #falsePositiveRate}{@code (f, load())}. */
  @Override
  public double expectedFpp() {
    return falsePositiveRate(f, load());
  }

  /** The number of fingerprints stored, {@link #size()} (a key added twice counts twice). */
  @Override
  public long approximateCount() {
    return size;
  }

  @Override
  public HashStrategy hashStrategy() {
    return hash;
  }

  @Override
  public StructureType type() {
    return StructureType.CUCKOO_FILTER;
  }

  // ---- serialization

  /**
   * Parameters: buckets (u64), fingerprintBits (u32), expectedKeys (u64), fpp (f64). Payload: the
   * 4B fingerprints of f bits packed into ceil(4Bf/64) words (see internal.PackedArray); 0 is an
   * empty slot; unused bits of the last word are 0.
   */
  @Override
  public void writeTo(OutputStream out) throws IOException {
    ByteBuffer p = SketchWriter.params(28);
    p.putLong(buckets).putInt(f).putLong(expectedKeys).putDouble(fpp);
    long[] words = slots.words();
    SketchWriter w = SketchWriter.begin(out, type(), hash, p.array(), 8L * words.length);
    w.writeLongs(words, 0, words.length);
    w.finish();
  }

  /** Reads a filter written by {@link #writeTo}; corrupt input throws SketchFormatException. */
  public static CuckooFilter readFrom(InputStream in) throws IOException {
    return read(SketchReader.open(in, StructureType.CUCKOO_FILTER));
  }

  static CuckooFilter read(SketchReader r) throws IOException {
    long b = r.paramLong("buckets");
    r.check(b >= 1 && b <= MAX_BUCKETS, "buckets", b, "in [1, " + MAX_BUCKETS + "]");
    int bits = r.paramInt("fingerprintBits");
    r.check(
        bits >= MIN_FINGERPRINT_BITS && bits <= MAX_FINGERPRINT_BITS,
        "fingerprintBits",
        bits,
        "in [" + MIN_FINGERPRINT_BITS + ", " + MAX_FINGERPRINT_BITS + "]");
    long n = r.paramLong("expectedKeys");
    r.check(n >= 0, "expectedKeys", n, "non-negative");
    double p = r.paramDouble("fpp");
    r.check(p == 0 || (p > 0 && p < 1), "fpp", p, "0 or in (0, 1)");
    long slots = b * SLOTS_PER_BUCKET;
    int words = PackedArray.wordsFor(slots, bits);
    r.expectPayloadLength(8L * words);
    long[] data = r.readLongs(words, "fingerprints");
    r.finish();
    if (!PackedArray.tailIsClear(data, slots * bits)) {
      throw new SketchFormatException(
          "cuckoo fingerprint table has bits set beyond its " + slots + " slots");
    }
    PackedArray table = new PackedArray(slots, bits, data);
    long used = 0;
    for (long i = 0; i < slots; i++) {
      used += table.get(i) == EMPTY ? 0 : 1;
    }
    return new CuckooFilter(table, used, r.hash(), n, p);
  }

  // ---- identity

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof CuckooFilter)) {
      return false;
    }
    CuckooFilter c = (CuckooFilter) o;
    return buckets == c.buckets
        && f == c.f
        && hash.equals(c.hash)
        && Arrays.equals(slots.words(), c.slots.words());
  }

  @Override
  public int hashCode() {
    return Objects.hash(buckets, f, hash);
  }

  @Override
  public String toString() {
    return "CuckooFilter{buckets=" + buckets + ", fingerprintBits=" + f + ", hash=" + hash + "}";
  }
}
