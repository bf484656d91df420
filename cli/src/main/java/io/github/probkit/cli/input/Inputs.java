package io.github.probkit.cli.input;

import io.github.probkit.cli.input.LineReader.Block;
import io.github.probkit.cli.input.LineReader.LineConsumer;
import io.github.probkit.cli.input.LineReader.RecordConsumer;
import io.github.probkit.cli.output.CliException;
import io.github.probkit.cli.output.Progress;
import io.github.probkit.cli.output.Stdout;
import io.github.probkit.hash.HashStrategy;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.LongConsumer;

/**
 * Reads the lines of several inputs in turn: files (gzip, xz and zstd recognised by their magic
 * bytes) or {@code -} for standard input, with a progress bar on a terminal and errors naming the
 * file. Every command's keys come through here.
 *
 * <p>The calling thread reads (and decompresses) the inputs as blocks of whole lines. Where the
 * {@link KeySink} allows, worker threads split and hash the blocks, one per core, while the calling
 * thread reads on; whatever must happen in input order then happens on the calling thread, block by
 * block, so that the result is the same for any number of threads.
 *
 * <p>A command that answers each line (query, dedupe) reads a pipe, a socket or a terminal line by
 * line instead: it answers the lines it has as soon as a read brings any, and flushes its answers
 * whenever the next read would wait, so that {@code tail -f log | probkit filter query f.bin}
 * answers each line as it comes, and a fast pipe is still read in large blocks. CSV records are
 * read one by one (a quoted field may hold a newline).
 */
public final class Inputs {
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
  public static InputStream open(Path p) throws IOException {
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

  /**
   * Standard input: the stream, whether it is a terminal (read only when asked to, and no progress
   * bar drawn over what is typed there) and whether it streams: a pipe, socket or terminal, whose
   * lines may come one at a time, rather than a regular file.
   */
  public record Stdin(InputStream in, boolean terminal, boolean streams) {
    /** {@code in} as if redirected from a file. */
    public static Stdin file(InputStream in) {
      return new Stdin(in, false, false);
    }
  }

  /**
   * What the sinks of commands that answer each line share: lines go in input order to {@link
   * #record} on the calling thread, a key given as an argument being its own line; headers go to
   * {@code header}; before input waits, {@link #beforeWait} runs and {@code out} is flushed.
   */
  private abstract static class Answering extends KeySink {
    private final LineConsumer header;
    private final OutputStream out;

    Answering(LineConsumer header, OutputStream out) {
      this.header = header;
      this.out = out;
    }

    abstract void record(byte[] line, int off, int len, byte[] key, int keyOff, int keyLen)
        throws IOException;

    void beforeWait() throws IOException {}

    @Override
    public boolean concurrent() {
      return false;
    }

    @Override
    public boolean answersLines() {
      return true;
    }

    @Override
    public RecordConsumer recordsOf(Block b) {
      return this::record;
    }

    @Override
    public void accept(byte[] buf, int off, int len) throws IOException {
      record(buf, off, len, buf, off, len);
    }

    @Override
    public void header(byte[] line, int off, int len) throws IOException {
      if (header != null) {
        header.accept(line, off, len);
      }
    }

    @Override
    public void idle() {
      try {
        beforeWait();
        out.flush();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /** Takes the hashes {@code h[0, n)} of a run of keys, in input order. */
  @FunctionalInterface
  public interface HashBatch {
    public void accept(long[] h, int n);
  }

  /** Answers a batch of input lines and their keys at once. */
  @FunctionalInterface
  public interface Batch {
    void answer(List<byte[]> lines, List<byte[]> keys) throws IOException;
  }

  /** Thrown by a sink to end the reading, quietly: it has its answer ({@code query -q}). */
  public static final class Stop extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public Stop() {
      super("stop", null, false, false);
    }
  }

  /** Where the keys go, and which threads may take them there. */
  public abstract static class KeySink {
    /** Whether blocks may go through {@link #keysOf} on several threads at once. */
    public abstract boolean concurrent();

    /**
     * What the keys of block {@code b} are handed to, on a worker thread when {@link #concurrent}.
     */
    public LineConsumer keysOf(Block b) {
      return this::accept;
    }

    /**
     * What the lines of block {@code b} and their keys are handed to: by default, the keys to
     * {@link #keysOf}.
     */
    public RecordConsumer recordsOf(Block b) {
      LineConsumer keys = keysOf(b);
      return (line, off, len, key, keyOff, keyLen) -> keys.accept(key, keyOff, keyLen);
    }

    /**
     * Whether the sink answers each line on standard output (and so wants pipes read line by line).
     */
    public boolean answersLines() {
      return false;
    }

    /** Whether the sink wants pipes read line by line, and {@link #idle} called. */
    public boolean readsLinesAsTheyCome() {
      return answersLines();
    }

    /** The header line of an input read with --header; on the calling thread. */
    public void header(byte[] line, int off, int len) throws IOException {}

    /** Called when the next read of input would wait: the moment to flush answers. */
    public void idle() {}

    /**
     * Called once after the last key, on the calling thread ({@link KeyOptions#forEach} calls it).
     */
    public void end() throws IOException {}

    /**
     * Runs on the thread that took the keys of block {@code b} through {@link #keysOf}, right after
     * them (CSV input, read on the calling thread, only has {@link #finish}).
     */
    public void worked(Block b) {}

    /**
     * Runs on the calling thread for each block, in input order, after {@link #keysOf} took its
     * keys.
     */
    public void finish(Block b) {}

    /** A key given directly, such as a command-line argument; on the calling thread. */
    public abstract void accept(byte[] buf, int off, int len) throws IOException;

    /** Every key goes to {@code sink} on the calling thread, in input order. */
    public static KeySink inOrder(LineConsumer sink) {
      return direct(sink, false);
    }

    /**
     * Every line and its key go to {@code sink} on the calling thread, in input order (a key given
     * as an argument is its own line); the header line of each input to {@code header} (which may
     * be null); {@code out}, where the answers go, is flushed whenever input would wait.
     */
    public static KeySink answering(RecordConsumer sink, LineConsumer header, OutputStream out) {
      return new Answering(header, out) {
        @Override
        void record(byte[] line, int off, int len, byte[] key, int keyOff, int keyLen)
            throws IOException {
          sink.accept(line, off, len, key, keyOff, keyLen);
        }
      };
    }

    /**
     * As {@link #answering}, but the lines and their keys are copied into batches of {@code size}
     * that {@code batch} answers at once (with one round trip to a server): when a batch is full,
     * whenever input would wait, and at the end. A key that is its whole line is one array in both
     * lists.
     */
    public static KeySink answeringInBatches(
        int size, Batch batch, LineConsumer header, OutputStream out) {
      return new Answering(header, out) {
        private List<byte[]> lines = new ArrayList<>();
        private List<byte[]> keys = new ArrayList<>();

        @Override
        void record(byte[] line, int off, int len, byte[] key, int keyOff, int keyLen)
            throws IOException {
          byte[] l = Arrays.copyOfRange(line, off, off + len);
          lines.add(l);
          keys.add(
              line == key && off == keyOff && len == keyLen
                  ? l
                  : Arrays.copyOfRange(key, keyOff, keyOff + keyLen));
          if (keys.size() == size) {
            beforeWait();
          }
        }

        /**
         * Answers the batch so far; taken first, so that a Stop thrown by it leaves nothing to
         * answer again.
         */
        @Override
        void beforeWait() throws IOException {
          if (keys.isEmpty()) {
            return;
          }
          List<byte[]> l = lines;
          List<byte[]> k = keys;
          lines = new ArrayList<>();
          keys = new ArrayList<>();
          batch.answer(l, k);
        }

        @Override
        public void end() throws IOException {
          beforeWait();
        }
      };
    }

    /** Every key goes to {@code sink}, which must be thread-safe, from any thread, in any order. */
    public static KeySink concurrently(LineConsumer sink) {
      return direct(sink, true);
    }

    private static KeySink direct(LineConsumer sink, boolean concurrent) {
      return new KeySink() {
        @Override
        public boolean concurrent() {
          return concurrent;
        }

        @Override
        public void accept(byte[] buf, int off, int len) throws IOException {
          sink.accept(buf, off, len);
        }
      };
    }

    /**
     * The 64-bit hashes of the keys go to {@code sink} on the calling thread, a block's at a time,
     * in input order; the hashing happens on the worker threads.
     */
    public static KeySink hashBatches(HashStrategy hash, HashBatch sink) {
      return hashBatches(hash, sink, false);
    }

    /**
     * As {@link #hashBatches(HashStrategy, HashBatch)}; when {@code anyThread}, each block's hashes
     * go to {@code sink} on the worker thread that hashed them, in any order ({@code sink} must
     * then be thread-safe).
     */
    public static KeySink hashBatches(HashStrategy hash, HashBatch sink, boolean anyThread) {
      return new KeySink() {
        @Override
        public boolean concurrent() {
          return true;
        }

        @Override
        public void worked(Block b) {
          if (anyThread) {
            sink.accept(b.hashes, b.hashCount);
            b.hashCount = 0;
          }
        }

        @Override
        public void finish(Block b) {
          if (b.hashCount > 0) {
            sink.accept(b.hashes, b.hashCount);
          }
        }

        @Override
        public void accept(byte[] buf, int off, int len) {
          sink.accept(new long[] {hash.hash64(buf, off, len)}, 1);
        }

        @Override
        public LineConsumer keysOf(Block b) {
          return (buf, off, len) -> b.addHash(hash.hash64(buf, off, len));
        }
      };
    }

    /**
     * The 64-bit hash of every key goes to {@code sink} on the calling thread, in input order; the
     * hashing happens on the worker threads.
     */
    public static KeySink hashes(HashStrategy hash, LongConsumer sink) {
      return new KeySink() {
        @Override
        public boolean concurrent() {
          return true;
        }

        @Override
        public void finish(Block b) {
          long[] h = b.hashes;
          for (int i = 0, n = b.hashCount; i < n; i++) {
            sink.accept(h[i]);
          }
        }

        @Override
        public void accept(byte[] buf, int off, int len) {
          sink.accept(hash.hash64(buf, off, len));
        }

        @Override
        public LineConsumer keysOf(Block b) {
          return (buf, off, len) -> b.addHash(hash.hash64(buf, off, len));
        }
      };
    }
  }

  /**
   * Feeds every line of every input to {@code sink} on the calling thread; returns the number of
   * keys.
   */
  public static long forEachLine(
      List<String> inputs, Stdin stdin, InputFormat format, LineConsumer sink) throws IOException {
    return forEachLine(inputs, stdin, format, KeySink.inOrder(sink));
  }

  /** Feeds the key of every line of every input to {@code sink}; returns the number of keys. */
  public static long forEachLine(List<String> inputs, Stdin stdin, InputFormat format, KeySink sink)
      throws IOException {
    boolean csv = format.csv(); // checks the options before any input is opened
    int threads = sink.concurrent() && !csv ? threads() : 1;
    ExecutorService pool =
        threads > 1
            ? Executors.newFixedThreadPool(
                threads,
                r -> {
                  Thread t = new Thread(r, "probkit-lines");
                  t.setDaemon(true);
                  return t;
                })
            : null;
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
        boolean streams;
        InputStream raw;
        if (isStdin) {
          // Standard input belongs to the caller: closing our wrappers must not close it.
          raw =
              new java.io.FilterInputStream(stdin.in()) {
                @Override
                public void close() {}
              };
          streams = stdin.streams();
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
            throw new CliException(CliException.describe(name, e), e);
          }
          streams = !Files.isRegularFile(p);
        }
        // Line by line only for a sink that answers lines or commits a stream's keys as they come;
        // others read even a pipe in blocks.
        boolean eager = streams && sink.readsLinesAsTheyCome();
        if (eager) {
          raw = idleAware(raw, sink);
        }
        // No bar over a terminal someone types in, nor between answers printed on a terminal.
        boolean bar =
            !(isStdin && stdin.terminal())
                && !(sink.answersLines() && (eager || Stdout.isTerminal(1)));
        try (Progress progress = bar ? Progress.start(shown, size, System.err) : Progress.none();
            InputStream in = LineReader.withoutBom(Decompress.open(progress.track(raw), shown))) {
          if (csv) {
            counts.lines += csv(in, shown, format, sink, counts);
            continue;
          }
          LineReader reader = new LineReader(in, shown, eager);
          int field;
          if (format.header) {
            byte[] header = reader.readLine();
            field = format.fieldIndex(header == null ? null : format.split(header), shown);
            if (header != null) {
              sink.header(header, 0, header.length);
            }
          } else {
            field = format.fieldIndex(null, shown);
          }
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
              work(b, sink, format, field);
              free.push(finish(b, sink, counts));
            } else {
              Block mine = b;
              int f = field;
              pending.add(pool.submit(() -> work(mine, sink, format, f)));
            }
          }
        } catch (CliException e) {
          throw e;
        } catch (IOException e) {
          // A read that fails after the open (EIO from /proc/self/mem, a device, a network mount).
          throw new CliException(CliException.describe(shown, e), e);
        }
      }
      while (!pending.isEmpty()) {
        finish(pending.poll(), sink, counts);
      }
    } catch (Stop e) {
      // The sink has its answer: the rest of the input is not needed.
    } finally {
      if (pool != null) {
        pool.shutdownNow();
      }
    }
    if (counts.skipped > 0) {
      System.err.println(
          "probkit: skipped " + counts.skipped + " line(s) without field " + format.field);
    }
    return counts.lines - counts.skipped;
  }

  /**
   * The records of one CSV input, in batches of blocks for sinks that collect per block; returns
   * their number.
   */
  private static long csv(
      InputStream in, String name, InputFormat format, KeySink sink, Counts counts)
      throws IOException {
    Block b = new Block();
    RecordConsumer keys = sink.recordsOf(b);
    long[] skipped = {0};
    long n =
        CsvInput.forEach(
            in,
            name,
            format,
            sink,
            (line, off, len, key, keyOff, keyLen) -> {
              keys.accept(line, off, len, key, keyOff, keyLen);
              if (b.hashCount == 1 << 14) {
                sink.finish(b);
                b.hashCount = 0;
              }
            },
            skipped);
    sink.finish(b);
    counts.skipped += skipped[0];
    return n;
  }

  /** {@code in}, calling {@code sink.idle()} before each read that would wait for input. */
  private static InputStream idleAware(InputStream in, KeySink sink) {
    return new java.io.FilterInputStream(in) {
      @Override
      public int read() throws IOException {
        idleIfEmpty();
        return super.read();
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        idleIfEmpty();
        return super.read(b, off, len);
      }

      private void idleIfEmpty() throws IOException {
        if (in.available() == 0) {
          sink.idle();
        }
      }
    };
  }

  private static final class Counts {
    long lines;
    long skipped;
  }

  private static Block work(Block b, KeySink sink, InputFormat format, int field)
      throws IOException {
    long[] skipped = {0};
    b.lines = LineReader.split(b.buf, b.len, format.select(field, sink.recordsOf(b), skipped));
    b.skipped = skipped[0];
    sink.worked(b);
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
