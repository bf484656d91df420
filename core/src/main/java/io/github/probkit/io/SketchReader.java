package io.github.probkit.io;

import io.github.probkit.hash.HashAlgorithm;
import io.github.probkit.hash.HashStrategy;
import java.io.IOException;
import java.io.InputStream;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.zip.CRC32C;

/**
 * Reads one structure in the container format described in {@link SketchWriter}. Every field is
 * validated before anything is allocated from it, and every failure is a {@link
 * SketchFormatException} naming the field and the decoded value.
 *
 * <p>Payload arrays are read in chunks that are allocated only as the
 * bytes arrive, so a corrupt length can never cause an allocation larger than the input itself.
 * The stream is read exactly to the end of the checksum, so structures can follow one another.
 */
public final class SketchReader {
  private static final int FIRST_CHUNK = 1 << 16;
  private static final int MAX_CHUNK = 1 << 23;

  private final InputStream in;
  private final CRC32C crc = new CRC32C();
  private final byte[] scratch = new byte[1 << 16];
  private final StructureType type;
  private final HashStrategy hash;
  private final ByteBuffer params;
  private final long payloadLength;
  private long payloadRead;

  private SketchReader(
      InputStream in, StructureType type, HashStrategy hash, ByteBuffer params, long payloadLength) {
    this.in = in;
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
          got == 0 ? "empty input: not a probkit file" : "not a probkit file (only " + got + " bytes)");
    }
    ByteBuffer h = ByteBuffer.wrap(head).order(ByteOrder.LITTLE_ENDIAN);
    int magic = h.getInt();
    if (magic != SketchWriter.MAGIC) {
      throw new SketchFormatException(
          String.format(Locale.ROOT, "not a probkit file (bad magic 0x%08x)", Integer.reverseBytes(magic)));
    }
    if (got < head.length) {
      throw new SketchFormatException("truncated header: " + got + " of " + head.length + " bytes");
    }
    int version = h.get() & 0xFF;
    if (version != SketchWriter.VERSION) {
      throw new SketchFormatException(
          "unsupported format version " + version + " (this probkit reads version " + SketchWriter.VERSION + ")");
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
    int flags = h.get() & 0xFF;
    if (flags != 0) {
      throw new SketchFormatException("unknown flags 0x" + Integer.toHexString(flags));
    }
    long seed = h.getLong();
    int paramsLength = h.getInt();
    if (paramsLength < 0 || paramsLength > SketchWriter.MAX_PARAMS) {
      throw new SketchFormatException(
          "parameters length " + paramsLength + " out of range [0, " + SketchWriter.MAX_PARAMS + "]");
    }
    long payloadLength = h.getLong();
    if (payloadLength < 0) {
      throw new SketchFormatException("negative payload length " + payloadLength);
    }
    byte[] p = new byte[paramsLength];
    if (in.readNBytes(p, 0, paramsLength) != paramsLength) {
      throw new SketchFormatException("truncated parameters of a " + type.label() + " structure");
    }
    SketchReader r =
        new SketchReader(in, type, HashStrategy.of(algorithm, seed),
            ByteBuffer.wrap(p).order(ByteOrder.LITTLE_ENDIAN), payloadLength);
    r.crc.update(head, 0, head.length);
    r.crc.update(p, 0, paramsLength);
    return r;
  }

  /** Opens the next structure and checks that it is of the {@code expected} type. */
  public static SketchReader open(InputStream in, StructureType expected) throws IOException {
    SketchReader r = open(in);
    if (r.type != expected) {
      throw new SketchFormatException(
          "expected a " + expected.label() + " structure, found a " + r.type.label() + " structure");
    }
    return r;
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

  public double paramDouble(String field) throws SketchFormatException {
    return Double.longBitsToDouble(paramLong(field));
  }

  private SketchFormatException missing(String field) {
    return new SketchFormatException(
        "parameters of a " + type.label() + " structure end before field '" + field + "'");
  }

  /** Throws unless {@code ok}, with a message naming the field and its value. */
  public void check(boolean ok, String field, Object value, String allowed) throws SketchFormatException {
    if (!ok) {
      throw new SketchFormatException(
          type.label() + " field '" + field + "' is " + value + ", must be " + allowed);
    }
  }

  /** Checks that the declared payload length is the one the parameters imply. */
  public void expectPayloadLength(long expected) throws SketchFormatException {
    if (payloadLength != expected) {
      throw new SketchFormatException(
          type.label() + " payload length is " + payloadLength + " bytes, its parameters imply " + expected);
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
          type.label() + " field '" + field + "' needs " + n + " bytes, payload has "
              + (payloadLength - payloadRead) + " left");
    }
    payloadRead += n;
  }

  private void fill(byte[] dst, int off, int len) throws IOException {
    int got = in.readNBytes(dst, off, len);
    if (got != len) {
      throw new SketchFormatException(
          "truncated " + type.label() + " payload: input ended " + (len - got) + " bytes early");
    }
    crc.update(dst, off, len);
  }

  public long readLong(String field) throws IOException {
    take(8, field);
    fill(scratch, 0, 8);
    return ByteBuffer.wrap(scratch, 0, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
  }

  public int readInt(String field) throws IOException {
    take(4, field);
    fill(scratch, 0, 4);
    return ByteBuffer.wrap(scratch, 0, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
  }

  /**
   * Reads {@code n} longs. Large arrays arrive in chunks that double from 64 KiB up to 8 MiB, each
   * allocated only once the previous one is full, so a corrupt count fails at the end of the input
   * having allocated at most about twice what the input held.
   */
  public long[] readLongs(int n, String field) throws IOException {
    take(8L * n, field);
    List<long[]> parts = new ArrayList<>();
    for (int done = 0, size = FIRST_CHUNK / 8; done < n; size = Math.min(2 * size, MAX_CHUNK / 8)) {
      long[] part = new long[Math.min(size, n - done)];
      readLongsInto(part, 0, part.length);
      parts.add(part);
      done += part.length;
    }
    if (parts.size() == 1) {
      return parts.get(0);
    }
    long[] out = new long[n];
    int at = 0;
    for (int i = 0; i < parts.size(); i++) {
      System.arraycopy(parts.get(i), 0, out, at, parts.get(i).length);
      at += parts.get(i).length;
      parts.set(i, null);
    }
    return out;
  }

  private void readLongsInto(long[] dst, int off, int n) throws IOException {
    for (int i = off, end = off + n; i < end; ) {
      int m = Math.min(end - i, scratch.length / 8);
      fill(scratch, 0, 8 * m);
      ByteBuffer.wrap(scratch, 0, 8 * m).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer().get(dst, i, m);
      i += m;
    }
  }

  /** Reads {@code n} bytes, chunked as {@link #readLongs}. */
  public byte[] readBytes(int n, String field) throws IOException {
    take(n, field);
    List<byte[]> parts = new ArrayList<>();
    for (int done = 0, size = FIRST_CHUNK; done < n; size = Math.min(2 * size, MAX_CHUNK)) {
      byte[] part = new byte[Math.min(size, n - done)];
      fill(part, 0, part.length);
      parts.add(part);
      done += part.length;
    }
    if (parts.size() == 1) {
      return parts.get(0);
    }
    byte[] out = new byte[n];
    int at = 0;
    for (int i = 0; i < parts.size(); i++) {
      System.arraycopy(parts.get(i), 0, out, at, parts.get(i).length);
      at += parts.get(i).length;
      parts.set(i, null);
    }
    return out;
  }

  /** Checks that the whole payload was read and that the checksum matches. */
  public void finish() throws IOException {
    if (payloadRead != payloadLength) {
      throw new SketchFormatException(
          type.label() + " payload has " + (payloadLength - payloadRead) + " unread bytes");
    }
    byte[] c = new byte[4];
    if (in.readNBytes(c, 0, 4) != 4) {
      throw new SketchFormatException("truncated: the checksum is missing");
    }
    int stored = ByteBuffer.wrap(c).order(ByteOrder.LITTLE_ENDIAN).getInt();
    int actual = (int) crc.getValue();
    if (stored != actual) {
      throw new SketchFormatException(
          String.format(Locale.ROOT, "checksum mismatch: stored 0x%08x, computed 0x%08x (corrupt file)", stored, actual));
    }
  }
}
