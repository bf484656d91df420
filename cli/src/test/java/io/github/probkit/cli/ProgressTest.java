package io.github.probkit.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.cli.input.Inputs;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The progress bar, forced on as the launcher turns it on when stderr is a terminal: drawn while
 * standard input is a file, never while it is a terminal someone types keys in.
 */
class ProgressTest {
  @TempDir Path dir;

  /**
   * What the progress bar wrote to stderr while {@code filter add} read two keys from standard
   * input.
   */
  private String barWhileReading(Inputs.Stdin stdin) {
    String f = dir.resolve("f.bin").toString();
    Cli.run("filter", "create", f, "--expected", "100", "--force");
    PrintStream saved = System.err;
    String before = System.getProperty("probkit.progress");
    ByteArrayOutputStream bar = new ByteArrayOutputStream();
    System.setProperty("probkit.progress", "true");
    System.setErr(new PrintStream(bar, true, UTF_8));
    try {
      int exit =
          Main.run(
              stdin,
              new ByteArrayOutputStream(),
              new PrintWriter(new StringWriter()),
              "filter",
              "add",
              f,
              "--keys",
              "-");
      assertThat(exit).isZero();
    } finally {
      System.setErr(saved);
      if (before == null) {
        System.clearProperty("probkit.progress");
      } else {
        System.setProperty("probkit.progress", before);
      }
    }
    return bar.toString(UTF_8);
  }

  @Test
  void noBarOverATerminalBeingTypedIn() {
    byte[] keys = "alice\nbob\n".getBytes(UTF_8);
    assertThat(barWhileReading(Inputs.Stdin.file(new ByteArrayInputStream(keys))))
        .as("the control: a bar for input from a file")
        .contains("<stdin>");
    assertThat(barWhileReading(new Inputs.Stdin(new ByteArrayInputStream(keys), true, true)))
        .isEmpty();
  }
}
