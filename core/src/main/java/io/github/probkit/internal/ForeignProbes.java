package io.github.probkit.internal;

import io.github.probkit.hash.HashAlgorithm;

/**
 * The probe positions of Guava's and Spark's Bloom filters, for a {@code BloomFilter} whose hash
 * has {@link io.github.probkit.hash.HashStrategy#foreignProbes() foreign probes}, written as a
 * state machine as {@link Probes} is ({@code h1}, {@code h2}: the strategy's hash64 and
 * secondHash):
 *
 * <pre>
 *   long s = ForeignProbes.start(a, h1, h2);
 *   for (int i = 0; i &lt; k; i++, s = ForeignProbes.next(a, s, h2)) use(ForeignProbes.position(a, s, m));
 * </pre>
 *
 * Guava's MURMUR128_MITZ_64: bit {@code ((h1 + i*h2) & Long.MAX_VALUE) mod m}, i in [0, k), 64-bit
 * wrap-around. Spark's and Guava's MURMUR128_MITZ_32: with h1, h2 as ints, bit {@code c mod m} for
 * {@code c = h1 + i*h2} (32-bit), complemented when negative, i in [1, k]. Not public API.
 */
public final class ForeignProbes {
  private ForeignProbes() {}

  /** The state of the first probe. */
  public static long start(HashAlgorithm a, long h1, long h2) {
    return a == HashAlgorithm.GUAVA_MURMUR3_128 ? h1 : (int) h1 + (int) h2;
  }

  /** The state of the next probe. */
  public static long next(HashAlgorithm a, long s, long h2) {
    return a == HashAlgorithm.GUAVA_MURMUR3_128 ? s + h2 : (int) s + (int) h2;
  }

  /** The bit in {@code [0, m)} that the probe of state {@code s} tests. */
  public static long position(HashAlgorithm a, long s, long m) {
    if (a == HashAlgorithm.GUAVA_MURMUR3_128) {
      return (s & Long.MAX_VALUE) % m;
    }
    int c = (int) s;
    return (c < 0 ? ~c : c) % m;
  }
}
