package io.github.probkit.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class PackedArrayTest {

  /** Every width, fields straddling words included, against a plain long[] model. */
  @Test
  void agreesWithAnUnpackedModel() {
    SplittableRandom r = new SplittableRandom(0x9ac4ed01L);
    for (int width = 1; width <= PackedArray.MAX_WIDTH; width++) {
      int n = 1 + r.nextInt(300);
      PackedArray a = new PackedArray(n, width);
      long[] model = new long[n];
      long mask = (1L << width) - 1;
      for (int op = 0; op < 3_000; op++) {
        int i = r.nextInt(n);
        long v = r.nextLong();
        a.set(i, v);
        model[i] = v & mask;
        int j = r.nextInt(n);
        assertThat(a.get(j)).as("width %d, field %d", width, j).isEqualTo(model[j]);
      }
      for (int i = 0; i < n; i++) {
        assertThat(a.get(i)).isEqualTo(model[i]);
      }
      assertThat(PackedArray.tailIsClear(a.words(), (long) n * width))
          .as("width %d", width)
          .isTrue();
      assertThat(a.words()).hasSize((int) ((n * width + 63) / 64));
    }
  }

  @Test
  void fieldsAreLaidOutAsOneLittleEndianBitString() {
    PackedArray a = new PackedArray(10, 12);
    a.set(5, 0xABC); // bits 60..71: 0xC in the top nibble of word 0, 0xAB in the low byte of word 1
    assertThat(a.words()[0]).isEqualTo(0xC000_0000_0000_0000L);
    assertThat(a.words()[1]).isEqualTo(0xABL);
  }

  @Test
  void badShapesAreRefused() {
    assertThatThrownBy(() -> new PackedArray(10, 0)).hasMessageContaining("was 0");
    assertThatThrownBy(() -> new PackedArray(10, 33)).hasMessageContaining("was 33");
    assertThatThrownBy(() -> new PackedArray(PackedArray.MAX_BITS, 2))
        .hasMessageContaining("exceed");
    assertThatThrownBy(() -> new PackedArray(10, 4, new long[2])).hasMessageContaining("2 words");
  }
}
