package io.github.probkit.cli.command;

import io.github.probkit.cli.location.Location;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** {@code --last} and {@code --at} of the commands that read a windowed sketch over a window. */
final class LastWindow {
  @Option(
      names = "--last",
      paramLabel = "T",
      description =
          "A sketch with a window: over the last T of it (30s, 15m, 1h, 7d; default: the whole"
              + " window).")
  String last;

  @Option(
      names = "--at",
      paramLabel = "TIME",
      description =
          "A sketch with a window: the window ends at TIME (ISO-8601 with an offset, or epoch"
              + " seconds or ms; default: now).")
  String at;

  /** Whether either was given. */
  boolean given() {
    return last != null || at != null;
  }

  /** The option given, as a refusal names it. */
  String option() {
    return last != null ? "--last" : "--at";
  }

  /**
   * The window asked of {@code file}; a --last longer than its window is refused, naming {@code
   * made}, the command that made it.
   */
  Location.Window of(Path file, String made) {
    long end = at == null ? System.currentTimeMillis() : WindowFilter.at(at);
    return new Location.Window(window -> WindowHll.lastSpan(last, window, file, made), end);
  }
}
