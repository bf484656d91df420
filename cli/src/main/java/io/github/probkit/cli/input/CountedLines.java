package io.github.probkit.cli.input;

import io.github.probkit.cli.output.CliException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** The {@code ITEM<TAB>COUNT} lines of {@code cms add --counts}. */
public final class CountedLines {
  private CountedLines() {}

  /**
   * An item of a --counts line ({@code len} bytes of {@code buf} from {@code off}) and its count.
   */
  public interface CountedItem {
    void accept(byte[] buf, int off, int len, long count) throws IOException;
  }

  /**
   * Splits each {@code ITEM<TAB>COUNT} line for {@code sink}; a malformed line is an error naming
   * it.
   */
  public static LineReader.LineConsumer counted(CountedItem sink) {
    long[] line = {0};
    return (buf, off, len) -> {
      line[0]++;
      int tab = lastTab(buf, off, len);
      if (tab < 0) {
        throw new CliException(
            "--counts: item " + line[0] + " has no tab: expected ITEM<TAB>COUNT");
      }
      sink.accept(buf, off, tab - off, parseCount(buf, tab + 1, off + len, line[0]));
    };
  }

  static int lastTab(byte[] buf, int off, int len) {
    for (int i = off + len - 1; i >= off; i--) {
      if (buf[i] == '\t') {
        return i;
      }
    }
    return -1;
  }

  /**
   * The decimal count in {@code buf[from, to)}, refusing anything but 1 to 19 digits within a long.
   */
  static long parseCount(byte[] buf, int from, int to, long line) {
    long v = 0;
    boolean ok = to > from;
    for (int i = from; i < to && ok; i++) {
      int digit = buf[i] - '0';
      ok = digit >= 0 && digit <= 9 && v <= (Long.MAX_VALUE - digit) / 10;
      v = v * 10 + digit;
    }
    if (!ok) {
      throw new CliException(
          "--counts: item "
              + line
              + " has count '"
              + shown(buf, from, to)
              + "', must be an integer in [0, "
              + Long.MAX_VALUE
              + "]");
    }
    return v;
  }

  /**
   * Input bytes as they may appear in a one-line error: at most 40 characters, control characters
   * as '?', so that a binary or enormous field cannot flood or garble the terminal.
   */
  static String shown(byte[] buf, int from, int to) {
    String s = new String(buf, from, Math.min(to - from, 160), StandardCharsets.UTF_8);
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < s.length() && b.length() < 40; i++) {
      char c = s.charAt(i);
      b.append(Character.isISOControl(c) ? '?' : c);
    }
    return b.length() < s.length() || to - from > 160 ? b + "..." : b.toString();
  }
}
