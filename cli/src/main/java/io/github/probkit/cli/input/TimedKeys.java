package io.github.probkit.cli.input;

import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;

/**
 * The keys of a command that adds to a window of time, each with its event time: the clock's when
 * it is read, or with {@code --time-field} ({@link KeyOptions#timeField}) the time in that field of
 * its line, read as {@code dedupe --time-field} reads it.
 */
public final class TimedKeys {
  private TimedKeys() {}

  /** Takes a key and its time in ms since the epoch. */
  @FunctionalInterface
  public interface Sink {
    void accept(byte[] key, int off, int len, long timeMillis) throws IOException;
  }

  /**
   * The times of the lines of {@code from} in its field {@code --time-field}, which needs the keys
   * in lines (not as the arguments {@code keys}) and their field.
   */
  public static EventTimes times(List<String> keys, KeyOptions from) {
    if (!keys.isEmpty()) {
      throw new IllegalArgumentException(
          "--time-field reads each key's time from its line: give the lines in files (--keys,"
              + " --items) or on stdin, not as arguments");
    }
    if (from.format.field == null) {
      throw new IllegalArgumentException(
          "--time-field needs --field F, the field of each line that is the key");
    }
    return new EventTimes(from.timeField, from.format);
  }

  /**
   * Feeds every key of {@code from} (and the arguments {@code keys}) with its time to {@code sink}.
   */
  public static long forEach(List<String> keys, KeyOptions from, CommandSpec spec, Sink sink)
      throws IOException {
    if (from.timeField == null) {
      return from.forEach(
          keys,
          spec,
          Inputs.KeySink.inOrder(
              (b, off, len) -> sink.accept(b, off, len, System.currentTimeMillis())));
    }
    EventTimes times = times(keys, from);
    return from.forEach(
        keys,
        spec,
        Inputs.KeySink.answering(
            (line, off, len, key, keyOff, keyLen) ->
                sink.accept(key, keyOff, keyLen, times.of(line, off, len)),
            times.headerThen((b, o, n) -> {}),
            OutputStream.nullOutputStream()));
  }
}
