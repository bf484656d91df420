package io.github.probkit.cli.output;

import io.github.probkit.io.SketchFormatException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;

/**
 * A runtime failure to report as one line on stderr with exit code 1: a missing or corrupt file, a
 * filter that cannot take a key. The message is complete as it stands (it names the file).
 */
public final class CliException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public CliException(String message) {
    super(message);
  }

  public CliException(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * {@code e} about {@code file} as one line that names the file once: {@link #describe(Throwable)}
   * with the file in front, unless the exception's own message starts with it (a
   * FileSystemException's does).
   */
  public static String describe(Object file, Throwable e) {
    String d = describe(e);
    return d.startsWith(file + ": ") ? d : file + ": " + d;
  }

  /** One line for the user: the message where it says what happened, the type where it does not. */
  public static String describe(Throwable e) {
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
    if (e instanceof LinkageError) {
      return "probkit is incomplete (rebuild it with mvn package): " + e;
    }
    String m = e.getMessage();
    if (e instanceof CliException
        || e instanceof IllegalArgumentException
        || e instanceof SketchFormatException) {
      return m;
    }
    if (e instanceof IOException) {
      return m == null ? e.getClass().getSimpleName() : m;
    }
    return e.getClass().getSimpleName() + (m == null ? "" : ": " + m);
  }
}
