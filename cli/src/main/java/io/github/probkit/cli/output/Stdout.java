package io.github.probkit.cli.output;

import io.github.probkit.cli.input.LineReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Standard output as a buffered byte stream that does not swallow its errors, as PrintStream and
 * PrintWriter do (they only set a flag). A closed pipe ({@code | head -1}) throws {@link
 * BrokenPipe}, which ends the command at once and quietly with exit code 141, as SIGPIPE ends GNU
 * tools; any other failure, such as a full disk, a CliException: one line and exit code 1. After
 * the first failure, output is dropped. Keys are written as the bytes they came as, through no
 * charset.
 */
public final class Stdout extends OutputStream {
  /**
   * The exit code of a command whose output pipe was closed: 128 + SIGPIPE, as the shell shows GNU
   * tools'.
   */
  public static final int EXIT_BROKEN_PIPE = 141;

  /** The reader of standard output went away; no message, exit code {@link #EXIT_BROKEN_PIPE}. */
  public static final class BrokenPipe extends RuntimeException {
    private static final long serialVersionUID = 1L;

    BrokenPipe() {
      super("broken pipe", null, false, false);
    }
  }

  private final OutputStream out;
  private final boolean pipe;
  private final byte[] buf = new byte[1 << 16];
  private int n;
  private boolean failed;

  private Stdout(OutputStream out, boolean pipe) {
    this.out = out;
    this.pipe = pipe;
  }

  /** File descriptor 1. */
  public static Stdout standard() {
    String t = target(1);
    return new Stdout(
        new FileOutputStream(FileDescriptor.out), t.startsWith("pipe:") || t.startsWith("socket:"));
  }

  /** {@code out}, buffered and with errors reported as on file descriptor 1 (for tests). */
  public static Stdout of(OutputStream out) {
    return new Stdout(out, false);
  }

  /**
   * A consumer that writes the first line it gets to {@code out}, with a newline, and ignores the
   * rest: the header of the first input, printed once however many inputs have one.
   */
  public static LineReader.LineConsumer firstLineTo(OutputStream out) {
    boolean[] done = {false};
    return (buf, off, len) -> {
      if (!done[0]) {
        out.write(buf, off, len);
        out.write('\n');
        done[0] = true;
      }
    };
  }

  @Override
  public void write(int b) {
    if (n == buf.length) {
      drain();
    }
    buf[n++] = (byte) b;
  }

  @Override
  public void write(byte[] b, int off, int len) {
    if (len > buf.length - n) {
      drain();
      if (len >= buf.length) {
        emit(b, off, len);
        return;
      }
    }
    System.arraycopy(b, off, buf, n, len);
    n += len;
  }

  @Override
  public void flush() {
    drain();
    if (!failed) {
      try {
        out.flush();
      } catch (IOException e) {
        throw failure(e);
      }
    }
  }

  private void drain() {
    if (n > 0) {
      int len = n;
      n = 0;
      emit(buf, 0, len);
    }
  }

  private void emit(byte[] b, int off, int len) {
    if (failed) {
      return;
    }
    try {
      out.write(b, off, len);
    } catch (IOException e) {
      throw failure(e);
    }
  }

  private RuntimeException failure(IOException e) {
    failed = true;
    String m = e.getMessage();
    // EPIPE's text is "Broken pipe" where messages are not translated; on a pipe nothing else
    // fails.
    if (pipe || m != null && m.contains("Broken pipe")) {
      return new BrokenPipe();
    }
    return new CliException("cannot write to standard output: " + CliException.describe(e), e);
  }

  /**
   * What file descriptor {@code fd} of this process is open on, as /proc/self/fd shows it ({@code
   * /dev/pts/3}, {@code pipe:[123]}, a path), or "" where /proc cannot tell.
   */
  static String target(int fd) {
    try {
      return Files.readSymbolicLink(Path.of("/proc/self/fd/" + fd)).toString();
    } catch (IOException | UnsupportedOperationException | SecurityException e) {
      return "";
    }
  }

  /**
   * Whether file descriptor {@code fd} is open on a regular file (as /proc/self/fd shows; false
   * where it cannot tell).
   */
  public static boolean isRegularFile(int fd) {
    String t = target(fd);
    return t.startsWith("/") && Files.isRegularFile(Path.of(t));
  }

  /**
   * Whether file descriptor {@code fd} is a terminal: a {@code /dev/pts/N}, {@code /dev/ttyN} or
   * the console. Without /proc, whether the JVM has a console (true only when both stdin and stdout
   * are terminals).
   */
  public static boolean isTerminal(int fd) {
    String t = target(fd);
    if (t.isEmpty()) {
      return System.console() != null;
    }
    return t.startsWith("/dev/pts/") || t.startsWith("/dev/tty") || t.equals("/dev/console");
  }
}
