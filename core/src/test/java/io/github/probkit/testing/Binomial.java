package io.github.probkit.testing;

import org.apache.commons.math3.distribution.BinomialDistribution;

/**
 * Acceptance intervals for counted events (false positives, overestimates) under a binomial model:
 * tolerances come from the distribution, never from a hand-picked "close enough".
 */
public final class Binomial {
  private Binomial() {}

  /** The two-sided central interval holding {@code confidence} of Binomial(trials, p). */
  public static long[] interval(int trials, double p, double confidence) {
    BinomialDistribution d = new BinomialDistribution(null, trials, p);
    double tail = (1 - confidence) / 2;
    return new long[] {
      d.inverseCumulativeProbability(tail), d.inverseCumulativeProbability(1 - tail)
    };
  }

  /** The count that Binomial(trials, p) exceeds with probability at most {@code 1 - confidence}. */
  public static long upper(int trials, double p, double confidence) {
    return new BinomialDistribution(null, trials, p).inverseCumulativeProbability(confidence);
  }
}
