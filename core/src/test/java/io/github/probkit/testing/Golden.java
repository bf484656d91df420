package io.github.probkit.testing;

import io.github.probkit.filter.MembershipFilter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Golden files under {@code src/test/resources/golden/}: generated once, checked in, and read by the
 * tests forever after. To (re)generate, run the test class with {@code -Dprobkit.writeGolden=true};
 * only do so for a new format version, never to make a failing test pass.
 */
public final class Golden {
  public static final String PROPERTY = "probkit.writeGolden";

  private Golden() {}

  public static InputStream open(String name) throws IOException {
    InputStream in = Golden.class.getResourceAsStream("/golden/" + name);
    if (in == null) {
      throw new IOException("golden file " + name + " is missing (generate it with -D" + PROPERTY + "=true)");
    }
    return in;
  }

  /** Writes {@code f} as the golden file {@code name} in the source tree (the module directory is the working directory). */
  public static void write(String name, MembershipFilter f) throws IOException {
    Path p = Path.of("src/test/resources/golden", name);
    Files.createDirectories(p.getParent());
    try (OutputStream out = Files.newOutputStream(p)) {
      f.writeTo(out);
    }
  }
}
