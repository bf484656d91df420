package io.github.probkit.cli;

import io.github.probkit.internal.Preconditions;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * A one-line progress report for long reads (bytes, lines, rate, and percentage and time left when
 * the size is known), redrawn at most four times a second on stderr, and only when stderr is a
 * terminal: redirected output and tests see nothing.
 */
final class Progress {
  private static final long INTERVAL_NANOS = 250_000_000L;

  private final PrintWriter err;
  private final String what;
  private final long totalBytes;
  private final boolean enabled;
  private final long start = System.nanoTime();
  private long next = start + INTERVAL_NANOS;
  private int width;
  private long bytes;

  /** {@code totalBytes} is negative when unknown (stdin). */
  Progress(PrintWriter err, String what, long totalBytes, boolean enabled) {
    this.err = err;
    this.what = what;
    this.totalBytes = totalBytes;
    this.enabled = enabled;
  }

  /** Whether file descriptor 2 is a terminal (Linux; elsewhere, when the JVM has a console). */
  static boolean stderrIsTerminal() {
    try {
      String target = Files.readSymbolicLink(Path.of("/proc/self/fd/2")).toString();
      return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
    } catch (IOException | UnsupportedOperationException | SecurityException e) {
      return System.console() != null;
    }
  }

  /** Wraps {@code in} so that the bytes read from it count towards the progress. */
  InputStream count(InputStream in) {
    return new FilterInputStream(in) {
      @Override
      public int read() throws IOException {
        int b = super.read();
        if (b >= 0) {
          bytes++;
        }
        return b;
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        int n = super.read(b, off, len);
        if (n > 0) {
          bytes += n;
        }
        return n;
      }

      @Override
      public void close() {
        // The caller closes the underlying stream (never stdin).
      }
    };
  }

  /** Called every few thousand lines; redraws when the interval has passed. */
  void update(long lines) {
    if (!enabled) {
      return;
    }
    long now = System.nanoTime();
    if (now < next) {
      return;
    }
    next = now + INTERVAL_NANOS;
    double seconds = (now - start) / 1e9;
    double rate = bytes / Math.max(seconds, 1e-9);
    StringBuilder line = new StringBuilder("probkit ").append(what).append(": ")
        .append(Preconditions.formatBytes(bytes));
    if (totalBytes > 0) {
      line.append(" of ").append(Preconditions.formatBytes(totalBytes))
          .append(String.format(Locale.ROOT, " (%.0f%%)", 100.0 * bytes / totalBytes));
    }
    line.append(String.format(Locale.ROOT, ", %,d lines, %s/s", lines, Preconditions.formatBytes((long) rate)));
    if (totalBytes > 0 && rate > 0 && bytes < totalBytes) {
      long left = (long) ((totalBytes - bytes) / rate);
      line.append(String.format(Locale.ROOT, ", %d:%02d left", left / 60, left % 60));
    }
    draw(line.toString());
  }

  /** Erases the progress line. */
  void done() {
    if (enabled && width > 0) {
      draw("");
    }
  }

  private void draw(String s) {
    int pad = Math.max(0, width - s.length());
    err.print("\r" + s + " ".repeat(pad) + (s.isEmpty() ? "\r" : ""));
    err.flush();
    width = s.length();
  }
}
