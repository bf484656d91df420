package io.github.probkit.cli.command;

import io.github.probkit.cli.format.FilterTypes;
import io.github.probkit.cli.input.EventTimes;
import io.github.probkit.cli.input.Numbers;
import io.github.probkit.filter.AgePartitionedBloomFilter;
import io.github.probkit.hash.HashStrategy;
import java.time.Duration;

/**
 * {@code filter create --type window} and what the other filter commands do differently for it: an
 * age-partitioned Bloom filter (structure type 48) of the last N keys or the last span of time,
 * keys added at the clock's time or at the time in a field of their line, answers for now or for
 * {@code --at TIME}.
 */
final class WindowFilter {
  static final String TYPE = FilterTypes.WINDOW;

  private WindowFilter() {}

  /**
   * The filter {@code filter create --type window} asks for: by count for {@code --window 10000},
   * by time for {@code --window 7d}, sized then for {@code --expected} keys per window or {@code
   * --expected-rate} (1M/day).
   */
  static AgePartitionedBloomFilter create(
      String window, Long expected, String rate, double fpp, HashStrategy hash) {
    if (window == null) {
      throw new IllegalArgumentException(
          "missing required option --window=W (needed by --type window: 10000 keys, or 7d)");
    }
    DedupeCommand.SlidingWindow w = DedupeCommand.SlidingWindow.parse(window);
    if (w.lines > 0) {
      if (expected != null || rate != null) {
        throw new IllegalArgumentException(
            (expected != null ? "--expected" : "--expected-rate")
                + " is for a time --window; a window of "
                + window
                + " keys is sized by its keys");
      }
      return AgePartitionedBloomFilter.create(w.lines, fpp, hash);
    }
    if (expected != null && rate != null) {
      throw new IllegalArgumentException("--expected and --expected-rate exclude each other");
    }
    long perWindow =
        rate != null
            ? keysPerWindow(rate, w.time)
            : expected != null ? expected : DedupeCommand.WINDOW_EXPECTED;
    if (perWindow <= 0) {
      throw new IllegalArgumentException("--expected must be positive, was " + perWindow);
    }
    return AgePartitionedBloomFilter.create(
        w.time, perWindow, fpp, hash, java.time.Clock.systemUTC());
  }

  /** The keys a window of {@code window} takes at {@code rate}: N/UNIT, as 1M/day or 500/1m. */
  static long keysPerWindow(String rate, Duration window) {
    int slash = rate.indexOf('/');
    String unit = slash < 0 ? "" : rate.substring(slash + 1).strip();
    String span =
        switch (unit) {
          case "s", "sec", "second" -> "1s";
          case "m", "min", "minute" -> "1m";
          case "h", "hour" -> "1h";
          case "d", "day" -> "1d";
          case "w", "week" -> "7d";
          default -> unit;
        };
    try {
      long n = Numbers.count(rate.substring(0, Math.max(0, slash)), 1, Long.MAX_VALUE);
      Duration per = DedupeCommand.SlidingWindow.time("--expected-rate", span);
      double keys = (double) n * window.toMillis() / per.toMillis();
      return (long) Math.ceil(Math.min(keys, Long.MAX_VALUE / 2.0));
    } catch (RuntimeException e) {
      // Numbers' own message names the number alone; this one names the option and the forms.
      throw new IllegalArgumentException(
          "--expected-rate must be keys per span of time (1M/day, 5000/h, 200/30s), was '"
              + rate
              + "'");
    }
  }

  /** The time {@code --at} gives, in ms since the epoch (the forms of --time-field). */
  static long at(String text) {
    Long t = EventTimes.parse(text.strip());
    if (t == null) {
      throw new IllegalArgumentException(
          "--at must be a time (ISO-8601 with an offset, or epoch seconds or ms), was '"
              + text
              + "'");
    }
    return t;
  }
}
