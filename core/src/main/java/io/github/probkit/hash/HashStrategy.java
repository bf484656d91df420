package io.github.probkit.hash;

import com.dynatrace.hash4j.hashing.HashFunnel;
import com.dynatrace.hash4j.hashing.HashValue128;
import com.dynatrace.hash4j.hashing.Hasher128;
import com.dynatrace.hash4j.hashing.Hasher64;
import com.dynatrace.hash4j.hashing.Hashing;
import io.github.probkit.internal.KeyBuffer;
import java.util.Locale;
import java.util.Objects;

/**
 * A hash algorithm with its seed: part of every structure's identity. It is written into the
 * serialized form, and structures built with different strategies refuse to merge.
 *
 * <p>A key is bytes: a String is its UTF-8 bytes, a long its 8 little-endian bytes, and other
 * objects the bytes a {@link KeyEncoder} writes; so a filter built in Java from strings answers the
 * same as one built by the command line from lines.
 *
 * <p>Structures that need several positions per key (Bloom filters) use double hashing (Kirsch and
 * Mitzenmacher): a first hash {@code h1} and a second, odd hash {@code h2}, probe {@code i} being
 * derived from {@code h1 + i*h2}. For XXH3 one 64-bit hash is computed and {@code h2} is derived
 * from it, so each key is hashed once; for FNV-1a both are hashed, as the specification's
 * walkthrough does.
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class HashStrategy {
  private static final HashStrategy XXH3_DEFAULT = new HashStrategy(HashAlgorithm.XXH3_64, 0L);
  private static final HashStrategy FNV_DEFAULT =
      new HashStrategy(HashAlgorithm.FNV1A_64, Fnv1a.OFFSET_BASIS);
  private static final HashStrategy REDIS_DEFAULT =
      new HashStrategy(HashAlgorithm.REDIS_MURMUR64A, Murmur64A.REDIS_SEED);
  private static final HashStrategy XXH64_DEFAULT = new HashStrategy(HashAlgorithm.XXH64, 0L);
  private static final HashStrategy GUAVA = new HashStrategy(HashAlgorithm.GUAVA_MURMUR3_128, 0L);
  private static final HashStrategy GUAVA_32 =
      new HashStrategy(HashAlgorithm.GUAVA_MURMUR3_128_MITZ_32, 0L);
  private static final HashStrategy SPARK = new HashStrategy(HashAlgorithm.SPARK_MURMUR3_32, 0L);

  /** The seed of DataSketches' HLL sketches (its DEFAULT_UPDATE_SEED). */
  public static final int DATASKETCHES_UPDATE_SEED = 9001;

  private final HashAlgorithm algorithm;
  private final long seed;
  private final boolean fnv;
  private final boolean redis;
  private final boolean xxh64;

  /** Guava's MurmurHash3 x64 128, seed 0 (both Guava strategies), or null. */
  private final Hasher128 guava;

  private final boolean spark;

  /** DataSketches' MurmurHash3 (seed's low 32 bits) with its lgK (seed's bits 32..39), or null. */
  private final Hasher128 murmur3;

  private final Hasher128 murmur3Second;
  private final int lgK;

  /** XXH3 with seed 0, whose hash of a long is computed here (see xxh3Long). */
  private final boolean xxh3Default;

  private final long secondSeed;
  private final Hasher64 xxh3;
  private final Hasher64 xxh3Second;
  private final Hasher64 xxh64Hasher;
  private final Hasher64 xxh64Second;

  private HashStrategy(HashAlgorithm algorithm, long seed) {
    this.algorithm = algorithm;
    this.seed = seed;
    this.fnv = algorithm == HashAlgorithm.FNV1A_64;
    this.redis = algorithm == HashAlgorithm.REDIS_MURMUR64A;
    this.xxh64 = algorithm == HashAlgorithm.XXH64;
    boolean datasketches = algorithm == HashAlgorithm.DATASKETCHES_MURMUR3;
    this.spark = algorithm == HashAlgorithm.SPARK_MURMUR3_32;
    boolean guavaFamily =
        algorithm == HashAlgorithm.GUAVA_MURMUR3_128
            || algorithm == HashAlgorithm.GUAVA_MURMUR3_128_MITZ_32;
    this.guava = guavaFamily ? Hashing.murmur3_128() : null;
    this.lgK = datasketches ? checkLgK(seed) : 0;
    this.murmur3 = datasketches ? Hashing.murmur3_128((int) seed) : null;
    this.murmur3Second = datasketches ? Hashing.murmur3_128((int) secondSeedOf(seed)) : null;
    boolean xxh3Family = !fnv && !redis && !xxh64 && !datasketches && !spark && !guavaFamily;
    this.xxh3Default = xxh3Family && seed == 0;
    this.secondSeed = secondSeedOf(seed);
    this.xxh3 = xxh3Family ? Hashing.xxh3_64(seed) : null;
    this.xxh3Second = xxh3Family ? Hashing.xxh3_64(secondSeed) : null;
    this.xxh64Hasher = xxh64 ? Hashing.xxh64(seed) : null;
    this.xxh64Second = xxh64 ? Hashing.xxh64(secondSeed) : null;
  }

  /** XXH3-64 with seed 0: the default of every structure. */
  public static HashStrategy xxh3() {
    return XXH3_DEFAULT;
  }

  public static HashStrategy xxh3(long seed) {
    return seed == 0 ? XXH3_DEFAULT : new HashStrategy(HashAlgorithm.XXH3_64, seed);
  }

  /**
   * The specification's FNV-1a scheme: {@code h1 = fnv1a64(key, 0xCBF29CE484222325)}, {@code h2 =
   * fnv1a64(key, 0x84222325CBF29CE4) | 1}, positions {@code (h1 + i*h2) mod m} exactly.
   */
  public static HashStrategy fnv1a() {
    return FNV_DEFAULT;
  }

  /**
   * FNV-1a with {@code seed} as the first hash's offset basis and its halves swapped as the
   * second's.
   */
  public static HashStrategy fnv1a(long seed) {
    return seed == Fnv1a.OFFSET_BASIS
        ? FNV_DEFAULT
        : new HashStrategy(HashAlgorithm.FNV1A_64, seed);
  }

  /**
   * Redis's HyperLogLog hash ({@link HashAlgorithm#REDIS_MURMUR64A}, seed 0xadc83b19): a {@code
   * HyperLogLog} of precision 14 built with it has the registers {@code PFADD} gives the same keys.
   */
  public static HashStrategy redis() {
    return REDIS_DEFAULT;
  }

  /**
   * XXH64 with seed 0: Parquet's Bloom filter hash (parquet-format's BloomFilter.md), the hash of
   * every {@code SplitBlockBloomFilter}.
   */
  public static HashStrategy xxh64() {
    return XXH64_DEFAULT;
  }

  /**
   * Apache DataSketches' HLL hashing for sketches of {@code lgK} ({@link
   * HashAlgorithm#DATASKETCHES_MURMUR3}, MurmurHash3 x64 128 with DataSketches' seed 9001): a
   * {@code HyperLogLog} of precision {@code lgK} built with it has the registers a DataSketches
   * {@code HllSketch} of that lgK gives the same items (strings as UTF-8, longs, byte arrays).
   *
   * @throws IllegalArgumentException unless {@code lgK} is in [4, 21], DataSketches' range
   */
  public static HashStrategy datasketches(int lgK) {
    return new HashStrategy(
        HashAlgorithm.DATASKETCHES_MURMUR3, (long) lgK << 32 | DATASKETCHES_UPDATE_SEED);
  }

  /**
   * Guava's {@code BloomFilter} hashing, strategy {@code MURMUR128_MITZ_64} ({@link
   * HashAlgorithm#GUAVA_MURMUR3_128}): a {@code BloomFilter} of 64n bits with it answers as the
   * Guava filter of the same bits.
   */
  public static HashStrategy guava() {
    return GUAVA;
  }

  /**
   * Guava's older strategy {@code MURMUR128_MITZ_32} ({@link
   * HashAlgorithm#GUAVA_MURMUR3_128_MITZ_32}).
   */
  public static HashStrategy guavaMitz32() {
    return GUAVA_32;
  }

  /**
   * Spark's sketch {@code BloomFilter} hashing ({@link HashAlgorithm#SPARK_MURMUR3_32}): a {@code
   * BloomFilter} of 64n bits with it answers as the Spark filter of the same bits.
   */
  public static HashStrategy spark() {
    return SPARK;
  }

  /** Guava's and Spark's hashes have no seed to choose: theirs is fixed. */
  private static HashStrategy seedless(HashStrategy h, long seed) {
    if (seed != 0) {
      throw new IllegalArgumentException(
          "the " + h.algorithm.label() + " hash has seed 0 only, was 0x" + Long.toHexString(seed));
    }
    return h;
  }

  private static int checkLgK(long seed) {
    long lgK = seed >>> 32;
    if (lgK < 4 || lgK > 21) {
      throw new IllegalArgumentException(
          "a datasketches hash's lgK (seed bits 32..39) must be in [4, 21], was " + lgK);
    }
    return (int) lgK;
  }

  private static long secondSeedOf(long seed) {
    return Long.rotateLeft(seed, 32);
  }

  /**
   * The strategy {@code algorithm} with {@code seed} names.
   *
   * @throws IllegalArgumentException for a DataSketches seed whose lgK is not in [4, 21]
   */
  public static HashStrategy of(HashAlgorithm algorithm, long seed) {
    Objects.requireNonNull(algorithm, "algorithm");
    // A switch expression, so that an algorithm added without its case here does not compile.
    return switch (algorithm) {
      case XXH3_64 -> xxh3(seed);
      case XXH64 -> seed == 0 ? XXH64_DEFAULT : new HashStrategy(algorithm, seed);
      case FNV1A_64 -> fnv1a(seed);
      case REDIS_MURMUR64A ->
          seed == Murmur64A.REDIS_SEED ? REDIS_DEFAULT : new HashStrategy(algorithm, seed);
      case DATASKETCHES_MURMUR3 -> new HashStrategy(algorithm, seed);
      case GUAVA_MURMUR3_128 -> seedless(GUAVA, seed);
      case GUAVA_MURMUR3_128_MITZ_32 -> seedless(GUAVA_32, seed);
      case SPARK_MURMUR3_32 -> seedless(SPARK, seed);
    };
  }

  public HashAlgorithm algorithm() {
    return algorithm;
  }

  public long seed() {
    return seed;
  }

  /**
   * Whether positions are {@code (h1 + i*h2) mod m} computed exactly (FNV-1a, the specification's
   * scheme) rather than reduced by multiply-high (the fast default). This is the probe scheme of
   * the Bloom-type filters; whether the hash itself is good enough to use as it is, is {@link
   * #needsMixing()}.
   */
  public boolean exactModulo() {
    return fnv || foreignProbes();
  }

  /**
   * Whether a {@code BloomFilter} of this hash probes the positions Guava's or Spark's filter
   * probes (docs/FORMAT.md): Guava's and Spark's hashes. Like FNV-1a, they take a second pass over
   * the key for the second hash, so {@link #exactModulo()} and {@link #needsMixing()} are true for
   * them too (other structures then take keys one at a time, or mix, or refuse them).
   */
  public boolean foreignProbes() {
    return algorithm.foreignProbes();
  }

  /**
   * Whether this hash is too regular to be used as it is where a structure reads bit fields or the
   * top bits of a key's hash (FNV-1a: keys that differ in their last bytes, such as {@code user:1}
   * and {@code user:2}, get hashes whose high bits are close). Structures that do either pass such
   * a hash through a full-avalanche finalizer first (blocked Bloom and binary fuse filters) or
   * refuse the strategy when created (counting Bloom and cuckoo filters, HyperLogLog, UltraLogLog),
   * so that none silently loses its accuracy. XXH3 needs no mixing.
   */
  public boolean needsMixing() {
    return fnv || foreignProbes();
  }

  /** The 64-bit hash of {@code len} bytes of {@code key} from {@code off}. */
  public long hash64(byte[] key, int off, int len) {
    if (xxh3 != null) {
      return len >= Xxh3Medium.MIN && len <= Xxh3Medium.MAX
          ? Xxh3Medium.hash64(key, off, len, seed)
          : xxh3.hashBytesToLong(key, off, len);
    }
    if (fnv) {
      return Fnv1a.hash64(key, off, len, seed);
    }
    if (xxh64) {
      return xxh64Hasher.hashBytesToLong(key, off, len);
    }
    if (murmur3 != null) {
      return datasketchesOrder(murmur3.hashBytesTo128Bits(key, off, len));
    }
    if (guava != null) {
      return guava.hashBytesTo128Bits(key, off, len).getLeastSignificantBits();
    }
    if (spark) {
      return SparkMurmur3.hashBytes(key, off, len, 0);
    }
    return redisOrder(Murmur64A.hash64(key, off, len, seed));
  }

  /**
   * DataSketches takes a key's slot from the low lgK bits of the first half of its MurmurHash3
   * (hash4j's least significant bits) and its value from the leading zeros of the second half;
   * probkit from the top bits and the leading zeros below them. The slot bits on top and the second
   * half shifted below them make the two agree at precision lgK.
   */
  private long datasketchesOrder(HashValue128 h) {
    long slot = h.getLeastSignificantBits() & ((1L << lgK) - 1);
    return slot << (64 - lgK) | h.getMostSignificantBits() >>> lgK;
  }

  /** A long as its 8 little-endian bytes, as DataSketches' {@code update(long)} hashes it. */
  private static final HashFunnel<Long> LONG_BYTES = (v, sink) -> sink.putLong(v);

  /**
   * Redis takes a key's register from the low 14 bits of its hash and its value from the trailing
   * zeros of the other 50; probkit from the top bits and the leading zeros below them. Moving the
   * low 14 bits to the top and reversing the other 50 below them makes the two agree at precision
   * 14 (see HashAlgorithm.REDIS_MURMUR64A).
   */
  private static long redisOrder(long h) {
    return (h & 0x3FFF) << 50 | Long.reverse(h >>> 14) >>> 14;
  }

  public long hash64(byte[] key) {
    return hash64(key, 0, key.length);
  }

  /** The hash of the UTF-8 bytes of {@code key}. */
  public long hash64(CharSequence key) {
    if (xxh3 != null && key instanceof String && key.length() <= AsciiXxh3.MAX_CHARS) {
      return AsciiXxh3.hash64((String) key, seed, xxh3);
    }
    return hashBuffered(KeyBuffer.utf8(key));
  }

  /** The hash of the 8 little-endian bytes of {@code key}. */
  public long hash64(long key) {
    if (xxh3Default) {
      return xxh3Long(key);
    }
    if (fnv) {
      return Fnv1a.hash64(key, seed);
    }
    if (xxh64) {
      return Xxh64.hashLong(key, seed);
    }
    if (murmur3 != null) {
      return datasketchesOrder(murmur3.hashTo128Bits(key, LONG_BYTES));
    }
    if (guava != null) {
      return guava.hashTo128Bits(key, LONG_BYTES).getLeastSignificantBits();
    }
    if (spark) {
      return SparkMurmur3.hashLong(key, 0);
    }
    return redis ? redisOrder(Murmur64A.hash64(key, seed)) : xxh3.hashLongToLong(key);
  }

  /**
   * XXH3-64 with seed 0 of the 8 little-endian bytes of {@code v} (its 4-to-8-byte path: the two
   * 32-bit halves swapped, XORed with the default secret's bytes 8-23 folded, then rrmxmx), the
   * value hash4j's hashLongToLong gives. Written out, with the secret as a constant, so a query
   * reads no hasher field and makes no interface call, which a binary fuse query of a long key
   * feels.
   */
  private static long xxh3Long(long v) {
    return AsciiXxh3.rrmxmx(Long.rotateLeft(v, 32) ^ 0xC73AB174C5ECD5A2L, 8);
  }

  /** The hash of the bytes {@code encoder} writes for {@code key}. */
  public <T> long hash64(T key, KeyEncoder<? super T> encoder) {
    return hashBuffered(KeyBuffer.encode(key, encoder));
  }

  private long hashBuffered(KeyBuffer b) {
    try {
      return hash64(b.bytes(), 0, b.length());
    } finally {
      b.release();
    }
  }

  /**
   * The second, odd hash for double hashing, given the first. For XXH3 it is derived from {@code
   * first} alone; for FNV-1a it is {@link #secondSeedHash64} made odd, a second pass over the key.
   */
  public long secondHash(byte[] key, int off, int len, long first) {
    if (foreignProbes()) {
      return algorithm == HashAlgorithm.GUAVA_MURMUR3_128_MITZ_32
          ? first >> 32
          : secondSeedHash64(key, off, len);
    }
    return fnv ? secondSeedHash64(key, off, len) | 1 : derived(first);
  }

  public long secondHash(long key, long first) {
    if (foreignProbes()) {
      return algorithm == HashAlgorithm.GUAVA_MURMUR3_128_MITZ_32
          ? first >> 32
          : secondSeedHash64(key);
    }
    return fnv ? secondSeedHash64(key) | 1 : derived(first);
  }

  /**
   * The key hashed with the strategy's second seed, {@code rotl(seed, 32)}: for FNV-1a with the
   * default seed, {@code fnv1a64(key, 0x84222325CBF29CE4)}, the specification's second hash (its
   * count-min row 1 and, made odd, its Bloom step). For Guava's and Spark's hashes, their filters'
   * second hash as they take it (not made odd): the high half of Guava's MurmurHash3, Spark's
   * Murmur3 seeded with the first hash.
   */
  public long secondSeedHash64(byte[] key, int off, int len) {
    if (fnv) {
      return Fnv1a.hash64(key, off, len, secondSeed);
    }
    if (xxh64) {
      return xxh64Second.hashBytesToLong(key, off, len);
    }
    if (murmur3Second != null) {
      return murmur3Second.hashBytesToLong(key, off, len);
    }
    if (guava != null) {
      return guava.hashBytesTo128Bits(key, off, len).getMostSignificantBits();
    }
    if (spark) {
      return SparkMurmur3.hashBytes(key, off, len, SparkMurmur3.hashBytes(key, off, len, 0));
    }
    return redis
        ? Murmur64A.hash64(key, off, len, secondSeed)
        : xxh3Second.hashBytesToLong(key, off, len);
  }

  /** {@link #secondSeedHash64(byte[], int, int)} of the 8 little-endian bytes of {@code key}. */
  public long secondSeedHash64(long key) {
    if (fnv) {
      return Fnv1a.hash64(key, secondSeed);
    }
    if (xxh64) {
      return Xxh64.hashLong(key, secondSeed);
    }
    if (murmur3Second != null) {
      return murmur3Second.hashToLong(key, LONG_BYTES);
    }
    if (guava != null) {
      return guava.hashTo128Bits(key, LONG_BYTES).getMostSignificantBits();
    }
    if (spark) {
      return SparkMurmur3.hashLong(key, SparkMurmur3.hashLong(key, 0));
    }
    return redis ? Murmur64A.hash64(key, secondSeed) : xxh3Second.hashLongToLong(key);
  }

  private static long derived(long first) {
    // The halves swapped: independent enough of h1's high bits, which choose the first position.
    return Long.rotateLeft(first, 32) | 1;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof HashStrategy
        && ((HashStrategy) o).algorithm == algorithm
        && ((HashStrategy) o).seed == seed;
  }

  @Override
  public int hashCode() {
    return algorithm.hashCode() * 31 + Long.hashCode(seed);
  }

  /** For example {@code xxh3(seed=0x0)}. */
  @Override
  public String toString() {
    return String.format(Locale.ROOT, "%s(seed=0x%x)", algorithm.label(), seed);
  }
}
