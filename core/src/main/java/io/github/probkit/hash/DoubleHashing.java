package io.github.probkit.hash;

/**
 * Maps hashes to positions in {@code [0, m)}. Positions are longs, so structures above 2^31 (and
 * 2^32) cells work.
 *
 * <p>Two schemes, chosen by the {@link HashStrategy}: the default derives probe {@code i} as {@code
 * reduce(h1 + i*h2, m)} with 64-bit wrap-around and Lemire's multiply-high reduction, which costs
 * one multiplication instead of a division; the exact scheme computes {@code (h1 + i*h2) mod m} as
 * with unbounded unsigned integers, reproducing the specification's Python to the bit.
 */
public final class DoubleHashing {
  private DoubleHashing() {}

  /**
   * The high 64 bits of the unsigned 128-bit product {@code hash * m}: a nearly uniform position in
   * {@code [0, m)} for a uniform 64-bit hash, for any {@code m} in {@code [1, 2^63)}.
   */
  public static long reduce(long hash, long m) {
    // Math.unsignedMultiplyHigh arrives in Java 18; for m >= 0 the signed product needs only the
    // correction for a negative hash.
    return Math.multiplyHigh(hash, m) + ((hash >> 63) & m);
  }

  /** {@code x mod m} with {@code x} read as unsigned, for {@code m > 0}. */
  public static long unsignedMod(long x, long m) {
    return Long.remainderUnsigned(x, m);
  }

  /** {@code (p + step) mod m} for {@code p, step} in {@code [0, m)}, without overflow for any m. */
  public static long addMod(long p, long step, long m) {
    return p >= m - step ? p - (m - step) : p + step;
  }
}
