package io.github.probkit.cli.command;

import io.github.probkit.cli.format.Format;
import io.github.probkit.cli.format.WindowFilters;
import io.github.probkit.cli.location.Location;
import io.github.probkit.cli.output.Json;
import io.github.probkit.frequency.CountMinSketch;
import io.github.probkit.frequency.WindowedCountMin;
import io.github.probkit.io.StructureType;
import java.nio.file.Path;
import java.time.Duration;

/**
 * {@code cms create --window}, and what {@code cms add}, {@code cms query --last} and {@code info}
 * do with it: frequencies over a sliding window of time, one count-min sketch per slice (structure
 * type 50), in a file or in Redis (probkit-redis's {@code RedisWindowedCountMin}), shaped and
 * answered as {@code hll create --window} is.
 */
final class WindowCms {
  private WindowCms() {}

  /** Whether {@code file} holds a windowed count-min sketch (type 50). */
  static boolean isWindowed(Path file) {
    return InfoCommand.Any.typeOf(file) == StructureType.WINDOWED_COUNT_MIN;
  }

  /** An empty windowed sketch whose slices are copies of {@code empty}, for {@code --window}. */
  static WindowedCountMin create(String window, String slice, CountMinSketch empty) {
    Duration[] ws = WindowHll.slicing(window, slice);
    return WindowedCountMin.create(ws[0], ws[1], empty);
  }

  /** The windowed sketch in {@code file}, read whole (its checksums verified). */
  static WindowedCountMin read(Path file) {
    return Location.of(file).read(Format.Kind.WINDOWED_COUNT_MIN);
  }

  static long windowMillis(WindowedCountMin w) {
    return WindowHll.windowMillis(w.sliceCount(), w.sliceMillis());
  }

  /**
   * {@code info}'s description: its window, slices, and the sketch of its whole window (up to its
   * latest slice) as {@code cms info} describes a sketch.
   */
  static Json describe(Path file) {
    WindowedCountMin w = read(file);
    long newest = w.newestSlice();
    Json j =
        new Json()
            .put("type", StructureType.WINDOWED_COUNT_MIN.label())
            .put("window", WindowFilters.duration(windowMillis(w)))
            .put("slice", WindowFilters.duration(w.sliceMillis()))
            .put("slices", w.sliceCount())
            .put("latestSlice", WindowHll.sliceStart(newest, w.sliceMillis()));
    CountMinSketch whole =
        w.sketchOfLast(
            Duration.ofMillis(windowMillis(w)), WindowHll.sliceEnd(newest, w.sliceMillis()));
    CmsCommand.describe(whole)
        .fields()
        .forEach(
            (k, v) -> j.put(k.equals("type") ? "sketch" : k.equals("bytes") ? "sliceBytes" : k, v));
    return j;
  }
}
