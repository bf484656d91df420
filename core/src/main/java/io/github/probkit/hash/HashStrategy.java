package io.github.probkit.hash;

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
 * <p>Structures that need several positions per key (Bloom filters) use double hashing
 * (Kirsch and Mitzenmacher): a first hash {@code h1} and a second, odd hash {@code h2}, probe
 * {@code i} being derived from {@code h1 + i*h2}. For XXH3 one 64-bit hash is computed and
 * {@code h2} is derived from it, so each key is hashed once; for FNV-1a both are hashed, as the
 * specification's walkthrough does.
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class HashStrategy {
  private static final HashStrategy XXH3_DEFAULT = new HashStrategy(HashAlgorithm.XXH3_64, 0L);
  private static final HashStrategy FNV_DEFAULT =
      new HashStrategy(HashAlgorithm.FNV1A_64, Fnv1a.OFFSET_BASIS);

  private final HashAlgorithm algorithm;
  private final long seed;
  private final boolean fnv;
  private final long fnvSecondSeed;
  private final Hasher64 xxh3;

  private HashStrategy(HashAlgorithm algorithm, long seed) {
    this.algorithm = algorithm;
    this.seed = seed;
    this.fnv = algorithm == HashAlgorithm.FNV1A_64;
    this.fnvSecondSeed = Long.rotateLeft(seed, 32);
    this.xxh3 = fnv ? null : Hashing.xxh3_64(seed);
  }

  /** XXH3-64 with seed 0: the default of every structure. */
  public static HashStrategy xxh3() {
    return XXH3_DEFAULT;
  }

  public static HashStrategy xxh3(long seed) {
    return seed == 0 ? XXH3_DEFAULT : new HashStrategy(HashAlgorithm.XXH3_64, seed);
  }

  /**
   * The specification's FNV-1a scheme: {@code h1 = fnv1a64(key, 0xCBF29CE484222325)},
   * {@code h2 = fnv1a64(key, 0x84222325CBF29CE4) | 1}, positions {@code (h1 + i*h2) mod m} exactly.
   */
  public static HashStrategy fnv1a() {
    return FNV_DEFAULT;
  }

  /** FNV-1a with {@code seed} as the first hash's offset basis and its halves swapped as the second's. */
  public static HashStrategy fnv1a(long seed) {
    return seed == Fnv1a.OFFSET_BASIS ? FNV_DEFAULT : new HashStrategy(HashAlgorithm.FNV1A_64, seed);
  }

  public static HashStrategy of(HashAlgorithm algorithm, long seed) {
    Objects.requireNonNull(algorithm, "algorithm");
    return algorithm == HashAlgorithm.FNV1A_64 ? fnv1a(seed) : xxh3(seed);
  }

  public HashAlgorithm algorithm() {
    return algorithm;
  }

  public long seed() {
    return seed;
  }

  /**
   * Whether positions are {@code (h1 + i*h2) mod m} computed exactly (FNV-1a, the specification's
   * scheme) rather than reduced by multiply-high (the fast default).
   */
  public boolean exactModulo() {
    return fnv;
  }

  /** The 64-bit hash of {@code len} bytes of {@code key} from {@code off}. */
  public long hash64(byte[] key, int off, int len) {
    return fnv ? Fnv1a.hash64(key, off, len, seed) : xxh3.hashBytesToLong(key, off, len);
  }

  public long hash64(byte[] key) {
    return hash64(key, 0, key.length);
  }

  /** The hash of the UTF-8 bytes of {@code key}. */
  public long hash64(CharSequence key) {
    KeyBuffer b = KeyBuffer.utf8(key);
    return hash64(b.bytes(), 0, b.length());
  }

  /** The hash of the 8 little-endian bytes of {@code key}. */
  public long hash64(long key) {
    return fnv ? Fnv1a.hash64(key, seed) : xxh3.hashLongToLong(key);
  }

  public <T> long hash64(T key, KeyEncoder<T> encoder) {
    KeyBuffer b = KeyBuffer.encode(key, encoder);
    return hash64(b.bytes(), 0, b.length());
  }

  /**
   * The second, odd hash for double hashing, given the first. For XXH3 it is derived from
   * {@code first} alone; for FNV-1a it is a second pass over the key.
   */
  public long secondHash(byte[] key, int off, int len, long first) {
    return fnv ? Fnv1a.hash64(key, off, len, fnvSecondSeed) | 1 : derived(first);
  }

  public long secondHash(long key, long first) {
    return fnv ? Fnv1a.hash64(key, fnvSecondSeed) | 1 : derived(first);
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
