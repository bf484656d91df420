package io.github.probkit.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;

/**
 * A read-only, memory-mapped range of a file, addressed by long, so that it may exceed the 2 GiB of
 * one MappedByteBuffer: it is mapped as regions of 1 GiB, each overlapping the next by 64 bytes, so
 * that a read of up to 8 bytes starting in a region lies wholly in it. Little-endian. Only the
 * pages read are brought in. Not public API.
 */
public final class MappedBytes {
  /** Regions of 1 GiB: well below the 2 GiB a MappedByteBuffer can hold. */
  public static final int REGION_BITS = 30;

  private static final long OVERLAP = 64;

  private final MappedByteBuffer[] regions;
  private final long length;
  private final int regionBits;
  private final long regionMask;

  private MappedBytes(MappedByteBuffer[] regions, long length, int regionBits) {
    this.regions = regions;
    this.length = length;
    this.regionBits = regionBits;
    this.regionMask = (1L << regionBits) - 1;
  }

  /** Maps {@code length} bytes of {@code channel} from {@code offset}. */
  public static MappedBytes map(FileChannel channel, long offset, long length) throws IOException {
    return map(channel, offset, length, REGION_BITS);
  }

  /**
   * As {@link #map(FileChannel, long, long)}, in regions of {@code 2^regionBits} bytes (tests use
   * small ones).
   */
  public static MappedBytes map(FileChannel channel, long offset, long length, int regionBits)
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
    return new MappedBytes(regions, length, regionBits);
  }

  public long length() {
    return length;
  }

  /** The 8 little-endian bytes at {@code at}. */
  public long getLong(long at) {
    return regions[(int) (at >>> regionBits)].getLong((int) (at & regionMask));
  }

  /**
   * The buffer holding the 64 bytes from {@code at}, read at {@link #offsetIn}: a caller reading
   * several words of one block looks its region up once (regions overlap by 64 bytes).
   */
  public ByteBuffer region(long at) {
    return regions[(int) (at >>> regionBits)];
  }

  /** Where byte {@code at} lies in {@link #region}{@code (at)}. */
  public int offsetIn(long at) {
    return (int) (at & regionMask);
  }

  /** The 2 little-endian bytes at {@code at}. */
  public short getShort(long at) {
    return regions[(int) (at >>> regionBits)].getShort((int) (at & regionMask));
  }

  public byte getByte(long at) {
    return regions[(int) (at >>> regionBits)].get((int) (at & regionMask));
  }
}
