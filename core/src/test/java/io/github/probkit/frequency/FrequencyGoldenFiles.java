package io.github.probkit.frequency;

import io.github.probkit.hash.HashStrategy;
import java.util.List;

/**
 * The structures behind the frequency golden files, which {@link io.github.probkit.GoldenFiles}
 * wrote once; the tests check the files against facts about these structures known independently
 * (the seed's counters, counts worked by hand).
 */
public final class FrequencyGoldenFiles {
  private FrequencyGoldenFiles() {}

  /** Seed 000's count-min stream. */
  public static final List<String> SEED_STREAM =
      List.of(
          "cricket", "rain", "cricket", "train", "rain", "cricket", "exam", "cricket", "gold",
          "rain", "train", "cricket");

  /** Seed 000's 2 x 8 sketch, FNV-1a per-row seeds. */
  public static CountMinSketch seedSketch() {
    CountMinSketch s = CountMinSketch.withDimensions(8, 2, HashStrategy.fnv1a());
    SEED_STREAM.forEach(s::add);
    return s;
  }

  /** "item-i" added i + 1 times for i in [0, 100): total 5050. */
  public static CountMinSketch xxh3Sketch(boolean conservative) {
    CountMinSketch s = CountMinSketch.withDimensions(64, 3);
    if (conservative) {
      s = s.withConservativeUpdate();
    }
    for (int i = 0; i < 100; i++) {
      s.add("item-" + i, i + 1);
    }
    return s;
  }

  /** Capacity 3; a x5, b x3, c x2, d x1: d replaces c (count 2 + 1 = 3, error 2). */
  public static HeavyHitters heavyHitters() {
    HeavyHitters h = HeavyHitters.withCapacity(3);
    for (String[] e : new String[][] {{"a", "5"}, {"b", "3"}, {"c", "2"}, {"d", "1"}}) {
      for (int i = 0; i < Integer.parseInt(e[1]); i++) {
        h.add(e[0]);
      }
    }
    return h;
  }
}
