package io.github.probkit.cli.command;

import io.github.probkit.cardinality.CardinalitySketch;
import io.github.probkit.cardinality.WindowedCardinality;
import io.github.probkit.cli.format.Format;
import io.github.probkit.cli.format.WindowFilters;
import io.github.probkit.cli.location.Location;
import io.github.probkit.cli.output.Json;
import io.github.probkit.internal.SliceRing;
import io.github.probkit.io.StructureType;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

/**
 * {@code hll create --window}, and what {@code hll add}, {@code hll count --last} and {@code info}
 * do with its file: distinct counts over a sliding window of time, one sketch per slice (structure
 * type 49), kept in files (Redis keeps no windowed sketch from the command line).
 */
final class WindowHll {
  /** Slices per window when --slice is not given: a window counts up to 1/24 of it more. */
  static final int DEFAULT_SLICES = 24;

  private WindowHll() {}

  /** Whether {@code file} holds a windowed distinct count (type 49). */
  static boolean isWindowed(Path file) {
    return InfoCommand.Any.typeOf(file) == StructureType.WINDOWED_CARDINALITY;
  }

  /** An empty windowed sketch of {@code empty}'s type and precision, for {@code --window}. */
  static WindowedCardinality create(String window, String slice, CardinalitySketch empty) {
    Duration[] ws = slicing(window, slice);
    return WindowedCardinality.create(ws[0], ws[1], empty);
  }

  /**
   * The window and slice that {@code --window} and {@code --slice} (null: a 24th of the window)
   * give a windowed sketch; a slice longer than the window, or too many slices, refused.
   */
  static Duration[] slicing(String window, String slice) {
    Duration w = DedupeCommand.SlidingWindow.time("--window", window);
    Duration s =
        slice != null
            ? DedupeCommand.SlidingWindow.time("--slice", slice)
            : Duration.ofMillis(-Math.floorDiv(-w.toMillis(), DEFAULT_SLICES));
    if (s.compareTo(w) > 0) {
      throw new IllegalArgumentException("--slice " + slice + " is longer than --window " + window);
    }
    long slices = -Math.floorDiv(-w.toMillis(), s.toMillis()) + 1;
    if (slices > SliceRing.MAX_SLOTS) {
      throw new IllegalArgumentException(
          "--window "
              + window
              + " in slices of "
              + slice
              + " takes "
              + slices
              + " slices, more than "
              + SliceRing.MAX_SLOTS
              + ": give a longer --slice");
    }
    return new Duration[] {w, s};
  }

  /** The windowed sketch in {@code file}. */
  static WindowedCardinality read(Path file) {
    return Location.of(file).read(Format.Kind.WINDOWED_CARDINALITY);
  }

  /** The longest window the sketch counts: its slices but the one the window's start falls in. */
  static long windowMillis(int sliceCount, long sliceMillis) {
    return (sliceCount - 1) * sliceMillis;
  }

  /**
   * The span {@code --last} gives (null: the whole window of {@code windowMillis}); one longer than
   * the window of {@code file}, which {@code made} made, is refused.
   */
  static Duration lastSpan(String last, long windowMillis, Path file, String made) {
    Duration span =
        last == null
            ? Duration.ofMillis(windowMillis)
            : DedupeCommand.SlidingWindow.time("--last", last);
    if (span.toMillis() > windowMillis) {
      throw new IllegalArgumentException(
          "--last "
              + last
              + " is longer than the window of "
              + file
              + ", "
              + WindowFilters.duration(windowMillis)
              + " ("
              + made
              + ")");
    }
    return span;
  }

  /** {@code info}'s description of the windowed sketch in {@code file}. */
  static Json describe(Path file, boolean json) {
    WindowedCardinality w = read(file);
    CardinalitySketch whole =
        w.sketchOfLast(
            Duration.ofMillis(windowMillis(w.sliceCount(), w.sliceMillis())),
            sliceEnd(w.newestSlice(), w.sliceMillis()));
    return new Json()
        .put("type", StructureType.WINDOWED_CARDINALITY.label())
        .put("window", WindowFilters.duration(windowMillis(w.sliceCount(), w.sliceMillis())))
        .put("slice", WindowFilters.duration(w.sliceMillis()))
        .put("slices", w.sliceCount())
        .put("latestSlice", sliceStart(w.newestSlice(), w.sliceMillis()))
        .put("sketch", whole.type().label())
        .put("precision", whole.precision())
        .put("estimateOfWindow", Math.round(whole.estimate()))
        .put("relativeStandardError", whole.relativeStandardError())
        .put("bytes", w.byteSize())
        .put("hash", whole.hashStrategy().algorithm().label())
        .put("hashSeed", String.format(java.util.Locale.ROOT, "0x%x", whole.hashStrategy().seed()));
  }

  /** The last ms of slice {@code slice}: the window info describes ends there. */
  static long sliceEnd(long slice, long sliceMillis) {
    return slice == Long.MIN_VALUE ? 0 : (slice + 1) * sliceMillis - 1;
  }

  /** When slice {@code slice} starts, as info prints it. */
  static String sliceStart(long slice, long sliceMillis) {
    return slice == Long.MIN_VALUE
        ? "none (nothing added yet)"
        : Instant.ofEpochMilli(slice * sliceMillis).toString();
  }
}
