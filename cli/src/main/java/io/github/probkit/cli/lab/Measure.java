package io.github.probkit.cli.lab;

import io.github.probkit.filter.MembershipFilter;
import io.github.probkit.filter.MutableFilter;
import java.lang.management.ManagementFactory;

/** Small measuring helpers shared by the experiments. */
final class Measure {
  /**
   * Absent keys start here: present keys are small consecutive integers, absent ones consecutive
   * integers far from them. Consecutive keys are the structured input a weak hash would fail on.
   */
  static final long ABSENT = 1L << 40;

  private Measure() {}

  /** Adds the keys {@code from, from + 1, ..., from + n - 1}. */
  static void addRange(MutableFilter f, long from, long n) {
    for (long i = 0; i < n; i++) {
      f.add(from + i);
    }
  }

  /** How many of the keys {@code from .. from + count - 1} the filter reports present. */
  static long positives(MembershipFilter f, long from, long count) {
    long c = 0;
    for (long i = 0; i < count; i++) {
      if (f.mightContain(from + i)) {
        c++;
      }
    }
    return c;
  }

  /**
   * The heap in use after full collections: repeated until two readings agree within 64 kB, at most
   * five times, so that garbage and finalisation do not count.
   */
  static long heapUsed() {
    long last = Long.MAX_VALUE;
    for (int i = 0; i < 5; i++) {
      System.gc();
      long used = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
      if (Math.abs(used - last) < 65_536) {
        return used;
      }
      last = used;
    }
    return last;
  }

  /** Seconds since {@code t0} (from System.nanoTime). */
  static double since(long t0) {
    return (System.nanoTime() - t0) / 1e9;
  }
}
