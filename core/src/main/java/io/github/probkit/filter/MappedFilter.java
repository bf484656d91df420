package io.github.probkit.filter;

import io.github.probkit.hash.HashStrategy;
import io.github.probkit.internal.Batch;
import io.github.probkit.internal.MappedBytes;
import io.github.probkit.io.SketchFormatException;
import io.github.probkit.io.SketchReader;
import io.github.probkit.io.StructureType;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.PrimitiveIterator;
import java.util.zip.CRC32C;

/**
 * A filter file opened without loading it: a read-only, memory-mapped view of a Bloom, blocked
 * Bloom or binary fuse filter that answers queries exactly as the loaded filter would, reading only
 * the pages its probes fall in. A query of a 1 GB filter thus costs a few page reads, not a 1 GB
 * read and 1 GB of heap. Files above 2 GB are mapped in several regions.
 *
 * <p>{@link #open} checks what a full read checks before the payload: the header, every parameter,
 * the file's length against the lengths they imply (no byte missing, none after the checksum) and,
 * for a Bloom filter, that no bit is set beyond its m bits. The checksum covers every byte, so it
 * is checked only on request: {@link #verify()} reads the file through once. A filter loaded in
 * full ({@link Filters#readFrom}) always checks it.
 *
 * <p>Other filter types (counting, cuckoo, scalable) are not mapped: {@link Filters#open} loads
 * them.
 *
 * <p>Thread safety: immutable, and safe for concurrent queries. The file must not be changed or
 * truncated while it is mapped (probkit's own writers replace a file by renaming a new one over it,
 * which leaves an open mapping on the old bytes).
 */
public final class MappedFilter implements MembershipFilter, Closeable {
  private final Path file;
  private final FileChannel channel;
  private final StructureType type;
  private final HashStrategy hash;
  private final long payloadOffset;
  private final long payloadLength;
  private final MappedBytes payload;
  // The shape of the one type this view is of (the others stay 0 or null).
  private final BloomShape bloom;
  private final boolean exact;
  private final BinaryFuseFilter.Shape fuse;

  private MappedFilter(
      Path file, FileChannel channel, SketchReader r, BloomShape bloom, BinaryFuseFilter.Shape fuse)
      throws IOException {
    this.file = file;
    this.channel = channel;
    this.type = r.type();
    this.hash = r.hash();
    this.payloadOffset = r.payloadOffset();
    this.payloadLength = r.payloadLength();
    this.bloom = bloom;
    this.exact = hash.exactModulo();
    this.fuse = fuse;
    this.payload = MappedBytes.map(channel, payloadOffset, payloadLength);
  }

  /** Whether {@link #open} maps files of this type. */
  public static boolean supports(StructureType type) {
    return type == StructureType.BLOOM_FILTER
        || type == StructureType.BLOCKED_BLOOM_FILTER
        || type == StructureType.BINARY_FUSE_FILTER;
  }

  /**
   * Maps the filter in {@code file}. Throws SketchFormatException when the header, the parameters
   * or the file's length are wrong, or when the file holds a type that is not mapped ({@link
   * #supports}).
   */
  public static MappedFilter open(Path file) throws IOException {
    FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
    try {
      // The header and parameters through a stream that must not read ahead into the payload.
      InputStream head = Channels.newInputStream(channel);
      SketchReader r = SketchReader.open(head);
      BloomShape bloom = null;
      BinaryFuseFilter.Shape fuse = null;
      switch (r.type()) {
        case BLOOM_FILTER:
          bloom = BloomFilter.readShape(r);
          break;
        case BLOCKED_BLOOM_FILTER:
          bloom = BlockedBloomFilter.readShape(r);
          break;
        case BINARY_FUSE_FILTER:
          fuse = BinaryFuseFilter.readShape(r);
          break;
        default:
          throw new SketchFormatException("a " + r.type().label() + " file is not mapped: load it");
      }
      // The messages of a full read (SketchReader, and the command line's check for trailing
      // bytes).
      long payloadEnd = r.payloadOffset() + r.payloadLength();
      long size = channel.size();
      if (size < payloadEnd) {
        throw new SketchFormatException(
            "truncated "
                + r.type().label()
                + " payload: input ended "
                + (payloadEnd - size)
                + " bytes early");
      }
      if (size < payloadEnd + 4) {
        throw new SketchFormatException("truncated: the checksum is missing");
      }
      if (size > payloadEnd + 4) {
        throw new SketchFormatException("unexpected bytes after the end of the structure");
      }
      MappedFilter f = new MappedFilter(file, channel, r, bloom, fuse);
      if (r.type() == StructureType.BLOOM_FILTER) {
        BloomFilter.checkTail(bloom.cells, f.payload.getLong(r.payloadLength() - 8));
      }
      return f;
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  // ---- queries

  @Override
  public boolean mightContain(byte[] key, int off, int len) {
    long h = hash.hash64(key, off, len);
    if (exact && type == StructureType.BLOOM_FILTER) {
      return BloomFilter.containsIn(
          payload, bloom.cells, bloom.hashes, true, h, hash.secondHash(key, off, len, h));
    }
    return containsHash(h);
  }

  @Override
  public boolean mightContain(long key) {
    long h = hash.hash64(key);
    if (exact && type == StructureType.BLOOM_FILTER) {
      return BloomFilter.containsIn(
          payload, bloom.cells, bloom.hashes, true, h, hash.secondHash(key, h));
    }
    return containsHash(h);
  }

  /** True unless a Bloom filter hashed with FNV-1a, whose second hash reads the key. */
  @Override
  public boolean hashSuffices() {
    return !(type == StructureType.BLOOM_FILTER && exact);
  }

  @Override
  public int mightContainAllHashes(long[] hashes, int from, int to, boolean[] present) {
    if (!hashSuffices()) {
      return MembershipFilter.super.mightContainAllHashes(hashes, from, to, present);
    }
    return Batch.eachHash(hashes, from, to, present, this::containsHash);
  }

  /**
   * A key's answer from its hash; for a Bloom filter only with XXH3 (second hash from the first).
   */
  private boolean containsHash(long h) {
    switch (type) {
      case BLOOM_FILTER:
        return BloomFilter.containsIn(
            payload, bloom.cells, bloom.hashes, exact, h, hash.secondHash(0L, h));
      case BLOCKED_BLOOM_FILTER:
        return BlockedBloomFilter.containsIn(
            payload,
            bloom.cells / BlockedBloomFilter.BLOCK_BITS,
            bloom.hashes,
            BlockedBloomFilter.hashOf(hash, h));
      default:
        return BinaryFuseFilter.containsIn(payload, fuse, h);
    }
  }

  // ---- the file

  /**
   * Reads the whole file once, through a small buffer (so the pages do not stay mapped in this
   * process), and checks its CRC32C; throws SketchFormatException when it does not match.
   */
  public void verify() throws IOException {
    long end = payloadOffset + payloadLength;
    CRC32C crc = new CRC32C();
    ByteBuffer buf = ByteBuffer.allocateDirect(1 << 20);
    for (long at = 0; at < end; ) {
      buf.clear().limit((int) Math.min(buf.capacity(), end - at));
      int got = channel.read(buf, at);
      if (got < 0) {
        throw new SketchFormatException("truncated: " + file + " ended at byte " + at);
      }
      buf.flip();
      crc.update(buf);
      at += got;
    }
    ByteBuffer stored = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
    while (stored.hasRemaining()) {
      if (channel.read(stored, end + stored.position()) < 0) {
        throw new SketchFormatException("truncated: the checksum is missing");
      }
    }
    int expected = stored.getInt(0);
    int actual = (int) crc.getValue();
    if (expected != actual) {
      throw new SketchFormatException(
          String.format(
              Locale.ROOT,
              "checksum mismatch: stored 0x%08x, computed 0x%08x (corrupt file)",
              expected,
              actual));
    }
  }

  /** The filter read in full from the file, its checksum checked. */
  public MembershipFilter load() throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      return Filters.readFrom(new java.io.BufferedInputStream(in, 1 << 16));
    }
  }

  /** Unmaps nothing (the JVM unmaps when the view is collected) but closes the file. */
  @Override
  public void close() throws IOException {
    channel.close();
  }

  // ---- introspection (from the parameters, without reading the payload)

  /** The file this view maps. */
  public Path file() {
    return file;
  }

  @Override
  public StructureType type() {
    return type;
  }

  @Override
  public HashStrategy hashStrategy() {
    return hash;
  }

  /** The bits of the table, as the loaded filter's {@code bitSize()}. */
  @Override
  public long bitSize() {
    return fuse != null ? (long) fuse.slots * fuse.width.bits() : bloom.cells;
  }

  /** The bytes of the table (the payload), as the loaded filter's {@code byteSize()}. */
  @Override
  public long byteSize() {
    return payloadLength;
  }

  /** The probes per key of a Bloom or blocked Bloom filter; 3 (slots) for a binary fuse filter. */
  public int hashCount() {
    return bloom != null ? bloom.hashes : 3;
  }

  /**
   * The keys a Bloom-type filter was sized for (0 when built by shape); a binary fuse filter's
   * keys.
   */
  public long expectedKeys() {
    return bloom != null ? bloom.expectedKeys : fuse.keys;
  }

  /**
   * The rate a Bloom-type filter was sized for (0 when built by shape); a binary fuse filter's
   * 2^-f.
   */
  public double targetFpp() {
    return bloom != null ? bloom.fpp : fuse.keys == 0 ? 0 : fuse.width.fpp();
  }

  /**
   * The bits set, as the loaded filter's {@code bitCount()}: a scan of the file through a small
   * buffer (an I/O error is an UncheckedIOException). A binary fuse filter has no such count:
   * IllegalStateException.
   */
  public long bitCount() {
    if (bloom == null) {
      throw new IllegalStateException("a binary fuse filter has fingerprints, not bits to count");
    }
    long c = 0;
    for (Words w = new Words(); w.hasNext(); ) {
      c += Long.bitCount(w.nextLong());
    }
    return c;
  }

  /** The loaded filter's {@code expectedFpp()}: for a Bloom-type filter a scan of the file. */
  @Override
  public double expectedFpp() {
    switch (type) {
      case BLOOM_FILTER:
        return Math.pow((double) bitCount() / bloom.cells, bloom.hashes);
      case BLOCKED_BLOOM_FILTER:
        return BlockedBloomFilter.expectedFpp(
            new Words().blocks(), bloom.cells / BlockedBloomFilter.BLOCK_BITS, bloom.hashes);
      default:
        return targetFpp();
    }
  }

  /**
   * The loaded filter's {@code approximateCount()} (for a Bloom-type filter a scan of the file); a
   * binary fuse filter's keys.
   */
  public long approximateCount() {
    switch (type) {
      case BLOOM_FILTER:
        return BloomShape.approximateCount(bitCount(), bloom.cells, bloom.hashes);
      case BLOCKED_BLOOM_FILTER:
        return BlockedBloomFilter.approximateCount(new Words().blocks(), bloom.hashes);
      default:
        return fuse.keys;
    }
  }

  /**
   * The payload's words in order, read through a 1 MiB buffer with positional reads: a scan does
   * not leave the file's pages mapped in this process (nor counted in its resident memory).
   */
  private final class Words implements PrimitiveIterator.OfLong {
    private final ByteBuffer buf =
        ByteBuffer.allocateDirect(1 << 20).order(ByteOrder.LITTLE_ENDIAN).limit(0);
    private long at = payloadOffset;
    private final long end = payloadOffset + payloadLength;

    @Override
    public boolean hasNext() {
      return buf.hasRemaining() || at < end;
    }

    @Override
    public long nextLong() {
      if (!buf.hasRemaining()) {
        buf.clear().limit((int) Math.min(buf.capacity(), end - at));
        try {
          while (buf.hasRemaining()) {
            if (channel.read(buf, at + buf.position()) < 0) {
              throw new SketchFormatException("truncated: " + file + " ended early");
            }
          }
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
        at += buf.limit();
        buf.flip();
      }
      return buf.getLong();
    }

    /** The bits set in each 512-bit block, in block order. */
    PrimitiveIterator.OfInt blocks() {
      return new PrimitiveIterator.OfInt() {
        @Override
        public boolean hasNext() {
          return Words.this.hasNext();
        }

        @Override
        public int nextInt() {
          int c = 0;
          for (int i = 0; i < BlockedBloomFilter.BLOCK_BITS / Long.SIZE; i++) {
            c += Long.bitCount(nextLong());
          }
          return c;
        }
      };
    }
  }

  /** This view: it is immutable. */
  @Override
  public MappedFilter copy() {
    return this;
  }

  /** Writes the file's bytes as they are. */
  @Override
  public void writeTo(OutputStream out) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      in.transferTo(out);
    }
  }

  @Override
  public String toString() {
    return "MappedFilter{" + type.label() + ", " + file + "}";
  }
}
