package io.github.probkit.cli.command;

import io.github.probkit.cli.input.EventTimes;
import picocli.CommandLine.Option;

/** {@code --time-field} of dedupe and top: each line's own time, for a --window of time. */
final class LineTimeField {
  @Option(names = "--time-field", paramLabel = "F", description = EventTimes.LINE_TIME_FIELD)
  String value;
}
