package io.github.probkit.cli.lab;

import io.github.probkit.cli.output.Json;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A table of results: cells are kept as given (numbers stay numbers in the JSON) and printed with
 * each column's {@link Unit}, or as text.
 */
final class Table {
  final String title;
  final List<String> headers;
  private final Unit[] units;
  final List<Object[]> rows = new ArrayList<>();

  private Table(String title, List<String> headers, Unit[] units) {
    this.title = title;
    this.headers = headers;
    this.units = units;
  }

  /**
   * The title of a table of false-positive rates: {@code what}, then the keys the filters hold and
   * the absent keys each is queried with, as every such table of the lab names them.
   */
  static String fprTitle(String what, long n, long q) {
    return what + ", n = " + Unit.COUNT.format(n) + ", " + Unit.COUNT.format(q) + " absent queries";
  }

  /** A table whose columns are given as header/unit pairs: {@code "bits/key", Unit.NUMBER, ...}. */
  static Table of(String title, Object... headersAndUnits) {
    List<String> h = new ArrayList<>();
    Unit[] u = new Unit[headersAndUnits.length / 2];
    for (int i = 0; i < headersAndUnits.length; i += 2) {
      h.add((String) headersAndUnits[i]);
      u[i / 2] = (Unit) headersAndUnits[i + 1];
    }
    return new Table(title, h, u);
  }

  Table row(Object... cells) {
    if (cells.length != headers.size()) {
      throw new IllegalStateException(
          "row of " + cells.length + " cells in a table of " + headers.size() + " columns");
    }
    rows.add(cells.clone());
    return this;
  }

  /** The printed form of a cell: numbers through the column's unit, anything else as text. */
  String cell(int row, int column) {
    Object v = rows.get(row)[column];
    if (v instanceof Number) {
      return units[column].format(((Number) v).doubleValue());
    }
    return String.valueOf(v);
  }

  /** Aligned plain text: numbers right-aligned, text left-aligned. */
  String text() {
    int[] w = new int[headers.size()];
    for (int c = 0; c < w.length; c++) {
      w[c] = headers.get(c).length();
      for (int r = 0; r < rows.size(); r++) {
        w[c] = Math.max(w[c], cell(r, c).length());
      }
    }
    StringBuilder sb = new StringBuilder();
    sb.append(title).append('\n');
    line(sb, headers.toArray(new String[0]), w, null);
    String[] rule = new String[w.length];
    for (int c = 0; c < w.length; c++) {
      rule[c] = "-".repeat(w[c]);
    }
    line(sb, rule, w, null);
    for (int r = 0; r < rows.size(); r++) {
      String[] cells = new String[w.length];
      for (int c = 0; c < w.length; c++) {
        cells[c] = cell(r, c);
      }
      line(sb, cells, w, rows.get(r));
    }
    return sb.toString();
  }

  private static void line(StringBuilder sb, String[] cells, int[] w, Object[] raw) {
    sb.append("  ");
    for (int c = 0; c < cells.length; c++) {
      boolean right = raw != null && raw[c] instanceof Number;
      String pad = " ".repeat(w[c] - cells[c].length());
      sb.append(right ? pad + cells[c] : cells[c] + pad);
      sb.append(c + 1 < cells.length ? "  " : "");
    }
    int end = sb.length();
    while (end > 0 && sb.charAt(end - 1) == ' ') {
      end--;
    }
    sb.setLength(end);
    sb.append('\n');
  }

  Json json() {
    List<Object> out = new ArrayList<>();
    for (Object[] r : rows) {
      out.add(Arrays.asList(r));
    }
    return new Json().put("title", title).put("columns", headers).put("rows", out);
  }
}
