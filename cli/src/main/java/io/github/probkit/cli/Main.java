package io.github.probkit.cli;

import io.github.probkit.cli.command.HelpCommand;
import io.github.probkit.cli.command.StatusAnswers;
import io.github.probkit.cli.input.Args;
import io.github.probkit.cli.input.Inputs;
import io.github.probkit.cli.input.Numbers;
import io.github.probkit.cli.output.CliException;
import io.github.probkit.cli.output.Stdout;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine;

/**
 * Entry point. Exit codes: 0 success, 1 runtime error (missing or corrupt file, I/O failure, a full
 * disk), 2 usage error (bad option or value; also a runtime error of a command whose exit status is
 * its answer, as grep's: {@link StatusAnswers}), 141 standard output closed (as SIGPIPE ends GNU
 * tools), and 129, 130 or 143 after SIGHUP, SIGINT or SIGTERM (the JVM's 128 + signal; a shutdown
 * hook removes any half-written file first). Errors are one line on stderr; {@code --verbose} adds
 * the stack trace.
 */
public final class Main {
  public static final int EXIT_RUNTIME = 1;
  public static final int EXIT_USAGE = 2;

  private Main() {}

  /**
   * The exit code of a runtime error in the command {@code cl} runs: 1, or 2 where 1 means "not
   * found".
   */
  private static int runtimeError(CommandLine cl) {
    CommandLine.ParseResult r = cl.getParseResult();
    while (r != null && r.subcommand() != null) {
      r = r.subcommand();
    }
    Object command = r == null ? cl.getCommand() : r.commandSpec().userObject();
    return command instanceof StatusAnswers && ((StatusAnswers) command).statusAnswers()
        ? EXIT_USAGE
        : EXIT_RUNTIME;
  }

  public static void main(String[] args) {
    String[] argv = Args.asPassed(args);
    PrintStream err =
        new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8);
    System.setErr(err);
    System.exit(
        run(
            new Inputs.Stdin(System.in, Stdout.isTerminal(0), !Stdout.isRegularFile(0)),
            Stdout.standard(),
            new PrintWriter(new OutputStreamWriter(err, StandardCharsets.UTF_8), true),
            argv));
  }

  /**
   * Runs {@code args} with {@code stdin} as the input of commands that read keys (a terminal when
   * {@code stdinIsTerminal}: then they read it only when asked to; else as if from a file), {@code
   * stdout} as the output and {@code err} for errors; returns the exit code, once all output is
   * written.
   */
  static int run(
      InputStream stdin,
      boolean stdinIsTerminal,
      OutputStream stdout,
      PrintWriter err,
      String... args) {
    return run(new Inputs.Stdin(stdin, stdinIsTerminal, stdinIsTerminal), stdout, err, args);
  }

  static int run(Inputs.Stdin stdin, OutputStream stdout, PrintWriter err, String... args) {
    Stdout out = stdout instanceof Stdout ? (Stdout) stdout : Stdout.of(stdout);
    CommandLine cl = commandLine(stdin, out, args);
    cl.setErr(err);
    int code = cl.execute(args);
    try {
      cl.getOut().flush();
      out.flush();
    } catch (Stdout.BrokenPipe e) {
      return code == 0 ? Stdout.EXIT_BROKEN_PIPE : code;
    } catch (CliException e) {
      err.println("probkit: " + e.getMessage());
      err.flush();
      return code == 0 ? runtimeError(cl) : code;
    }
    return code;
  }

  /** The configured command line with every subcommand, also used by tests. */
  public static CommandLine commandLine() {
    return commandLine(Inputs.Stdin.file(System.in), Stdout.standard());
  }

  /**
   * The command line for running {@code args}, with {@code stdin} as the input of commands that
   * read keys and {@code stdout} as their output (text through its PrintWriter, keys as bytes);
   * without {@code args}, with every subcommand.
   */
  static CommandLine commandLine(Inputs.Stdin stdin, OutputStream stdout, String... args) {
    ProbkitCommand root = new ProbkitCommand();
    root.stdin = stdin;
    root.stdout = stdout;
    CommandLine cl = new CommandLine(root);
    ProbkitCommand.addSubcommands(cl, args);
    cl.setOut(new PrintWriter(new OutputStreamWriter(stdout, StandardCharsets.UTF_8)));
    // After the subcommands are added, so that these reach every one of them.
    cl.registerConverter(Long.class, new Numbers.Longs());
    cl.registerConverter(long.class, new Numbers.Longs());
    cl.registerConverter(Integer.class, new Numbers.Ints());
    cl.registerConverter(int.class, new Numbers.Ints());
    cl.registerConverter(Double.class, new Numbers.Rates());
    cl.registerConverter(double.class, new Numbers.Rates());
    everyCommand(cl, c -> c.getCommandSpec().versionProvider(new ProbkitCommand.Version()));
    cl.registerConverter(
        Path.class,
        name -> {
          try {
            return Args.path(name);
          } catch (CliException e) {
            throw new CommandLine.TypeConversionException(e.getMessage());
          }
        });
    cl.setExecutionExceptionHandler(Main::handleExecutionException);
    cl.setParameterExceptionHandler(Main::handleParameterException);
    cl.setExecutionStrategy(Main::executeReportingOutOfMemory);
    return cl;
  }

  /**
   * Runs the command; an OutOfMemoryError, which picocli lets through its exception handler as it
   * does every Error, becomes one line and exit code 1 like any other runtime failure. (The arrays
   * that filled the heap are garbage by then, so there is room to print.) So do output errors that
   * happen outside a command, such as {@code --help > /dev/full}.
   */
  private static int executeReportingOutOfMemory(CommandLine.ParseResult parseResult) {
    CommandLine cl = parseResult.commandSpec().commandLine();
    try {
      return new CommandLine.RunLast().execute(parseResult);
    } catch (OutOfMemoryError | LinkageError | CliException e) {
      PrintWriter err = cl.getErr();
      err.println("probkit: " + CliException.describe(e));
      if (ProbkitCommand.verbose(cl)) {
        e.printStackTrace(err);
      }
      err.flush();
      return runtimeError(cl);
    } catch (Stdout.BrokenPipe e) {
      return Stdout.EXIT_BROKEN_PIPE;
    }
  }

  /** {@code action} on {@code cl} and on each of its subcommands, to any depth. */
  private static void everyCommand(
      CommandLine cl, java.util.function.Consumer<CommandLine> action) {
    action.accept(cl);
    for (CommandLine sub : cl.getSubcommands().values()) {
      everyCommand(sub, action);
    }
  }

  /**
   * A usage error as one line, like every other error: picocli's message (without the "Error: "
   * some of its messages start with, which made "probkit: Error: ..."), what it suggests instead of
   * a mistyped name, and where the help is.
   */
  private static int handleParameterException(CommandLine.ParameterException e, String[] args) {
    CommandLine cl = e.getCommandLine();
    PrintWriter err = cl.getErr();
    String m = e.getMessage() == null ? "bad usage" : e.getMessage().strip();
    String command =
        e instanceof CommandLine.UnmatchedArgumentException
            ? unknownCommand((CommandLine.UnmatchedArgumentException) e)
            : null;
    StringBuilder line = new StringBuilder("probkit: ");
    if (command != null) {
      line.append(HelpCommand.unknown(cl, command));
    } else {
      line.append(m.replaceFirst("^Error: ", "").replaceAll("\\s*\\R\\s*", "; "));
    }
    if (e instanceof CommandLine.UnmatchedArgumentException) {
      List<String> s = ((CommandLine.UnmatchedArgumentException) e).getSuggestions();
      if (!s.isEmpty()) {
        line.append("; did you mean ")
            .append(String.join(" or ", s.subList(0, Math.min(3, s.size()))))
            .append('?');
      }
    }
    line.append(" (see '").append(cl.getCommandSpec().qualifiedName()).append(" --help')");
    err.println(line);
    err.flush();
    return EXIT_USAGE;
  }

  /**
   * The word that stands where a command of {@code e}'s command line was expected, or null: picocli
   * calls it an "unmatched argument at index 0", which says nothing to someone who mistyped a
   * command.
   */
  private static String unknownCommand(CommandLine.UnmatchedArgumentException e) {
    CommandLine cl = e.getCommandLine();
    List<String> unmatched = e.getUnmatched();
    if (cl.getSubcommands().isEmpty()
        || unmatched.isEmpty()
        || unmatched.get(0).startsWith("-")
        || cl.getParseResult() != null && cl.getParseResult().hasSubcommand()) {
      return null;
    }
    return unmatched.get(0);
  }

  private static int handleExecutionException(
      Exception e, CommandLine cl, CommandLine.ParseResult parseResult) {
    if (e instanceof Stdout.BrokenPipe) {
      return Stdout.EXIT_BROKEN_PIPE;
    }
    PrintWriter err = cl.getErr();
    boolean usage = e instanceof IllegalArgumentException;
    err.println("probkit: " + CliException.describe(e));
    if (ProbkitCommand.verbose(cl)) {
      e.printStackTrace(err);
    }
    err.flush();
    return usage ? EXIT_USAGE : runtimeError(cl);
  }
}
