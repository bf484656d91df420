package io.github.probkit.io;

import java.io.IOException;

/**
 * The bytes are not a valid serialized probkit structure: wrong magic, an unknown version or type,
 * a field out of range, a checksum mismatch, or a truncated stream. The message names the field and
 * the value that was decoded.
 */
public final class SketchFormatException extends IOException {
  private static final long serialVersionUID = 1L;

  public SketchFormatException(String message) {
    super(message);
  }

  public SketchFormatException(String message, Throwable cause) {
    super(message, cause);
  }
}
