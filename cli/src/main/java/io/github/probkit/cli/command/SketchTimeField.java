package io.github.probkit.cli.command;

import io.github.probkit.cli.input.KeyOptions;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * {@code --time-field} of cms and hll create and add: a sketch with a window takes each item at the
 * time on its line. Both families refuse it, and {@code --slice}, the same way where no window is.
 */
final class SketchTimeField {
  @Option(
      names = "--time-field",
      paramLabel = "F",
      description =
          "A sketch with a window: add each item at the time in field F of its line (from 1, or a"
              + " --header name; tsv or csv; --field names the item): ISO-8601 with an offset, or"
              + " epoch seconds or milliseconds. Default: the clock's time.")
  String value;

  /** At create: --slice and --time-field mean nothing without a --window. */
  void refuseWithoutWindow(String window, String slice) {
    if (window == null && (slice != null || value != null)) {
      throw new IllegalArgumentException(
          (slice != null ? "--slice" : "--time-field") + " is for a sketch with a --window");
    }
  }

  /** At add: {@code file} of {@code family} has no window, so no item has a time to be added at. */
  void refuseWithoutWindow(Path file, String family) {
    if (value != null) {
      throw new IllegalArgumentException(
          "--time-field is for a sketch with a window ("
              + family
              + " create --window); "
              + file
              + " has none");
    }
  }

  /** The items of {@code from} (none: null) are read with their times from the field given. */
  void applyTo(KeyOptions from) {
    if (from != null) {
      from.timeField = value;
    }
  }
}
