package io.github.probkit.cli.output;

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
}
