package io.github.probkit.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.filter.BinaryFuseFilter.FingerprintBits;
import io.github.probkit.hash.HashStrategy;
import io.github.probkit.io.SketchFormatException;
import io.github.probkit.testing.Keys;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.function.Supplier;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A mapped view answers exactly as the loaded filter, and refuses or reports what a full read
 * would.
 */
class MappedFilterTest {
  @TempDir Path dir;

  private static final List<byte[]> ADDED = Keys.sequential("in:", 0, 20_000);

  enum Kind {
    BLOOM(() -> fill(BloomFilter.create(20_000, 0.02))),
    BLOOM_ODD_BITS(() -> fill(BloomFilter.withBits(300_007, 5))),
    BLOOM_FNV(() -> fill(BloomFilter.create(20_000, 0.02, HashStrategy.fnv1a()))),
    BLOCKED(() -> fill(BlockedBloomFilter.create(20_000, 0.02))),
    BLOCKED_FNV(() -> fill(BlockedBloomFilter.create(20_000, 0.02, HashStrategy.fnv1a()))),
    BLOCKED_TIGHT(() -> fill(BlockedBloomFilter.create(20_000, 0.0001))),
    // k = 6, whose queries both take the unrolled path; its adds are checked by the golden files.
    BLOCKED_SIX(() -> fill(BlockedBloomFilter.withBits(20_000 * 10, 6))),
    FUSE8(() -> BinaryFuseFilter.create(ADDED, FingerprintBits.BITS_8)),
    FUSE16(() -> BinaryFuseFilter.create(ADDED, FingerprintBits.BITS_16)),
    FUSE_EMPTY(() -> BinaryFuseFilter.create(List.of(), FingerprintBits.BITS_8));

    final Supplier<MembershipFilter> build;

    Kind(Supplier<MembershipFilter> build) {
      this.build = build;
    }
  }

  private static MembershipFilter fill(MutableFilter f) {
    ADDED.forEach(f::add);
    for (long i = 0; i < 5_000; i++) {
      f.add(i);
    }
    return f;
  }

  private Path write(MembershipFilter f) throws IOException {
    Path file = Files.createTempFile(dir, "filter", ".bin");
    try (OutputStream out = Files.newOutputStream(file)) {
      f.writeTo(out);
    }
    return file;
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aMappedViewAnswersExactlyAsTheLoadedFilter(Kind kind) throws IOException {
    MembershipFilter loaded = kind.build.get();
    Path file = write(loaded);
    try (MappedFilter mapped = MappedFilter.open(file)) {
      int present = 0;
      for (byte[] k : Keys.sequential("in:", 0, 20_000)) {
        assertThat(mapped.mightContain(k)).isEqualTo(loaded.mightContain(k));
      }
      for (byte[] k : Keys.sequential("out:", 0, 30_000)) {
        boolean p = loaded.mightContain(k);
        assertThat(mapped.mightContain(k)).isEqualTo(p);
        present += p ? 1 : 0;
      }
      for (long i = -3_000; i < 8_000; i++) {
        assertThat(mapped.mightContain(i)).isEqualTo(loaded.mightContain(i));
      }
      assertThat(mapped.hashSuffices()).isEqualTo(loaded.hashSuffices());
      if (mapped.hashSuffices()) {
        long[] hashes = new long[11_000];
        for (int i = 0; i < hashes.length; i++) {
          hashes[i] = loaded.hashStrategy().hash64(i - 3_000L);
        }
        boolean[] byHash = new boolean[hashes.length];
        mapped.mightContainAllHashes(hashes, 0, hashes.length, byHash);
        for (int i = 0; i < hashes.length; i++) {
          assertThat(byHash[i]).isEqualTo(loaded.mightContain(i - 3_000L));
        }
      }
      if (loaded.expectedFpp() > 0.001) {
        assertThat(present).as("some absent keys are false positives, and agree").isPositive();
      }
      assertThat(mapped.type()).isEqualTo(loaded.type());
      assertThat(mapped.hashStrategy()).isEqualTo(loaded.hashStrategy());
      assertThat(mapped.bitSize()).isEqualTo(loaded.bitSize());
      assertThat(mapped.byteSize()).isEqualTo(loaded.byteSize());
      mapped.verify();
      assertThat(mapped.load()).isEqualTo(loaded);
      assertThat(mapped.expectedFpp()).isEqualTo(loaded.expectedFpp());
      if (loaded instanceof BloomFilter) {
        BloomFilter b = (BloomFilter) loaded;
        assertThat(mapped.bitCount()).isEqualTo(b.bitCount());
        assertThat(mapped.approximateCount()).isEqualTo(b.approximateCount());
        assertThat(List.of(mapped.hashCount(), mapped.expectedKeys(), mapped.targetFpp()))
            .isEqualTo(List.of(b.hashCount(), b.expectedKeys(), b.targetFpp()));
      } else if (loaded instanceof BlockedBloomFilter) {
        BlockedBloomFilter b = (BlockedBloomFilter) loaded;
        assertThat(mapped.bitCount()).isEqualTo(b.bitCount());
        assertThat(mapped.approximateCount()).isEqualTo(b.approximateCount());
        assertThat(List.of(mapped.hashCount(), mapped.expectedKeys(), mapped.targetFpp()))
            .isEqualTo(List.of(b.hashCount(), b.expectedKeys(), b.targetFpp()));
      } else {
        assertThat(mapped.approximateCount()).isEqualTo(((BinaryFuseFilter) loaded).keyCount());
        assertThatThrownBy(mapped::bitCount).isInstanceOf(IllegalStateException.class);
      }
    }
    assertThat(Filters.open(file)).isInstanceOf(MappedFilter.class);
  }

  @Test
  void otherTypesAreLoadedByFiltersOpenAndRefusedByMappedFilter() throws IOException {
    CuckooFilter c = CuckooFilter.create(1000, 0.01);
    c.add("a");
    Path file = write(c);
    assertThat(Filters.open(file)).isEqualTo(c);
    assertThatThrownBy(() -> MappedFilter.open(file))
        .isInstanceOf(SketchFormatException.class)
        .hasMessageContaining("cuckoo file is not mapped");
  }

  /** Flips bit {@code bit} of byte {@code at} of {@code file}. */
  private static void flip(Path file, long at, int bit) throws IOException {
    try (FileChannel ch =
        FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.allocate(1);
      ch.read(b, at);
      b.put(0, (byte) (b.get(0) ^ (1 << bit))).rewind();
      ch.write(b, at);
    }
  }

  /**
   * A file of format version 1 (a payload under 1 MiB) has one checksum over every byte: open
   * checks it, so a flip anywhere (header, payload, checksum) is refused before any answer.
   */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void aFlippedByteAnywhereInAVersion1FileIsRefusedAtOpen(Kind kind) throws IOException {
    Path file = write(kind.build.get());
    byte[] good = Files.readAllBytes(file);
    assertThat(good[4]).as("format version").isEqualTo((byte) 1);
    java.util.Random random = new java.util.Random(0x5EED_F11EL);
    for (int i = 0; i < 60; i++) {
      // The first and last bytes, then anywhere.
      int at = i < 30 ? i : i < 40 ? good.length - (i - 29) : random.nextInt(good.length);
      Files.write(file, good);
      flip(file, at, random.nextInt(8));
      assertThatThrownBy(() -> MappedFilter.open(file).close())
          .as("a flip at byte %d of %d", at, good.length)
          .isInstanceOf(SketchFormatException.class);
    }
  }

  @Test
  void aTruncatedOrLongerFileIsRefusedAtOpen() throws IOException {
    Path file = write(Kind.BLOOM.build.get());
    byte[] all = Files.readAllBytes(file);
    Path shorter = dir.resolve("short.bin");
    Files.write(shorter, java.util.Arrays.copyOf(all, all.length - 1));
    assertThatThrownBy(() -> MappedFilter.open(shorter))
        .isInstanceOf(SketchFormatException.class)
        .hasMessage("truncated: the checksum is missing");
    Path halved = dir.resolve("half.bin");
    Files.write(halved, java.util.Arrays.copyOf(all, all.length - 104));
    assertThatThrownBy(() -> MappedFilter.open(halved))
        .isInstanceOf(SketchFormatException.class)
        .hasMessage("truncated bloom payload: input ended 100 bytes early");
    Path longer = dir.resolve("long.bin");
    Files.write(longer, java.util.Arrays.copyOf(all, all.length + 3));
    assertThatThrownBy(() -> MappedFilter.open(longer))
        .isInstanceOf(SketchFormatException.class)
        .hasMessage("unexpected bytes after the end of the structure");
  }

  @Test
  void aBloomFileWithBitsBeyondItsSizeIsRefusedAtOpen() throws IOException {
    BloomFilter f = BloomFilter.withBits(100, 3); // 28 unused bits in the last word
    Path file = write(f);
    byte[] all = Files.readAllBytes(file);
    all[all.length - 5] = (byte) 0x80; // the top bit of the last word, just before the checksum
    CRC32C crc = new CRC32C();
    crc.update(all, 0, all.length - 4);
    ByteBuffer.wrap(all)
        .order(ByteOrder.LITTLE_ENDIAN)
        .putInt(all.length - 4, (int) crc.getValue());
    Files.write(file, all);
    assertThatThrownBy(() -> MappedFilter.open(file))
        .isInstanceOf(SketchFormatException.class)
        .hasMessageContaining("beyond its 100 bits");
  }

  /**
   * A Bloom filter of 2^34 + 320 bits (a 2 GiB + 40 byte payload, mapped in three regions), written
   * sparsely: the header as docs/FORMAT.md lays it out, the bits of a few keys at the positions its
   * formula gives (h1 = xxh3(key), h2 = rotl(h1, 32) | 1, probe i at floor((h1 + i h2) m / 2^64)),
   * one near the end, and the CRC32C over all of it. Only the pages written take disk space.
   */
  @Test
  @org.junit.jupiter.api.Tag("slow") // reads 2 GiB twice: 15 s on a loaded machine
  void aFileOverTwoGigabytesIsMapped() throws IOException {
    long m = (1L << 34) + 320;
    int k = 3;
    long payload = 8 * ((m + 63) / 64);
    Path file = dir.resolve("big.bin");
    ByteBuffer head = ByteBuffer.allocate(56).order(ByteOrder.LITTLE_ENDIAN);
    head.put("PKIT".getBytes(java.nio.charset.StandardCharsets.US_ASCII))
        .put((byte) 1)
        .put((byte) 1)
        .put((byte) 1)
        .put((byte) 0)
        .putLong(0)
        .putInt(28)
        .putLong(payload);
    head.putLong(m).putInt(k).putLong(0).putDouble(0).flip();
    long[] keys = {7, 42, 1L << 40};
    java.util.TreeMap<Long, Long> words = new java.util.TreeMap<>();
    for (long key : keys) {
      long h1 = HashStrategy.xxh3().hash64(key);
      long h2 = Long.rotateLeft(h1, 32) | 1;
      for (int i = 0; i < k; i++) {
        long p =
            new java.math.BigInteger(Long.toUnsignedString(h1 + i * h2))
                .multiply(java.math.BigInteger.valueOf(m))
                .shiftRight(64)
                .longValueExact();
        words.merge(p >>> 6, 1L << (p & 63), (a, b) -> a | b);
      }
    }
    words.merge((m - 1) >>> 6, 1L << ((m - 1) & 63), (a, b) -> a | b); // the last bit
    try (FileChannel ch =
        FileChannel.open(
            file,
            StandardOpenOption.CREATE_NEW,
            StandardOpenOption.WRITE,
            StandardOpenOption.READ,
            StandardOpenOption.SPARSE)) {
      ch.write(head, 0);
      ByteBuffer w = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
      for (var e : words.entrySet()) {
        ch.write(w.clear().putLong(0, e.getValue()), 56 + 8 * e.getKey());
      }
      CRC32C crc = new CRC32C();
      ByteBuffer buf = ByteBuffer.allocateDirect(1 << 20);
      long end = 56 + payload;
      for (long at = 0; at < end; ) {
        buf.clear().limit((int) Math.min(buf.capacity(), end - at));
        at += ch.read(buf, at);
        buf.flip();
        crc.update(buf);
      }
      ch.write(
          ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(0, (int) crc.getValue()),
          end);
    }
    assertThat(Files.size(file)).isGreaterThan(Integer.MAX_VALUE);
    try (MappedFilter f = MappedFilter.open(file)) {
      assertThat(f.bitSize()).isEqualTo(m);
      for (long key : keys) {
        assertThat(f.mightContain(key)).as("key %d", key).isTrue();
      }
      int present = 0;
      for (long key = 100; key < 1100; key++) {
        present += f.mightContain(key) ? 1 : 0;
      }
      assertThat(present).as("absent keys of an almost empty filter").isZero();
      f.verify();
    }
  }
}
