package io.github.probkit.filter;

import io.github.probkit.hash.HashStrategy;
import io.github.probkit.internal.BatchPasses;
import io.github.probkit.internal.MappedBytes;
import io.github.probkit.io.SketchFormatException;
import io.github.probkit.io.SketchReader;
import io.github.probkit.io.SketchWriter;
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
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.PrimitiveIterator;
import java.util.zip.CRC32C;

/**
 * A filter file opened without loading it: a read-only, memory-mapped view of a Bloom, blocked
 * Bloom or binary fuse filter that answers queries exactly as the loaded filter would, reading only
 * the pages its probes fall in. A query of a 1 GB filter thus costs a few page reads, not a 1 GB
 * read and 1 GB of heap. Files above 2 GB are mapped in several regions.
 *
 * <p>No answer comes from bytes whose checksum was not checked. {@link #open} checks the header,
 * every parameter and the file's length against the lengths they imply (no byte missing, none after
 * the checksum). A file of format version 2 (written for payloads of 1 MiB and more) has a checksum
 * per 64 KiB chunk of the payload: open checks the one over the header, the parameters and those
 * checksums, and a query checks each chunk the first time it reads from it, so that a query of a 1
 * GB filter reads a few chunks, not the file. A file of version 1 has one checksum over everything:
 * open reads the whole file once to check it (0.1 s per GB from the page cache).
 *
 * <p>A query that reads a chunk whose checksum does not match throws an {@link
 * UncheckedIOException} whose cause is a {@link SketchFormatException} naming the file and the
 * chunk; so do the scans behind {@link #bitCount} and the estimates. Since such an exception may
 * surface far from where the file was named, its message names the file. {@link #open}, {@link
 * #verify}, {@link #load} and {@link #writeTo} throw the SketchFormatException itself, whose
 * message, as a full read's, does not.
 *
 * <p>A file truncated in place while mapped: a query that reads a chunk not checked yet throws the
 * UncheckedIOException above ("truncated while mapped"), as do the scans, load and writeTo. A read
 * of a page the truncation removed is a SIGBUS, which the JVM reports as an InternalError: the
 * query turns it into the same UncheckedIOException when the JVM raises it there, but compiled code
 * may raise it at the thread's next safepoint, after the query returned (the command line catches
 * it around its whole work on the file). probkit's writers never truncate: they rename.
 *
 * <p>Other filter types (counting, cuckoo, scalable) are not mapped: {@link Filters#open} loads
 * them.
 *
 * <p>Thread safety: immutable, and safe for concurrent queries. The file must not be changed in
 * place while it is mapped (probkit's own writers replace a file by renaming a new one over it,
 * which leaves an open mapping on the old bytes, except the command line's small adds to a Bloom
 * filter, which only set bits, behind a redo log that this class does not read: docs/FORMAT.md;
 * {@link #load}, {@link #writeTo} and {@link #copy} answer from those bytes too, not from what the
 * path names now).
 */
public final class MappedFilter implements MembershipFilter, Closeable {
  private final Path file;
  private final FileChannel channel;
  private final StructureType type;
  private final HashStrategy hash;
  private final long payloadOffset;
  private final long payloadLength;
  private final MappedBytes payload;

  /** The payload chunks' checksums (format version 2), or null when open checked the whole file. */
  private final int[] chunkSums;

  // The shape of the one type this view is of (the others stay 0 or null).
  private final BloomShape bloom;
  private final boolean exact;
  private final BinaryFuseFilter.Shape fuse;

  private MappedFilter(
      Path file,
      FileChannel channel,
      SketchReader r,
      int[] chunkSums,
      BloomShape bloom,
      BinaryFuseFilter.Shape fuse)
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
    this.chunkSums = chunkSums;
    this.payload = MappedBytes.map(channel, payloadOffset, payloadLength, chunkSums);
  }

  /** Whether {@link #open} maps files of this type. */
  public static boolean supports(StructureType type) {
    return type == StructureType.BLOOM_FILTER
        || type == StructureType.BLOCKED_BLOOM_FILTER
        || type == StructureType.BINARY_FUSE_FILTER;
  }

  /**
   * Maps the filter in {@code file}. Throws SketchFormatException when the header, the parameters,
   * the file's length or a checksum checked at open (see the class comment) are wrong, or when the
   * file holds a type that is not mapped ({@link #supports}).
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
      int[] sums = r.checkMapped(channel);
      MappedFilter f = new MappedFilter(file, channel, r, sums, bloom, fuse);
      if (r.type() == StructureType.BLOOM_FILTER) {
        long tail;
        try {
          tail = f.payload.getLong(r.payloadLength() - 8);
        } catch (UncheckedIOException e) {
          throw e.getCause();
        } catch (InternalError e) {
          throw new SketchFormatException("truncated while it was opened", e);
        }
        BloomFilter.checkTail(bloom.cells, tail);
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
    try {
      long h = hash.hash64(key, off, len);
      if (exact && type == StructureType.BLOOM_FILTER) {
        return BloomFilter.containsIn(
            payload, bloom.cells, bloom.hashes, hash, h, hash.secondHash(key, off, len, h));
      }
      return containsHash(h);
    } catch (UncheckedIOException | InternalError e) {
      throw failure(e);
    }
  }

  @Override
  public boolean mightContain(long key) {
    try {
      long h = hash.hash64(key);
      if (exact && type == StructureType.BLOOM_FILTER) {
        return BloomFilter.containsIn(
            payload, bloom.cells, bloom.hashes, hash, h, hash.secondHash(key, h));
      }
      return containsHash(h);
    } catch (UncheckedIOException | InternalError e) {
      throw failure(e);
    }
  }

  /**
   * What a query throws when a chunk's checksum does not match ({@code e} an UncheckedIOException
   * from MappedBytes), or when the file was truncated under the mapping: the JVM turns the SIGBUS
   * of a read past its end into an InternalError.
   */
  private UncheckedIOException failure(Throwable e) {
    if (e instanceof UncheckedIOException && e.getCause() instanceof SketchFormatException) {
      return new UncheckedIOException(
          new SketchFormatException(file + ": " + e.getCause().getMessage(), e.getCause()));
    }
    if (e instanceof InternalError) {
      return new UncheckedIOException(
          new SketchFormatException(
              file
                  + ": truncated while mapped (a file must not be changed in place while it is read)",
              e));
    }
    return (UncheckedIOException) e;
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
    try {
      return BatchPasses.eachHash(hashes, from, to, present, this::containsHash);
    } catch (UncheckedIOException | InternalError e) {
      throw failure(e);
    }
  }

  /**
   * A key's answer from its hash; for a Bloom filter only with XXH3 (second hash from the first).
   */
  private boolean containsHash(long h) {
    switch (type) {
      case BLOOM_FILTER:
        return BloomFilter.containsIn(
            payload, bloom.cells, bloom.hashes, hash, h, hash.secondHash(0L, h));
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
   * process), and checks every checksum; throws SketchFormatException when one does not match.
   */
  public void verify() throws IOException {
    scan(null);
  }

  /**
   * Checks the mapped file (not the one the path may name by now) again as open did, and each
   * payload chunk of version 2, reading it through a small buffer; writes its bytes to {@code out}
   * unless null.
   */
  private void scan(OutputStream out) throws IOException {
    SketchReader.open(new Input()).checkMapped(channel);
    if (out == null && chunkSums == null) {
      return;
    }
    long payloadEnd = payloadOffset + payloadLength;
    long end = channel.size();
    ByteBuffer buf = ByteBuffer.allocateDirect(1 << 20);
    byte[] copy = out == null ? null : new byte[buf.capacity()];
    // Pieces that start where the payload starts, so that they hold whole chunks.
    for (long at = 0; at < end; ) {
      long to = at < payloadOffset ? payloadOffset : at < payloadEnd ? payloadEnd : end;
      buf.clear().limit((int) Math.min(buf.capacity(), to - at));
      while (buf.hasRemaining()) {
        if (channel.read(buf, at + buf.position()) < 0) {
          throw new SketchFormatException("truncated while mapped, at byte " + at);
        }
      }
      buf.flip();
      if (at >= payloadOffset && at < payloadEnd) {
        checkChunks(buf, at - payloadOffset);
      }
      if (out != null) {
        buf.get(0, copy, 0, buf.limit());
        out.write(copy, 0, buf.limit());
      }
      at += buf.limit();
    }
  }

  /**
   * Checks the chunks of {@code piece}, the payload's bytes from {@code at} (a multiple of the
   * chunk size), in format version 2.
   */
  private void checkChunks(ByteBuffer piece, long at) throws SketchFormatException {
    if (chunkSums == null) {
      return;
    }
    for (int i = 0; i < piece.limit(); i += SketchWriter.CHUNK_BYTES) {
      int c = (int) ((at + i) >>> SketchWriter.CHUNK_BITS);
      CRC32C crc = new CRC32C();
      crc.update(piece.slice(i, Math.min(SketchWriter.CHUNK_BYTES, piece.limit() - i)));
      SketchReader.checkChunk(c, chunkSums[c], (int) crc.getValue());
    }
  }

  /** The filter read in full from the mapped file (not from the path), its checksums checked. */
  public MembershipFilter load() throws IOException {
    return Filters.readFrom(new java.io.BufferedInputStream(new Input(), 1 << 16));
  }

  /**
   * The mapped file's bytes from its start, by positional reads: the channel's own position is
   * shared by every thread, and closing a stream from Channels.newInputStream would close it.
   */
  private final class Input extends InputStream {
    private long at;

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (len == 0) {
        return 0;
      }
      int got = channel.read(ByteBuffer.wrap(b, off, len), at);
      if (got > 0) {
        at += got;
      }
      return got;
    }

    @Override
    public int available() throws IOException {
      return (int) Math.min(Integer.MAX_VALUE, Math.max(0, channel.size() - at));
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
   * not leave the file's pages mapped in this process (nor counted in its resident memory). Each
   * chunk's checksum is checked as it passes (a mismatch is thrown as by a query).
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
              throw new SketchFormatException("truncated while mapped, at byte " + at);
            }
          }
          buf.flip();
          checkChunks(buf, at - payloadOffset);
        } catch (SketchFormatException e) {
          throw failure(new UncheckedIOException(e));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
        at += buf.limit();
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

  /** This view, which is immutable: it answers from the mapped file. */
  @Override
  public MappedFilter copy() {
    return this;
  }

  /**
   * Writes the mapped file's bytes as they are (not those the path names now), after checking their
   * checksums as they pass: a corrupt file is a SketchFormatException, though {@code out} may have
   * received part of it by then.
   */
  @Override
  public void writeTo(OutputStream out) throws IOException {
    scan(out);
  }

  @Override
  public String toString() {
    return "MappedFilter{" + type.label() + ", " + file + "}";
  }
}
