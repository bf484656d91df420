package io.github.probkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;

/** Runs probkit commands in-process with captured output, as a test sees them. */
final class Cli {
  final int exit;
  final String out;
  final String err;

  private Cli(int exit, String out, String err) {
    this.exit = exit;
    this.out = out;
    this.err = err;
  }

  static Cli run(String... args) {
    return runWithInput("", args);
  }

  /** Runs {@code args}, failing the test unless they exit 0. */
  static Cli ok(String... args) {
    Cli c = run(args);
    assertThat(c.exit).as(c.toString()).isZero();
    return c;
  }

  static Cli runWithInput(String stdin, String... args) {
    return runWithInput(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)), args);
  }

  /** Runs {@code args} as if standard input were a terminal (nothing read from it unasked). */
  static Cli runAtTerminal(String... args) {
    return run(new ByteArrayInputStream(new byte[0]), true, args);
  }

  static Cli runWithInput(InputStream stdin, String... args) {
    return run(stdin, false, args);
  }

  private static Cli run(InputStream stdin, boolean terminal, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    StringWriter err = new StringWriter();
    int code = Main.run(stdin, terminal, out, new PrintWriter(err, true), args);
    return new Cli(code, out.toString(StandardCharsets.UTF_8), err.toString());
  }

  @Override
  public String toString() {
    return "exit " + exit + "\n--- out\n" + out + "--- err\n" + err;
  }
}
