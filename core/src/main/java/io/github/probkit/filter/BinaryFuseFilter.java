package io.github.probkit.filter;

import static io.github.probkit.internal.Preconditions.checkAccepted;
import static io.github.probkit.internal.Preconditions.checkAllocatable;
import static io.github.probkit.internal.Preconditions.checkArgument;
import static io.github.probkit.internal.Preconditions.checkOpenUnit;

import io.github.probkit.hash.DoubleHashing;
import io.github.probkit.hash.HashStrategy;
import io.github.probkit.internal.BatchPasses;
import io.github.probkit.internal.MappedBytes;
import io.github.probkit.internal.Mix;
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
 * A binary fuse filter (Graf and Lemire 2022): a static filter, built once from a set of keys, that
 * stores one 8- or 16-bit fingerprint per table slot and answers a query with three memory
 * accesses. It is smaller than a Bloom filter at the same rate and faster to query, but no key can
 * be added after it is built.
 *
 * <p>Cheat sheet, for n distinct keys and f-bit fingerprints:
 *
 * <pre>
 *   fpp      p = 2^-f                       0.39 % (f = 8), 0.0015 % (f = 16)
 *   table    about 1.125 n slots of f bits for n &gt;= 1M (9.04 bits/key at f = 8, 18.1 at f = 16),
 *            more for small n (sizeFactor below): 1.13x the lower bound log2(1/p) bits/key
 *   query    3 table reads at independent places, no branch but the comparison
 *   build    O(n) expected; a failed attempt (rare) is retried with a new seed
 * </pre>
 *
 * <p>Duplicate keys are allowed (a key given twice is stored once), and so are keys whose hashes
 * collide: they become one entry, answered present for both.
 *
 * <p>Thread safety: instances are immutable once built, and safe for concurrent queries.
 */
public final class BinaryFuseFilter implements MembershipFilter {

  /** The fingerprint width, which fixes the false-positive rate at 2^-bits. */
  public enum FingerprintBits {
    BITS_8(8),
    BITS_16(16);

    private final int bits;

    FingerprintBits(int bits) {
      this.bits = bits;
    }

    public int bits() {
      return bits;
    }

    /** The false-positive rate of this width, {@code 2^-bits}. */
    public double fpp() {
      return Math.scalb(1.0, -bits);
    }

    /** The narrowest width whose rate is at most {@code fpp}: 8 bits down to 2^-8, then 16 bits. */
    public static FingerprintBits forFpp(double fpp) {
      checkOpenUnit("fpp", fpp);
      if (fpp >= BITS_8.fpp()) {
        return BITS_8;
      }
      checkArgument(
          fpp >= BITS_16.fpp(),
          "fpp must be at least 2^-16 (%s) for a binary fuse filter, was %s",
          BITS_16.fpp(),
          fpp);
      return BITS_16;
    }

    static FingerprintBits of(int bits) {
      return bits == 8 ? BITS_8 : bits == 16 ? BITS_16 : null;
    }
  }

  /**
   * How a key's hash becomes its three slots and fingerprint, which a file records
   * (docs/FORMAT.md): a filter answers with the derivation it was built with.
   */
  public enum Derivation {
    /**
     * {@code x = mix64(h + seed)}: every file written before derivation 2 existed, and the default
     * for hashes that need mixing ({@link HashStrategy#needsMixing()}), whose bits are not used as
     * they are.
     */
    V1(1),
    /**
     * {@code x = h * seed} for an odd seed, the first slot from a 32-bit multiply and the
     * fingerprint without one: two multiplies per query where {@link #V1} has four. The default for
     * hashes that need no mixing (XXH3 and the other full-avalanche hashes).
     */
    V2(2);

    private final int number;

    Derivation(int number) {
      this.number = number;
    }

    /** The number a file records: 1 or 2. */
    public int number() {
      return number;
    }

    /** The derivation a filter of {@code hash} is built with when none is named. */
    public static Derivation defaultFor(HashStrategy hash) {
      return hash.needsMixing() ? V1 : V2;
    }
  }

  /** The most table slots: the largest array a JVM allocates. */
  public static final int MAX_SLOTS = Integer.MAX_VALUE - 8;

  /** The longest segment, 2^18 slots (longer ones gain nothing and lose locality). */
  public static final int MAX_SEGMENT_LENGTH = 1 << 18;

  /*
   * Design notes.
   *
   * The table of c ~ 1.125 n slots is cut into segments of L = 2^s slots. A key's 64-bit hash h is
   * re-randomised with the filter's seed into x; the key owns three slots, one in each of three
   * consecutive segments: p0 from the high bits of x (Lemire's multiply-high reduction to
   * [0, segmentCount * L)), and p1 and p2 at offsets taken from bits 0..17 and 18..35 of x in the
   * next two segments. The filter stores fingerprints F so that F[p0] ^ F[p1] ^ F[p2] = fp(x) for
   * every key. A key not in the set matches with probability 2^-f.
   *
   * Two derivations of x, p0 and fp exist (Derivation, recorded in the file):
   *   V1  x = mix64(h + seed), p0 = 64x64 multiply-high of x, fp = top f bits of x * 0xC2B2AE3D27D4EB4F;
   *   V2  x = h * seed (seed odd), p0 = 32x32 multiply-high of the top half of x, fp = x ^ (x >>> 32).
   * V1 treats h as possibly weak and spends four multiplies on x and fp. V2 relies on h being a
   * full-avalanche hash already (so it is written only for hashes that need no mixing): for a fixed
   * odd seed, x is then as uniform as h, and one multiply is what it takes to make a failed peel's
   * retry see a new hypergraph. Why a multiplier and not an addend: with x = (h + seed) * C, or any
   * x = h + c, a new seed adds one constant to every x, which translates the whole hypergraph and
   * keeps whatever made peeling fail; with x = h * seed, a new seed multiplies every x by the odd
   * K = seed'/seed, and the top bits (p0's segment) of x * K are a multiply-shift hash of x, so keys
   * are dealt to new segments and the slots they share are new. The low bits that give the offsets
   * are where a multiplier is weak (bit i of x * K depends on bits 0..i of x): two keys whose hashes
   * agree in bits 0..35 keep equal offsets under every seed, but to share a slot they must also
   * fall in the same segment, which each seed draws anew (BinaryFuseDerivationTest holds the retry
   * rate to V1's). fp = x ^ (x >>> 32): its low bits 0..f-1 are also the first offset's, so they
   * are XORed with bits 32..32+f-1, which move p0 by less than m / 2^(32-f) slots for a table of m
   * slots (under one slot below 2^24 slots for f = 8; up to 17 for f = 16 at 10^6 keys), so that
   * the fingerprint is nearly independent of the slots; the false-positive rate is tested against
   * 2^-f at 10^6 keys for both widths.
   *
   * Construction is hypergraph peeling, as for xor filters [1]: count the keys of every slot and XOR
   * their x together; a slot with exactly one key names that key (its XOR is the key's x), so the key
   * can be removed from its other two slots and pushed on a stack. When every key has been peeled, the
   * stack is unwound in reverse, each key setting its own slot's fingerprint last, from the two it
   * shares. Keeping the three slots in consecutive segments (the "spatial coupling" of binary fuse
   * filters [2]) lets peeling succeed with a table of only 1.125 n slots for large n, where xor
   * filters need 1.23 n. The segment length and the size factor follow [2]:
   *   L = 2^floor(ln(n) / ln(3.33) + 2.25), at most 2^18;  c = n * max(1.125, 0.875 + 0.25 ln(10^6) / ln(n)).
   *
   * Robustness (users of other implementations hit both failures): keys are hashed once, and when an
   * attempt fails the hashes are sorted and deduplicated before the next, because two equal hashes
   * share their three slots and can never be peeled apart (a successful peel proves the hashes
   * distinct, so the common case never sorts); sequential keys are no problem since XXH3 and the
   * seeded mix64 scatter them. Peeling fails with small
   * probability for any one seed; a failed attempt is retried with the next seed of a fixed sequence
   * (so the same keys always give the same bytes), and after every 8 failures the table grows by
   * about 3 %, so construction always ends.
   *
   * [1] Graf, Lemire. Xor filters: faster and smaller than Bloom and cuckoo filters. JEA 2020.
   * [2] Graf, Lemire. Binary fuse filters: fast and smaller than xor filters. JEA 2022.
   */

  private static final long FINGERPRINT_MIX = 0xC2B2AE3D27D4EB4FL;
  private static final long SEED_STEP = 0x9E3779B97F4A7C15L;
  private static final int MAX_ATTEMPTS = 1000;
  private static final int GROW_EVERY = 8;

  private final FingerprintBits width;
  private final HashStrategy hash;

  /** Derivation V2: chosen once per filter; a query's test of it is always predicted. */
  private final boolean v2;

  private final long keys;
  private final long seed;
  private final int segmentLength;
  private final int segmentCount;
  private final int mask;
  private final long startRange;
  private final int fpShift;
  private final byte[] t8;
  private final short[] t16;
  private final int slots;

  private BinaryFuseFilter(
      FingerprintBits width,
      HashStrategy hash,
      boolean v2,
      long keys,
      long seed,
      int segmentLength,
      int segmentCount,
      byte[] t8,
      short[] t16) {
    this.width = width;
    this.hash = hash;
    this.v2 = v2;
    this.keys = keys;
    this.seed = seed;
    this.segmentLength = segmentLength;
    this.segmentCount = segmentCount;
    this.mask = segmentLength - 1;
    this.startRange = (long) segmentCount * segmentLength;
    this.fpShift = 64 - width.bits;
    this.t8 = t8;
    this.t16 = t16;
    this.slots = t8 != null ? t8.length : t16.length;
  }

  // ---- building

  /** A filter of the keys' bytes, hashed with XXH3. Duplicates are allowed. */
  public static BinaryFuseFilter create(Iterable<byte[]> keys, FingerprintBits bits) {
    return create(keys, bits, HashStrategy.xxh3());
  }

  public static BinaryFuseFilter create(
      Iterable<byte[]> keys, FingerprintBits bits, HashStrategy hash) {
    Objects.requireNonNull(keys, "keys");
    Objects.requireNonNull(hash, "hash");
    Hashes h = new Hashes();
    for (byte[] k : keys) {
      h.add(hash.hash64(k, 0, k.length));
    }
    return build(h.values, h.size, true, bits, hash, Derivation.defaultFor(hash));
  }

  /** A filter of the UTF-8 bytes of the keys, hashed with XXH3. */
  public static BinaryFuseFilter ofStrings(
      Iterable<? extends CharSequence> keys, FingerprintBits bits) {
    return ofStrings(keys, bits, HashStrategy.xxh3());
  }

  public static BinaryFuseFilter ofStrings(
      Iterable<? extends CharSequence> keys, FingerprintBits bits, HashStrategy hash) {
    Objects.requireNonNull(keys, "keys");
    Objects.requireNonNull(hash, "hash");
    Hashes h = new Hashes();
    for (CharSequence k : keys) {
      h.add(hash.hash64(k));
    }
    return build(h.values, h.size, true, bits, hash, Derivation.defaultFor(hash));
  }

  /** A filter of long keys (their 8 little-endian bytes), hashed with XXH3. */
  public static BinaryFuseFilter ofLongs(long[] keys, FingerprintBits bits) {
    return ofLongs(keys, bits, HashStrategy.xxh3());
  }

  public static BinaryFuseFilter ofLongs(long[] keys, FingerprintBits bits, HashStrategy hash) {
    Objects.requireNonNull(keys, "keys");
    Objects.requireNonNull(hash, "hash");
    long[] h = new long[keys.length];
    for (int i = 0; i < keys.length; i++) {
      h[i] = hash.hash64(keys[i]);
    }
    return build(h, h.length, true, bits, hash, Derivation.defaultFor(hash));
  }

  /**
   * A filter of keys given by their hashes: {@code hashes[i]} must be {@code hash.hash64(key)} of
   * the key's bytes, so that queries (which hash the key with {@code hash}) find it. The array is
   * not modified; duplicates are allowed.
   */
  public static BinaryFuseFilter fromHashes(
      long[] hashes, FingerprintBits bits, HashStrategy hash) {
    Objects.requireNonNull(hashes, "hashes");
    return fromHashes(hashes, hashes.length, bits, hash);
  }

  /**
   * As {@link #fromHashes(long[], FingerprintBits, HashStrategy)}, from {@code hashes[0, count)}.
   */
  public static BinaryFuseFilter fromHashes(
      long[] hashes, int count, FingerprintBits bits, HashStrategy hash) {
    Objects.requireNonNull(hash, "hash");
    return fromHashes(hashes, count, bits, hash, Derivation.defaultFor(hash));
  }

  /**
   * As {@link #fromHashes(long[], int, FingerprintBits, HashStrategy)}, with the derivation named:
   * {@link Derivation#V1} writes a file that readers older than derivation 2 read. {@link
   * Derivation#V2} is refused for a hash that needs mixing.
   */
  public static BinaryFuseFilter fromHashes(
      long[] hashes, int count, FingerprintBits bits, HashStrategy hash, Derivation derivation) {
    Objects.requireNonNull(hashes, "hashes");
    Objects.requireNonNull(hash, "hash");
    Objects.requireNonNull(derivation, "derivation");
    checkArgument(
        count >= 0 && count <= hashes.length,
        "count must be in [0, %d], was %d",
        hashes.length,
        count);
    checkArgument(
        derivation == Derivation.V1 || !hash.needsMixing(),
        "derivation V2 uses the hash's bits as they are; the %s hash needs mixing (derivation V1)",
        hash.algorithm().label());
    // Not copied up front: the build reads the hashes and copies them only to deduplicate, so the
    // memory check below comes before any allocation the size of the input.
    return build(hashes, count, false, bits, hash, derivation);
  }

  /** A growable array of hashes, so that keys are never held. */
  private static final class Hashes {
    long[] values = new long[16];
    int size;

    void add(long h) {
      if (size == values.length) {
        checkArgument(size < MAX_SLOTS, "more than %d keys", MAX_SLOTS);
        values = Arrays.copyOf(values, (int) Math.min(MAX_SLOTS, 2L * size));
      }
      values[size++] = h;
    }
  }

  /**
   * Builds from {@code h[0, count)}, which it may reorder when {@code ours}, and copies otherwise.
   */
  private static BinaryFuseFilter build(
      long[] h,
      int count,
      boolean ours,
      FingerprintBits bits,
      HashStrategy hash,
      Derivation derivation) {
    Objects.requireNonNull(bits, "bits");
    checkAccepted(hash, StructureType.BINARY_FUSE_FILTER, "a binary fuse filter");
    boolean eight = bits == FingerprintBits.BITS_8;
    boolean v2 = derivation == Derivation.V2;
    if (count == 0) {
      return new BinaryFuseFilter(
          bits,
          hash,
          v2,
          0,
          v2 ? 1 : 0,
          1,
          0,
          eight ? new byte[0] : null,
          eight ? null : new short[0]);
    }
    int n = count;
    boolean unique = false;
    for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      int segmentLength = segmentLength(n);
      long segmentCount = Math.max(1, ceilDiv(capacity(n), segmentLength) - 2);
      for (int grow = 0; grow < attempt / GROW_EVERY; grow++) {
        segmentCount += Math.max(1, segmentCount / 32);
      }
      long slots = (segmentCount + 2) * segmentLength;
      checkArgument(
          slots <= MAX_SLOTS,
          "%d distinct keys need a table of %d slots, more than the maximum of %d",
          n,
          slots,
          MAX_SLOTS);
      checkAllocatable(
          slots * (4 + 8 + 4 + bits.bits / 8) + 12L * n,
          "building a binary fuse filter of " + n + " keys");
      BinaryFuseFilter f =
          new BinaryFuseFilter(
              bits,
              hash,
              v2,
              n,
              seed(v2, attempt),
              segmentLength,
              (int) segmentCount,
              eight ? new byte[(int) slots] : null,
              eight ? null : new short[(int) slots]);
      if (f.fill(h, n)) {
        return f;
      }
      if (!unique) {
        // Equal hashes share all three slots and never peel: remove them once, on the first
        // failure.
        h = ours ? h : Arrays.copyOf(h, n);
        n = sortUnique(h, n);
        unique = true;
      }
    }
    // Not reached in practice: each attempt fails with probability well under 1/2 and the table
    // grows.
    throw new IllegalStateException(
        String.format(
            Locale.ROOT,
            "could not build a binary fuse filter of %d distinct keys in %d attempts",
            n,
            MAX_ATTEMPTS));
  }

  /**
   * The seed of attempt {@code a}: V2's is a multiplier, so odd (an even one would drop the top bit
   * of every hash); attempt 0's is 1, x = h.
   */
  static long seed(boolean v2, int attempt) {
    return v2 ? attempt * SEED_STEP | 1 : attempt * SEED_STEP;
  }

  private static int sortUnique(long[] h, int count) {
    Arrays.sort(h, 0, count);
    int n = 0;
    for (int i = 0; i < count; i++) {
      if (n == 0 || h[i] != h[n - 1]) {
        h[n++] = h[i];
      }
    }
    return n;
  }

  /** The segment length of [2] for 3-wise binary fuse filters. */
  static int segmentLength(long n) {
    int bits = (int) Math.floor(Math.log(n) / Math.log(3.33) + 2.25);
    return 1 << Math.max(1, Math.min(18, bits));
  }

  /** The slots of [2] for {@code n} keys, before rounding to whole segments. */
  static long capacity(long n) {
    double factor = Math.max(1.125, 0.875 + 0.25 * Math.log(1e6) / Math.log(Math.max(n, 2)));
    return (long) Math.ceil(n * factor);
  }

  private static long ceilDiv(long a, long b) {
    return (a + b - 1) / b;
  }

  /** One peeling attempt with this filter's seed and size; false when the keys do not peel. */
  private boolean fill(long[] h, int n) {
    // Counting sort of the mixed hashes by first segment, so that the passes below sweep the table
    // nearly sequentially instead of missing the cache on every key ([2], section 5).
    int[] next = new int[segmentCount + 1];
    for (int i = 0; i < n; i++) {
      next[p0(v2, mixed(v2, h[i], seed), segmentCount) + 1]++;
    }
    for (int s = 0; s < segmentCount; s++) {
      next[s + 1] += next[s];
    }
    long[] xs = new long[n];
    for (int i = 0; i < n; i++) {
      long x = mixed(v2, h[i], seed);
      xs[next[p0(v2, x, segmentCount)]++] = x;
    }
    int[] count = new int[slots];
    long[] xor = new long[slots];
    for (long x : xs) {
      int p0 = p0(x);
      int p1 = p1(x, p0);
      int p2 = p2(x, p0);
      count[p0]++;
      count[p1]++;
      count[p2]++;
      xor[p0] ^= x;
      xor[p1] ^= x;
      xor[p2] ^= x;
    }
    // Slots holding a single key, pending; the same array then records the peeling order.
    int[] pending = new int[slots];
    int top = 0;
    for (int p = 0; p < slots; p++) {
      if (count[p] == 1) {
        pending[top++] = p;
      }
    }
    int[] order = new int[n];
    int peeled = 0;
    while (top > 0) {
      int p = pending[--top];
      if (count[p] != 1) {
        continue; // its only key was peeled through another slot
      }
      long x = xor[p];
      order[peeled++] = p;
      count[p] = 0;
      int p0 = p0(x);
      int p1 = p1(x, p0);
      int p2 = p2(x, p0);
      // xor[p] keeps x: no other key touches p any more, and the assignment below reads it.
      if (p0 != p) {
        xor[p0] ^= x;
        if (--count[p0] == 1) {
          pending[top++] = p0;
        }
      }
      if (p1 != p) {
        xor[p1] ^= x;
        if (--count[p1] == 1) {
          pending[top++] = p1;
        }
      }
      if (p2 != p) {
        xor[p2] ^= x;
        if (--count[p2] == 1) {
          pending[top++] = p2;
        }
      }
    }
    if (peeled != n) {
      return false;
    }
    // Unwind: a key's own slot is still 0 when it is assigned, so XOR-ing all three slots is right.
    for (int i = n - 1; i >= 0; i--) {
      int p = order[i];
      long x = xor[p];
      int p0 = p0(x);
      int p1 = p1(x, p0);
      int p2 = p2(x, p0);
      int fp = fingerprint(x);
      if (t8 != null) {
        t8[p] = (byte) (fp ^ t8[p0] ^ t8[p1] ^ t8[p2]);
      } else {
        t16[p] = (short) (fp ^ t16[p0] ^ t16[p1] ^ t16[p2]);
      }
    }
    return true;
  }

  // ---- the three slots and the fingerprint of a mixed hash x

  /** x of a key's hash {@code h}. */
  private static long mixed(boolean v2, long h, long seed) {
    return v2 ? h * seed : Mix.mix64(h + seed);
  }

  /**
   * {@code floor(x * range / 2^64)}, approximately; V2's from the top 32 bits, for range < 2^32.
   */
  private static int p0(boolean v2, long x, long range) {
    return v2 ? (int) (((x >>> 32) * range) >>> 32) : (int) DoubleHashing.reduce(x, range);
  }

  private static int fingerprint(boolean v2, long x, int fpShift) {
    return v2 ? (int) (x ^ (x >>> 32)) : (int) ((x * FINGERPRINT_MIX) >>> fpShift);
  }

  private int p0(long x) {
    return p0(v2, x, startRange);
  }

  private int p1(long x, int p0) {
    return p1(x, p0, segmentLength, mask);
  }

  private int p2(long x, int p0) {
    return p2(x, p0, segmentLength, mask);
  }

  private int fingerprint(long x) {
    return fingerprint(v2, x, fpShift);
  }

  private static int p1(long x, int p0, int segmentLength, int mask) {
    return (p0 & ~mask) + segmentLength + ((int) x & mask);
  }

  private static int p2(long x, int p0, int segmentLength, int mask) {
    return (p0 & ~mask) + 2 * segmentLength + ((int) (x >>> 18) & mask);
  }

  // ---- queries

  @Override
  public boolean mightContain(byte[] key, int off, int len) {
    return containsHash(hash.hash64(key, off, len));
  }

  @Override
  public boolean mightContain(long key) {
    return containsHash(hash.hash64(key));
  }

  private boolean containsHash(long h) {
    if (keys == 0) {
      return false;
    }
    long x = mixed(v2, h, seed);
    int p0 = p0(x);
    int p1 = p1(x, p0);
    int p2 = p2(x, p0);
    // Compared with zero, not fingerprint with fingerprint: C2 then computes the boolean without a
    // branch (a compare with 0 selecting 0 or 1); as a comparison of two values it is a branch,
    // mispredicted on every other query of a mixed stream, unless C2 happens to turn it into a
    // conditional move (issue 31: about one JMH fork in three ran at twice the time).
    if (t8 != null) {
      return (byte) (fingerprint(x) ^ t8[p0] ^ t8[p1] ^ t8[p2]) == 0;
    }
    return (short) (fingerprint(x) ^ t16[p0] ^ t16[p1] ^ t16[p2]) == 0;
  }

  // ---- batches: hash a chunk, touch every key's three slots, then test (see internal.BatchPasses)

  @Override
  public int mightContainAll(long[] keys, int from, int to, boolean[] present) {
    BatchPasses.checkRange(from, to, keys.length, present.length);
    return (int)
        BatchPasses.overLongs(
            hash, keys, from, to, (h, ints, n, at) -> containsChunk(h, n, present, at));
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
            (h, ints, n, at) -> containsChunk(h, n, present, at));
  }

  /** True: a key's three slots and fingerprint come from its hash alone. */
  @Override
  public boolean hashSuffices() {
    return true;
  }

  @Override
  public int mightContainAllHashes(long[] hashes, int from, int to, boolean[] present) {
    BatchPasses.checkRange(from, to, hashes.length, present.length);
    return (int)
        BatchPasses.overHashes(
            hashes, from, to, (h, ints, n, at) -> containsChunk(h, n, present, at));
  }

  private int containsChunk(long[] h, int n, boolean[] present, int at) {
    if (keys != 0) {
      long touched = 0;
      for (int i = 0; i < n; i++) {
        long x = mixed(v2, h[i], seed);
        int p0 = p0(x);
        touched +=
            t8 != null
                ? t8[p0] + t8[p1(x, p0)] + t8[p2(x, p0)]
                : t16[p0] + t16[p1(x, p0)] + t16[p2(x, p0)];
      }
      BatchPasses.consume(touched);
    }
    int found = 0;
    for (int i = 0; i < n; i++) {
      boolean p = containsHash(h[i]);
      present[at + i] = p;
      found += p ? 1 : 0;
    }
    return found;
  }

  /** This filter: it is immutable, so a copy would be indistinguishable from it. */
  @Override
  public BinaryFuseFilter copy() {
    return this;
  }

  // ---- introspection

  /** The number of distinct keys (distinct hashes) the filter was built from. */
  public long keyCount() {
    return keys;
  }

  public FingerprintBits fingerprintBits() {
    return width;
  }

  /** The construction seed: the attempt at which the keys peeled (tests). */
  long seed() {
    return seed;
  }

  /** How keys' hashes become slots and fingerprints; recorded in the file. */
  public Derivation derivation() {
    return v2 ? Derivation.V2 : Derivation.V1;
  }

  public int segmentLength() {
    return segmentLength;
  }

  public int segmentCount() {
    return segmentCount;
  }

  /** The table's bits per distinct key, or 0 for an empty filter. */
  public double bitsPerKey() {
    return keys == 0 ? 0 : (double) bitSize() / keys;
  }

  /** {@code 2^-bits}, or 0 for an empty filter (which answers absent to every key). */
  @Override
  public double expectedFpp() {
    return keys == 0 ? 0 : width.fpp();
  }

  /** The bits of the table: slots times fingerprint bits. */
  @Override
  public long bitSize() {
    return (long) slots * width.bits;
  }

  /** The bytes of the table: one or two per slot. */
  @Override
  public long byteSize() {
    return (long) slots * (width.bits / 8);
  }

  @Override
  public HashStrategy hashStrategy() {
    return hash;
  }

  @Override
  public StructureType type() {
    return StructureType.BINARY_FUSE_FILTER;
  }

  // ---- serialization

  /**
   * Parameters: fingerprintBits (u8, 8 or 16), segmentLength (u32), segmentCount (u32), keys (u64),
   * seed (u64), then for derivation 2 only the byte 2 (derivation 1 writes the 25 bytes it always
   * wrote, so its files still read in readers older than derivation 2, and a file of derivation 2
   * is refused by them instead of answering wrongly). Payload: the (segmentCount + 2) *
   * segmentLength fingerprints (none when segmentCount is 0), one byte each or two little-endian
   * bytes each.
   */
  @Override
  public void writeTo(OutputStream out) throws IOException {
    ByteBuffer p = SketchWriter.params(v2 ? 26 : 25);
    p.put((byte) width.bits).putInt(segmentLength).putInt(segmentCount).putLong(keys).putLong(seed);
    if (v2) {
      p.put((byte) 2);
    }
    SketchWriter w = SketchWriter.begin(out, type(), hash, p.array(), byteSize());
    if (t8 != null) {
      w.writeBytes(t8, 0, t8.length);
    } else {
      w.writeShorts(t16, 0, t16.length);
    }
    w.finish();
  }

  /** Reads a filter written by {@link #writeTo}; corrupt input throws SketchFormatException. */
  public static BinaryFuseFilter readFrom(InputStream in) throws IOException {
    return read(SketchReader.open(in, StructureType.BINARY_FUSE_FILTER));
  }

  static BinaryFuseFilter read(SketchReader r) throws IOException {
    Shape s = readShape(r);
    byte[] t8 = s.width == FingerprintBits.BITS_8 ? r.readBytes(s.slots, "fingerprints") : null;
    short[] t16 = s.width == FingerprintBits.BITS_16 ? r.readShorts(s.slots, "fingerprints") : null;
    r.finish();
    return new BinaryFuseFilter(
        s.width, r.hash(), s.v2, s.keys, s.seed, s.segmentLength, s.segmentCount, t8, t16);
  }

  /** The parameters of a filter in the format, checked. */
  static final class Shape {
    final FingerprintBits width;
    final int segmentLength;
    final int segmentCount;
    final int slots;
    final long keys;
    final long seed;
    final boolean v2;

    Shape(
        FingerprintBits width,
        int segmentLength,
        int segmentCount,
        long keys,
        long seed,
        boolean v2) {
      this.width = width;
      this.v2 = v2;
      this.segmentLength = segmentLength;
      this.segmentCount = segmentCount;
      this.slots = segmentCount == 0 ? 0 : (segmentCount + 2) * segmentLength;
      this.keys = keys;
      this.seed = seed;
    }
  }

  /** The parameters, checked, and the payload length they imply (the part a mapped view reads). */
  static Shape readShape(SketchReader r) throws IOException {
    int bits = r.paramByte("fingerprintBits");
    FingerprintBits width = FingerprintBits.of(bits);
    r.check(width != null, "fingerprintBits", bits, "8 or 16");
    int length = r.paramInt("segmentLength");
    r.check(
        length >= 1 && length <= MAX_SEGMENT_LENGTH && Integer.bitCount(length) == 1,
        "segmentLength",
        length,
        "a power of two in [1, " + MAX_SEGMENT_LENGTH + "]");
    int count = r.paramInt("segmentCount");
    r.check(
        count >= 0 && (count + 2L) * length <= MAX_SLOTS,
        "segmentCount",
        count,
        "in [0, " + (MAX_SLOTS / length - 2) + "] for segments of " + length);
    int slots = count == 0 ? 0 : (count + 2) * length;
    long keys = r.paramLong("keys");
    r.check(
        count == 0 ? keys == 0 : keys >= 1 && keys <= slots,
        "keys",
        keys,
        count == 0 ? "0 in an empty filter" : "in [1, " + slots + "]");
    long seed = r.paramLong("seed");
    // Derivation 1 has no such field (it is what every file before derivation 2 holds); a
    // derivation-1 file never carries it, so that each filter has one encoding.
    boolean v2 = r.hasMoreParams();
    if (v2) {
      int derivation = r.paramByte("derivation");
      r.check(derivation == 2, "derivation", derivation, "2 (derivation 1 has no such field)");
      r.check((seed & 1) == 1, "seed", Long.toUnsignedString(seed), "odd in derivation 2");
      r.check(
          !r.hash().needsMixing(),
          "derivation",
          "2 with the " + r.hash().algorithm().label() + " hash",
          "1 for a hash that needs mixing (no probkit writes 2 with it)");
    }
    // Long arithmetic and a short[] for 16-bit fingerprints: above 2^30 slots the bytes pass 2^31.
    r.expectPayloadLength((long) slots * (bits / 8));
    return new Shape(width, length, count, keys, seed, v2);
  }

  /**
   * The query of a filter of shape {@code s} whose table is read from a mapped file ({@link
   * MappedFilter}): the slots and fingerprint of {@link #containsHash}.
   */
  static boolean containsIn(MappedBytes table, Shape s, long h) {
    if (s.keys == 0) {
      return false;
    }
    long x = mixed(s.v2, h, s.seed);
    int mask = s.segmentLength - 1;
    int p0 = p0(s.v2, x, (long) s.segmentCount * s.segmentLength);
    int p1 = p1(x, p0, s.segmentLength, mask);
    int p2 = p2(x, p0, s.segmentLength, mask);
    int fp = fingerprint(s.v2, x, 64 - s.width.bits());
    if (s.width == FingerprintBits.BITS_8) {
      return (byte) (fp ^ table.getByte(p0) ^ table.getByte(p1) ^ table.getByte(p2)) == 0;
    }
    return (short)
            (fp ^ table.getShort(2L * p0) ^ table.getShort(2L * p1) ^ table.getShort(2L * p2))
        == 0;
  }

  // ---- identity

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof BinaryFuseFilter)) {
      return false;
    }
    BinaryFuseFilter f = (BinaryFuseFilter) o;
    return width == f.width
        && v2 == f.v2
        && hash.equals(f.hash)
        && keys == f.keys
        && seed == f.seed
        && segmentLength == f.segmentLength
        && segmentCount == f.segmentCount
        && Arrays.equals(t8, f.t8)
        && Arrays.equals(t16, f.t16);
  }

  @Override
  public int hashCode() {
    return Objects.hash(width, hash, v2, keys, seed, segmentLength, segmentCount);
  }

  @Override
  public String toString() {
    return "BinaryFuseFilter{keys="
        + keys
        + ", fingerprintBits="
        + width.bits
        + ", slots="
        + slots
        + ", derivation="
        + (v2 ? 2 : 1)
        + ", hash="
        + hash
        + "}";
  }
}
