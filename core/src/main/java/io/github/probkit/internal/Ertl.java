package io.github.probkit.internal;

/**
 * The functions sigma and tau of Ertl's improved raw HyperLogLog estimator (Ertl, New cardinality
 * estimation algorithms for HyperLogLog sketches, arXiv:1702.01284, 2017), which replace the
 * contributions of empty and of saturated registers. Shared by probkit's estimator and by the one
 * Redis's PFCOUNT computes, and the estimate itself, shared by probkit's sketches and its reader of
 * DataSketches' HLL sketches.
 */
public final class Ertl {
  private Ertl() {}

  private static final double ALPHA_INF = 0.5 / Math.log(2);
  private static final double HARMONIC_VARIANCE = 3 * Math.log(2) - 1;

  /**
   * Ertl's improved raw estimate of m registers of values in [0, q + 1], {@code counts[k]} of them
   * holding k, divided by 1 + (3 ln 2 - 1)/m: probkit's HyperLogLog estimate (LogLogMath explains
   * the correction).
   */
  public static double improvedEstimate(double m, int q, int[] counts) {
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
  public static double sigma(double x) {
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
  public static double tau(double x) {
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
}
