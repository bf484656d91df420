package io.github.probkit.testing;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Seeded Zipfian streams: item {@code i} (1-based) is drawn with probability proportional to {@code
 * 1 / i^s}, by binary search over the cumulative weights. s = 0 gives a uniform stream.
 */
public final class Zipf {
  private final double[] cumulative;
  private final SplittableRandom random;

  public Zipf(int items, double s, long seed) {
    cumulative = new double[items];
    double sum = 0;
    for (int i = 0; i < items; i++) {
      sum += Math.pow(i + 1, -s);
      cumulative[i] = sum;
    }
    for (int i = 0; i < items; i++) {
      cumulative[i] /= sum;
    }
    random = new SplittableRandom(seed);
  }

  /** The next item's rank, in [0, items): 0 is the most frequent. */
  public int next() {
    int i = Arrays.binarySearch(cumulative, random.nextDouble());
    return Math.min(cumulative.length - 1, i >= 0 ? i : -i - 1);
  }

  /** {@code n} draws. */
  public int[] stream(int n) {
    int[] out = new int[n];
    for (int i = 0; i < n; i++) {
      out[i] = next();
    }
    return out;
  }
}
