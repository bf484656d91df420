package io.github.probkit.cli.command;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Help;
import picocli.CommandLine.IHelpCommandInitializable2;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code probkit help [COMMAND...]}: the help of a command at any depth ({@code help filter
 * create}), where picocli's own help command looks at its first argument only.
 */
@Command(
    name = "help",
    helpCommand = true,
    description = "Show the help of a command: probkit help filter create.")
public final class HelpCommand implements IHelpCommandInitializable2, Runnable {
  @Parameters(
      paramLabel = "COMMAND",
      arity = "0..*",
      description = "A command, and its subcommands.")
  List<String> path = new ArrayList<>();

  @Option(
      names = {"-h", "--help"},
      usageHelp = true,
      description = "Show this help message and exit.")
  boolean help;

  private CommandLine self;
  private Help.ColorScheme colors;
  private PrintWriter out;

  @Override
  public void init(
      CommandLine helpCommandLine, Help.ColorScheme colorScheme, PrintWriter out, PrintWriter err) {
    this.self = helpCommandLine;
    this.colors = colorScheme;
    this.out = out;
  }

  @Override
  public void run() {
    CommandLine target = self.getParent();
    for (String name : path) {
      CommandLine sub = target.getSubcommands().get(name);
      if (sub == null) {
        throw new CommandLine.ParameterException(self, unknown(target, name));
      }
      target = sub;
    }
    target.usage(out, colors);
    out.flush();
  }

  /**
   * What {@code probkit help} and a mistyped command both say of {@code name}, which is not a
   * subcommand of {@code target}: "unknown command 'crate': probkit filter has the subcommands
   * create, add, ...".
   */
  public static String unknown(CommandLine target, String name) {
    String has =
        target.getSubcommands().isEmpty()
            ? "no subcommands"
            : "the subcommands " + String.join(", ", target.getSubcommands().keySet());
    return "unknown command '"
        + name
        + "': "
        + target.getCommandSpec().qualifiedName()
        + " has "
        + has;
  }
}
