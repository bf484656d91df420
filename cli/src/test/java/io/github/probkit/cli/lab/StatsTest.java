package io.github.probkit.cli.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class StatsTest {
  @Test
  void zIsTheTwoSidedNormalQuantile() {
    assertThat(Stats.Z).isCloseTo(3.8906, within(1e-4));
  }

  @Test
  void binomialIntervalHoldsTheMeanAndWidensWithTheSpread() {
    double[] i = Stats.binomial(1_000_000, 0.01);
    assertThat(i[0]).isLessThan(10_000).isGreaterThan(10_000 - 4 * 100);
    assertThat(i[1]).isGreaterThan(10_000).isLessThan(10_000 + 4 * 100);
    // beyond 2^31 trials: the normal approximation, centred on the mean
    double[] big = Stats.binomial(1L << 33, 0.5);
    assertThat((big[0] + big[1]) / 2).isCloseTo((1L << 32), within(1.0));
  }

  @Test
  void wilsonIntervalOfZeroSuccessesStartsAtZero() {
    double[] w = Stats.wilson(0, 1000);
    assertThat(w[0]).isZero();
    assertThat(w[1]).isBetween(0.01, 0.02); // about z^2 / n
  }

  @Test
  void halfUnitIsHalfTheLastStatedDigit() {
    assertThat(Stats.halfUnit(0.0082, 2)).isCloseTo(0.00005, within(1e-12));
    assertThat(Stats.halfUnit(100, 1)).isCloseTo(50, within(1e-9));
    assertThat(Stats.halfUnit(1.2e9, 2)).isCloseTo(0.05e9, within(1.0));
  }

  @Test
  void weightedSlopeOfAnExactLine() {
    double[] x = {1, 2, 3, 4};
    double[] y = {3, 5, 7, 9};
    double[] s = Stats.weightedSlope(x, y, new double[] {1, 2, 1, 4});
    assertThat(s[0]).isCloseTo(2, within(1e-12));
    assertThat(s[2]).isCloseTo(1, within(1e-12));
  }

  @Test
  void fillVariationMatchesTheExactOccupancyVariance() {
    // kn balls in m bins: the exact variance of the number of empty bins, against the asymptotic
    // form fillSd uses
    long m = 10_000;
    long n = 1_000;
    int k = 7;
    double balls = (double) k * n;
    double varianceEmpty =
        m * (m - 1) * Math.pow(1 - 2.0 / m, balls)
            + m * Math.pow(1 - 1.0 / m, balls)
            - (double) m * m * Math.pow(1 - 1.0 / m, 2 * balls);
    double p = 0.0082;
    double fill = -Math.expm1(-balls / m);
    double exact = k * p / fill * Math.sqrt(varianceEmpty) / m;
    assertThat(Stats.fillSd(p, m, n, k)).isCloseTo(exact, within(0.01 * exact));
  }
}
