package io.github.probkit.cli;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** A test class whose command lines name files in a fresh folder per test. */
abstract class InTempDir {
  @TempDir Path dir;

  /** The path of {@code name} in the test's folder, as a command line names it. */
  String f(String name) {
    return dir.resolve(name).toString();
  }
}
