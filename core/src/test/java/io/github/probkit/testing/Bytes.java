package io.github.probkit.testing;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/** Editing serialized structures to build corrupt inputs whose checksum is nevertheless valid. */
public final class Bytes {
  /** Where the parameters start: after the 28-byte container header. */
  public static final int PARAMS = 28;

  private Bytes() {}

  private static ByteBuffer le(byte[] b) {
    return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
  }

  public static byte[] putLong(byte[] b, int offset, long v) {
    byte[] c = b.clone();
    le(c).putLong(offset, v);
    return withCrc(c);
  }

  public static byte[] putInt(byte[] b, int offset, int v) {
    byte[] c = b.clone();
    le(c).putInt(offset, v);
    return withCrc(c);
  }

  public static byte[] putByte(byte[] b, int offset, int v) {
    byte[] c = b.clone();
    c[offset] = (byte) v;
    return withCrc(c);
  }

  public static byte[] putDouble(byte[] b, int offset, double v) {
    return putLong(b, offset, Double.doubleToRawLongBits(v));
  }

  /** {@code b} with its last 4 bytes set to the CRC32C of the rest, as a writer would have. */
  public static byte[] withCrc(byte[] b) {
    byte[] c = b.clone();
    CRC32C crc = new CRC32C();
    crc.update(c, 0, c.length - 4);
    le(c).putInt(c.length - 4, (int) crc.getValue());
    return c;
  }
}
