package io.github.probkit.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.GoldenFiles;
import io.github.probkit.filter.BinaryFuseFilter.FingerprintBits;
import io.github.probkit.io.SketchFormatException;
import io.github.probkit.testing.Keys;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Filters of 1 MiB and more are written in format version 2, with a checksum per 64 KiB chunk of
 * the payload; a mapped view answers only from chunks whose checksum it has checked, and from the
 * file it mapped.
 */
class ChunkedFilterFileTest {
  @TempDir Path dir;

  private static final List<byte[]> ADDED = Keys.sequential("in:", 0, 600_000);

  /** Filters whose payload is over 1 MiB: 17 to 21 chunks. */
  enum Big {
    BLOOM(() -> fill(BloomFilter.create(1_000_000, 0.01))),
    BLOCKED(() -> fill(BlockedBloomFilter.create(1_000_000, 0.01))),
    FUSE16(() -> BinaryFuseFilter.create(ADDED, FingerprintBits.BITS_16));

    final Supplier<MembershipFilter> build;

    Big(Supplier<MembershipFilter> build) {
      this.build = build;
    }
  }

  private static MembershipFilter fill(MutableFilter f) {
    ADDED.forEach(f::add);
    return f;
  }

  private static byte[] bytes(MembershipFilter f) throws IOException {
    return GoldenFiles.bytes(f::writeTo);
  }

  private Path write(String name, byte[] bytes) throws IOException {
    Path file = dir.resolve(name);
    Files.write(file, bytes);
    return file;
  }

  private static ByteBuffer le(byte[] b) {
    return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
  }

  /** The layout docs/FORMAT.md gives version 2, recomputed here from the bytes. */
  @ParameterizedTest
  @EnumSource(Big.class)
  void aBigFilterIsWrittenWithAChecksumPerChunk(Big big) throws IOException {
    MembershipFilter f = big.build.get();
    byte[] b = bytes(f);
    assertThat(b[4]).as("format version").isEqualTo((byte) 2);
    int p = le(b).getInt(16);
    long l = le(b).getLong(20);
    assertThat(l).isGreaterThanOrEqualTo(1 << 20);
    int payload = 28 + p;
    int chunks = (int) ((l + 65535) / 65536);
    assertThat(b.length).isEqualTo(payload + l + 4L * chunks + 4);
    CRC32C head = new CRC32C();
    head.update(b, 0, payload);
    for (int i = 0; i < chunks; i++) {
      CRC32C c = new CRC32C();
      int from = payload + 65536 * i;
      c.update(b, from, (int) Math.min(65536, payload + l - from));
      int at = (int) (payload + l + 4L * i);
      assertThat(le(b).getInt(at)).as("chunk %d", i).isEqualTo((int) c.getValue());
    }
    head.update(b, (int) (payload + l), 4 * chunks);
    assertThat(le(b).getInt(b.length - 4)).isEqualTo((int) head.getValue());
    assertThat(Filters.readFrom(new ByteArrayInputStream(b))).isEqualTo(f);
    try (MappedFilter m = MappedFilter.open(write("f.bin", b))) {
      for (byte[] k : ADDED.subList(0, 100_000)) {
        assertThat(m.mightContain(k)).isTrue();
      }
      for (byte[] k : Keys.sequential("out:", 0, 100_000)) {
        assertThat(m.mightContain(k)).isEqualTo(f.mightContain(k));
      }
      m.verify();
      assertThat(m.load()).isEqualTo(f);
    }
  }

  /** Flips bit {@code bit} of byte {@code at} of {@code b}, in a copy. */
  private static byte[] flipped(byte[] b, int at, int bit) {
    byte[] c = b.clone();
    c[at] ^= (byte) (1 << bit);
    return c;
  }

  @ParameterizedTest
  @EnumSource(Big.class)
  void aFlipOutsideThePayloadIsRefusedAtOpen(Big big) throws IOException {
    byte[] b = bytes(big.build.get());
    int payload = 28 + le(b).getInt(16);
    long l = le(b).getLong(20);
    Random random = new Random(0xC0FFEE01L);
    for (int i = 0; i < 40; i++) {
      int at =
          i % 2 == 0
              ? random.nextInt(payload)
              : (int) (payload + l + random.nextInt((int) (b.length - payload - l)));
      Path file = write("flip.bin", flipped(b, at, random.nextInt(8)));
      assertThatThrownBy(() -> MappedFilter.open(file).close())
          .as("a flip at byte %d", at)
          .isInstanceOf(SketchFormatException.class);
    }
  }

  /**
   * A flipped payload byte: the view opens (only the chunks a query reads are checked), but every
   * query that reads the chunk fails, and so do the scans, load and writeTo. No key that was added
   * reads absent before that.
   */
  @ParameterizedTest
  @EnumSource(Big.class)
  void aFlipInThePayloadFailsWhatReadsItsChunk(Big big) throws IOException {
    MembershipFilter f = big.build.get();
    byte[] b = bytes(f);
    int payload = 28 + le(b).getInt(16);
    long l = le(b).getLong(20);
    Random random = new Random(0xC0FFEE02L);
    for (int i = 0; i < 6; i++) {
      // Not the last chunk, which a Bloom filter's open reads.
      int at = payload + random.nextInt((int) l - 65536);
      Path file = write("flip.bin", flipped(b, at, random.nextInt(8)));
      assertThatThrownBy(() -> Filters.readFrom(new ByteArrayInputStream(Files.readAllBytes(file))))
          .isInstanceOf(SketchFormatException.class)
          .hasMessageContaining("checksum mismatch in payload bytes");
      try (MappedFilter m = MappedFilter.open(file)) {
        int failed = 0;
        for (byte[] k : ADDED.subList(0, 200_000)) {
          try {
            assertThat(m.mightContain(k)).isTrue();
          } catch (UncheckedIOException e) {
            assertThat(e.getCause())
                .isInstanceOf(SketchFormatException.class)
                .hasMessageStartingWith(file + ": checksum mismatch in payload bytes [");
            failed++;
          }
        }
        assertThat(failed).as("queries that read the flipped chunk").isPositive();
        assertThatThrownBy(m::verify).isInstanceOf(SketchFormatException.class);
        assertThatThrownBy(m::load).isInstanceOf(SketchFormatException.class);
        assertThatThrownBy(() -> m.writeTo(OutputStream.nullOutputStream()))
            .isInstanceOf(SketchFormatException.class);
        if (big != Big.FUSE16) {
          assertThatThrownBy(m::approximateCount)
              .isInstanceOf(UncheckedIOException.class)
              .hasCauseInstanceOf(SketchFormatException.class);
        }
      }
    }
  }

  /**
   * Replaced by a rename while mapped (as probkit's writers replace a file): writeTo, load and copy
   * give the mapped filter, not the one the path names now.
   */
  @Test
  void writeToLoadAndCopyAnswerFromTheMappedFile() throws IOException {
    for (MembershipFilter[] pair :
        List.of(
            new MembershipFilter[] {Big.BLOOM.build.get(), BloomFilter.create(1_000_000, 0.01)},
            new MembershipFilter[] {
              fill(BloomFilter.create(1000, 0.01)), BloomFilter.create(1000, 0.01)
            })) {
      byte[] mappedBytes = bytes(pair[0]);
      Path file = write("f.bin", mappedBytes);
      try (MappedFilter m = MappedFilter.open(file)) {
        Path other = write("other.bin", bytes(pair[1]));
        Files.move(
            other, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        assertThat(bytes(m)).isEqualTo(mappedBytes);
        assertThat(bytes(m.copy())).isEqualTo(mappedBytes);
        assertThat(m.load()).isEqualTo(pair[0]);
        m.verify();
      }
    }
  }

  /**
   * A file truncated in place while mapped (which probkit's writers never do): a query that reads a
   * chunk not checked yet fails with an IOException-family error naming the file, not the
   * InternalError the JVM raises for the SIGBUS of a read past the end (blocked Bloom and binary
   * fuse files: their open reads no chunk); so do the scans, load and writeTo.
   */
  @Test
  void aFileTruncatedWhileMappedFailsItsQueries() throws IOException {
    for (MembershipFilter f : List.of(Big.BLOCKED.build.get(), Big.FUSE16.build.get())) {
      Path file = write("f.bin", bytes(f));
      try (MappedFilter m = MappedFilter.open(file)) {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
          ch.truncate(ch.size() / 2);
        }
        int failed = 0;
        for (byte[] k : ADDED.subList(0, 2000)) {
          try {
            assertThat(m.mightContain(k)).isTrue();
          } catch (UncheckedIOException e) {
            assertThat(e.getCause())
                .isInstanceOf(SketchFormatException.class)
                .hasMessage(file + ": truncated while mapped");
            failed++;
          }
        }
        assertThat(failed).as("keys in the second half").isGreaterThan(500);
        assertThatThrownBy(m::verify).isInstanceOf(SketchFormatException.class);
        assertThatThrownBy(m::load).isInstanceOf(SketchFormatException.class);
        assertThatThrownBy(() -> m.writeTo(OutputStream.nullOutputStream()))
            .isInstanceOf(SketchFormatException.class);
      }
    }
  }
}
