package io.github.probkit.cli.command;

import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * {@code --max-skew} of the commands that create a window: how far apart the clocks of the writers
 * sharing a window in Redis may be (probkit-redis's {@code RedisOptions.maxSkew}). A file has one
 * writer at a time and refuses it.
 */
final class MaxSkew {
  @Option(
      names = "--max-skew",
      paramLabel = "D",
      description =
          "A window kept in Redis: its writers' clocks may be up to D apart (1s, 30s, 10m; default"
              + " 1s). It keeps ceil(D / slice) more slices, so that a reader whose clock is behind"
              + " still finds what a writer whose clock is ahead added within the window.")
  String value;

  /** The skew asked for; null when not given. */
  Duration of(String window) {
    if (value == null) {
      return null;
    }
    if (window == null) {
      throw new IllegalArgumentException("--max-skew is for a window of time (--window)");
    }
    return DedupeCommand.SlidingWindow.time("--max-skew", value);
  }
}
