package io.github.probkit.cli;

import io.github.probkit.cli.lab.LabCommand;
import java.io.InputStream;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/** {@code probkit}: the top-level command. */
@Command(
    name = "probkit",
    mixinStandardHelpOptions = true,
    versionProvider = ProbkitCommand.Version.class,
    description = {
      "Probabilistic data structures at the shell, in fixed memory with a chosen error.",
      "",
      "Bloom and related filters (is this key in the set?), count-min sketches",
      "and heavy hitters (how often?), HyperLogLog (how many distinct?).",
    },
    footer = {
      "",
      "Examples:",
      "  probkit demo",
      "  probkit filter create users.bin --expected 1000000 --fpp 0.01 --keys users.txt",
      "  probkit filter query users.bin alice bob",
      "  probkit cms create terms.cms --epsilon 0.001 --delta 0.01",
      "  probkit top -k 20 access.log",
      "  probkit distinct access.log",
      "  probkit lab all --quick",
      "",
      "Exit codes: 0 success, 1 runtime error (missing or corrupt file), 2 usage error.",
    },
    subcommands = {
      DemoCommand.class,
      FilterCommand.class,
      CmsCommand.class,
      TopCommand.class,
      DistinctCommand.class,
      HllCommand.class,
      LabCommand.class,
      CommandLine.HelpCommand.class,
      AutoComplete.GenerateCompletion.class,
    })
public final class ProbkitCommand implements Runnable {
  @Spec CommandSpec spec;

  @Option(
      names = "--verbose",
      scope = ScopeType.INHERIT,
      description = "On an error, print the stack trace too.")
  boolean verbose;

  /** Standard input for commands that read keys; tests replace it. */
  InputStream stdin = System.in;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** The standard input of the command line {@code spec} belongs to. */
  static InputStream stdin(CommandSpec spec) {
    return root(spec.commandLine()).stdin;
  }

  private static ProbkitCommand root(CommandLine cl) {
    while (cl.getParent() != null) {
      cl = cl.getParent();
    }
    return (ProbkitCommand) cl.getCommand();
  }

  /** Whether --verbose was given anywhere on the command line that {@code cl} belongs to. */
  static boolean verbose(CommandLine cl) {
    return root(cl).verbose
        || cl.getParseResult() != null && cl.getParseResult().hasMatchedOption("--verbose");
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = ProbkitCommand.class.getPackage().getImplementationVersion();
      return new String[] {"probkit " + (v == null ? "development build" : v)};
    }
  }
}
