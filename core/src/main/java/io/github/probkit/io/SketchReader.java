package io.github.probkit.io;

import io.github.probkit.hash.HashAlgorithm;
import io.github.probkit.hash.HashStrategy;
import java.io.IOException;
import java.io.InputStream;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.zip.CRC32C;

/**
 * Reads one structure in the container format described in {@link SketchWriter}. Every field is
 * validated before anything is allocated from it, and every failure is a {@link
 * SketchFormatException} naming the field and the decoded value.
 *
 * <p>Payload arrays are read straight into the arrays the structure keeps, allocated once the input
 * has shown that it holds them ({@link InputStream#available()} of a file or a byte array says so
 * at once); until then, bytes are read into chunks allocated as they arrive. So a corrupt length
 * never causes an allocation larger than what the input holds, and reading a file needs no more
 * memory than the structure itself (a pipe, whose length is unknown, about twice). The stream is
 * read exactly to the end of the checksum, so structures can follow one another.
 */
public final class SketchReader {
  private static final int FIRST_CHUNK = 1 << 16;
  private static final int MAX_CHUNK = 1 << 23;

  /** The bytes converted at a time into longs or shorts. */
  private static final int CONVERT = 1 << 13;

  private final InputStream in;

  /**
   * The checksum of the whole structure; in format version 2, of all but the payload, which {@link
   * #chunk} covers chunk by chunk.
   */
  private final CRC32C crc = new CRC32C();

  /** Version 2: the checksum of the payload chunk being read, and those of the chunks before. */
  private final CRC32C chunk;

  private int[] chunkSums;

  private final byte[] small = new byte[8];

  /** Bytes to convert into longs or shorts; allocated on first use, at most {@link #CONVERT}. */
  private byte[] convert;

  private final StructureType type;
  private final HashStrategy hash;
  private final ByteBuffer params;
  private final long payloadLength;
  private final int paramsLength;

  /** Payload bytes claimed by the fields read so far. */
  private long payloadRead;

  /** Payload bytes that have arrived. */
  private long payloadFilled;

  private SketchReader(
      InputStream in,
      StructureType type,
      HashStrategy hash,
      ByteBuffer params,
      long payloadLength,
      boolean chunked) {
    this.in = in;
    this.chunk = chunked ? new CRC32C() : null;
    this.paramsLength = params.capacity();
    this.type = type;
    this.hash = hash;
    this.params = params;
    this.payloadLength = payloadLength;
  }

  /** Reads and validates the header and parameters of the next structure in {@code in}. */
  public static SketchReader open(InputStream in) throws IOException {
    byte[] head = new byte[SketchWriter.HEADER_BYTES];
    int got = in.readNBytes(head, 0, head.length);
    if (got < 4) {
      throw new SketchFormatException(
          got == 0
              ? "empty input: not a probkit file"
              : "not a probkit file (only " + got + " bytes)");
    }
    ByteBuffer h = ByteBuffer.wrap(head).order(ByteOrder.LITTLE_ENDIAN);
    int magic = h.getInt();
    if (magic != SketchWriter.MAGIC) {
      throw new SketchFormatException(
          String.format(
              Locale.ROOT, "not a probkit file (bad magic 0x%08x)", Integer.reverseBytes(magic)));
    }
    if (got < head.length) {
      throw new SketchFormatException("truncated header: " + got + " of " + head.length + " bytes");
    }
    int version = h.get() & 0xFF;
    if (version != SketchWriter.VERSION && version != SketchWriter.VERSION_CHUNKED) {
      throw new SketchFormatException(
          "unsupported format version "
              + version
              + " (this probkit reads versions "
              + SketchWriter.VERSION
              + " and "
              + SketchWriter.VERSION_CHUNKED
              + ")");
    }
    int typeId = h.get() & 0xFF;
    StructureType type = StructureType.byId(typeId);
    if (type == null) {
      throw new SketchFormatException("unknown structure type " + typeId);
    }
    int algorithmId = h.get() & 0xFF;
    HashAlgorithm algorithm = HashAlgorithm.byId(algorithmId);
    if (algorithm == null) {
      throw new SketchFormatException("unknown hash algorithm " + algorithmId);
    }
    if (!type.accepts(algorithm)) {
      throw new SketchFormatException(
          "a "
              + type.label()
              + " structure with the "
              + algorithm.label()
              + " hash, which no probkit writes: Guava's and Spark's hashes are for Bloom filters"
              + " (guava and guava32 also for blocked and binary-fuse ones)");
    }
    int flags = h.get() & 0xFF;
    if (flags != 0) {
      throw new SketchFormatException("unknown flags 0x" + Integer.toHexString(flags));
    }
    long seed = h.getLong();
    int paramsLength = h.getInt();
    if (paramsLength < 0 || paramsLength > SketchWriter.MAX_PARAMS) {
      throw new SketchFormatException(
          "parameters length "
              + paramsLength
              + " out of range [0, "
              + SketchWriter.MAX_PARAMS
              + "]");
    }
    long payloadLength = h.getLong();
    if (payloadLength < 0) {
      throw new SketchFormatException("negative payload length " + payloadLength);
    }
    HashStrategy hash;
    try {
      hash = HashStrategy.of(algorithm, seed);
    } catch (IllegalArgumentException e) {
      throw new SketchFormatException(e.getMessage());
    }
    byte[] p = new byte[paramsLength];
    if (in.readNBytes(p, 0, paramsLength) != paramsLength) {
      throw new SketchFormatException("truncated parameters of a " + type.label() + " structure");
    }
    SketchReader r =
        new SketchReader(
            in,
            type,
            hash,
            ByteBuffer.wrap(p).order(ByteOrder.LITTLE_ENDIAN),
            payloadLength,
            version == SketchWriter.VERSION_CHUNKED);
    r.crc.update(head, 0, head.length);
    r.crc.update(p, 0, paramsLength);
    return r;
  }

  /** Opens the next structure and checks that it is of the {@code expected} type. */
  public static SketchReader open(InputStream in, StructureType expected) throws IOException {
    return open(in).expect(expected);
  }

  /** This reader, if its structure is of the {@code expected} type. */
  public SketchReader expect(StructureType expected) throws SketchFormatException {
    if (type != expected) {
      throw new SketchFormatException(
          "expected a " + expected.label() + " structure, found a " + type.label() + " structure");
    }
    return this;
  }

  public StructureType type() {
    return type;
  }

  public HashStrategy hash() {
    return hash;
  }

  public long payloadLength() {
    return payloadLength;
  }

  /**
   * Whether the payload has a checksum per chunk of {@link SketchWriter#CHUNK_BYTES} (format
   * version 2).
   */
  public boolean chunked() {
    return chunk != null;
  }

  /** Where the payload starts: the bytes of the header and the parameters. */
  public long payloadOffset() {
    return SketchWriter.HEADER_BYTES + paramsLength;
  }

  // ---- parameters

  public long paramLong(String field) throws SketchFormatException {
    try {
      return params.getLong();
    } catch (BufferUnderflowException e) {
      throw missing(field);
    }
  }

  public int paramInt(String field) throws SketchFormatException {
    try {
      return params.getInt();
    } catch (BufferUnderflowException e) {
      throw missing(field);
    }
  }

  public int paramByte(String field) throws SketchFormatException {
    try {
      return params.get() & 0xFF;
    } catch (BufferUnderflowException e) {
      throw missing(field);
    }
  }

  /**
   * Whether parameters remain to be read: how a type reads a field that later versions of it append
   * (a reader of the earlier version refuses such a file as having trailing bytes).
   */
  public boolean hasMoreParams() {
    return params.hasRemaining();
  }

  public double paramDouble(String field) throws SketchFormatException {
    return Double.longBitsToDouble(paramLong(field));
  }

  private SketchFormatException missing(String field) {
    return new SketchFormatException(
        "parameters of a " + type.label() + " structure end before field '" + field + "'");
  }

  /** Throws unless {@code ok}, with a message naming the field and its value. */
  public void check(boolean ok, String field, Object value, String allowed)
      throws SketchFormatException {
    if (!ok) {
      throw new SketchFormatException(
          type.label() + " field '" + field + "' is " + value + ", must be " + allowed);
    }
  }

  /** Checks that the declared payload length is the one the parameters imply. */
  public void expectPayloadLength(long expected) throws SketchFormatException {
    if (payloadLength != expected) {
      throw new SketchFormatException(
          type.label()
              + " payload length is "
              + payloadLength
              + " bytes, its parameters imply "
              + expected);
    }
    if (params.hasRemaining()) {
      throw new SketchFormatException(
          type.label() + " parameters have " + params.remaining() + " unexpected trailing bytes");
    }
  }

  // ---- payload

  private void take(long n, String field) throws SketchFormatException {
    if (n < 0 || n > payloadLength - payloadRead) {
      throw new SketchFormatException(
          type.label()
              + " field '"
              + field
              + "' needs "
              + n
              + " bytes, payload has "
              + (payloadLength - payloadRead)
              + " left");
    }
    payloadRead += n;
  }

  private void fill(byte[] dst, int off, int len) throws IOException {
    int got = in.readNBytes(dst, off, len);
    if (got != len) {
      throw new SketchFormatException(
          "truncated "
              + type.label()
              + " payload: input ended "
              + (payloadLength - payloadFilled - got)
              + " bytes early");
    }
    if (chunk == null) {
      crc.update(dst, off, len);
      payloadFilled += len;
      return;
    }
    for (int at = off, end = off + len; at < end; ) {
      long chunkEnd = Math.min(payloadLength, (payloadFilled | (SketchWriter.CHUNK_BYTES - 1)) + 1);
      int take = (int) Math.min(end - at, chunkEnd - payloadFilled);
      chunk.update(dst, at, take);
      at += take;
      payloadFilled += take;
      if (payloadFilled == chunkEnd) {
        int i = (int) ((payloadFilled - 1) >>> SketchWriter.CHUNK_BITS);
        if (chunkSums == null || i == chunkSums.length) {
          // Grown as chunks arrive: a corrupt payload length allocates nothing.
          chunkSums =
              java.util.Arrays.copyOf(chunkSums == null ? new int[0] : chunkSums, 2 * i + 8);
        }
        chunkSums[i] = (int) chunk.getValue();
        chunk.reset();
      }
    }
  }

  public long readLong(String field) throws IOException {
    take(8, field);
    fill(small, 0, 8);
    return ByteBuffer.wrap(small, 0, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
  }

  public int readInt(String field) throws IOException {
    take(4, field);
    fill(small, 0, 4);
    return ByteBuffer.wrap(small, 0, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
  }

  /** Reads {@code n} little-endian longs into the array returned (see the class comment). */
  public long[] readLongs(int n, String field) throws IOException {
    return readLongs(n, 0, field);
  }

  /**
   * Reads {@code n} little-endian longs into the array returned, after {@code lead} zero longs that
   * the caller keeps for itself.
   */
  public long[] readLongs(int n, int lead, String field) throws IOException {
    take(8L * n, field);
    return (long[]) readArray(Element.LONG, n, lead);
  }

  /** Reads {@code n} little-endian shorts into the array returned. */
  public short[] readShorts(int n, String field) throws IOException {
    take(2L * n, field);
    return (short[]) readArray(Element.SHORT, n, 0);
  }

  /** Reads {@code n} bytes into the array returned. */
  public byte[] readBytes(int n, String field) throws IOException {
    take(n, field);
    return (byte[]) readArray(Element.BYTE, n, 0);
  }

  /** The array types a payload is read into. */
  private enum Element {
    BYTE(1),
    SHORT(2),
    LONG(8);

    final int size;

    Element(int size) {
      this.size = size;
    }

    Object allocate(int n) {
      return this == BYTE ? new byte[n] : this == SHORT ? new short[n] : new long[n];
    }
  }

  /**
   * {@code n} elements read into one array: allocated at once when the input shows it holds them,
   * else after chunks (doubling from 64 KiB up to 8 MiB, each allocated once the one before is
   * full) have brought in all but what the input then shows it holds.
   */
  private Object readArray(Element e, int n, int lead) throws IOException {
    List<Object> chunks = new ArrayList<>();
    int done = 0;
    int chunk = FIRST_CHUNK / e.size;
    while (done < n && !holds((long) (n - done) * e.size)) {
      int size = Math.min(chunk, n - done);
      Object part = e.allocate(size);
      readInto(e, part, 0, size);
      chunks.add(part);
      done += size;
      chunk = Math.min(2 * chunk, MAX_CHUNK / e.size);
    }
    if (lead == 0 && chunks.size() == 1 && done == n) {
      return chunks.get(0);
    }
    Object out = e.allocate(lead + n);
    int at = lead;
    for (Object part : chunks) {
      int size = java.lang.reflect.Array.getLength(part);
      System.arraycopy(part, 0, out, at, size);
      at += size;
    }
    chunks.clear();
    readInto(e, out, lead + done, n - done);
    return out;
  }

  /** Whether the input can deliver {@code bytes} more bytes now: it then holds them. */
  private boolean holds(long bytes) {
    try {
      return in.available() >= bytes;
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * Reads {@code n} elements into {@code dst} from {@code off}: bytes directly, wider ones through
   * a small buffer.
   */
  private void readInto(Element e, Object dst, int off, int n) throws IOException {
    if (e == Element.BYTE) {
      fill((byte[]) dst, off, n);
      return;
    }
    if (convert == null) {
      convert = new byte[(int) Math.min(CONVERT, Math.max(8, payloadLength))];
    }
    for (int i = off, end = off + n; i < end; ) {
      int m = Math.min(end - i, convert.length / e.size);
      fill(convert, 0, m * e.size);
      ByteBuffer b = ByteBuffer.wrap(convert, 0, m * e.size).order(ByteOrder.LITTLE_ENDIAN);
      if (e == Element.LONG) {
        b.asLongBuffer().get((long[]) dst, i, m);
      } else {
        b.asShortBuffer().get((short[]) dst, i, m);
      }
      i += m;
    }
  }

  /** Checks that the whole payload was read and that the checksum matches. */
  public void finish() throws IOException {
    if (payloadRead != payloadLength) {
      throw new SketchFormatException(
          type.label() + " payload has " + (payloadLength - payloadRead) + " unread bytes");
    }
    byte[] c = new byte[4];
    if (chunk != null) {
      for (int i = 0, n = SketchWriter.chunks(payloadLength); i < n; i++) {
        if (in.readNBytes(c, 0, 4) != 4) {
          throw new SketchFormatException("truncated: the chunk checksums are missing");
        }
        crc.update(c, 0, 4);
        checkChunk(i, ByteBuffer.wrap(c).order(ByteOrder.LITTLE_ENDIAN).getInt(), chunkSums[i]);
      }
    }
    if (in.readNBytes(c, 0, 4) != 4) {
      throw new SketchFormatException("truncated: the checksum is missing");
    }
    checkSum(ByteBuffer.wrap(c).order(ByteOrder.LITTLE_ENDIAN).getInt(), (int) crc.getValue());
  }

  private static void checkSum(int stored, int actual) throws SketchFormatException {
    if (stored != actual) {
      throw new SketchFormatException(
          String.format(
              Locale.ROOT,
              "checksum mismatch: stored 0x%08x, computed 0x%08x (corrupt file)",
              stored,
              actual));
    }
  }

  /** Throws unless payload chunk {@code i}'s checksum {@code actual} is the {@code stored} one. */
  public static void checkChunk(int i, int stored, int actual) throws SketchFormatException {
    if (stored != actual) {
      throw new SketchFormatException(
          String.format(
              Locale.ROOT,
              "checksum mismatch in payload bytes [%d, %d): stored 0x%08x, computed 0x%08x"
                  + " (corrupt file)",
              (long) i << SketchWriter.CHUNK_BITS,
              (long) (i + 1) << SketchWriter.CHUNK_BITS,
              stored,
              actual));
    }
  }

  // ---- a structure mapped from a file rather than read

  /**
   * For a structure that is mapped from {@code file} rather than read through this reader, which
   * has read its header and parameters: checks the file's length against them, then what can be
   * checked before a query reads the payload. Version 1, whose one checksum covers the payload: the
   * whole file, read once through a small buffer. Version 2: the checksum of the header, the
   * parameters and the chunk checksums, which are returned; each chunk must then be checked when it
   * is first read ({@link #checkChunk}). Returns null when the whole file was checked.
   */
  public int[] checkMapped(FileChannel file) throws IOException {
    long payloadEnd = payloadOffset() + payloadLength;
    int chunks = chunk == null ? 0 : SketchWriter.chunks(payloadLength);
    long end = payloadEnd + 4L * chunks + 4;
    long size = file.size();
    if (size < payloadEnd) {
      throw new SketchFormatException(
          "truncated "
              + type.label()
              + " payload: input ended "
              + (payloadEnd - size)
              + " bytes early");
    }
    if (size < end) {
      throw new SketchFormatException(
          chunk == null || size < end - 4
              ? "truncated: the checksum is missing"
              : "truncated: the chunk checksums are missing");
    }
    if (size > end) {
      throw new SketchFormatException("unexpected bytes after the end of the structure");
    }
    ByteBuffer buf = ByteBuffer.allocateDirect(1 << 20).order(ByteOrder.LITTLE_ENDIAN);
    long last = end - 4;
    int[] sums = chunk == null ? null : new int[chunks];
    int n = 0;
    for (long at = chunk == null ? payloadOffset() : payloadEnd; at < last; ) {
      buf.clear().limit((int) Math.min(buf.capacity(), last - at));
      readFully(file, buf, at);
      if (sums != null) {
        for (int i = 0; i < buf.limit(); i += 4) {
          sums[n++] = buf.getInt(i);
        }
      }
      crc.update(buf);
      at += buf.limit();
    }
    buf.clear().limit(4);
    readFully(file, buf, last);
    int stored = buf.getInt(0);
    checkSum(stored, (int) crc.getValue());
    return sums;
  }

  /** Fills {@code buf} from {@code file} at {@code at}, and flips it. */
  private static void readFully(FileChannel file, ByteBuffer buf, long at) throws IOException {
    while (buf.hasRemaining()) {
      if (file.read(buf, at + buf.position()) < 0) {
        throw new SketchFormatException(
            "truncated: the file ended at byte " + (at + buf.position()));
      }
    }
    buf.flip();
  }
}
