package io.github.probkit.cli.location;

import io.github.probkit.cli.input.Inputs;
import io.github.probkit.cli.input.LineReader.Block;
import io.github.probkit.cli.input.LineReader.LineConsumer;
import io.github.probkit.cli.input.LineReader.RecordConsumer;
import io.github.probkit.cli.output.CliException;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The writes of an add ({@code filter add}, {@code cms add}, {@code hll add}) that reads a stream
 * (a pipe, {@code tail -f}, a FIFO), whose keys cannot be read again: it commits what it has added
 * every {@link #INTERVAL_MILLIS} (or ten times as long as a write takes, for a file so big that
 * writing it takes more than a tenth of that), and once more when SIGINT, SIGTERM or SIGHUP stops
 * it, so that a stopped stream loses at most the keys of the last interval, and none that were read
 * when the signal came. Each commit is the usual atomic write, under the add's lock.
 *
 * <p>A commit must write the structure between two keys. The keys go to the structure on the
 * calling thread only (the sink it wraps is made not {@link Inputs.KeySink#concurrent}), which
 * holds {@link #guard} while it adds, and lets go of it when the next read would wait for input
 * and, when a commit waits, after each block: the timer and the shutdown hook commit holding it.
 * Adds of files and arguments, which can be run again, do not commit on the way.
 */
public final class StreamCommits implements AutoCloseable {
  /** How often a stream's keys are committed. */
  public static final long INTERVAL_MILLIS = 5000;

  /** How long the shutdown hook waits for the adding thread to reach the end of its block. */
  private static final long EXIT_WAIT_SECONDS = 10;

  private final SketchFiles.Lock lock;
  private final SketchFiles.Content writer;
  private final Object name;
  private final PrintWriter err;
  private final ReentrantLock guard = new ReentrantLock(true);
  private final Runnable atExit = this::commitAtExit;

  /** Whether the calling thread holds {@link #guard}; only that thread reads or writes it. */
  private boolean held;

  // Under guard:
  private boolean dirty;
  private long due;
  private boolean closed;
  private RuntimeException failure;

  private ScheduledExecutorService timer;

  /** Commits of the structure that {@code writer} writes to the file of {@code lock}. */
  public StreamCommits(
      SketchFiles.Lock lock, SketchFiles.Content writer, Object name, PrintWriter err) {
    this.lock = lock;
    this.writer = writer;
    this.name = name;
    this.err = err;
  }

  /**
   * {@code sink}, taking its keys on the calling thread, committing as it goes and when the process
   * is stopped.
   */
  public Inputs.KeySink wrap(Inputs.KeySink sink) {
    if (timer == null) {
      due = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(INTERVAL_MILLIS);
      timer =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t = new Thread(r, "probkit-commits");
                t.setDaemon(true);
                return t;
              });
      timer.scheduleWithFixedDelay(this::commitWhileWaiting, 200, 200, TimeUnit.MILLISECONDS);
      SketchFiles.beforeExit(atExit);
    }
    return new Inputs.KeySink() {
      @Override
      public boolean concurrent() {
        return false;
      }

      @Override
      public boolean readsLinesAsTheyCome() {
        return true;
      }

      @Override
      public boolean answersLines() {
        return sink.answersLines();
      }

      @Override
      public LineConsumer keysOf(Block b) {
        LineConsumer keys = sink.keysOf(b);
        return (buf, off, len) -> {
          adding();
          keys.accept(buf, off, len);
        };
      }

      @Override
      public RecordConsumer recordsOf(Block b) {
        RecordConsumer records = sink.recordsOf(b);
        return (line, off, len, key, keyOff, keyLen) -> {
          adding();
          records.accept(line, off, len, key, keyOff, keyLen);
        };
      }

      @Override
      public void header(byte[] line, int off, int len) throws IOException {
        sink.header(line, off, len);
      }

      @Override
      public void idle() {
        sink.idle();
        if (held) {
          commitIfDue();
          release();
        }
      }

      @Override
      public void end() throws IOException {
        adding();
        sink.end();
      }

      @Override
      public void worked(Block b) {
        adding();
        sink.worked(b);
      }

      @Override
      public void finish(Block b) {
        adding();
        sink.finish(b);
        commitIfDue();
        if (guard.hasQueuedThreads()) {
          release(); // the shutdown hook waits
        }
      }

      @Override
      public void accept(byte[] buf, int off, int len) throws IOException {
        adding();
        sink.accept(buf, off, len);
      }
    };
  }

  /** On the calling thread, before it changes the structure. */
  private void adding() {
    if (!held) {
      guard.lock();
      held = true;
      if (failure != null) {
        throw failure;
      }
    }
    dirty = true;
  }

  private void release() {
    if (held) {
      held = false;
      guard.unlock();
    }
  }

  /** The final write, on the calling thread: the shutdown hook waits for it. */
  void write() {
    adding();
    commit();
  }

  private void commitIfDue() {
    if (dirty && System.nanoTime() - due >= 0) {
      commit();
    }
  }

  /** Writes the structure; the caller holds {@link #guard}. */
  private void commit() {
    long start = System.nanoTime();
    lock.write(writer);
    dirty = false;
    long took = System.nanoTime() - start;
    due = System.nanoTime() + Math.max(TimeUnit.MILLISECONDS.toNanos(INTERVAL_MILLIS), 10 * took);
  }

  /** On the timer: commits when the calling thread waits for input (and so holds no guard). */
  private void commitWhileWaiting() {
    if (!guard.tryLock()) {
      return; // adding: the calling thread commits when due
    }
    try {
      if (!closed && failure == null) {
        commitIfDue();
      }
    } catch (RuntimeException e) {
      failure = e; // reported by the calling thread when it adds again
    } finally {
      guard.unlock();
    }
  }

  /**
   * In the shutdown hook, before the temporary files are deleted: writes what was added since the
   * last commit, and keeps the guard, so that nothing more is added before the JVM halts.
   */
  private void commitAtExit() {
    try {
      if (!guard.tryLock(EXIT_WAIT_SECONDS, TimeUnit.SECONDS)) {
        err.println("probkit: " + name + ": stopped while adding; the last keys were not written");
        return;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    if (closed || !dirty) {
      return;
    }
    try {
      commit();
      err.println("probkit: " + name + ": stopped; the keys read so far are written");
    } catch (RuntimeException e) {
      err.println("probkit: " + CliException.describe(e));
    }
    err.flush();
  }

  @Override
  public void close() {
    if (timer == null) {
      release();
      return;
    }
    timer.shutdownNow();
    if (!held) {
      guard.lock();
      held = true;
    }
    closed = true;
    release();
    SketchFiles.noLongerBeforeExit(atExit);
  }
}
