package io.github.probkit.cli;

import io.github.probkit.cli.lab.LabCommand;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.LinkedHashMap;
import java.util.Map;
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
      "Numbers may be written 1000000, 1_000_000, 1e6 or 1M (k, M, G, T), rates 0.01 or 1%%.",
    },
    footer = {
      "",
      "Examples:",
      "  probkit demo",
      "  probkit filter create users.bin --expected 1000000 --fpp 0.01 --keys users.txt",
      "  probkit filter query users.bin alice bob",
      "  probkit filter query seen.bin --absent --field 2 < log.tsv",
      "  probkit cms create terms.cms --epsilon 0.001 --delta 0.01",
      "  probkit top -k 20 access.log",
      "  probkit distinct access.log",
      "  probkit dedupe urls.txt > unique.txt",
      "  probkit lab all --quick",
      "",
      "Exit codes: 0 success, 1 runtime error (missing or corrupt file, full disk),",
      "2 usage error, 141 output pipe closed, 129/130/143 stopped by SIGHUP/SIGINT/SIGTERM.",
    })
public final class ProbkitCommand implements Runnable {
  /**
   * The subcommands, in the order help lists them. They are registered by {@link #addSubcommands}
   * rather than by the annotation: picocli reflects over every command it is given, which took
   * about 0.2 s of a 0.3 s start, while a run needs only the one it names.
   */
  private static final Map<String, Class<?>> SUBCOMMANDS = new LinkedHashMap<>();

  static {
    SUBCOMMANDS.put("demo", DemoCommand.class);
    SUBCOMMANDS.put("filter", FilterCommand.class);
    SUBCOMMANDS.put("cms", CmsCommand.class);
    SUBCOMMANDS.put("top", TopCommand.class);
    SUBCOMMANDS.put("distinct", DistinctCommand.class);
    SUBCOMMANDS.put("dedupe", DedupeCommand.class);
    SUBCOMMANDS.put("hll", HllCommand.class);
    SUBCOMMANDS.put("export", TransferCommands.Export.class);
    SUBCOMMANDS.put("import", TransferCommands.Import.class);
    SUBCOMMANDS.put("lab", LabCommand.class);
    SUBCOMMANDS.put("help", HelpCommand.class);
    SUBCOMMANDS.put("generate-completion", AutoComplete.GenerateCompletion.class);
  }

  /**
   * Registers the subcommand that {@code args} name (its first argument that is not an option),
   * or all of them when it names none, or {@code help} and {@code generate-completion}, which
   * describe the others.
   */
  static void addSubcommands(CommandLine cl, String... args) {
    String named = null;
    for (String a : args) {
      if (!a.startsWith("-")) {
        named = a;
        break;
      }
    }
    if (named != null && SUBCOMMANDS.containsKey(named)
        && !named.equals("help") && !named.equals("generate-completion")) {
      cl.addSubcommand(named, SUBCOMMANDS.get(named));
      return;
    }
    SUBCOMMANDS.forEach(cl::addSubcommand);
  }

  @Spec CommandSpec spec;

  @Option(
      names = "--verbose",
      scope = ScopeType.INHERIT,
      description = "On an error, print the stack trace too.")
  boolean verbose;

  /** Standard input for commands that read keys, and what it is; tests replace it. */
  Inputs.Stdin stdin = Inputs.Stdin.file(InputStream.nullInputStream());
  /** Standard output as bytes, beneath the command line's PrintWriter; tests replace it. */
  OutputStream stdout;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** The standard input of the command line {@code spec} belongs to. */
  static Inputs.Stdin stdin(CommandSpec spec) {
    return root(spec.commandLine()).stdin;
  }

  /** Whether that standard input is a terminal, which commands read only when told to ({@code --keys -}). */
  static boolean stdinIsTerminal(CommandSpec spec) {
    return stdin(spec).terminal();
  }

  /**
   * The standard output of the command line {@code spec} belongs to, as bytes: for keys, which are
   * written as they came. Its PrintWriter writes into the same stream: flush one before the other.
   */
  static OutputStream stdout(CommandSpec spec) {
    return root(spec.commandLine()).stdout;
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
