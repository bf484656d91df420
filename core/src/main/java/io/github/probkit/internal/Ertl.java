package io.github.probkit.internal;

/**
 * The functions sigma and tau of Ertl's improved raw HyperLogLog estimator (Ertl, New cardinality
 * estimation algorithms for HyperLogLog sketches, arXiv:1702.01284, 2017), which replace the
 * contributions of empty and of saturated registers. Shared by probkit's estimator and by the one
 * Redis's PFCOUNT computes.
 */
public final class Ertl {
  private Ertl() {}

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
