package io.github.probkit.io;

import io.github.probkit.hash.HashStrategy;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * Writes one structure in the probkit container format. docs/FORMAT.md describes the layout byte by
 * byte; this class and {@link SketchReader} are the only code that knows it.
 *
 * <pre>
 * offset  size  field
 * ------  ----  -----------------------------------------------------------------
 *      0     4  magic: the ASCII bytes "PKIT" (0x50 0x4B 0x49 0x54)
 *      4     1  format version (1)
 *      5     1  structure type ({@link StructureType#id()})
 *      6     1  hash algorithm ({@link io.github.probkit.hash.HashAlgorithm#id()})
 *      7     1  flags: reserved, 0
 *      8     8  hash seed
 *     16     4  P: length of the parameters, 0..1024
 *     20     8  L: length of the payload
 *     28     P  parameters (the structure's own fixed fields)
 *   28+P     L  payload (the structure's arrays)
 * 28+P+L     4  CRC32C of every byte above
 * </pre>
 *
 * All integers are little-endian. A writer states the payload length up front, so a reader can
 * check it against the parameters before reading, and {@link #finish()} refuses to complete when
 * the payload written differs from it.
 */
public final class SketchWriter {
  static final int MAGIC = 0x54494B50; // "PKIT" read little-endian
  static final int VERSION = 1;
  static final int HEADER_BYTES = 28;
  static final int MAX_PARAMS = 1024;

  private final OutputStream out;
  private final CRC32C crc = new CRC32C();

  /** The bytes gathered before each write: a whole small structure, at most 64 KiB. */
  private final ByteBuffer buf;

  private final long payloadLength;
  private long payloadWritten;

  private SketchWriter(OutputStream out, int headerAndParams, long payloadLength) {
    this.out = out;
    this.payloadLength = payloadLength;
    long whole = headerAndParams + payloadLength + 4;
    this.buf =
        ByteBuffer.allocate((int) Math.max(headerAndParams + 8, Math.min(1 << 16, whole)))
            .order(ByteOrder.LITTLE_ENDIAN);
  }

  /**
   * Writes the header and the parameters, and returns a writer for exactly {@code payloadLength}
   * bytes of payload. The stream is not closed by this class.
   */
  public static SketchWriter begin(
      OutputStream out, StructureType type, HashStrategy hash, byte[] params, long payloadLength)
      throws IOException {
    if (params.length > MAX_PARAMS || payloadLength < 0) {
      throw new IllegalArgumentException(
          "params " + params.length + " bytes, payload " + payloadLength + " bytes");
    }
    SketchWriter w = new SketchWriter(out, HEADER_BYTES + params.length, payloadLength);
    w.buf.putInt(MAGIC);
    w.buf.put((byte) VERSION);
    w.buf.put((byte) type.id());
    w.buf.put((byte) hash.algorithm().id());
    w.buf.put((byte) 0);
    w.buf.putLong(hash.seed());
    w.buf.putInt(params.length);
    w.buf.putLong(payloadLength);
    w.buf.put(params);
    return w;
  }

  /** A little-endian buffer of {@code size} bytes for building the parameters. */
  public static ByteBuffer params(int size) {
    return ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
  }

  private void room(int n) throws IOException {
    if (buf.remaining() < n) {
      drain();
    }
  }

  private void drain() throws IOException {
    crc.update(buf.array(), 0, buf.position());
    out.write(buf.array(), 0, buf.position());
    buf.clear();
  }

  private void count(long n) {
    payloadWritten += n;
    if (payloadWritten > payloadLength) {
      throw new IllegalStateException("payload exceeds the declared " + payloadLength + " bytes");
    }
  }

  public void writeByte(int v) throws IOException {
    count(1);
    room(1);
    buf.put((byte) v);
  }

  public void writeInt(int v) throws IOException {
    count(4);
    room(4);
    buf.putInt(v);
  }

  public void writeLong(long v) throws IOException {
    count(8);
    room(8);
    buf.putLong(v);
  }

  public void writeLongs(long[] values, int off, int len) throws IOException {
    count(8L * len);
    for (int i = off, end = off + len; i < end; ) {
      room(8);
      int n = Math.min(end - i, buf.remaining() / 8);
      buf.asLongBuffer().put(values, i, n);
      buf.position(buf.position() + 8 * n);
      i += n;
    }
  }

  public void writeShorts(short[] values, int off, int len) throws IOException {
    count(2L * len);
    for (int i = off, end = off + len; i < end; ) {
      room(2);
      int n = Math.min(end - i, buf.remaining() / 2);
      buf.asShortBuffer().put(values, i, n);
      buf.position(buf.position() + 2 * n);
      i += n;
    }
  }

  public void writeBytes(byte[] values, int off, int len) throws IOException {
    count(len);
    for (int i = off, end = off + len; i < end; ) {
      room(1);
      int n = Math.min(end - i, buf.remaining());
      buf.put(values, i, n);
      i += n;
    }
  }

  /** Writes the checksum and flushes; the payload must be complete. */
  public void finish() throws IOException {
    if (payloadWritten != payloadLength) {
      throw new IllegalStateException(
          "wrote " + payloadWritten + " payload bytes, declared " + payloadLength);
    }
    drain();
    buf.putInt((int) crc.getValue());
    out.write(buf.array(), 0, 4);
    buf.clear();
    out.flush();
  }
}
