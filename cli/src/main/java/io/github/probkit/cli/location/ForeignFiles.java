package io.github.probkit.cli.location;

import io.github.probkit.cli.format.ForeignCounts;
import io.github.probkit.cli.format.ForeignFilter;
import io.github.probkit.cli.format.Format;
import io.github.probkit.cli.format.ProbkitFormat;
import io.github.probkit.cli.format.SparkFormat;
import java.nio.file.Path;

/**
 * The structure a command's format option names, where it lives: a file in any format ({@link
 * Format#of(Path, String)}), or a {@code redis://} key, which holds probkit's structures (or, for a
 * cardinality sketch, the {@code HYLL} string of {@code PFADD}, which the Redis location tells
 * apart by itself).
 */
public final class ForeignFiles {
  private ForeignFiles() {}

  /**
   * The format of {@code file} as {@code option} ({@code --format} or {@code --file-format}) names
   * it, {@code name} null when not given.
   */
  public static Format formatOf(Path file, String option, String name) {
    if (RedisUri.of(file) == null) {
      return Format.of(file, name);
    }
    if (name != null && !name.equals("probkit") && !name.equals("redis")) {
      throw new IllegalArgumentException(
          option
              + " "
              + name
              + " names a file's format: a redis:// key holds probkit's structures");
    }
    return ProbkitFormat.INSTANCE;
  }

  /**
   * The structure of {@code kind} in {@code file}, read whole in {@code format} (a {@code redis://}
   * key: as the Redis location reads it).
   */
  public static <T> T read(Path file, Format format, Format.Kind<T> kind) {
    if (RedisUri.of(file) != null) {
      return Location.of(file).read(kind);
    }
    checkFamily(file, format, kind);
    return SketchFiles.read(file, in -> format.read(in, kind));
  }

  /**
   * Writes {@code structure} to {@code file} in {@code format}, atomically under the file's lock
   * (refusing an existing file unless {@code force}).
   */
  public static void write(
      Path file, Format format, Object structure, boolean force, WriteOptions writing) {
    if (RedisUri.of(file) != null) {
      throw new IllegalArgumentException(
          "import and export convert files; to publish to Redis: probkit import FILE " + file);
    }
    try (SketchFiles.Lock lock = writing.lockNew(file, force)) {
      lock.write(out -> format.write(structure, out));
    }
  }

  /** The filter in {@code file}, read whole in {@code format} (one that is not probkit's). */
  public static ForeignFilter filter(Path file, Format format) {
    checkFamily(file, format, Format.Kind.FILTER);
    return SketchFiles.read(file, format::filter);
  }

  /** The count-min sketch in {@code file}, read whole in {@code format}. */
  public static ForeignCounts counts(Path file, Format format) {
    checkFamily(file, format, Format.Kind.COUNT_MIN);
    return SketchFiles.read(file, format::counts);
  }

  /**
   * Spark's two sketches start alike (version 1), so the format alone does not say which one a file
   * holds; one given to the other family's command is refused naming what it is.
   */
  private static void checkFamily(Path file, Format format, Format.Kind<?> kind) {
    if (format == SparkFormat.INSTANCE) {
      SparkFormat.checkHolds(file, kind);
    }
  }
}
