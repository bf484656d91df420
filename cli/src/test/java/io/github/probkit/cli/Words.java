package io.github.probkit.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Real keys for the tests: the lines of the system dictionary (Debian's wamerican, which .ci/run
 * installs), or, on a machine without one (the README's `mvn -B verify` needs only Java and Maven),
 * as many distinct generated words.
 */
final class Words {
  static final Path DICTIONARY = Path.of("/usr/share/dict/words");

  private Words() {}

  static List<String> lines() throws IOException {
    if (Files.isReadable(DICTIONARY)) {
      return Files.readAllLines(DICTIONARY, StandardCharsets.UTF_8);
    }
    Set<String> words = new LinkedHashSet<>();
    for (long i = 1; words.size() < 120_000; i++) {
      words.add(Long.toString((i * 0x9E3779B97F4A7C15L) >>> 24, 36));
    }
    return new ArrayList<>(words);
  }
}
