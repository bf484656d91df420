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
 *      4     1  format version: 1, or 2 for a payload of at least {@link #CHUNKED_FROM} bytes
 *      5     1  structure type ({@link StructureType#id()})
 *      6     1  hash algorithm ({@link io.github.probkit.hash.HashAlgorithm#id()})
 *      7     1  flags: reserved, 0
 *      8     8  hash seed
 *     16     4  P: length of the parameters, 0..1024
 *     20     8  L: length of the payload
 *     28     P  parameters (the structure's own fixed fields)
 *   28+P     L  payload (the structure's arrays)
 * 28+P+L     4  version 1: CRC32C of every byte above
 *
 * version 2, instead of that checksum:
 * 28+P+L    4N  CRC32C of each payload chunk: bytes [i C, min((i + 1) C, L)) of the payload, for
 *               C = {@link #CHUNK_BYTES} and N = ceil(L / C)
 *   +4N      4  CRC32C of the header, the parameters and the N chunk checksums
 * </pre>
 *
 * Version 2 lets a reader that maps the file rather than reads it check the bytes a query reads
 * without reading the rest: the header, parameters and chunk checksums once, and each chunk the
 * first time it is read. Every byte is still covered by a checksum.
 *
 * <p>All integers are little-endian. A writer states the payload length up front, so a reader can
 * check it against the parameters before reading, and {@link #finish()} refuses to complete when
 * the payload written differs from it.
 */
public final class SketchWriter {
  static final int MAGIC = 0x54494B50; // "PKIT" read little-endian
  static final int VERSION = 1;
  static final int VERSION_CHUNKED = 2;

  /** The size of a payload chunk with its own checksum in format version 2: 64 KiB. */
  public static final int CHUNK_BITS = 16;

  public static final int CHUNK_BYTES = 1 << CHUNK_BITS;

  /**
   * Payloads of at least this many bytes (1 MiB) are written in format version 2. A smaller file is
   * checked whole by a mapped reader when it opens it (well under a millisecond); a larger one
   * would cost about 0.1 s per GB read from the page cache, and more from a disk.
   */
  public static final long CHUNKED_FROM = 1L << 20;

  static final int HEADER_BYTES = 28;
  static final int MAX_PARAMS = 1024;

  private final OutputStream out;
  private final CRC32C crc = new CRC32C();

  /** The bytes gathered before each write: a whole small structure, at most 64 KiB. */
  private final ByteBuffer buf;

  private final long payloadLength;
  private long payloadWritten;

  /** The bytes of the header and the parameters. */
  private final int head;

  /** Bytes passed to {@link #out} so far. */
  private long drained;

  /** Version 2: the checksum of the chunk being written, and those of the chunks before it. */
  private final CRC32C chunk;

  private final int[] chunkSums;

  private SketchWriter(OutputStream out, int headerAndParams, long payloadLength) {
    this.out = out;
    this.payloadLength = payloadLength;
    this.head = headerAndParams;
    boolean chunked = payloadLength >= CHUNKED_FROM;
    this.chunk = chunked ? new CRC32C() : null;
    this.chunkSums = chunked ? new int[chunks(payloadLength)] : null;
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
    w.buf.put((byte) (w.chunk != null ? VERSION_CHUNKED : VERSION));
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

  /** The chunks of a payload of {@code length} bytes in format version 2. */
  static int chunks(long length) {
    return (int) ((length + CHUNK_BYTES - 1) >>> CHUNK_BITS);
  }

  /**
   * Writes out the buffer. Its bytes go into the checksum of the whole, except that in version 2
   * payload bytes go into their chunk's checksum instead.
   */
  private void drain() throws IOException {
    byte[] a = buf.array();
    for (int at = 0, n = buf.position(); at < n; ) {
      long p = drained - head;
      int take;
      if (chunk == null || p < 0 || p >= payloadLength) {
        take = p < 0 ? (int) Math.min(n - at, -p) : n - at;
        crc.update(a, at, take);
      } else {
        long chunkEnd = Math.min(payloadLength, (p | (CHUNK_BYTES - 1)) + 1);
        take = (int) Math.min(n - at, chunkEnd - p);
        chunk.update(a, at, take);
        if (p + take == chunkEnd) {
          chunkSums[(int) (p >>> CHUNK_BITS)] = (int) chunk.getValue();
          chunk.reset();
        }
      }
      at += take;
      drained += take;
    }
    out.write(a, 0, buf.position());
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
    writeArray(off, len, Long.BYTES, (i, n) -> buf.asLongBuffer().put(values, i, n));
  }

  public void writeShorts(short[] values, int off, int len) throws IOException {
    writeArray(off, len, Short.BYTES, (i, n) -> buf.asShortBuffer().put(values, i, n));
  }

  public void writeBytes(byte[] values, int off, int len) throws IOException {
    writeArray(off, len, 1, (i, n) -> buf.put(buf.position(), values, i, n));
  }

  /** Copies values {@code [i, i + n)} to the buffer from its position, leaving the position. */
  @FunctionalInterface
  private interface Piece {
    void copy(int i, int n);
  }

  /**
   * Writes {@code len} values of {@code width} bytes each from {@code off}: as many at a time as
   * the buffer has room for, so that an array larger than the buffer is drained through it in
   * pieces.
   */
  private void writeArray(int off, int len, int width, Piece piece) throws IOException {
    count((long) width * len);
    for (int i = off, end = off + len; i < end; ) {
      room(width);
      int n = Math.min(end - i, buf.remaining() / width);
      piece.copy(i, n);
      buf.position(buf.position() + width * n);
      i += n;
    }
  }

  /** Writes the checksum and flushes; the payload must be complete. */
  public void finish() throws IOException {
    if (payloadWritten != payloadLength) {
      throw new IllegalStateException(
          "wrote " + payloadWritten + " payload bytes, declared " + payloadLength);
    }
    if (chunkSums != null) {
      drain(); // which completes the last chunk's checksum
      for (int sum : chunkSums) {
        room(4);
        buf.putInt(sum);
      }
    }
    drain();
    buf.putInt((int) crc.getValue());
    out.write(buf.array(), 0, 4);
    buf.clear();
    out.flush();
  }
}
