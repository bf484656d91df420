package io.github.probkit.cli.input;

import java.io.OutputStream;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * The standard input and output of a command line, held by its root command (the entry point sets
 * them; tests replace them). Here, below the commands, so that a command or {@link KeyOptions}
 * reaches them through its spec without knowing the root command's class.
 */
public interface StandardStreams {
  /** Standard input for commands that read keys, and what it is. */
  Inputs.Stdin stdin();

  /** Standard output as bytes, beneath the command line's PrintWriter. */
  OutputStream stdout();

  /** The standard input of the command line {@code spec} belongs to. */
  static Inputs.Stdin stdin(CommandSpec spec) {
    return root(spec.commandLine()).stdin();
  }

  /**
   * Whether that standard input is a terminal, which commands read only when told to ({@code --keys
   * -}).
   */
  static boolean stdinIsTerminal(CommandSpec spec) {
    return stdin(spec).terminal();
  }

  /**
   * The standard output of the command line {@code spec} belongs to, as bytes: for keys, which are
   * written as they came. Its PrintWriter writes into the same stream: flush one before the other.
   */
  static OutputStream stdout(CommandSpec spec) {
    return root(spec.commandLine()).stdout();
  }

  private static StandardStreams root(CommandLine cl) {
    while (cl.getParent() != null) {
      cl = cl.getParent();
    }
    return (StandardStreams) cl.getCommand();
  }
}
