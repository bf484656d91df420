package io.github.probkit.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class LongBitArrayTest {
  @Test
  void bitsBeyondTwoToThe31Work() {
    long m = (1L << 31) + 200; // 256 MiB: the smallest array where an int index would overflow
    LongBitArray a = new LongBitArray(m);
    long[] idx = {0, 63, 64, (1L << 31) - 1, 1L << 31, (1L << 31) + 65, m - 1};
    for (long i : idx) {
      assertThat(a.get(i)).isFalse();
      assertThat(a.set(i)).isTrue();
      assertThat(a.set(i)).isFalse();
      assertThat(a.get(i)).isTrue();
    }
    assertThat(a.cardinality()).isEqualTo(idx.length);
    assertThat(a.get((1L << 31) + 1)).isFalse();
    assertThat(a.words()[(int) ((1L << 31) >>> 6)]).isEqualTo(1L);
  }

  @Test
  void sizeLimitsAreExplicit() {
    assertThat(LongBitArray.wordsFor(0)).isZero();
    assertThat(LongBitArray.wordsFor(1)).isEqualTo(1);
    assertThat(LongBitArray.wordsFor(64)).isEqualTo(1);
    assertThat(LongBitArray.wordsFor(65)).isEqualTo(2);
    assertThat(LongBitArray.wordsFor(LongBitArray.MAX_BITS)).isEqualTo(Integer.MAX_VALUE - 8);
    assertThatThrownBy(() -> LongBitArray.wordsFor(LongBitArray.MAX_BITS + 1))
        .hasMessageContaining(String.valueOf(LongBitArray.MAX_BITS + 1));
  }

  @Test
  void formatsBytes() {
    assertThat(Preconditions.formatBytes(512)).isEqualTo("512 B");
    assertThat(Preconditions.formatBytes(1536)).isEqualTo("1.5 KiB");
    assertThat(Preconditions.formatBytes(1_198_136)).isEqualTo("1.1 MiB");
  }
}
