package io.github.probkit.cli.format;

import io.github.probkit.cli.input.Inputs;
import io.github.probkit.cli.input.KeyOptions;
import io.github.probkit.cli.input.TimedKeys;
import io.github.probkit.cli.output.Json;
import io.github.probkit.filter.AgePartitionedBloomFilter;
import io.github.probkit.filter.MembershipFilter;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Model.CommandSpec;

/** A window filter's keys added with their times, its refusals and its description. */
public final class WindowFilters {
  private WindowFilters() {}

  /**
   * Adds the keys of {@code from} to {@code f}: by count, in order; by time, each at the clock's
   * time, or with {@code --time-field} at the time in its line.
   */
  public static void addKeys(
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

  /** The window filter in {@code file}, for an option only such a filter takes. */
  public static AgePartitionedBloomFilter timeBased(
      MembershipFilter f, Object file, String option) {
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
  public static void describe(AgePartitionedBloomFilter f, Json j) {
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
  public static String duration(long ms) {
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
