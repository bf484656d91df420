package io.github.probkit.cli;

import picocli.CommandLine.Option;

/**
 * Which part of an input line is the key: the whole line (default) or one field of a delimited
 * line, for TSV and simple CSV (no quoting). Lines without that field are skipped and counted.
 */
final class InputFormat {
  @Option(
      names = "--field",
      paramLabel = "N",
      description = "Use field N (1-based) of each line as the key (default: the whole line).")
  int field;

  @Option(
      names = "--delimiter",
      paramLabel = "C",
      defaultValue = "\\t",
      description = "Field delimiter for --field: one character, or \\t (default).")
  String delimiter;

  byte delimiterByte() {
    String d = "\\t".equals(delimiter) ? "\t" : delimiter;
    if (d.length() != 1 || d.charAt(0) > 0x7f) {
      throw new IllegalArgumentException(
          "--delimiter must be one ASCII character or \\t, was '" + delimiter + "'");
    }
    return (byte) d.charAt(0);
  }

  /** Wraps {@code sink} so that it receives field N of each line; counts lines that lack it. */
  LineReader.LineConsumer select(LineReader.LineConsumer sink, long[] skipped) {
    if (field < 0) {
      throw new IllegalArgumentException("--field must be 1 or more, was " + field);
    }
    if (field == 0) {
      return sink;
    }
    byte d = delimiterByte();
    int want = field;
    return (buf, off, len) -> {
      int end = off + len;
      int start = off;
      int f = 1;
      for (int i = off; i < end && f < want; i++) {
        if (buf[i] == d) {
          f++;
          start = i + 1;
        }
      }
      if (f < want) {
        skipped[0]++;
        return;
      }
      int stop = start;
      while (stop < end && buf[stop] != d) {
        stop++;
      }
      sink.accept(buf, start, stop - start);
    };
  }
}
