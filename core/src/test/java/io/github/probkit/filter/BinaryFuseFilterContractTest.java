package io.github.probkit.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.filter.BinaryFuseFilter.FingerprintBits;
import io.github.probkit.testing.Keys;
import io.github.probkit.testing.Theory;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The contract for the static binary fuse filter: it is built from the keys themselves, with the
 * fingerprint width the requested rate maps to (8 bits down to 2^-8, else 16 bits), and promises
 * 2^-bits. The two sizing tests are replaced, because a static filter is sized by its keys, not by
 * an expected count.
 */
class BinaryFuseFilterContractTest extends MembershipFilterContract {
  @Override
  protected MembershipFilter build(long expectedKeys, double fpp, List<byte[]> keys) {
    return BinaryFuseFilter.create(keys, FingerprintBits.forFpp(fpp));
  }

  @Override
  protected double promisedFpp(long expectedKeys, double fpp, int keysAdded) {
    return FingerprintBits.forFpp(fpp).fpp();
  }

  /**
   * An absent key matches the XOR of its three slots with probability 2^-bits: 8 bits down to 2^-8.
   */
  @Override
  protected Theory.Rate predictedRate(
      MembershipFilter f, long expectedKeys, double fpp, int keysAdded) {
    return Theory.Rate.exactly(Math.pow(2, fpp >= 1.0 / 256 ? -8 : -16));
  }

  @Override
  @Test
  void badSizingIsRefusedWithTheValue() {
    for (double fpp : new double[] {0, 1, 1.5, -0.1, Double.NaN, 1e-6}) {
      assertThatThrownBy(() -> build(1000, fpp, List.of()))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(String.valueOf(fpp));
    }
    assertThatThrownBy(() -> BinaryFuseFilter.create(null, FingerprintBits.BITS_8))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("keys");
  }

  @Override
  @Test
  void reportsItsSize() {
    int n = 10_000;
    MembershipFilter f = build(n, 0.01, Keys.randomBytes(n, 0x5eed0006L));
    // One byte per slot, at least one slot per key and (for n = 10^4) at most 1.3 slots per key.
    assertThat(f.byteSize()).isEqualTo(f.bitSize() / 8).isBetween((long) n, (long) (1.3 * n));
    assertThat(f.hashStrategy()).isNotNull();
  }
}
