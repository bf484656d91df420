package io.github.probkit.cardinality;

import java.util.Arrays;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.function.Supplier;
import org.apache.commons.math3.distribution.ChiSquaredDistribution;

/**
 * Relative error of a sketch's two estimates over many seeded trials: each trial fills a fresh
 * sketch with distinct random hashes and reads both estimates at every checkpoint on the way.
 */
final class Accuracy {
  final long[] checkpoints;
  final int trials;
  private final double[][] sum;
  private final double[][] sumSquares;

  private Accuracy(long[] checkpoints, int trials) {
    this.checkpoints = checkpoints;
    this.trials = trials;
    this.sum = new double[2][checkpoints.length];
    this.sumSquares = new double[2][checkpoints.length];
  }

  /** 1, 2, 5, 10, 20, 50, ... up to {@code max}. */
  static long[] checkpoints(long max) {
    long[] out = new long[64];
    int n = 0;
    for (long decade = 1; decade <= max; decade *= 10) {
      for (long f : new long[] {1, 2, 5}) {
        if (f * decade <= max) {
          out[n++] = f * decade;
        }
      }
    }
    return Arrays.copyOf(out, n);
  }

  /**
   * Each trial adds distinct random hashes up to the last checkpoint; after each new hash it adds
   * again one added before, chosen at random, so that every estimate is read from a stream with
   * repeats (which must change nothing).
   */
  static Accuracy measure(
      Supplier<CardinalitySketch> factory, long[] checkpoints, int trials, long seed) {
    Accuracy a = new Accuracy(checkpoints, trials);
    SplittableRandom random = new SplittableRandom(seed);
    long[] seen = new long[(int) checkpoints[checkpoints.length - 1]];
    for (int t = 0; t < trials; t++) {
      CardinalitySketch s = factory.get();
      int n = 0;
      for (int k = 0; k < checkpoints.length; k++) {
        for (; n < checkpoints[k]; n++) {
          // Random 64-bit values stand for hashes: distinct with probability 1 - 2^-40 here.
          seen[n] = random.nextLong();
          s.addHash(seen[n]);
          s.addHash(seen[random.nextInt(n + 1)]);
        }
        a.record(0, k, s.estimate() / n - 1);
        a.record(1, k, s.martingaleEstimate().orElseThrow() / n - 1);
      }
    }
    return a;
  }

  private void record(int estimator, int k, double relativeError) {
    sum[estimator][k] += relativeError;
    sumSquares[estimator][k] += relativeError * relativeError;
  }

  /** Mean relative error of estimator 0 (estimate) or 1 (martingale) at checkpoint k. */
  double bias(int estimator, int k) {
    return sum[estimator][k] / trials;
  }

  /** Root mean square relative error. */
  double rmse(int estimator, int k) {
    return Math.sqrt(sumSquares[estimator][k] / trials);
  }

  /**
   * The {@code quantile} of a measured RMSE over its true value: the mean of T squared errors of
   * standard deviation sigma is sigma^2 chi^2_T / T (normal errors).
   */
  static double rmseFactor(int trials, double quantile) {
    return Math.sqrt(
        new ChiSquaredDistribution(null, trials).inverseCumulativeProbability(quantile) / trials);
  }

  String table(double rse, double martingaleRse) {
    StringBuilder sb = new StringBuilder();
    for (int k = 0; k < checkpoints.length; k++) {
      sb.append(
          String.format(
              Locale.ROOT,
              "n=%-9d estimate bias %+.5f rmse %.5f (%.3f x theory)   martingale bias %+.5f rmse %.5f (%.3f x theory)%n",
              checkpoints[k],
              bias(0, k),
              rmse(0, k),
              rmse(0, k) / rse,
              bias(1, k),
              rmse(1, k),
              rmse(1, k) / martingaleRse));
    }
    return sb.toString();
  }
}
