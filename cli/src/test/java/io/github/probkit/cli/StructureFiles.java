package io.github.probkit.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/** Files a test makes with a structure's own {@code writeTo}, as its library would write them. */
final class StructureFiles {
  private StructureFiles() {}

  /** A structure's {@code writeTo}. */
  interface Content {
    void writeTo(OutputStream out) throws IOException;
  }

  static Path write(Path file, Content c) throws IOException {
    try (OutputStream out = Files.newOutputStream(file)) {
      c.writeTo(out);
    }
    return file;
  }
}
