package io.github.probkit.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reads of every width at every offset agree with the file's bytes, across region boundaries:
 * regions of 128 bytes here stand for the 1 GiB regions of a file over 2 GiB.
 */
class MappedBytesTest {
  @TempDir Path dir;

  @Test
  void everyReadAgreesWithTheBytesAcrossRegions() throws IOException {
    byte[] bytes = new byte[5_000];
    new SplittableRandom(0x2d358dccaa6c78a5L).nextBytes(bytes);
    Path file = dir.resolve("bytes");
    Files.write(file, bytes);
    int offset = 13;
    long length = bytes.length - offset;
    ByteBuffer expected = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      for (int bits : new int[] {7, 9, MappedBytes.REGION_BITS}) {
        MappedBytes m = MappedBytes.map(ch, offset, length, bits, null);
        assertThat(m.length()).isEqualTo(length);
        for (int at = 0; at < length; at++) {
          assertThat(m.getByte(at)).isEqualTo(expected.get(offset + at));
          if (at + 2 <= length) {
            assertThat(m.getShort(at)).isEqualTo(expected.getShort(offset + at));
          }
          if (at + 8 <= length) {
            assertThat(m.getLong(at))
                .as("long at %d, regions of 2^%d", at, bits)
                .isEqualTo(expected.getLong(offset + at));
          }
        }
      }
    }
  }
}
