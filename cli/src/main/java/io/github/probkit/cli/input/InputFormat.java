package io.github.probkit.cli.input;

import io.github.probkit.cli.output.CliException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * Which part of an input line is the key: the whole line (default), or one field of a TSV line
 * (split at a delimiter, no quoting) or of a CSV record (RFC 4180, through commons-csv: quoted
 * fields may hold delimiters, quotes and newlines). With a header, the first line of each input
 * names the fields. Lines without the chosen field are skipped and counted (or, for the commands
 * that ask, have the empty key).
 */
public final class InputFormat {
  @Option(
      names = "--format",
      paramLabel = "FORMAT",
      completionCandidates = Formats.class,
      description =
          "How the key sits in each line: lines (the whole line; the default), tsv (--field of"
              + " lines split at --delimiter, no quoting; the default with --field) or csv (RFC 4180: quoted"
              + " fields may hold delimiters, quotes and newlines).")
  public String format;

  @Option(
      names = "--field",
      paramLabel = "F",
      description =
          "Use field F of each line as the key: its number, counting from 1, or with --header its"
              + " name (default: the whole line).")
  public String field;

  @Option(
      names = "--delimiter",
      paramLabel = "C",
      description = "Field delimiter: one ASCII character, or \\t (default: tab; for csv, comma).")
  public String delimiter;

  @Option(
      names = "--header",
      description =
          "The first line of each input is a header: not a key, and the names for --field NAME."
              + " Commands that print input lines print it first.")
  public boolean header;

  /**
   * Whether a line without the --field has the empty key, as awk's {@code $F} is empty there,
   * rather than being skipped and counted; for commands that answer every line.
   */
  public boolean missingFieldIsEmpty;

  static final class Formats extends ArrayList<String> {
    private static final long serialVersionUID = 1L;

    Formats() {
      super(List.of("lines", "tsv", "csv"));
    }
  }

  /** Whether records are CSV, read by commons-csv rather than split into lines. */
  public boolean csv() {
    return "csv".equals(check());
  }

  /**
   * The format the options give (lines, tsv or csv), after checking them all: commands call it
   * before they open any input, so that a bad option fails before work starts.
   */
  public String check() {
    String f = format == null ? (field == null ? "lines" : "tsv") : format;
    if (!f.equals("lines") && !f.equals("tsv") && !f.equals("csv")) {
      throw new IllegalArgumentException(
          "--format must be lines, tsv or csv, was '" + format + "'");
    }
    if (f.equals("lines") && field != null) {
      throw new IllegalArgumentException(
          "--field picks a field of tsv or csv input, not of --format lines");
    }
    if (field != null) {
      if (field.isEmpty()) {
        throw new IllegalArgumentException(
            "--field must be a field number (from 1) or name, was ''");
      }
      if (isNumber(field)) {
        if (number() < 1) {
          throw new IllegalArgumentException(
              "--field counts from 1 (without --field the key is the whole line),"
                  + " was "
                  + field);
        }
      } else if (!header) {
        throw new IllegalArgumentException(
            "--field "
                + field
                + " names a field: add --header, whose first line"
                + " has the names (or give the field's number, from 1)");
      }
    }
    if (delimiter != null) {
      delimiterChar();
    }
    return f;
  }

  private static boolean isNumber(String s) {
    for (int i = s.startsWith("-") && s.length() > 1 ? 1 : 0; i < s.length(); i++) {
      if (s.charAt(i) < '0' || s.charAt(i) > '9') {
        return false;
      }
    }
    return true;
  }

  private int number() {
    try {
      return Integer.parseInt(field);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--field " + field + " is too large");
    }
  }

  public char delimiterChar() {
    String d =
        delimiter == null ? (csv() ? "," : "\t") : "\\t".equals(delimiter) ? "\t" : delimiter;
    if (d.length() != 1
        || d.charAt(0) > 0x7f
        || d.charAt(0) == '\n'
        || d.charAt(0) == '\r'
        || d.charAt(0) == '"') {
      throw new IllegalArgumentException(
          "--delimiter must be one ASCII character other than a newline or quote, or \\t; was '"
              + delimiter
              + "'");
    }
    return d.charAt(0);
  }

  /**
   * The field that holds the key, from 1; 0 for the whole line. {@code names} are the header's
   * fields (as bytes in ISO-8859-1 chars), needed when --field is a name; {@code input} is named in
   * the error when it lacks that field.
   */
  public int fieldIndex(List<String> names, String input) {
    if (field == null) {
      return 0;
    }
    if (isNumber(field)) {
      return number();
    }
    String want = new String(Args.bytes(field), StandardCharsets.ISO_8859_1);
    int i = names == null ? -1 : names.indexOf(want);
    if (i < 0) {
      throw new CliException(
          input
              + ": no field named '"
              + field
              + "' in its header"
              + (names == null ? " (it is empty)" : " (" + shownNames(names) + ")"));
    }
    return i + 1;
  }

  private static String shownNames(List<String> names) {
    StringBuilder b = new StringBuilder();
    for (String n : names) {
      String s = new String(n.getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8);
      if (b.length() + s.length() > 60) {
        return b.append(", ...").toString();
      }
      b.append(b.length() == 0 ? "" : ", ").append(s);
    }
    return b.toString();
  }

  /** The fields of a tsv header line (a CRLF line's '\r' left out), for {@link #fieldIndex}. */
  public List<String> split(byte[] line) {
    List<String> names = new ArrayList<>();
    byte d = (byte) delimiterChar();
    int start = 0;
    int len = LineReader.withoutCr(line, 0, line.length);
    for (int i = 0; i <= len; i++) {
      if (i == len || line[i] == d) {
        names.add(new String(line, start, i - start, StandardCharsets.ISO_8859_1));
        start = i + 1;
      }
    }
    return names;
  }

  /**
   * Wraps {@code sink} so that it receives each line, as it came, with field {@code field} (from 1;
   * 0 for the whole line) as its key; a '\r' ending the line is not part of the key. A line that
   * lacks the field is counted in {@code skipped}, or, when {@link #missingFieldIsEmpty}, has the
   * empty key. For lines and tsv.
   */
  LineReader.LineConsumer select(int field, LineReader.RecordConsumer sink, long[] skipped) {
    if (field == 0) {
      return (buf, off, len) ->
          sink.accept(buf, off, len, buf, off, LineReader.withoutCr(buf, off, len));
    }
    byte d = (byte) delimiterChar();
    boolean empty = missingFieldIsEmpty;
    return (buf, off, len) -> {
      int end = off + LineReader.withoutCr(buf, off, len);
      int start = off;
      int f = 1;
      for (int i = off; i < end && f < field; i++) {
        if (buf[i] == d) {
          f++;
          start = i + 1;
        }
      }
      if (f < field) {
        if (empty) {
          sink.accept(buf, off, len, buf, end, 0);
        } else {
          skipped[0]++;
        }
        return;
      }
      int stop = start;
      while (stop < end && buf[stop] != d) {
        stop++;
      }
      sink.accept(buf, off, len, buf, start, stop - start);
    };
  }
}
