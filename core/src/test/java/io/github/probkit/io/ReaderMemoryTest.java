package io.github.probkit.io;

import static io.github.probkit.GoldenFiles.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.cardinality.HyperLogLog;
import io.github.probkit.filter.BinaryFuseFilter;
import io.github.probkit.filter.BloomFilter;
import io.github.probkit.frequency.CountMinSketch;
import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How much a reader and a writer allocate. Reading a file allocates the structure's arrays and
 * little more (before: about 2.2 times them, the chunks and then the copy); no read or write of a
 * small structure allocates a 64 KiB buffer. A 16-bit binary fuse filter above 2^30 slots reads.
 */
class ReaderMemoryTest {
  @TempDir Path dir;

  @Test
  void readingAFileAllocatesLittleMoreThanTheStructure() throws IOException {
    BloomFilter f = BloomFilter.withBits(48L << 23, 7); // 48 MiB
    for (long i = 0; i < 100_000; i++) {
      f.add(i);
    }
    Path file = dir.resolve("f.bin");
    try (OutputStream out = Files.newOutputStream(file)) {
      f.writeTo(out);
    }
    for (boolean buffered : new boolean[] {false, true}) {
      readFile(file, buffered); // loads the classes of the path once
      long before = ReaderContract.allocatedBytes();
      BloomFilter g = readFile(file, buffered);
      long allocated = ReaderContract.allocatedBytes() - before;
      assertThat(g).isEqualTo(f);
      assertThat((double) allocated / f.byteSize())
          .as("allocated per byte of the structure, buffered %s", buffered)
          .isLessThanOrEqualTo(1.1);
    }
  }

  private static BloomFilter readFile(Path file, boolean buffered) throws IOException {
    try (InputStream in =
        buffered
            ? new BufferedInputStream(Files.newInputStream(file))
            : Files.newInputStream(file)) {
      return BloomFilter.readFrom(in);
    }
  }

  /** A stream that cannot tell its length (a pipe) is read in chunks, then copied: about twice. */
  @Test
  void aStreamOfUnknownLengthCostsAboutTwiceTheStructure() throws IOException {
    BloomFilter f = BloomFilter.withBits(16L << 23, 7); // 16 MiB
    byte[] bytes = bytes(f::writeTo);
    BloomFilter.readFrom(unknownLength(bytes));
    long before = ReaderContract.allocatedBytes();
    BloomFilter g = BloomFilter.readFrom(unknownLength(bytes));
    long allocated = ReaderContract.allocatedBytes() - before;
    assertThat(g).isEqualTo(f);
    assertThat((double) allocated / f.byteSize()).isBetween(1.5, 2.2);
  }

  private static InputStream unknownLength(byte[] bytes) {
    return new FilterInputStream(new ByteArrayInputStream(bytes)) {
      @Override
      public int available() {
        return 0;
      }
    };
  }

  @Test
  void smallStructuresNeedNoLargeBuffers() throws IOException {
    CountMinSketch c = CountMinSketch.withDimensions(4, 2);
    c.add("x", 3);
    HyperLogLog h = HyperLogLog.create(4);
    h.add("x");
    for (int round = 0; round < 2; round++) {
      long before = ReaderContract.allocatedBytes();
      byte[] cb = bytes(c::writeTo);
      byte[] hb = bytes(h::writeTo);
      long written = ReaderContract.allocatedBytes() - before;
      before = ReaderContract.allocatedBytes();
      CountMinSketch c2 = CountMinSketch.readFrom(new ByteArrayInputStream(cb));
      HyperLogLog h2 = HyperLogLog.readFrom(new ByteArrayInputStream(hb));
      long read = ReaderContract.allocatedBytes() - before;
      if (round == 1) {
        assertThat(c2).isEqualTo(c);
        assertThat(h2).isEqualTo(h);
        assertThat(written).as("bytes allocated writing two small structures").isLessThan(8192);
        assertThat(read).as("bytes allocated reading them").isLessThan(8192);
      }
    }
  }

  /**
   * A 16-bit filter of more than 2^30 slots has more than 2^31 bytes of fingerprints. Before, the
   * reader computed their length in an int, which overflowed: this header failed with "needs
   * -2147221504 bytes" instead of reaching the payload.
   */
  @Test
  void aSixteenBitFilterAbove2To30SlotsGetsPastItsHeader() throws IOException {
    int length = 1 << 18;
    int count = (1 << 12) + 2; // (count + 2) * length slots = 2^30 + 2^20
    byte[] header = fuse16Header(length, count, 1);
    assertThatThrownBy(() -> BinaryFuseFilter.readFrom(new ByteArrayInputStream(header)))
        .isInstanceOf(SketchFormatException.class)
        .hasMessage(
            "truncated binary-fuse payload: input ended "
                + 2L * (count + 2) * length
                + " bytes early");
  }

  /**
   * The same boundary read whole: 2 GiB of zero fingerprints, read into a 2 GiB short[] and written
   * back.
   */
  @Test
  @Tag("slow")
  void aSixteenBitFilterAbove2To30SlotsReadsAndWritesBack() throws IOException {
    int length = 1 << 18;
    int count = (1 << 12) + 2;
    long slots = (long) (count + 2) * length;
    byte[] header = fuse16Header(length, count, 1);
    CRC32C crc = new CRC32C();
    crc.update(header);
    byte[] zeros = new byte[1 << 20];
    for (long done = 0; done < 2 * slots; done += zeros.length) {
      crc.update(zeros);
    }
    byte[] tail =
        ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt((int) crc.getValue()).array();
    // A file-like stream: it tells how much is left (capped at 2^31 - 1, as the JDK's file streams
    // are).
    InputStream in = new CraftedStream(header, 2 * slots, tail);
    BinaryFuseFilter f = BinaryFuseFilter.readFrom(in);
    assertThat(f.bitSize()).isEqualTo(16 * slots);
    CountingStream out = new CountingStream();
    f.writeTo(out);
    assertThat(out.count).isEqualTo(header.length + 2 * slots + 4);
    assertThat(out.crc.getValue())
        .as("written back byte for byte")
        .isEqualTo(crcOf(header, 2 * slots, tail));
  }

  private static long crcOf(byte[] header, long zeros, byte[] tail) {
    CRC32C c = new CRC32C();
    c.update(header);
    byte[] z = new byte[1 << 20];
    for (long done = 0; done < zeros; done += z.length) {
      c.update(z);
    }
    c.update(tail);
    return c.getValue();
  }

  /** The header and parameters of a 16-bit filter, as SketchWriter lays them out (XXH3, seed 0). */
  private static byte[] fuse16Header(int segmentLength, int segmentCount, long keys) {
    ByteBuffer p = SketchWriter.params(25);
    p.put((byte) 16).putInt(segmentLength).putInt(segmentCount).putLong(keys).putLong(0);
    long slots = (long) (segmentCount + 2) * segmentLength;
    ByteBuffer h =
        ByteBuffer.allocate(SketchWriter.HEADER_BYTES + 25).order(ByteOrder.LITTLE_ENDIAN);
    h.putInt(SketchWriter.MAGIC)
        .put((byte) SketchWriter.VERSION)
        .put((byte) StructureType.BINARY_FUSE_FILTER.id())
        .put((byte) 1)
        .put((byte) 0)
        .putLong(0)
        .putInt(25)
        .putLong(2 * slots)
        .put(p.array());
    return h.array();
  }

  /** The header, then {@code zeros} zero bytes, then the tail. */
  private static final class CraftedStream extends InputStream {
    private final byte[] header;
    private final byte[] tail;
    private final long total;
    private long at;

    CraftedStream(byte[] header, long zeros, byte[] tail) {
      this.header = header;
      this.tail = tail;
      this.total = header.length + zeros + tail.length;
    }

    @Override
    public int read() {
      byte[] one = new byte[1];
      return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) {
      if (at >= total) {
        return -1;
      }
      int n = (int) Math.min(len, total - at);
      for (int i = 0; i < n; i++, at++) {
        long tailStart = total - tail.length;
        b[off + i] =
            at < header.length
                ? header[(int) at]
                : at >= tailStart ? tail[(int) (at - tailStart)] : 0;
      }
      return n;
    }

    @Override
    public int available() {
      return (int) Math.min(Integer.MAX_VALUE, total - at);
    }
  }

  private static final class CountingStream extends OutputStream {
    long count;
    final CRC32C crc = new CRC32C();

    @Override
    public void write(int b) {
      count++;
      crc.update(b);
    }

    @Override
    public void write(byte[] b, int off, int len) {
      count += len;
      crc.update(b, off, len);
    }
  }
}
