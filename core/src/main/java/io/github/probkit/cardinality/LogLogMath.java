package io.github.probkit.cardinality;

import io.github.probkit.internal.Compatibility;
import io.github.probkit.internal.Ertl;

/**
 * What HyperLogLog and UltraLogLog share: how a hash becomes a register index and an update value,
 * how an update value moves when the precision is lowered, the register estimator, and the merge
 * checks. Not public API.
 *
 * <p>Conventions, for precision p (m = 2^p registers) and q = 64 - p: the index is the top p bits
 * of the hash; the update value (the "rank") is one more than the number of leading zeros of the
 * other q bits, in [1, q + 1], where q + 1 means all of them were zero. Value k has probability
 * 2^-k for k <= q and 2^-q for k = q + 1.
 */
final class LogLogMath {
  private LogLogMath() {}

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
   * The probability that a hash not yet seen changes a register holding update value {@code r} (0
   * for an empty register), times 1: the chance that its value exceeds r, which is 1 for an empty
   * register, 2^-r for r <= q and 0 once the register holds the largest value q + 1.
   */
  static double exceedProbability(int r, int q) {
    return r > q ? 0 : pow2neg(r);
  }

  // ---- Ertl's improved raw estimator for HyperLogLog registers

  /**
   * Ertl's improved raw estimator [Ertl 2017, section 3]: the harmonic-mean estimator with the
   * contributions of empty and of saturated registers replaced by the functions sigma and tau,
   * which removes the need for bias tables and for switching to linear counting at small
   * cardinalities. The result is divided by 1 + (3 ln 2 - 1)/m: an estimate proportional to the
   * inverse of a sum whose relative variance is v is too high by a factor 1 + v to first order, the
   * bias that Flajolet et al.'s alpha_m corrects in the original estimator.
   *
   * @param m the number of registers
   * @param q 64 - p: register values lie in [0, q + 1]
   * @param counts counts[k] registers hold value k, for k in [0, q + 1]
   */
  static double improvedEstimate(double m, int q, int[] counts) {
    return Ertl.improvedEstimate(m, q, counts);
  }

  // ---- maximum likelihood under the Poisson model

  /**
   * The x &gt; 0 that maximizes {@code -a x + sum_k b[from + k] ln(1 - exp(-x 2^-k))} over k in [0,
   * n]: the likelihood of a sketch under the Poisson model, where {@code a} sums the probabilities
   * of the update values known not to have been seen and {@code b[k]} counts the values seen whose
   * probability is proportional to 2^-k (from {@code b[from]} on). 0 when nothing was seen,
   * infinity when nothing is known unseen ({@code a = 0}).
   *
   * <p>Method (Ertl 2017, section 4 and Algorithm 8): setting the derivative to zero gives {@code
   * G(x) = a x + sum_k b[k] h(x 2^-k) = sum_k b[k]} with {@code h(y) = 1 - y / (e^y - 1)},
   * increasing and concave, so secant steps from x = 0 and a lower bound of the root stay below it
   * and climb to it. The h values at the halving arguments cost no exponentials: h at the smallest
   * argument comes from its Taylor series, and each next one from {@code h(2y) = (y/2 + h (1 - h))
   * / (y/2 + 1 - h)} with {@code h = h(y)}. Iterations stop once a step moves x by at most {@code
   * relativeError * x}.
   */
  static double maximumLikelihood(double a, long[] b, int from, int n, double relativeError) {
    int kMax = n;
    while (kMax >= 0 && b[from + kMax] == 0) {
      kMax--;
    }
    if (kMax < 0) {
      return 0;
    }
    if (a == 0) {
      return Double.POSITIVE_INFINITY;
    }
    int kMin = 0;
    while (b[from + kMin] == 0) {
      kMin++;
    }
    double seen = 0;
    double weighted = 0;
    for (int k = kMin; k <= kMax; k++) {
      seen += b[from + k];
      weighted += Math.scalb((double) b[from + k], -k);
    }
    // Jensen's inequality on the concave h bounds the root from below by ln(1 + w/a) s/w, and
    // ln(1 + y) >= 2y / (2 + y) by s / (w/2 + a); the first is the closer bound, the second cheaper
    // and as close when w/a is small.
    double x =
        weighted <= 1.5 * a
            ? seen / (0.5 * weighted + a)
            : Math.log1p(weighted / a) * (seen / weighted);
    double previousX = 0;
    double previousG = 0;
    while (true) {
      double g = likelihoodG(x, a, b, from, kMin, kMax);
      if (!(g > previousG && g <= seen)) {
        return x; // at the root to the precision of doubles
      }
      double step = (x - previousX) * (seen - g) / (g - previousG);
      previousX = x;
      previousG = g;
      x += step;
      if (step <= relativeError * x) {
        return x;
      }
    }
  }

  /**
   * {@code G(x) = a x + sum_{k in [kMin, kMax]} b[from + k] h(x 2^-k)}, see {@link
   * #maximumLikelihood}.
   */
  private static double likelihoodG(double x, double a, long[] b, int from, int kMin, int kMax) {
    // Start at an argument below 2^-5, where the series to y^6 is exact to double precision.
    int top = Math.max(kMax, Math.getExponent(x) + 6);
    double y = Math.scalb(x, -top);
    double y2 = y * y;
    // h(y) = y/2 - y^2/12 + y^4/720 - y^6/30240 + ...
    double h = y * 0.5 - y2 * (1.0 / 12 - y2 * (1.0 / 720 - y2 * (1.0 / 30240)));
    for (int k = top; k > kMax; k--) {
      h = doubled(h, y);
      y += y;
    }
    double g = b[from + kMax] * h;
    for (int k = kMax - 1; k >= kMin; k--) {
      h = doubled(h, y);
      y += y;
      g += b[from + k] * h;
    }
    return g + a * x;
  }

  /** h(2y) from h = h(y). */
  private static double doubled(double h, double y) {
    double half = 0.5 * y;
    double rest = 1 - h;
    return (half + h * rest) / (half + rest);
  }

  /** The unsigned value of {@code v} as a double, correctly rounded. */
  static double unsignedToDouble(long v) {
    // Halving with the lost bit kept sticky rounds as the full value would.
    return v >= 0 ? v : ((v >>> 1) | (v & 1)) * 2.0;
  }

  /**
   * Whether {@code other} merges into {@code self}: the same type and hashing, and no lower
   * precision.
   */
  static Compatibility compatibility(CardinalitySketch self, CardinalitySketch other) {
    CardinalitySketch o = other != null && other.getClass() == self.getClass() ? other : self;
    return Compatibility.ofSelfAllowed("merge", self, other, self.getClass())
        .require(
            self.hashStrategy().equals(o.hashStrategy()),
            "sketches with different hashing: %s and %s",
            self.hashStrategy(),
            o.hashStrategy())
        .require(
            o.precision() >= self.precision(),
            "a sketch of precision %d into one of precision %d: downsize this one to %d first",
            o.precision(),
            self.precision(),
            o.precision());
  }
}
