package io.github.probkit.filter;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.hash.HashStrategy;
import org.junit.jupiter.api.Test;

/**
 * {@code create(n, p)} holds n distinct keys at every fingerprint size. Before, 4-bit fingerprints
 * filled to 85-88 % against a sizing load of 90 % ({@code create(1M, 0.6)} refused 56 adds), and
 * about one table in a hundred below 64 keys refused a key at any width.
 */
class CuckooSizingTest {
  /** The reproduction: 4-bit fingerprints were chosen for p = 0.6. */
  @Test
  void aMillionKeysAtSixtyPercentFit() {
    CuckooFilter f = CuckooFilter.create(1_000_000, 0.6);
    assertThat(f.fingerprintBits()).isEqualTo(CuckooFilter.MIN_CREATE_FINGERPRINT_BITS);
    for (int i = 0; i < 1_000_000; i++) {
      assertThat(f.add("user:" + i)).as("key %d", i).isTrue();
    }
  }

  /** Every width create() can choose, small and middling n, three key sets each. */
  @Test
  void everyWidthHoldsItsKeys() {
    for (int bits = CuckooFilter.MIN_CREATE_FINGERPRINT_BITS;
        bits <= CuckooFilter.MAX_FINGERPRINT_BITS;
        bits++) {
      double fpp = 8.0 / ((1L << bits) - 1);
      for (int n : sizes()) {
        for (long set = 0; set < 3; set++) {
          CuckooFilter f =
              CuckooFilter.create(n, fpp, HashStrategy.xxh3(0x9e3779b97f4a7c15L * (set + 1)));
          assertThat(f.fingerprintBits()).isEqualTo(bits);
          for (int i = 0; i < n; i++) {
            assertThat(f.add(i)).as("%d bits, %d keys, set %d: key %d", bits, n, set, i).isTrue();
          }
        }
      }
    }
  }

  private static int[] sizes() {
    int[] out = new int[64 + 3];
    for (int n = 1; n <= 64; n++) {
      out[n - 1] = n;
    }
    out[64] = 100;
    out[65] = 1000;
    out[66] = 10_000;
    return out;
  }

  @Test
  void largeTablesAtTheNarrowWidthsHoldTheirKeys() {
    for (int bits : new int[] {6, 7, 8, 10, 16, 32}) {
      CuckooFilter f = CuckooFilter.create(300_000, 8.0 / ((1L << bits) - 1));
      for (int i = 0; i < 300_000; i++) {
        assertThat(f.add("k" + i)).as("%d bits: key %d", bits, i).isTrue();
      }
      assertThat(f.load()).isLessThan(CuckooFilter.SIZING_LOAD + 0.001);
    }
  }
}
