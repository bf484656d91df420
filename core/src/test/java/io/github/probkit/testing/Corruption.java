package io.github.probkit.testing;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.io.SketchFormatException;
import java.io.IOException;
import java.util.Arrays;
import java.util.SplittableRandom;

/** Damaged copies of a structure's bytes, each of which its reader must refuse. */
public final class Corruption {
  private Corruption() {}

  /** A structure's reader. */
  public interface Reader {
    Object read(byte[] b) throws IOException;
  }

  /**
   * Asserts that {@code read} refuses {@code b} cut short at every length, and with each of 300
   * single bits flipped (drawn from {@code seed}), as a {@link SketchFormatException}.
   */
  public static void assertTruncationsAndBitFlipsRefused(byte[] b, long seed, Reader read) {
    for (int len = 0; len < b.length; len++) {
      byte[] cut = Arrays.copyOf(b, len);
      assertThatThrownBy(() -> read.read(cut))
          .as("truncated to %d", len)
          .isInstanceOf(SketchFormatException.class);
    }
    SplittableRandom r = new SplittableRandom(seed);
    for (int i = 0; i < 300; i++) {
      byte[] bad = b.clone();
      int bit = r.nextInt(8 * bad.length);
      bad[bit >>> 3] ^= (byte) (1 << (bit & 7));
      assertThatThrownBy(() -> read.read(bad))
          .as("bit %d flipped", bit)
          .isInstanceOf(SketchFormatException.class);
    }
  }
}
