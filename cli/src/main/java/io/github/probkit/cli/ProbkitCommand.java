package io.github.probkit.cli;

import io.github.probkit.cli.command.CmsCommand;
import io.github.probkit.cli.command.Conversions;
import io.github.probkit.cli.command.DedupeCommand;
import io.github.probkit.cli.command.DemoCommand;
import io.github.probkit.cli.command.DistinctCommand;
import io.github.probkit.cli.command.FilterCommand;
import io.github.probkit.cli.command.HelpCommand;
import io.github.probkit.cli.command.HllCommand;
import io.github.probkit.cli.command.InfoCommand;
import io.github.probkit.cli.command.TopCommand;
import io.github.probkit.cli.command.TransferCommands;
import io.github.probkit.cli.input.Inputs;
import io.github.probkit.cli.input.StandardStreams;
import io.github.probkit.cli.lab.LabCommand;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
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
      "Bloom and related filters (is this key in the set?), count-min sketches and heavy hitters (how often?), HyperLogLog (how many distinct?). Numbers may be written 1000000, 1_000_000, 1e6 or 1M (k, M, G, T), rates 0.01 or 1%%.",
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
public final class ProbkitCommand implements Runnable, StandardStreams {
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
    SUBCOMMANDS.put("info", InfoCommand.Any.class);
    SUBCOMMANDS.put("export", TransferCommands.Export.class);
    SUBCOMMANDS.put("import", TransferCommands.Import.class);
    SUBCOMMANDS.put("lab", LabCommand.class);
    SUBCOMMANDS.put("help", HelpCommand.class);
    SUBCOMMANDS.put("generate-completion", AutoComplete.GenerateCompletion.class);
  }

  /**
   * The subcommands of the commands that have them, registered the same way: only the one a run
   * names ({@code filter query} builds the model of {@code query} alone, which halved the start-up
   * work that picocli's reflection does for a one-key query).
   */
  private static final Map<String, Map<String, Class<?>>> NESTED =
      Map.of(
          "filter",
              inOrder(
                  "create",
                  FilterCommand.Create.class,
                  "add",
                  FilterCommand.Add.class,
                  "remove",
                  FilterCommand.Remove.class,
                  "query",
                  FilterCommand.Query.class,
                  "info",
                  FilterCommand.Info.class,
                  "merge",
                  FilterCommand.Merge.class,
                  "import",
                  Conversions.FilterImport.class,
                  "export",
                  Conversions.FilterExport.class),
          "cms",
              inOrder(
                  "create",
                  CmsCommand.Create.class,
                  "add",
                  CmsCommand.Add.class,
                  "query",
                  CmsCommand.Query.class,
                  "info",
                  CmsCommand.Info.class,
                  "merge",
                  CmsCommand.Merge.class,
                  "import",
                  Conversions.CmsImport.class,
                  "export",
                  Conversions.CmsExport.class),
          "hll",
              inOrder(
                  "create",
                  HllCommand.Create.class,
                  "add",
                  HllCommand.Add.class,
                  "count",
                  HllCommand.Count.class,
                  "merge",
                  HllCommand.Merge.class,
                  "info",
                  HllCommand.Info.class,
                  "import",
                  Conversions.HllImport.class,
                  "export",
                  Conversions.HllExport.class));

  /**
   * Names and command classes, alternating, as a map in that order (the order help lists them in).
   */
  private static Map<String, Class<?>> inOrder(Object... namesAndTypes) {
    Map<String, Class<?>> m = new LinkedHashMap<>();
    for (int i = 0; i < namesAndTypes.length; i += 2) {
      m.put((String) namesAndTypes[i], (Class<?>) namesAndTypes[i + 1]);
    }
    return m;
  }

  /**
   * Registers the subcommand that {@code args} name (its first argument that is not an option) and,
   * of its own subcommands, the one the next such argument names; all of them at a level where none
   * is named, or an unknown one (for the suggestions), or {@code help} and {@code
   * generate-completion}, which describe the others. A bare {@code --version} needs none.
   */
  static void addSubcommands(CommandLine cl, String... args) {
    String named = null;
    String nested = null;
    boolean help = false;
    for (String a : args) {
      if (a.startsWith("-")) {
        help |= named == null && (a.equals("-h") || a.equals("--help"));
      } else if (named == null) {
        named = a;
      } else {
        nested = a;
        break;
      }
    }
    List<String> all = Arrays.asList(args);
    if (named == null && !help && (all.contains("-V") || all.contains("--version"))) {
      return;
    }
    if (named == null
        || !SUBCOMMANDS.containsKey(named)
        || named.equals("help")
        || named.equals("generate-completion")) {
      SUBCOMMANDS.forEach((name, type) -> addWithNested(cl, name, type, null));
      return;
    }
    addWithNested(cl, named, SUBCOMMANDS.get(named), nested);
  }

  private static void addWithNested(CommandLine cl, String name, Class<?> type, String nested) {
    cl.addSubcommand(name, type);
    Map<String, Class<?>> subs = NESTED.get(name);
    if (subs == null) {
      return;
    }
    CommandLine group = cl.getSubcommands().get(name);
    if (nested != null && subs.containsKey(nested)) {
      group.addSubcommand(nested, subs.get(nested));
    } else {
      subs.forEach(group::addSubcommand);
    }
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

  @Override
  public Inputs.Stdin stdin() {
    return stdin;
  }

  @Override
  public OutputStream stdout() {
    return stdout;
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
