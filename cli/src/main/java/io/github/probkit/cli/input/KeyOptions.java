package io.github.probkit.cli.input;

import io.github.probkit.hash.HashAlgorithm;
import io.github.probkit.hash.HashStrategy;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Stack;
import java.util.function.UnaryOperator;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/**
 * Where a command's keys come from, and which part of each line is the key. Keys come from the
 * arguments, from the files of {@code --keys FILE...}, or, when neither is given, from standard
 * input unless it is a terminal ({@code --keys -} reads it even then); one key per line, or one
 * column of each line with {@code --field}. Argument keys are the bytes the shell passed.
 */
public final class KeyOptions {
  @Option(
      names = "--keys",
      arity = "1..*",
      parameterConsumer = FileNames.class,
      paramLabel = "FILE",
      description =
          "Read keys from the FILEs, one per line ('-' for stdin; gzip, xz and zstd are"
              + " decompressed): --keys a.txt b.txt.gz, --keys logs/*.gz. After the structure's"
              + " file, --keys takes every name up to the next option; before it, one name (so"
              + " that 'query --keys k.txt f.bin' works): repeat --keys for more. The CR of a"
              + " CRLF line is not part of its key, nor a UTF-8 byte-order mark starting a file.")
  List<String> keysFiles = new ArrayList<>();

  @Mixin public InputFormat format = new InputFormat();

  /**
   * The strategy a filter's or count-min sketch's {@code --hash} names. Redis's HyperLogLog hashing
   * is a label of {@link HashAlgorithm} too, but only loglog sketches can use it: taking it for
   * xxh3 would build a structure other than the one asked for.
   */
  public static HashStrategy hashStrategy(String label) {
    HashAlgorithm a;
    try {
      a = HashAlgorithm.byLabel(label);
    } catch (IllegalArgumentException unknown) {
      // The library's message names its parameter; on the command line it is the option.
      throw new IllegalArgumentException("--hash must be one of xxh3, fnv1a, was '" + label + "'");
    }
    if (a == HashAlgorithm.XXH3_64) {
      return HashStrategy.xxh3();
    }
    if (a == HashAlgorithm.FNV1A_64) {
      return HashStrategy.fnv1a();
    }
    throw new IllegalArgumentException(
        "--hash must be one of xxh3, fnv1a, was '"
            + label
            + (a == HashAlgorithm.XXH64
                ? "' (xxh64 is the split-block type's own hash: --type split-block takes no --hash)"
                : a.foreignProbes()
                    ? "' (a Bloom filter of Guava's or Spark's hashing comes from their file:"
                        + " filter import --format guava|spark)"
                    : "' (" + a.label() + " hashing is for HyperLogLog sketches only)"));
  }

  /** The option that names key files, for messages: --keys, or --items for a sketch's items. */
  private String option = "--keys";

  /**
   * Whether to say on stderr how many keys came from standard input unasked: a create in a {@code
   * while read} loop would otherwise swallow the loop's input without a word.
   */
  private boolean tellStdin;

  /**
   * The field of each line that holds its time, for a window filter's add ({@code --time-field});
   * null for the clock's time.
   */
  public String timeField;

  /** The commits of an add, made while it reads a stream; null for other commands. */
  private UnaryOperator<Inputs.KeySink> commits;

  /** {@code --items F...}: what {@code --keys} is to filters, for the sketches' items. */
  public static final class Items {
    @Option(
        names = "--items",
        arity = "1..*",
        parameterConsumer = FileNames.class,
        paramLabel = "F",
        description =
            "Read items from the files F, one per line ('-' for stdin; .gz is decompressed);"
                + " before the sketch's FILE, one F per --items.")
    List<String> files = new ArrayList<>();

    /** Items from these files, in the line format {@code format}. */
    public KeyOptions in(InputFormat format) {
      KeyOptions k = new KeyOptions();
      k.keysFiles = files;
      k.option = "--items";
      k.format = format;
      return k;
    }
  }

  /**
   * The names {@code --keys} and {@code --items} take: after the command's FILE, every argument up
   * to the next option, as {@code --keys logs/*.gz} wants; before it, one, since the command's FILE
   * would otherwise be taken for a key file ({@code query --keys k.txt f.bin} said "Missing
   * required parameter: 'FILE'").
   */
  static final class FileNames implements CommandLine.IParameterConsumer {
    @Override
    public void consumeParameters(
        Stack<String> args, CommandLine.Model.ArgSpec arg, CommandSpec command) {
      if (args.isEmpty() || isOption(args.peek(), command)) {
        throw new CommandLine.ParameterException(
            command.commandLine(),
            "Missing required parameter for option '"
                + ((CommandLine.Model.OptionSpec) arg).longestName()
                + "' ("
                + arg.paramLabel()
                + ")");
      }
      List<String> names = arg.getValue();
      names.add(args.pop());
      boolean fileGiven =
          command.positionalParameters().isEmpty()
              || command.positionalParameters().get(0).getValue() != null;
      while (fileGiven && !args.isEmpty() && !isOption(args.peek(), command)) {
        names.add(args.pop());
      }
    }

    private static boolean isOption(String a, CommandSpec command) {
      int eq = a.indexOf('=');
      return a.equals("--")
          || command.optionsMap().containsKey(eq > 0 ? a.substring(0, eq) : a)
          || command.posixOptionsMap().containsKey(a.length() > 1 ? a.charAt(1) : ' ')
              && a.startsWith("-")
              && !a.startsWith("--");
    }
  }

  /** Whether the keys are {@code keys}, the arguments, and no more (no file, no stdin). */
  public boolean argumentsOnly(List<String> keys) {
    return !keys.isEmpty() && keysFiles.isEmpty() && timeField == null;
  }

  /** Whether keys were named at all: arguments, or files. */
  boolean given(List<String> keys) {
    return !keys.isEmpty() || !keysFiles.isEmpty();
  }

  /**
   * Feeds every key to {@code sink} on the calling thread, in order; returns the number of keys.
   */
  public long forEach(List<String> keys, CommandSpec spec, LineReader.LineConsumer sink)
      throws IOException {
    return forEach(keys, spec, Inputs.KeySink.inOrder(sink));
  }

  /**
   * Fails when no keys are named and standard input is a terminal: nobody means to type keys there
   * unasked. Commands call it before any work; {@link #forEach} does too.
   */
  public KeyOptions require(List<String> keys, CommandSpec spec) {
    if (!given(keys) && StandardStreams.stdinIsTerminal(spec)) {
      throw new IllegalArgumentException(
          "no keys: give them as arguments, with --keys FILE..., or on"
              + " standard input (--keys - reads a terminal)");
    }
    return this;
  }

  /**
   * Has {@link #forEach} pass its keys through {@code commits} when it reads a stream, which
   * commits them as they come (StreamCommits).
   */
  public void commitWith(UnaryOperator<Inputs.KeySink> commits) {
    this.commits = commits;
  }

  /** Whether some keys come from a pipe, FIFO or terminal, where they cannot be read again. */
  private boolean readsAStream(List<String> keys, CommandSpec spec) {
    if (keysFiles.isEmpty()) {
      return keys.isEmpty() && StandardStreams.stdin(spec).streams();
    }
    for (String f : keysFiles) {
      if (f.equals("-")
          ? StandardStreams.stdin(spec).streams()
          : Files.exists(Args.path(f)) && !Files.isRegularFile(Args.path(f))) {
        return true;
      }
    }
    return false;
  }

  /** Feeds every key to {@code sink}; returns the number of keys. */
  public long forEach(List<String> keys, CommandSpec spec, Inputs.KeySink sink) throws IOException {
    require(keys, spec);
    format.check();
    if (commits != null && readsAStream(keys, spec)) {
      sink = commits.apply(sink);
    }
    hintAtFiles(keys, spec);
    long n = 0;
    try {
      for (String k : keys) {
        byte[] b = Args.bytes(k);
        sink.accept(b, 0, b.length);
        n++;
      }
      if (!keysFiles.isEmpty()) {
        n += Inputs.forEachLine(keysFiles, StandardStreams.stdin(spec), format, sink);
      } else if (keys.isEmpty()) {
        n += Inputs.forEachLine(List.of("-"), StandardStreams.stdin(spec), format, sink);
      }
      sink.end();
    } catch (Inputs.Stop e) {
      // The sink has its answer.
    }
    if (tellStdin && n > 0) {
      PrintWriter err = spec.commandLine().getErr();
      err.printf(
          "probkit: read %d %s from standard input (</dev/null reads none)%n",
          n, option.substring(2));
      err.flush();
    }
    return n;
  }

  /**
   * Says on stderr of each key argument that names an existing file that it may have been meant as
   * a key file ({@code query f.bin --count access.log} answers about the string "access.log"); the
   * key is still taken as given, since a key may well look like a file name.
   */
  private void hintAtFiles(List<String> keys, CommandSpec spec) {
    for (String k : keys) {
      boolean file;
      try {
        file = Files.isRegularFile(Args.path(k));
      } catch (RuntimeException e) {
        file = false;
      }
      if (file) {
        PrintWriter err = spec.commandLine().getErr();
        err.println(
            "probkit: the key '"
                + k
                + "' is the name of a file; did you mean "
                + option
                + " "
                + k
                + "? (taken as a key)");
        err.flush();
      }
    }
  }

  /**
   * For {@code create}, whose keys are optional: this, or null when no files are named and standard
   * input is a terminal (an empty structure then).
   */
  public KeyOptions orNoneAtATerminal(CommandSpec spec) {
    if (keysFiles.isEmpty() && StandardStreams.stdinIsTerminal(spec)) {
      return null;
    }
    tellStdin = keysFiles.isEmpty();
    return this;
  }
}
