package io.github.probkit.frequency;

import io.github.probkit.hash.HashStrategy;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The structures behind the frequency golden files, and the one-off writer that created them. The
 * files are checked in and must keep reading forever; the writer only adds files that are missing
 * (for a new structure or format version), never regenerates one:
 * {@code mvn -o test -pl core -Dtest=FrequencyGoldenFiles -Dprobkit.writeGolden=true}.
 */
class FrequencyGoldenFiles {
  static final Path DIR = Path.of("src/test/resources/golden");

  /** Seed 000's count-min stream. */
  static final List<String> SEED_STREAM = List.of(
      "cricket", "rain", "cricket", "train", "rain", "cricket", "exam", "cricket", "gold", "rain",
      "train", "cricket");

  /** Seed 000's 2 x 8 sketch, FNV-1a per-row seeds. */
  static CountMinSketch seedSketch() {
    CountMinSketch s = CountMinSketch.withDimensions(8, 2, HashStrategy.fnv1a());
    SEED_STREAM.forEach(s::add);
    return s;
  }

  /** "item-i" added i + 1 times for i in [0, 100): total 5050. */
  static CountMinSketch xxh3Sketch(boolean conservative) {
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
  static HeavyHitters heavyHitters() {
    HeavyHitters h = HeavyHitters.withCapacity(3);
    for (String[] e : new String[][] {{"a", "5"}, {"b", "3"}, {"c", "2"}, {"d", "1"}}) {
      for (int i = 0; i < Integer.parseInt(e[1]); i++) {
        h.add(e[0]);
      }
    }
    return h;
  }

  @Test
  @EnabledIfSystemProperty(named = "probkit.writeGolden", matches = "true")
  void write() throws IOException {
    Files.createDirectories(DIR);
    write("count-min-v1.bin", seedSketch()::writeTo);
    write("count-min-xxh3-v1.bin", xxh3Sketch(false)::writeTo);
    write("count-min-conservative-v1.bin", xxh3Sketch(true)::writeTo);
    write("heavy-hitters-v1.bin", heavyHitters()::writeTo);
  }

  private interface Writer {
    void writeTo(OutputStream out) throws IOException;
  }

  private static void write(String name, Writer w) throws IOException {
    Path file = DIR.resolve(name);
    if (Files.exists(file)) {
      return;
    }
    try (OutputStream out = Files.newOutputStream(file)) {
      w.writeTo(out);
    }
  }
}
