package io.github.probkit.internal;

import io.github.probkit.hash.DoubleHashing;

/**
 * The probe positions {@code h1 + i*h2} of the Bloom-type filters, in the two schemes of {@link
 * DoubleHashing}, written as a state machine so that a loop needs no array:
 *
 * <pre>
 *   long s = Probes.start(h1, m, exact), step = Probes.stride(h2, m, exact);
 *   for (int i = 0; i &lt; k; i++, s = Probes.next(s, step, m, exact)) use(Probes.position(s, m, exact));
 * </pre>
 *
 * The positions are those of {@code BloomFilter}: {@code reduce(h1 + i*h2, m)} with 64-bit wrap by
 * default, {@code (h1 + i*h2) mod m} computed exactly when {@code exact}. Not public API.
 */
public final class Probes {
  private Probes() {}

  /** The state of probe 0. */
  public static long start(long h1, long m, boolean exact) {
    return exact ? DoubleHashing.unsignedMod(h1, m) : h1;
  }

  /** The increment between probes. */
  public static long stride(long h2, long m, boolean exact) {
    return exact ? DoubleHashing.unsignedMod(h2, m) : h2;
  }

  /** The position in {@code [0, m)} of the probe whose state is {@code s}. */
  public static long position(long s, long m, boolean exact) {
    return exact ? s : DoubleHashing.reduce(s, m);
  }

  /** The state of the next probe. */
  public static long next(long s, long stride, long m, boolean exact) {
    return exact ? DoubleHashing.addMod(s, stride, m) : s + stride;
  }
}
