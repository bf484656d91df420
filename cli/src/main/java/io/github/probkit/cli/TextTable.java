package io.github.probkit.cli;

import java.util.Map;

/** Plain-text rendering of command output. */
final class TextTable {
  private TextTable() {}

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
