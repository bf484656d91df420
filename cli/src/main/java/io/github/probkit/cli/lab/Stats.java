package io.github.probkit.cli.lab;

import org.apache.commons.math3.distribution.BinomialDistribution;
import org.apache.commons.math3.distribution.NormalDistribution;

/**
 * The tolerances of the lab's pass/FAIL lines, derived from the sampling distribution of what is
 * measured. Every interval is two-sided at {@link #CONFIDENCE}: with about a hundred checks in a
 * full run, the chance that a correct structure FAILs somewhere by bad luck is about 1 %. The seeds
 * are fixed, so a run's verdicts are reproducible.
 */
final class Stats {
  /** Two-sided confidence of every acceptance interval. */
  static final double CONFIDENCE = 0.9999;

  /** The standard-normal quantile of {@link #CONFIDENCE}, two-sided: 3.891. */
  static final double Z =
      new NormalDistribution(null, 0, 1).inverseCumulativeProbability(1 - (1 - CONFIDENCE) / 2);

  /** How the tolerance of a binomial count is described in reports. */
  static final String BINOMIAL = pct(CONFIDENCE) + " binomial interval";

  private Stats() {}

  /**
   * A confidence as a percentage without trailing zeros: 0.9999 -> "99.99 %", 0.99995 -> "99.995
   * %".
   */
  static String pct(double c) {
    return String.format(java.util.Locale.ROOT, "%.4f", 100 * c).replaceAll("\\.?0+$", "") + " %";
  }

  /**
   * The central {@link #CONFIDENCE} interval of a Binomial(trials, p) count. Exact quantiles up to
   * 2^31 trials, the normal approximation beyond (where it is excellent).
   */
  static double[] binomial(long trials, double p) {
    double tail = (1 - CONFIDENCE) / 2;
    if (trials <= Integer.MAX_VALUE) {
      BinomialDistribution d = new BinomialDistribution(null, (int) trials, p);
      return new double[] {
        d.inverseCumulativeProbability(tail), d.inverseCumulativeProbability(1 - tail)
      };
    }
    double mean = trials * p;
    double sd = Math.sqrt(trials * p * (1 - p));
    return new double[] {Math.max(0, mean - Z * sd), mean + Z * sd};
  }

  /** The count that Binomial(trials, p) exceeds with probability at most (1 - CONFIDENCE) / 2. */
  static double binomialUpper(long trials, double p) {
    return binomial(trials, p)[1];
  }

  /** The Wilson score interval of a proportion {@code x / n} at {@link #CONFIDENCE}. */
  static double[] wilson(double x, double n) {
    if (n <= 0) {
      return new double[] {0, 1};
    }
    double p = x / n;
    double z2 = Z * Z;
    double centre = (p + z2 / (2 * n)) / (1 + z2 / n);
    double half = Z / (1 + z2 / n) * Math.sqrt(p * (1 - p) / n + z2 / (4 * n * n));
    return new double[] {Math.max(0, centre - half), Math.min(1, centre + half)};
  }

  /**
   * The acceptance interval, as a rate, of the false positives of one Bloom-style filter of {@code
   * m} cells, {@code n} keys and {@code k} probes, queried with {@code queries} absent keys, when
   * the theory says rate {@code p}.
   *
   * <p>Two sources of variation: the queries (binomial, given the filter) and the filter itself,
   * whose fraction of set bits X/m varies around 1 - e^(-kn/m) (occupancy of kn balls in m bins,
   * variance m e^(-l) (1 - (1 + l) e^(-l)) for l = kn/m). The rate is (X/m)^k, so its standard
   * deviation is k p / (X/m) times that of X/m. The fill's share is added to both ends of the
   * binomial interval, which is conservative.
   */
  static double[] filterFpr(long queries, double p, long m, long n, int k) {
    double[] c = binomial(queries, p);
    double sdRate = fillSd(p, m, n, k);
    return new double[] {Math.max(0, c[0] / queries - Z * sdRate), c[1] / queries + Z * sdRate};
  }

  /**
   * The standard deviation of the rate (X/m)^k of one filter, from the variation of its fill X/m.
   */
  static double fillSd(double p, long m, long n, int k) {
    double l = (double) k * n / m;
    double empty = Math.exp(-l);
    double sdFill = Math.sqrt(Math.max(0, empty * (1 - (1 + l) * empty) / m));
    return k * p / (1 - empty) * sdFill;
  }

  /** The normal interval mean +- Z sd. */
  static double[] normal(double mean, double sd) {
    return new double[] {mean - Z * sd, mean + Z * sd};
  }

  /**
   * Half a unit in the last significant digit of a value stated with {@code digits} significant
   * digits: 0.0082 stated to 2 digits is any value in [0.00815, 0.00825).
   */
  static double halfUnit(double stated, int digits) {
    double exponent = Math.floor(Math.log10(Math.abs(stated))) - digits + 1;
    return 0.5 * Math.pow(10, exponent);
  }

  /**
   * Weighted least squares of y on x: returns {slope, standard error of the slope, intercept}, with
   * weights 1 / variance of each y.
   */
  static double[] weightedSlope(double[] x, double[] y, double[] variance) {
    double sw = 0;
    double sx = 0;
    double sy = 0;
    for (int i = 0; i < x.length; i++) {
      double w = 1 / variance[i];
      sw += w;
      sx += w * x[i];
      sy += w * y[i];
    }
    double mx = sx / sw;
    double my = sy / sw;
    double sxx = 0;
    double sxy = 0;
    for (int i = 0; i < x.length; i++) {
      double w = 1 / variance[i];
      sxx += w * (x[i] - mx) * (x[i] - mx);
      sxy += w * (x[i] - mx) * (y[i] - my);
    }
    double slope = sxy / sxx;
    return new double[] {slope, Math.sqrt(1 / sxx), my - slope * mx};
  }
}
