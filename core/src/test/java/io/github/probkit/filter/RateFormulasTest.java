package io.github.probkit.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.github.probkit.testing.Theory;
import org.junit.jupiter.api.Test;

/**
 * The rate formulas core publishes (and prints in {@code filter info}) against the tests' own
 * {@link Theory}: a halved cuckoo formula or a Bloom formula with k - 1 differs by far more than
 * the tolerances here, which only allow for the finite-m and second-order terms the two leave out
 * differently.
 */
class RateFormulasTest {

  @Test
  void bloomRateIsTheClosedForm() {
    for (long m : new long[] {1_000, 95_851, 10_000_000}) {
      for (long n : new long[] {1, m / 20, m / 10, m / 5, m}) {
        for (int k = 1; k <= 16; k++) {
          double theory = Theory.bloom(m, n, k).mean();
          assertThat(BloomFilter.falsePositiveRate(m, n, k))
              .as("m=%d n=%d k=%d", m, n, k)
              .isCloseTo(theory, within((1e-3 + (double) k / m) * theory));
        }
      }
    }
    // Seed 001: 10 bits per key and 7 probes give 0.82 %.
    assertThat(Theory.bloom(10_000_000, 1_000_000, 7).mean()).isCloseTo(0.0082, within(0.00005));
  }

  @Test
  void cuckooRateIsTheClosedForm() {
    for (int f = 4; f <= 32; f++) {
      for (double load : new double[] {0.01, 0.25, 0.5, 0.9, 0.95, 1}) {
        double theory = Theory.cuckoo(f, load).mean();
        assertThat(CuckooFilter.falsePositiveRate(f, load))
            .as("f=%d load=%s", f, load)
            .isCloseTo(theory, within(1e-9 * theory));
      }
    }
    // The class comment's figure: 0.70 % at f = 10 and load 0.9.
    assertThat(Theory.cuckoo(10, 0.9).mean()).isCloseTo(0.0070, within(0.00005));
  }

  /**
   * Core sums a second-order expansion over the Poisson loads; Theory computes the same mixture
   * exactly. They agree within 2 % where filters are used (4 to 24 bits per key).
   */
  @Test
  void blockedRateIsThePoissonMixture() {
    long n = 100_000;
    for (double bitsPerKey : new double[] {4, 8, 9.92, 12, 16, 24}) {
      long blocks = (long) Math.ceil(bitsPerKey * n / BlockedBloomFilter.BLOCK_BITS);
      for (int k = 1; k <= 16; k++) {
        double theory = Theory.blocked(blocks, n, k, BlockedBloomFilter.BLOCK_BITS).mean();
        assertThat(
                BlockedBloomFilter.falsePositiveRate(blocks * BlockedBloomFilter.BLOCK_BITS, n, k))
            .as("%s bits per key, k=%d", bitsPerKey, k)
            .isCloseTo(theory, within(0.02 * theory));
      }
    }
  }
}
