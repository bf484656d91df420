package io.github.probkit.internal;

import io.github.probkit.io.SketchFormatException;
import io.github.probkit.io.SketchReader;
import io.github.probkit.io.SketchWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;

/**
 * A read-only, memory-mapped range of a file, addressed by long, so that it may exceed the 2 GiB of
 * one MappedByteBuffer: it is mapped as regions of 1 GiB, each overlapping the next by 64 bytes, so
 * that a read of up to 8 bytes starting in a region lies wholly in it. Little-endian. Only the
 * pages read are brought in. Not public API.
 *
 * <p>When given the checksums of the payload's chunks (format version 2), a read checks the
 * checksum of the chunk it falls in the first time that chunk is read, and throws an
 * UncheckedIOException whose cause is a SketchFormatException when it does not match: no value is
 * returned from bytes that were not checked. Reads must be aligned to their width, so that none
 * straddles two chunks (the payloads' words, blocks and fingerprints are).
 */
public final class MappedBytes {
  /** Regions of 1 GiB: well below the 2 GiB a MappedByteBuffer can hold. */
  public static final int REGION_BITS = 30;

  private static final long OVERLAP = 64;

  private final MappedByteBuffer[] regions;
  private final long length;
  private final int regionBits;
  private final long regionMask;

  /** The chunks' checksums, or null when every byte was checked before mapping. */
  private final int[] sums;

  /**
   * Which chunks were checked. Written without synchronization: a thread that does not see another
   * thread's mark checks the chunk again, which is only slower.
   */
  private final boolean[] checked;

  /** The mapped file and where in it these bytes start, to check its size before a chunk. */
  private final FileChannel channel;

  private final long offset;

  private MappedBytes(
      FileChannel channel,
      long offset,
      MappedByteBuffer[] regions,
      long length,
      int regionBits,
      int[] sums) {
    this.channel = channel;
    this.offset = offset;
    this.regions = regions;
    this.length = length;
    this.regionBits = regionBits;
    this.regionMask = (1L << regionBits) - 1;
    this.sums = sums;
    this.checked = sums == null ? null : new boolean[sums.length];
  }

  /**
   * Maps {@code length} bytes of {@code channel} from {@code offset}. {@code chunkSums}: the CRC32C
   * of each chunk of {@link SketchWriter#CHUNK_BYTES} (the last one shorter), checked when first
   * read; null when the bytes were checked already.
   */
  public static MappedBytes map(FileChannel channel, long offset, long length, int[] chunkSums)
      throws IOException {
    return map(channel, offset, length, REGION_BITS, chunkSums);
  }

  /**
   * As {@link #map(FileChannel, long, long, int[])}, in regions of {@code 2^regionBits} bytes
   * (tests use small ones; with chunk checksums at least {@link SketchWriter#CHUNK_BITS}).
   */
  public static MappedBytes map(
      FileChannel channel, long offset, long length, int regionBits, int[] chunkSums)
      throws IOException {
    Preconditions.checkArgument(
        regionBits >= 7 && regionBits <= REGION_BITS,
        "regionBits must be in [7, %d], was %d",
        REGION_BITS,
        regionBits);
    long region = 1L << regionBits;
    int count = (int) Math.max(1, (length + region - 1) >>> regionBits);
    MappedByteBuffer[] regions = new MappedByteBuffer[count];
    for (int i = 0; i < count; i++) {
      long start = (long) i << regionBits;
      long size = Math.max(0, Math.min(region + OVERLAP, length - start));
      regions[i] = channel.map(FileChannel.MapMode.READ_ONLY, offset + start, size);
      regions[i].order(ByteOrder.LITTLE_ENDIAN);
    }
    Preconditions.checkArgument(
        chunkSums == null
            || (regionBits >= SketchWriter.CHUNK_BITS
                && chunkSums.length
                    == (length + SketchWriter.CHUNK_BYTES - 1) >>> SketchWriter.CHUNK_BITS),
        "%d chunk checksums for %d bytes in regions of 2^%d",
        chunkSums == null ? 0 : chunkSums.length,
        length,
        regionBits);
    return new MappedBytes(channel, offset, regions, length, regionBits, chunkSums);
  }

  /** Checks the chunk that byte {@code at} lies in unless it was checked before. */
  private void check(long at) {
    if (checked != null) {
      int c = (int) (at >>> SketchWriter.CHUNK_BITS);
      if (!checked[c]) {
        checkChunk(c);
      }
    }
  }

  private void checkChunk(int c) {
    long start = (long) c << SketchWriter.CHUNK_BITS;
    int len = (int) Math.min(SketchWriter.CHUNK_BYTES, length - start);
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    try {
      // A read of a mapped page beyond the end of the file is a SIGBUS, which the JVM turns into
      // an InternalError where Java code reads, but which could end it inside the checksum's
      // native code: so the file's size first.
      if (channel.size() < offset + start + len) {
        throw new SketchFormatException("truncated while mapped");
      }
      // A chunk lies in one region: regions start at multiples of 2^regionBits >= the chunk size.
      crc.update(regions[(int) (start >>> regionBits)].slice((int) (start & regionMask), len));
      SketchReader.checkChunk(c, sums[c], (int) crc.getValue());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    checked[c] = true;
  }

  public long length() {
    return length;
  }

  /** The 8 little-endian bytes at {@code at}. */
  public long getLong(long at) {
    check(at);
    return regions[(int) (at >>> regionBits)].getLong((int) (at & regionMask));
  }

  /**
   * The buffer holding the 64 bytes from {@code at}, read at {@link #offsetIn}: a caller reading
   * several words of one block looks its region up once (regions overlap by 64 bytes). {@code at}
   * must be a multiple of 64, so that the 64 bytes lie in one chunk, which is checked.
   */
  public ByteBuffer region(long at) {
    check(at);
    return regions[(int) (at >>> regionBits)];
  }

  /** Where byte {@code at} lies in {@link #region}{@code (at)}. */
  public int offsetIn(long at) {
    return (int) (at & regionMask);
  }

  /** The 2 little-endian bytes at {@code at}. */
  public short getShort(long at) {
    check(at);
    return regions[(int) (at >>> regionBits)].getShort((int) (at & regionMask));
  }

  public byte getByte(long at) {
    check(at);
    return regions[(int) (at >>> regionBits)].get((int) (at & regionMask));
  }
}
