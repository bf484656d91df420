package io.github.probkit.cli.command;

import io.github.probkit.cardinality.CardinalitySketch;
import io.github.probkit.cardinality.WindowedCardinality;
import io.github.probkit.cli.format.WindowFilters;
import io.github.probkit.cli.input.KeyOptions;
import io.github.probkit.cli.input.TimedKeys;
import io.github.probkit.cli.location.RedisUri;
import io.github.probkit.cli.location.SketchFiles;
import io.github.probkit.cli.location.StreamCommits;
import io.github.probkit.cli.location.WriteOptions;
import io.github.probkit.cli.output.Json;
import io.github.probkit.internal.SliceRing;
import io.github.probkit.io.StructureType;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;

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
    return WindowedCardinality.create(w, s, empty);
  }

  /** The windowed sketch in {@code file}; a redis:// URI is refused. */
  static WindowedCardinality read(Path file) {
    notRedis(file);
    return SketchFiles.read(file, WindowedCardinality::readFrom);
  }

  /** The longest window the sketch counts: its slices but the one the window's start falls in. */
  static long windowMillis(WindowedCardinality w) {
    return (w.sliceCount() - 1) * w.sliceMillis();
  }

  /** Creates {@code file} holding {@code w} and the items of {@code from} (null: none). */
  static int create(
      Path file,
      WindowedCardinality w,
      boolean force,
      KeyOptions from,
      CommandSpec spec,
      WriteOptions writing)
      throws IOException {
    notRedis(file);
    try (SketchFiles.Lock lock = writing.lockNew(file, force)) {
      if (from != null) {
        TimedKeys.forEach(List.of(), from, spec, w::add);
      }
      lock.write(w::writeTo);
    }
    return 0;
  }

  /** Adds the items to the windowed sketch in {@code file}, at their times. */
  static int add(
      Path file, List<String> items, KeyOptions from, CommandSpec spec, WriteOptions writing)
      throws IOException {
    try (SketchFiles.Lock lock = writing.lockExisting(file)) {
      WindowedCardinality w = read(file);
      try (StreamCommits commits = StreamCommits.commitsTo(from, lock, w::writeTo, spec)) {
        TimedKeys.forEach(items, from, spec, w::add);
        commits.write();
      }
    }
    return 0;
  }

  /**
   * The sketch of the window of {@code last} (null: the whole window) ending at {@code at} (null:
   * now) of the windowed sketch in {@code file}; a window longer than the sketch keeps is refused.
   */
  static CardinalitySketch lastOf(Path file, String last, String at) {
    WindowedCardinality w = read(file);
    long end = at == null ? System.currentTimeMillis() : WindowFilter.at(at);
    return w.sketchOfLast(lastSpan(last, windowMillis(w), file, "hll create --window"), end);
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
            Duration.ofMillis(windowMillis(w)), sliceEnd(w.newestSlice(), w.sliceMillis()));
    return new Json()
        .put("type", StructureType.WINDOWED_CARDINALITY.label())
        .put("window", WindowFilters.duration(windowMillis(w)))
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

  private static void notRedis(Path file) {
    if (RedisUri.of(file) != null) {
      throw new IllegalArgumentException(
          "windowed sketches are kept in files on the command line, not in Redis, was '"
              + file
              + "'");
    }
  }
}
