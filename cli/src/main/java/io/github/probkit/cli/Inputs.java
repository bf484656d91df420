package io.github.probkit.cli;

import io.github.probkit.cli.LineReader.Block;
import io.github.probkit.cli.LineReader.LineConsumer;
import io.github.probkit.hash.HashStrategy;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.LongConsumer;

/**
 * Reads the lines of several inputs in turn: files (gzip recognised by its magic bytes) or
 * {@code -} for standard input, with a progress bar on a terminal and errors naming the file.
 *
 * <p>The calling thread reads (and decompresses) the inputs as blocks of whole lines. Where the
 * {@link KeySink} allows, worker threads split and hash the blocks, one per core, while the calling
 * thread reads on; whatever must happen in input order then happens on the calling thread, block
 * by block, so that the result is the same for any number of threads.
 */
final class Inputs {
  private Inputs() {}

  /**
   * The threads that split and hash lines: {@code -Dprobkit.threads=N}, or else the cores the JVM
   * sees (which {@code JAVA_OPTS=-XX:ActiveProcessorCount=N} also limits).
   */
  static int threads() {
    int n = Integer.getInteger("probkit.threads", Runtime.getRuntime().availableProcessors());
    return Math.max(1, Math.min(64, n));
  }

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

  /** Where the keys go, and which threads may take them there. */
  abstract static class KeySink {
    /** Whether blocks may go through {@link #keysOf} on several threads at once. */
    abstract boolean concurrent();

    /** What the keys of block {@code b} are handed to, on a worker thread when {@link #concurrent}. */
    LineConsumer keysOf(Block b) {
      return this::accept;
    }

    /** Runs on the calling thread for each block, in input order, after {@link #keysOf} took its keys. */
    void finish(Block b) {}

    /** A key given directly, such as a command-line argument; on the calling thread. */
    abstract void accept(byte[] buf, int off, int len) throws IOException;

    /** Every key goes to {@code sink} on the calling thread, in input order. */
    static KeySink inOrder(LineConsumer sink) {
      return direct(sink, false);
    }

    /** Every key goes to {@code sink}, which must be thread-safe, from any thread, in any order. */
    static KeySink concurrently(LineConsumer sink) {
      return direct(sink, true);
    }

    private static KeySink direct(LineConsumer sink, boolean concurrent) {
      return new KeySink() {
        @Override
        boolean concurrent() {
          return concurrent;
        }

        @Override
        void accept(byte[] buf, int off, int len) throws IOException {
          sink.accept(buf, off, len);
        }
      };
    }

    /**
     * The 64-bit hash of every key goes to {@code sink} on the calling thread, in input order; the
     * hashing happens on the worker threads.
     */
    static KeySink hashes(HashStrategy hash, LongConsumer sink) {
      return new KeySink() {
        @Override
        boolean concurrent() {
          return true;
        }

        @Override
        void finish(Block b) {
          long[] h = b.hashes;
          for (int i = 0, n = b.hashCount; i < n; i++) {
            sink.accept(h[i]);
          }
        }

        @Override
        void accept(byte[] buf, int off, int len) {
          sink.accept(hash.hash64(buf, off, len));
        }

        @Override
        LineConsumer keysOf(Block b) {
          return (buf, off, len) -> b.addHash(hash.hash64(buf, off, len));
        }
      };
    }
  }

  /** Feeds every line of every input to {@code sink} on the calling thread; returns the number of keys. */
  static long forEachLine(List<String> inputs, InputStream stdin, InputFormat format, LineConsumer sink)
      throws IOException {
    return forEachLine(inputs, stdin, format, KeySink.inOrder(sink));
  }

  /** Feeds the key of every line of every input to {@code sink}; returns the number of keys. */
  static long forEachLine(List<String> inputs, InputStream stdin, InputFormat format, KeySink sink)
      throws IOException {
    format.select((b, o, l) -> {}, new long[1]); // checks the options before any input is opened
    int threads = sink.concurrent() ? threads() : 1;
    ExecutorService pool = threads > 1 ? Executors.newFixedThreadPool(threads, r -> {
      Thread t = new Thread(r, "probkit-lines");
      t.setDaemon(true);
      return t;
    }) : null;
    Counts counts = new Counts();
    // Enough blocks in flight to keep every worker busy while the calling thread reads the next.
    ArrayDeque<Block> free = new ArrayDeque<>();
    ArrayDeque<Future<Block>> pending = new ArrayDeque<>();
    int made = 0;
    try {
      for (String name : inputs) {
        boolean isStdin = name.equals("-");
        String shown = isStdin ? "<stdin>" : name;
        long size = -1;
        InputStream raw;
        if (isStdin) {
          // Standard input belongs to the caller: closing our wrappers must not close it.
          raw = new java.io.FilterInputStream(stdin) {
            @Override
            public void close() {}
          };
        } else {
          Path p = Args.path(name);
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
        try (Progress progress = Progress.start(shown, size, System.err);
            InputStream in = LineReader.maybeGunzip(progress.track(raw))) {
          LineReader reader = new LineReader(in, shown);
          while (true) {
            Block b = free.poll();
            if (b == null) {
              if (made < 2 * threads + 1) {
                b = new Block();
                made++;
              } else {
                b = finish(pending.poll(), sink, counts);
              }
            }
            if (!reader.next(b)) {
              free.push(b);
              break;
            }
            if (pool == null) {
              work(b, sink, format);
              free.push(finish(b, sink, counts));
            } else {
              Block mine = b;
              pending.add(pool.submit(() -> work(mine, sink, format)));
            }
          }
        } catch (java.util.zip.ZipException e) {
          throw new CliException(name + ": corrupt gzip data (" + e.getMessage() + ")", e);
        } catch (java.io.EOFException e) {
          throw new CliException(name + ": truncated gzip data", e);
        } catch (CliException e) {
          throw e;
        } catch (IOException e) {
          // A read that fails after the open (EIO from /proc/self/mem, a device, a network mount).
          throw new CliException(shown + ": " + Main.describe(e), e);
        }
      }
      while (!pending.isEmpty()) {
        finish(pending.poll(), sink, counts);
      }
    } finally {
      if (pool != null) {
        pool.shutdownNow();
      }
    }
    if (counts.skipped > 0) {
      System.err.println("probkit: skipped " + counts.skipped + " line(s) without field " + format.field);
    }
    return counts.lines - counts.skipped;
  }

  private static final class Counts {
    long lines;
    long skipped;
  }

  private static Block work(Block b, KeySink sink, InputFormat format) throws IOException {
    long[] skipped = {0};
    b.lines = LineReader.split(b.buf, b.len, format.select(sink.keysOf(b), skipped));
    b.skipped = skipped[0];
    return b;
  }

  /** Waits for a worker's block (rethrowing what it threw), then finishes it in order. */
  private static Block finish(Future<Block> f, KeySink sink, Counts counts) throws IOException {
    Block b;
    try {
      b = f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CliException("interrupted", e);
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      if (c instanceof IOException) {
        throw (IOException) c;
      }
      if (c instanceof RuntimeException) {
        throw (RuntimeException) c;
      }
      if (c instanceof Error) {
        throw (Error) c;
      }
      throw new UncheckedIOException(new IOException(c));
    }
    return finish(b, sink, counts);
  }

  private static Block finish(Block b, KeySink sink, Counts counts) {
    sink.finish(b);
    counts.lines += b.lines;
    counts.skipped += b.skipped;
    b.shrink();
    return b;
  }
}
