package io.github.probkit.frequency;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The event stream of the windowed frequency tests, from {@link #T0}: items Zipf-like (rank r with
 * probability about 1 / r) whose popular ones change every hour, one event in 20 up to 30 minutes
 * late; and the exact counts of a window of 10-minute slices to check a structure against.
 */
final class WindowedEvents {
  static final long MINUTE = 60_000L;
  static final long T0 = 1_700_000_000_000L;
  private static final long SLICE = 10 * MINUTE;

  /** The windows the tests check: the last 10 minutes, hour and 5 hours. */
  static final Duration[] LASTS = {
    Duration.ofMinutes(10), Duration.ofHours(1), Duration.ofHours(5)
  };

  final long[] times;
  final long[] items;
  private final SplittableRandom rnd;

  WindowedEvents(int n, SplittableRandom rnd) {
    this.times = new long[n];
    this.items = new long[n];
    this.rnd = rnd;
  }

  /** Draws event {@code i}, which happens at {@code clock}. */
  void draw(int i, long clock) {
    times[i] = clock - (rnd.nextInt(20) == 0 ? rnd.nextLong(30 * MINUTE) : 0);
    long hour = (clock - T0) / (60 * MINUTE);
    long rank = (long) Math.floor(Math.exp(rnd.nextDouble() * Math.log(50_000)));
    items[i] = rank + 1_000_000 * hour;
  }

  /**
   * Item to count among events 0 to {@code i} whose slice is one of the window of {@code last}
   * ending at {@code clock}.
   */
  Map<Long, Long> exactCounts(int i, Duration last, long clock) {
    long from = Math.floorDiv(clock - last.toMillis(), SLICE);
    long to = Math.floorDiv(clock, SLICE);
    Map<Long, Long> exact = new HashMap<>();
    for (int j = 0; j <= i; j++) {
      long s = Math.floorDiv(times[j], SLICE);
      if (s >= from && s <= to) {
        exact.merge(items[j], 1L, Long::sum);
      }
    }
    return exact;
  }

  /** The events a window's counts add up to. */
  static long total(Map<Long, Long> exact) {
    return exact.values().stream().mapToLong(Long::longValue).sum();
  }
}
