package io.github.probkit.cli.output;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

/**
 * A progress bar on stderr (bytes read, rate, ETA from the input size), shown only when stderr is a
 * terminal: the launcher tells us with {@code -Dprobkit.progress=true} (Java cannot see whether
 * stderr alone is a terminal); without the launcher, only when a console is attached. Silent
 * otherwise, so scripts and pipes see clean output.
 */
public final class Progress implements AutoCloseable {
  private static final Progress NONE = new Progress(null);
  private final ProgressBar bar;

  private Progress(ProgressBar bar) {
    this.bar = bar;
  }

  /** No bar. */
  public static Progress none() {
    return NONE;
  }

  static boolean enabled() {
    String p = System.getProperty("probkit.progress");
    return p != null ? Boolean.parseBoolean(p) : System.console() != null;
  }

  /** A bar for reading {@code totalBytes} (or an unknown amount when negative) of {@code name}. */
  public static Progress start(String name, long totalBytes, PrintStream err) {
    if (!enabled()) {
      return NONE;
    }
    ProgressBar bar =
        new ProgressBarBuilder()
            .setTaskName(name.length() > 24 ? "…" + name.substring(name.length() - 23) : name)
            .setInitialMax(totalBytes > 0 ? totalBytes : -1)
            .setUnit(" MiB", 1 << 20)
            .showSpeed()
            .setStyle(ProgressBarStyle.ASCII)
            .setUpdateIntervalMillis(250)
            .setConsumer(new ConsoleProgressBarConsumer(err))
            .continuousUpdate()
            .build();
    return new Progress(bar);
  }

  /** Wraps {@code in} so that every byte read advances the bar. */
  public InputStream track(InputStream in) {
    if (bar == null) {
      return in;
    }
    return new FilterInputStream(in) {
      private long read;

      @Override
      public int read() throws IOException {
        int b = super.read();
        if (b >= 0) {
          bar.stepTo(++read);
        }
        return b;
      }

      @Override
      public int read(byte[] buf, int off, int len) throws IOException {
        int n = super.read(buf, off, len);
        if (n > 0) {
          read += n;
          bar.stepTo(read);
        }
        return n;
      }
    };
  }

  @Override
  public void close() {
    if (bar != null) {
      bar.close();
    }
  }
}
