package io.github.probkit.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/**
 * Where a command's keys come from, and which part of each line is the key. Keys come from the
 * arguments, from the files of {@code --keys FILE...}, or, when neither is given, from standard
 * input unless it is a terminal ({@code --keys -} reads it even then); one key per line, or one
 * column of each line with {@code --field}. Argument keys are the bytes the shell passed.
 */
final class KeyOptions {
  @Option(
      names = "--keys",
      arity = "1..*",
      paramLabel = "FILE",
      description =
          "Read keys from the FILEs, one per line ('-' for stdin; gzip, xz and zstd are"
              + " decompressed): --keys a.txt b.txt.gz, --keys logs/*.gz. The CR of a CRLF line"
              + " is not part of its key, nor a UTF-8 byte-order mark starting a file.")
  List<String> keysFiles = new ArrayList<>();

  @Mixin InputFormat format = new InputFormat();

  /** The commits of an add, made while it reads a stream; null for other commands. */
  private StreamCommits commits;

  /** {@code --items F...}: what {@code --keys} is to filters, for the sketches' items. */
  static final class Items {
    @Option(
        names = "--items",
        arity = "1..*",
        paramLabel = "F",
        description =
            "Read items from the files F, one per line ('-' for stdin; .gz is decompressed).")
    List<String> files = new ArrayList<>();

    /** Items from these files, in the line format {@code format}. */
    KeyOptions in(InputFormat format) {
      KeyOptions k = new KeyOptions();
      k.keysFiles = files;
      k.format = format;
      return k;
    }
  }

  /** Whether keys were named at all: arguments, or files. */
  boolean given(List<String> keys) {
    return !keys.isEmpty() || !keysFiles.isEmpty();
  }

  /**
   * Feeds every key to {@code sink} on the calling thread, in order; returns the number of keys.
   */
  long forEach(List<String> keys, CommandSpec spec, LineReader.LineConsumer sink)
      throws IOException {
    return forEach(keys, spec, Inputs.KeySink.inOrder(sink));
  }

  /**
   * Fails when no keys are named and standard input is a terminal: nobody means to type keys there
   * unasked. Commands call it before any work; {@link #forEach} does too.
   */
  KeyOptions require(List<String> keys, CommandSpec spec) {
    if (!given(keys) && ProbkitCommand.stdinIsTerminal(spec)) {
      throw new IllegalArgumentException(
          "no keys: give them as arguments, with --keys FILE..., or on"
              + " standard input (--keys - reads a terminal)");
    }
    return this;
  }

  /**
   * Has {@link #forEach} commit what {@code writer} writes to the file of {@code lock} as it goes,
   * when it reads a stream; the add writes through the returned commits at its end.
   */
  StreamCommits commitsTo(SketchFiles.Lock lock, SketchFiles.Writer writer, CommandSpec spec) {
    commits = new StreamCommits(lock, writer, lock.file(), spec.commandLine().getErr());
    return commits;
  }

  /** Whether some keys come from a pipe, FIFO or terminal, where they cannot be read again. */
  private boolean readsAStream(List<String> keys, CommandSpec spec) {
    if (keysFiles.isEmpty()) {
      return keys.isEmpty() && ProbkitCommand.stdin(spec).streams();
    }
    for (String f : keysFiles) {
      if (f.equals("-")
          ? ProbkitCommand.stdin(spec).streams()
          : Files.exists(Args.path(f)) && !Files.isRegularFile(Args.path(f))) {
        return true;
      }
    }
    return false;
  }

  /** Feeds every key to {@code sink}; returns the number of keys. */
  long forEach(List<String> keys, CommandSpec spec, Inputs.KeySink sink) throws IOException {
    require(keys, spec);
    format.check();
    if (commits != null && readsAStream(keys, spec)) {
      sink = commits.wrap(sink);
    }
    long n = 0;
    try {
      for (String k : keys) {
        byte[] b = Args.bytes(k);
        sink.accept(b, 0, b.length);
        n++;
      }
      if (!keysFiles.isEmpty()) {
        n += Inputs.forEachLine(keysFiles, ProbkitCommand.stdin(spec), format, sink);
      } else if (keys.isEmpty()) {
        n += Inputs.forEachLine(List.of("-"), ProbkitCommand.stdin(spec), format, sink);
      }
      sink.end();
    } catch (Inputs.Stop e) {
      // The sink has its answer.
    }
    return n;
  }

  /**
   * For {@code create}, whose keys are optional: this, or null when no files are named and standard
   * input is a terminal (an empty structure then).
   */
  KeyOptions orNoneAtATerminal(CommandSpec spec) {
    return keysFiles.isEmpty() && ProbkitCommand.stdinIsTerminal(spec) ? null : this;
  }
}
