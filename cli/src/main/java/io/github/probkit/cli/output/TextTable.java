package io.github.probkit.cli.output;

import java.io.PrintWriter;
import java.util.Map;
import picocli.CommandLine.Model.CommandSpec;

/** Plain-text rendering of command output. */
public final class TextTable {
  private TextTable() {}

  /**
   * Prints {@code j} to the command's output: one JSON object with --json, else key: value lines.
   */
  public static void print(CommandSpec spec, Json j, boolean json) {
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      out.println(j);
    } else {
      out.print(keyValues(j));
    }
    out.flush();
  }

  /** One {@code key: value} line per field of {@code j}, keys padded to one width. */
  static String keyValues(Json j) {
    int width = 0;
    for (String k : j.fields().keySet()) {
      width = Math.max(width, k.length());
    }
    StringBuilder sb = new StringBuilder();
    for (Map.Entry<String, Object> e : j.fields().entrySet()) {
      sb.append(e.getKey()).append(':').append(" ".repeat(width - e.getKey().length() + 1));
      sb.append(e.getValue()).append('\n');
    }
    return sb.toString();
  }
}
