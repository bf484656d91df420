package io.github.probkit.testing;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * Helpers for corrupt-input tests that need bytes which pass the checksum, so that a structure's
 * own validation (not the CRC) is what must refuse them.
 */
public final class Corrupt {
  /** Offset of the parameters in the container (see SketchWriter). */
  public static final int PARAMS = 28;

  private Corrupt() {}

  /** Rewrites the trailing CRC32C so that it matches the bytes before it. */
  public static byte[] fixCrc(byte[] b) {
    CRC32C crc = new CRC32C();
    crc.update(b, 0, b.length - 4);
    ByteBuffer.wrap(b, b.length - 4, 4).order(ByteOrder.LITTLE_ENDIAN).putInt((int) crc.getValue());
    return b;
  }

  /** A copy of {@code b} with the little-endian long at {@code offset} replaced, checksum fixed. */
  public static byte[] putLong(byte[] b, int offset, long value) {
    byte[] c = b.clone();
    ByteBuffer.wrap(c).order(ByteOrder.LITTLE_ENDIAN).putLong(offset, value);
    return fixCrc(c);
  }

  /** A copy of {@code b} with the little-endian int at {@code offset} replaced, checksum fixed. */
  public static byte[] putInt(byte[] b, int offset, int value) {
    byte[] c = b.clone();
    ByteBuffer.wrap(c).order(ByteOrder.LITTLE_ENDIAN).putInt(offset, value);
    return fixCrc(c);
  }

  /** A copy of {@code b} with the byte at {@code offset} replaced, checksum fixed. */
  public static byte[] putByte(byte[] b, int offset, int value) {
    byte[] c = b.clone();
    c[offset] = (byte) value;
    return fixCrc(c);
  }
}
