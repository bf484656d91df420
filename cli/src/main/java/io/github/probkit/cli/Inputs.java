package io.github.probkit.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;

/**
 * Reads the lines of several inputs in turn: files (gzip recognised by its magic bytes) or
 * {@code -} for standard input, with a progress bar on a terminal and errors naming the file.
 */
final class Inputs {
  private Inputs() {}

  /**
   * {@link Files#newInputStream}, made safe for pipes. The JDK's stream answers {@code available()}
   * by asking its channel for the position, which a FIFO or a process substitution ({@code <(...)})
   * refuses with "Illegal seek"; BufferedInputStream asks on every read. There it answers 0.
   */
  static InputStream open(Path p) throws IOException {
    return new java.io.FilterInputStream(Files.newInputStream(p)) {
      @Override
      public int available() {
        try {
          return super.available();
        } catch (IOException e) {
          return 0;
        }
      }
    };
  }

  /** Feeds the key of every line of every input to {@code sink}; returns the number of keys. */
  static long forEachLine(List<String> inputs, InputStream stdin, InputFormat format,
      LineReader.LineConsumer sink) throws IOException {
    long[] skipped = {0};
    LineReader.LineConsumer keys = format.select(sink, skipped);
    long lines = 0;
    for (String name : inputs) {
      boolean isStdin = name.equals("-");
      long size = -1;
      InputStream raw;
      if (isStdin) {
        // Standard input belongs to the caller: closing our wrappers must not close it.
        raw = new java.io.FilterInputStream(stdin) {
          @Override
          public void close() {}
        };
      } else {
        Path p = Path.of(name);
        if (Files.isDirectory(p)) {
          throw new CliException(name + ": is a directory");
        }
        try {
          raw = open(p);
          size = Files.size(p);
        } catch (NoSuchFileException e) {
          throw new CliException(name + ": no such file");
        } catch (IOException e) {
          throw new CliException(name + ": " + Main.describe(e), e);
        }
      }
      try (Progress progress = Progress.start(isStdin ? "<stdin>" : name, size, System.err);
          InputStream in = LineReader.maybeGunzip(progress.track(raw))) {
        lines += LineReader.forEachLine(in, isStdin ? "<stdin>" : name, keys);
      } catch (java.util.zip.ZipException e) {
        throw new CliException(name + ": corrupt gzip data (" + e.getMessage() + ")", e);
      } catch (java.io.EOFException e) {
        throw new CliException(name + ": truncated gzip data", e);
      } catch (IOException e) {
        // A read that fails after the open (EIO from /proc/self/mem, a device, a network mount).
        throw new CliException((isStdin ? "<stdin>" : name) + ": " + Main.describe(e), e);
      }
    }
    if (skipped[0] > 0) {
      System.err.println("probkit: skipped " + skipped[0] + " line(s) without field " + format.field);
    }
    return lines - skipped[0];
  }
}
