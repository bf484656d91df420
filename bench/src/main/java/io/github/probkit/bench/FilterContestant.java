package io.github.probkit.bench;

/**
 * One filter implementation behind the benchmarks' common interface. Each library is called the way
 * its documentation suggests; where a library takes no String (FastFilter takes longs), the
 * contestant hashes the String with hash4j's XXH3 over its chars, the cheapest allocation-free way
 * a user has, so that every contestant is charged for turning a String into positions.
 *
 * <p>An instance serves one thread of one benchmark: some keep scratch buffers.
 */
public abstract class FilterContestant {

  /** Adds a key; static filters, built once from all keys, throw. */
  public void add(String key) {
    throw new UnsupportedOperationException(
        getClass().getSimpleName() + " is built from all its keys at once");
  }

  public void add(long key) {
    throw new UnsupportedOperationException(
        getClass().getSimpleName() + " is built from all its keys at once");
  }

  public abstract boolean mightContain(String key);

  public abstract boolean mightContain(long key);

  /** The object whose retained size is the filter's memory (measured with JOL). */
  public abstract Object root();

  /**
   * Bits per key of a Bloom-like filter at false-positive rate {@code fpp}: {@code -ln p / (ln
   * 2)^2}.
   */
  static double bloomBitsPerKey(double fpp) {
    return -Math.log(fpp) / (Math.log(2) * Math.log(2));
  }
}
