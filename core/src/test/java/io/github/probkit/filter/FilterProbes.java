package io.github.probkit.filter;

/** Probing a filter with keys it was never given. */
final class FilterProbes {
  private FilterProbes() {}

  /**
   * How many of the long keys {@code from} .. {@code from + probes - 1} {@code f} reports present.
   */
  static long falsePositives(MembershipFilter f, long from, int probes) {
    long fp = 0;
    for (long i = from; i < from + probes; i++) {
      if (f.mightContain(i)) {
        fp++;
      }
    }
    return fp;
  }
}
