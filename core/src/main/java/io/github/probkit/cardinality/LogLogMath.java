package io.github.probkit.cardinality;

import io.github.probkit.internal.Compatibility;

/**
 * What HyperLogLog and UltraLogLog share: how a hash becomes a register index and an update value,
 * how an update value moves when the precision is lowered, the register estimator, and the merge
 * checks. Not public API.
 *
 * <p>Conventions, for precision p (m = 2^p registers) and q = 64 - p: the index is the top p bits of
 * the hash; the update value (the "rank") is one more than the number of leading zeros of the other
 * q bits, in [1, q + 1], where q + 1 means all of them were zero. Value k has probability 2^-k for
 * k <= q and 2^-q for k = q + 1.
 */
final class LogLogMath {
  private LogLogMath() {}

  /** 1 / (2 ln 2): the asymptotic constant of the harmonic-mean estimator. */
  private static final double ALPHA_INF = 0.5 / Math.log(2);

  /** The relative variance of the sum of 2^-register, times m: 3 ln 2 - 1. */
  static final double HARMONIC_VARIANCE = 3 * Math.log(2) - 1;

  /** The register of {@code hash} at precision {@code p}. */
  static int index(long hash, int p) {
    return (int) (hash >>> (64 - p));
  }

  /** The update value of {@code hash} at precision {@code p}, in [1, 65 - p]. */
  static int rank(long hash, int p) {
    // The sentinel bit just below the index bits caps the count of zeros at q = 64 - p.
    return Long.numberOfLeadingZeros((hash << p) | (1L << (p - 1))) + 1;
  }

  /**
   * The update value at precision {@code p - d} of a hash whose value at precision {@code p} is
   * {@code rank} in register {@code index}. The d low bits of the index become the leading bits of
   * the remainder: when any is set they alone decide the value; when all are zero the value grows
   * by d. A sketch folded this way has exactly the registers of one built at the lower precision.
   */
  static int foldRank(int index, int rank, int d) {
    int low = index & ((1 << d) - 1);
    return low != 0 ? Integer.numberOfLeadingZeros(low) - (32 - d) + 1 : rank + d;
  }

  /** 2^-k for k in [0, 1022], exactly. */
  static double pow2neg(int k) {
    return Double.longBitsToDouble((1023L - k) << 52);
  }

  /**
   * The probability that a hash not yet seen changes a register holding update value {@code r}
   * (0 for an empty register), times 1: the chance that its value exceeds r, which is 1 for an
   * empty register, 2^-r for r <= q and 0 once the register holds the largest value q + 1.
   */
  static double exceedProbability(int r, int q) {
    return r > q ? 0 : pow2neg(r);
  }

  // ---- Ertl's improved raw estimator for HyperLogLog registers

  /**
   * Ertl's improved raw estimator [Ertl 2017, section 3]: the harmonic-mean estimator with the
   * contributions of empty and of saturated registers replaced by the functions sigma and tau, which
   * removes the need for bias tables and for switching to linear counting at small cardinalities.
   * The result is divided by 1 + (3 ln 2 - 1)/m: an estimate proportional to the inverse of a sum
   * whose relative variance is v is too high by a factor 1 + v to first order, the bias that
   * Flajolet et al.'s alpha_m corrects in the original estimator.
   *
   * @param m the number of registers
   * @param q 64 - p: register values lie in [0, q + 1]
   * @param counts counts[k] registers hold value k, for k in [0, q + 1]
   */
  static double improvedEstimate(double m, int q, long[] counts) {
    if (counts[0] == m) {
      return 0;
    }
    double z = m * tau(1 - counts[q + 1] / m);
    for (int k = q; k >= 1; k--) {
      z = 0.5 * (z + counts[k]);
    }
    z += m * sigma(counts[0] / m);
    return ALPHA_INF * m * m / z / (1 + HARMONIC_VARIANCE / m);
  }

  /** sigma(x) = x + sum_{k >= 1} x^(2^k) 2^(k-1), summed until the terms no longer matter. */
  static double sigma(double x) {
    if (x == 1) {
      return Double.POSITIVE_INFINITY;
    }
    double y = 1;
    double z = x;
    double before;
    do {
      x *= x;
      before = z;
      z += x * y;
      y += y;
    } while (z != before);
    return z;
  }

  /** tau(x) = (1 - x - sum_{k >= 1} (1 - x^(2^-k))^2 2^-k) / 3, summed likewise. */
  static double tau(double x) {
    if (x == 0 || x == 1) {
      return 0;
    }
    double y = 1;
    double z = 1 - x;
    double before;
    do {
      x = Math.sqrt(x);
      before = z;
      y *= 0.5;
      double d = 1 - x;
      z -= d * d * y;
    } while (z != before);
    return z / 3;
  }

  /** Whether {@code other} merges into {@code self}: the same type and hashing, and no lower precision. */
  static Compatibility compatibility(CardinalitySketch self, CardinalitySketch other) {
    CardinalitySketch o = other != null && other.getClass() == self.getClass() ? other : self;
    return Compatibility.ofSelfAllowed("merge", self, other, self.getClass())
        .require(self.hashStrategy().equals(o.hashStrategy()),
            "sketches with different hashing: %s and %s", self.hashStrategy(), o.hashStrategy())
        .require(o.precision() >= self.precision(),
            "a sketch of precision %d into one of precision %d: downsize this one to %d first",
            o.precision(), self.precision(), o.precision());
  }
}
