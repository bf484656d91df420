package io.github.probkit.cli.command;

import io.github.probkit.cli.input.EventTimes;
import io.github.probkit.cli.input.InputFormat;
import io.github.probkit.cli.input.Inputs;
import io.github.probkit.frequency.HeavyHitters;
import io.github.probkit.frequency.WindowedHeavyHitters;
import io.github.probkit.internal.SliceRing;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.List;

/**
 * {@code top --window}: the most frequent lines of the last span of the input, by the times in a
 * field, the clock's as lines arrive, or the last N lines. One Space-Saving summary per slice of
 * the window ({@link WindowedHeavyHitters}), merged at the end of the input.
 */
final class WindowTop {
  /** Slices per window: a window counts up to a 24th of it more (the part of its oldest slice). */
  static final int SLICES = 24;

  private WindowTop() {}

  /**
   * The summary of the window {@code window} (10000 lines, or 1h) that ends with the input: at the
   * latest time read (--time-field), the clock's when the input ends, or the last line. {@code
   * capacity} is per slice; {@code budget} bytes of candidates are shared by the slices when it is
   * null, no fewer than {@code floor} each.
   */
  static HeavyHitters summary(
      String window,
      String timeField,
      Integer capacity,
      long budget,
      int floor,
      int candidateBytes,
      List<String> inputs,
      InputFormat format,
      Inputs.Stdin stdin)
      throws IOException {
    DedupeCommand.SlidingWindow w = DedupeCommand.SlidingWindow.parse(window);
    if (w.lines > 0 && timeField != null) {
      throw new IllegalArgumentException(
          "--time-field is for a time --window; a window of " + window + " lines counts lines");
    }
    if (timeField != null && format.field == null) {
      throw new IllegalArgumentException(
          "--time-field needs --field F, the field of each line that is counted");
    }
    // A window of lines is a window of time in which line i comes at "time" i.
    long span = w.lines > 0 ? w.lines : w.time.toMillis();
    long slice = Math.max(1, -Math.floorDiv(-span, SLICES));
    int slots = SliceRing.slotsFor(span, slice);
    int c =
        capacity != null
            ? capacity
            : (int)
                Math.max(
                    floor, Math.min(HeavyHitters.MAX_CAPACITY, budget / candidateBytes / slots));
    WindowedHeavyHitters top =
        WindowedHeavyHitters.create(Duration.ofMillis(span), Duration.ofMillis(slice), c);
    long[] now = {Long.MIN_VALUE};
    List<String> from = inputs.isEmpty() ? List.of("-") : inputs;
    if (timeField != null) {
      EventTimes times = new EventTimes(timeField, format);
      Inputs.forEachLine(
          from,
          stdin,
          format,
          Inputs.KeySink.answering(
              (line, off, len, key, keyOff, keyLen) -> {
                long t = times.of(line, off, len);
                now[0] = Math.max(now[0], t);
                top.add(key, keyOff, keyLen, 1, t);
              },
              times.headerThen((b, o, n) -> {}),
              OutputStream.nullOutputStream()));
    } else {
      long[] line = {0};
      Inputs.forEachLine(
          from,
          stdin,
          format,
          (b, off, len) -> {
            long t = w.lines > 0 ? line[0]++ : System.currentTimeMillis();
            top.add(b, off, len, 1, t);
          });
      now[0] = w.lines > 0 ? line[0] - 1 : System.currentTimeMillis();
    }
    return top.summaryOfLast(Duration.ofMillis(span), now[0] == Long.MIN_VALUE ? 0 : now[0]);
  }
}
