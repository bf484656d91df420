package io.github.probkit.cli.command;

import io.github.probkit.cli.format.FilterTypes;
import io.github.probkit.cli.input.Inputs;
import io.github.probkit.cli.input.KeyOptions;
import io.github.probkit.cli.input.Numbers;
import io.github.probkit.cli.output.Json;
import io.github.probkit.filter.AgePartitionedBloomFilter;
import io.github.probkit.filter.MembershipFilter;
import io.github.probkit.hash.HashStrategy;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Model.CommandSpec;

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

  /**
   * Adds the keys of {@code from} to {@code f}: by count, in order; by time, each at the clock's
   * time, or with {@code --time-field} at the time in its line.
   */
  static void addKeys(
      AgePartitionedBloomFilter f, List<String> keys, KeyOptions from, CommandSpec spec, Path file)
      throws IOException {
    if (!f.timeBased()) {
      if (from.timeField != null) {
        timeBased(f, file, "--time-field");
      }
      from.forEach(keys, spec, Inputs.KeySink.inOrder(f::add));
      return;
    }
    TimedKeys.forEach(keys, from, spec, f::add);
  }

  /** The time {@code --at} gives, in ms since the epoch (the forms of --time-field). */
  static long at(String text) {
    Long t = DedupeCommand.EventTimes.parse(text.strip());
    if (t == null) {
      throw new IllegalArgumentException(
          "--at must be a time (ISO-8601 with an offset, or epoch seconds or ms), was '"
              + text
              + "'");
    }
    return t;
  }

  /** The window filter in {@code file}, for an option only such a filter takes. */
  static AgePartitionedBloomFilter timeBased(MembershipFilter f, Object file, String option) {
    if (!(f instanceof AgePartitionedBloomFilter) || !((AgePartitionedBloomFilter) f).timeBased()) {
      throw new IllegalArgumentException(
          option
              + " is for a window filter of time (filter create --type window --window 7d); "
              + file
              + " is "
              + (f instanceof AgePartitionedBloomFilter
                  ? "a window of the last " + ((AgePartitionedBloomFilter) f).window() + " keys"
                  : "a " + f.type().label() + " filter"));
    }
    return (AgePartitionedBloomFilter) f;
  }

  /** {@code filter info}'s fields of a window filter, after its type and bits. */
  static void describe(AgePartitionedBloomFilter f, Json j) {
    if (f.timeBased()) {
      j.put("window", duration(f.window()))
          .put("windowMs", f.window())
          .put("generationMs", f.generationMillis())
          .put("keysPerGeneration", f.generationKeys())
          .put("slack", duration(f.slack()));
    } else {
      j.put("windowKeys", f.window())
          .put("keysPerGeneration", f.generationKeys())
          .put("slackKeys", f.slack());
    }
    j.put("generations", f.survivingGenerations())
        .put("slices", f.sliceCount())
        .put("hashes", f.hashCount())
        .put("fpp", f.targetFpp());
    if (f.timeBased()) {
      j.put(
          "latestGeneration",
          f.generation() == Long.MIN_VALUE
              ? "none (no key yet)"
              : Instant.ofEpochMilli(f.generation() * f.generationMillis()).toString());
    }
  }

  /** A span of ms as people read it: 7d, 1h30m, 250ms. */
  static String duration(long ms) {
    Duration d = Duration.ofMillis(ms);
    StringBuilder sb = new StringBuilder();
    long[] parts = {d.toDaysPart(), d.toHoursPart(), d.toMinutesPart(), d.toSecondsPart()};
    String[] units = {"d", "h", "m", "s"};
    for (int i = 0; i < parts.length; i++) {
      if (parts[i] != 0) {
        sb.append(parts[i]).append(units[i]);
      }
    }
    if (d.toMillisPart() != 0 || sb.length() == 0) {
      sb.append(String.format(Locale.ROOT, "%dms", d.toMillisPart()));
    }
    return sb.toString();
  }
}
