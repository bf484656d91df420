package io.github.probkit.cli.input;

import io.github.probkit.cli.output.CliException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.OffsetDateTime;
import java.util.Arrays;
import java.util.List;

/**
 * The time of each line, read from its field {@code --time-field}; lines are numbered as they come,
 * headers included, across the inputs.
 */
public final class EventTimes {
  /** The help of {@code --time-field} where a time --window reads the time of whole lines. */
  public static final String LINE_TIME_FIELD =
      "With a time --window, the time of each line is in its field F (from 1, or a --header"
          + " name; tsv or csv): ISO-8601 with an offset, or epoch seconds or milliseconds."
          + " Default: the clock when the line is read.";

  /** Below this an epoch number is in seconds (to the year 5138), from it in ms (from 1973). */
  static final long MILLIS_FROM = 100_000_000_000L;

  private final String option;
  private final InputFormat names;
  private final boolean csv;
  private final char delimiter;
  private final String unit;
  private int field;
  private long line;

  public EventTimes(String option, InputFormat format) {
    this.option = option;
    // The same lookup as --field's, by number or header name.
    names = new InputFormat();
    names.field = option;
    names.format = format.csv() ? "csv" : null;
    names.delimiter = format.delimiter;
    names.header = format.header;
    names.check();
    csv = format.csv();
    delimiter = format.delimiterChar();
    unit = csv ? "record " : "line ";
    field = format.header ? -1 : names.fieldIndex(null, "-");
  }

  /** Passes each header on, after taking the field's number from it. */
  public LineReader.LineConsumer headerThen(LineReader.LineConsumer next) {
    return (buf, off, len) -> {
      line++;
      List<String> h =
          csv
              ? CsvInput.fields(buf, off, len, delimiter)
              : names.split(Arrays.copyOfRange(buf, off, off + len));
      field = names.fieldIndex(h, "the header, " + unit + line);
      next.accept(buf, off, len);
    };
  }

  /** The time, in ms since the epoch, in the field of this line. */
  public long of(byte[] buf, int off, int len) {
    line++;
    String text;
    if (csv) {
      List<String> fs = CsvInput.fields(buf, off, len, delimiter);
      text =
          field > fs.size()
              ? null
              : new String(
                  fs.get(field - 1).getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8);
    } else {
      int end = off + LineReader.withoutCr(buf, off, len);
      int start = off;
      int f = 1;
      for (int i = off; i < end && f < field; i++) {
        if (buf[i] == delimiter) {
          f++;
          start = i + 1;
        }
      }
      int stop = start;
      while (stop < end && buf[stop] != delimiter) {
        stop++;
      }
      // Epoch numbers, the common case, without making a String of each.
      long digits = 0;
      int i = start;
      while (i < stop && i - start < 18 && buf[i] >= '0' && buf[i] <= '9') {
        digits = 10 * digits + (buf[i++] - '0');
      }
      if (i == stop && i > start) {
        return epochMillis(digits);
      }
      text = f < field ? null : new String(buf, start, stop - start, StandardCharsets.UTF_8);
    }
    Long t = text == null ? null : parse(text.strip());
    if (t == null) {
      throw new CliException(
          unit
              + line
              + ": "
              + (text == null
                  ? "no field " + option + " (--time-field)"
                  : "'"
                      + text.strip()
                      + "' in --time-field "
                      + option
                      + " is not a time (ISO-8601 with an offset, or epoch seconds or ms)"));
    }
    return t;
  }

  /** As {@link #parse}, for a whole number that is not negative. */
  static long epochMillis(long n) {
    return n < MILLIS_FROM ? n * 1000 : n;
  }

  /** ms since the epoch, or null when {@code text} is not a time. */
  public static Long parse(String text) {
    if (text.isEmpty()) {
      return null;
    }
    char c = text.charAt(0);
    if (text.length() > 10 && text.indexOf('-', 1) > 0 && text.indexOf(':') > 0) {
      try {
        return OffsetDateTime.parse(text).toInstant().toEpochMilli();
      } catch (DateTimeException e) {
        return null;
      }
    }
    if (!(c == '-' || (c >= '0' && c <= '9'))) {
      return null;
    }
    try {
      BigDecimal n = new BigDecimal(text);
      if (n.abs().compareTo(BigDecimal.valueOf(MILLIS_FROM)) < 0) {
        return n.movePointRight(3).setScale(0, RoundingMode.FLOOR).longValueExact();
      }
      return n.longValueExact();
    } catch (NumberFormatException | ArithmeticException e) {
      return null;
    }
  }
}
