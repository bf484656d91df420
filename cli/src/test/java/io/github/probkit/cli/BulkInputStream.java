package io.github.probkit.cli;

import java.io.InputStream;

/**
 * An input stream a test defines by its bulk read alone (a pipe that pauses, a file cut while
 * read); a single-byte read goes through it, so both see the same stream.
 */
abstract class BulkInputStream extends InputStream {
  @Override
  public int read() {
    byte[] one = new byte[1];
    return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
  }

  @Override
  public abstract int read(byte[] b, int off, int len);
}
