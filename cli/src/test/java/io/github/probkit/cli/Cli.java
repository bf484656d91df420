package io.github.probkit.cli;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine;

/** Runs probkit commands in-process with captured output and a given stdin. */
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
    return runWithStdin("", args);
  }

  /** Runs with {@code stdin} as standard input (System.in is restored afterwards). */
  static Cli runWithStdin(String stdin, String... args) {
    return runWithStdin(stdin.getBytes(StandardCharsets.UTF_8), args);
  }

  static synchronized Cli runWithStdin(byte[] stdin, String... args) {
    InputStream saved = System.in;
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    try {
      System.setIn(new ByteArrayInputStream(stdin));
      CommandLine cl = Main.commandLine();
      cl.setOut(new PrintWriter(out, true));
      cl.setErr(new PrintWriter(err, true));
      int exit = cl.execute(args);
      return new Cli(exit, out.toString(), err.toString());
    } finally {
      System.setIn(saved);
    }
  }

  @Override
  public String toString() {
    return "exit " + exit + "\n--- out\n" + out + "--- err\n" + err;
  }
}
