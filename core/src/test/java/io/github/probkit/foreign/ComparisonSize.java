package io.github.probkit.foreign;

/**
 * How many keys the comparisons with the foreign libraries put and query. A million normally; the
 * pitest profile sets {@code probkit.foreign.keys} lower, because PIT runs every covering test
 * again for each mutant (at a million keys 56 mutants timed out and the run never finished).
 */
final class ComparisonSize {
  private ComparisonSize() {}

  static final int KEYS = Integer.getInteger("probkit.foreign.keys", 1_000_000);
}
