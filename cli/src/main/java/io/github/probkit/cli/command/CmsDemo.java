package io.github.probkit.cli.command;

import io.github.probkit.frequency.CountMinSketch;
import io.github.probkit.hash.HashStrategy;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Seed 000's count-min walkthrough: 2 rows of 8 counters with the FNV-1a per-row seeds, a stream of
 * twelve search terms. Prints the seed's eight lines byte for byte.
 */
final class CmsDemo {
  static final List<String> STREAM =
      List.of(
          "cricket", "rain", "cricket", "train", "rain", "cricket", "exam", "cricket", "gold",
          "rain", "train", "cricket");

  private CmsDemo() {}

  static void run(PrintWriter out) {
    CountMinSketch sketch = CountMinSketch.withDimensions(8, 2, HashStrategy.fnv1a());
    Map<String, Long> exact = new TreeMap<>();
    for (String term : STREAM) {
      sketch.add(term);
      exact.merge(term, 1L, Long::sum);
    }
    for (int r = 0; r < sketch.depth(); r++) {
      long[] row = new long[sketch.width()];
      for (int c = 0; c < row.length; c++) {
        row[c] = sketch.counter(r, c);
      }
      out.println("row " + r + ": " + BloomDemo.list(row));
    }
    // The seed's order: most frequent first, ties alphabetical.
    List<String> terms = new ArrayList<>(exact.keySet());
    terms.sort(Comparator.comparing((String t) -> -exact.get(t)).thenComparing(t -> t));
    for (String term : terms) {
      out.println(
          String.format(
              Locale.ROOT,
              "%7s: exact %d, estimate %d",
              term,
              exact.get(term),
              sketch.estimate(term)));
    }
    out.println("never seen 'chess': estimate " + sketch.estimate("chess"));
  }
}
