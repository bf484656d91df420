package io.github.probkit.cli.command;

import io.github.probkit.cli.format.Format;
import io.github.probkit.cli.format.WindowFilters;
import io.github.probkit.cli.input.EventTimes;
import io.github.probkit.cli.input.InputFormat;
import io.github.probkit.cli.input.Inputs;
import io.github.probkit.cli.location.Location;
import io.github.probkit.cli.location.WriteOptions;
import io.github.probkit.cli.output.Json;
import io.github.probkit.frequency.HeavyHitters;
import io.github.probkit.frequency.WindowedHeavyHitters;
import io.github.probkit.internal.SliceRing;
import io.github.probkit.io.StructureType;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * {@code top --window}: the most frequent lines of the last span of the input, by the times in a
 * field, the clock's as lines arrive, or the last N lines. One Space-Saving summary per slice of
 * the window ({@link WindowedHeavyHitters}), merged at the end of the input; {@code --save} keeps
 * the slices in a file (type 52) that {@code top --from} and {@code info} read.
 */
final class WindowTop {
  /** Slices per window: a window counts up to a 24th of it more (the part of its oldest slice). */
  static final int SLICES = 24;

  private WindowTop() {}

  /** The input counted into slices, and the window that ends with it. */
  record Counted(WindowedHeavyHitters ring, long spanMillis, long now) {
    HeavyHitters summary() {
      return ring.summaryOfLast(Duration.ofMillis(spanMillis), now);
    }
  }

  /**
   * The slices of the window {@code window} (10000 lines, or 1h) that ends with the input: at the
   * latest time read (--time-field), the clock's when the input ends, or the last line. {@code
   * capacity} is per slice; {@code budget} bytes of candidates are shared by the slices when it is
   * null, no fewer than {@code floor} each. {@code save} (null: none) gets the events as they are
   * read; a window of lines is refused before the input is read, as its slices have no times to
   * keep.
   */
  static Counted count(
      String window,
      String timeField,
      Integer capacity,
      long budget,
      int floor,
      int candidateBytes,
      List<String> inputs,
      InputFormat format,
      Inputs.Stdin stdin,
      Location.WindowSave save)
      throws IOException {
    DedupeCommand.SlidingWindow w = DedupeCommand.SlidingWindow.parse(window);
    if (w.lines > 0 && timeField != null) {
      throw new IllegalArgumentException(
          "--time-field is for a time --window; a window of " + window + " lines counts lines");
    }
    if (w.lines > 0 && save != null) {
      throw new IllegalArgumentException(
          "--save keeps the slices of a window of time (1h); a window of "
              + window
              + " lines has no times to keep");
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
    if (save != null) {
      save.start(top);
    }
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
                if (save != null) {
                  save.add(key, keyOff, keyLen, t);
                }
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
            if (save != null) {
              save.add(b, off, len, t);
            }
          });
      now[0] = w.lines > 0 ? line[0] - 1 : System.currentTimeMillis();
    }
    return new Counted(top, span, now[0] == Long.MIN_VALUE ? 0 : now[0]);
  }

  /**
   * Where {@code top --save} keeps the window: opened before the input is read, so that an existing
   * file (without --force), or a window in Redis of another shape, fails at once.
   */
  static Location.WindowSave save(
      Path file, boolean force, WriteOptions writing, Duration maxSkew) {
    return Location.of(file).saveWindowedTop(force, writing, maxSkew);
  }

  /** The window saved in {@code file} by {@code top --window --save}. */
  static WindowedHeavyHitters read(Path file) {
    return Location.of(file).read(Format.Kind.WINDOWED_HEAVY_HITTERS);
  }

  /** Whether {@code file} holds a window saved by {@code top --save} (type 52). */
  static boolean isWindowed(Path file) {
    return InfoCommand.Any.typeOf(file) == StructureType.WINDOWED_HEAVY_HITTERS;
  }

  /**
   * The summary of the last {@code last} (null: the whole window) ending at {@code at} (null: the
   * end of the latest slice, where the counting that saved it ended) of the window in {@code file}.
   */
  static HeavyHitters lastOf(Path file, String last, String at) {
    WindowedHeavyHitters w = read(file);
    long window = (w.sliceCount() - 1) * w.sliceMillis();
    long end =
        at == null ? WindowHll.sliceEnd(w.newestSlice(), w.sliceMillis()) : WindowFilter.at(at);
    return w.summaryOfLast(WindowHll.lastSpan(last, window, file, "top --window --save"), end);
  }

  /** {@code info}'s description of the window saved in {@code file}. */
  static Json describe(Path file) {
    WindowedHeavyHitters w = read(file);
    long window = (w.sliceCount() - 1) * w.sliceMillis();
    HeavyHitters whole =
        w.summaryOfLast(
            Duration.ofMillis(window), WindowHll.sliceEnd(w.newestSlice(), w.sliceMillis()));
    return new Json()
        .put("type", StructureType.WINDOWED_HEAVY_HITTERS.label())
        .put("window", WindowFilters.duration(window))
        .put("slice", WindowFilters.duration(w.sliceMillis()))
        .put("slices", w.sliceCount())
        .put("latestSlice", WindowHll.sliceStart(w.newestSlice(), w.sliceMillis()))
        .put("capacity", w.capacity())
        .put("totalCountOfWindow", whole.totalCount())
        .put("distinctTrackedOfWindow", whole.size())
        .put("maxErrorOfWindow", whole.maxError())
        .put("bytes", w.byteSize());
  }
}
