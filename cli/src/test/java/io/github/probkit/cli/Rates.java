package io.github.probkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

/** The bound the window tests put on counts that a false-positive rate allows. */
final class Rates {
  private Rates() {}

  /**
   * {@code observed} of {@code n} trials at most the mean of Binomial(n, p) + 6 sd + 1: loose
   * enough never to fail by chance, tight enough that a filter forgetting its rate does.
   */
  static void assertAtMostRate(long observed, long n, double p, String what) {
    double mean = n * p;
    assertThat((double) observed)
        .as("%d of %d %s", observed, n, what)
        .isLessThanOrEqualTo(mean + 6 * Math.sqrt(mean) + 1);
  }
}
