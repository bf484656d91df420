package io.github.probkit.cli;

import io.github.probkit.io.SketchFormatException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import picocli.CommandLine;

/**
 * Entry point. Exit codes: 0 success, 1 runtime error (missing or corrupt file, I/O failure), 2
 * usage error (bad option or value). Errors are one line on stderr; {@code --verbose} adds the stack
 * trace.
 */
public final class Main {
  public static final int EXIT_RUNTIME = 1;
  public static final int EXIT_USAGE = 2;

  private Main() {}

  public static void main(String[] args) {
    System.exit(commandLine(System.in, args).execute(args));
  }

  /** The configured command line with every subcommand, also used by tests. */
  public static CommandLine commandLine() {
    return commandLine(System.in);
  }

  /**
   * The command line for running {@code args}, with {@code stdin} as the input of commands that read
   * keys; without {@code args}, with every subcommand.
   */
  public static CommandLine commandLine(java.io.InputStream stdin, String... args) {
    ProbkitCommand root = new ProbkitCommand();
    root.stdin = stdin;
    CommandLine cl = new CommandLine(root);
    ProbkitCommand.addSubcommands(cl, args);
    cl.setExecutionExceptionHandler(Main::handleExecutionException);
    cl.setParameterExceptionHandler(Main::handleParameterException);
    cl.setExecutionStrategy(Main::executeReportingOutOfMemory);
    return cl;
  }

  /**
   * Runs the command; an OutOfMemoryError, which picocli lets through its exception handler as it
   * does every Error, becomes one line and exit code 1 like any other runtime failure. (The arrays
   * that filled the heap are garbage by then, so there is room to print.)
   */
  private static int executeReportingOutOfMemory(CommandLine.ParseResult parseResult) {
    try {
      return new CommandLine.RunLast().execute(parseResult);
    } catch (OutOfMemoryError e) {
      CommandLine cl = parseResult.commandSpec().commandLine();
      PrintWriter err = cl.getErr();
      err.println("probkit: " + describe(e));
      if (ProbkitCommand.verbose(cl)) {
        e.printStackTrace(err);
      }
      err.flush();
      return EXIT_RUNTIME;
    }
  }

  private static int handleParameterException(CommandLine.ParameterException e, String[] args) {
    CommandLine cl = e.getCommandLine();
    PrintWriter err = cl.getErr();
    err.println("probkit: " + e.getMessage());
    if (!CommandLine.UnmatchedArgumentException.printSuggestions(e, err)) {
      err.println("Try '" + cl.getCommandSpec().qualifiedName() + " --help' for more information.");
    }
    err.flush();
    return EXIT_USAGE;
  }

  private static int handleExecutionException(
      Exception e, CommandLine cl, CommandLine.ParseResult parseResult) {
    PrintWriter err = cl.getErr();
    boolean usage = e instanceof IllegalArgumentException;
    err.println("probkit: " + describe(e));
    if (ProbkitCommand.verbose(cl)) {
      e.printStackTrace(err);
    }
    err.flush();
    return usage ? EXIT_USAGE : EXIT_RUNTIME;
  }

  /** One line for the user: the message where it says what happened, the type where it does not. */
  static String describe(Throwable e) {
    if (e instanceof UncheckedIOException && e.getCause() != null) {
      e = e.getCause();
    }
    if (e instanceof NoSuchFileException) {
      return e.getMessage() + ": no such file";
    }
    if (e instanceof AccessDeniedException) {
      return e.getMessage() + ": permission denied";
    }
    if (e instanceof OutOfMemoryError) {
      return "out of memory (raise the heap with JAVA_OPTS=-Xmx...)";
    }
    String m = e.getMessage();
    if (e instanceof CliException || e instanceof IllegalArgumentException
        || e instanceof SketchFormatException) {
      return m;
    }
    if (e instanceof IOException) {
      return m == null ? e.getClass().getSimpleName() : m;
    }
    return e.getClass().getSimpleName() + (m == null ? "" : ": " + m);
  }
}
