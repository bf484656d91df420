package io.github.probkit.hash;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The index arithmetic of every filter, checked against unbounded integers for sizes far beyond
 * 2^31 and 2^32 bits, without allocating them.
 */
class DoubleHashingTest {
  private static final BigInteger TWO_64 = BigInteger.ONE.shiftLeft(64);
  private static final long[] SIZES = {
    1,
    2,
    16,
    100_000,
    9_585_059,
    (1L << 31) - 1,
    (1L << 31) + 1,
    (1L << 32) + 3,
    9_585_058_378L,
    1L << 40,
    (1L << 62) + 12345,
    Long.MAX_VALUE - 1,
    Long.MAX_VALUE
  };

  private static BigInteger unsigned(long x) {
    return BigInteger.valueOf(x).and(TWO_64.subtract(BigInteger.ONE));
  }

  @Test
  void reduceIsTheHighWordOfTheProduct() {
    SplittableRandom r = new SplittableRandom(0x2545f4914f6cdd1dL);
    for (long m : SIZES) {
      for (int i = 0; i < 2000; i++) {
        long h = i < 3 ? new long[] {0, -1, Long.MIN_VALUE}[i] : r.nextLong();
        long expected = unsigned(h).multiply(BigInteger.valueOf(m)).shiftRight(64).longValueExact();
        long got = DoubleHashing.reduce(h, m);
        assertThat(got).isEqualTo(expected).isBetween(0L, m - 1);
      }
    }
  }

  @Test
  void exactSchemeMatchesUnboundedIntegers() {
    SplittableRandom r = new SplittableRandom(0x6a09e667f3bcc908L);
    for (long m : SIZES) {
      for (int t = 0; t < 300; t++) {
        long h1 = r.nextLong();
        long h2 = r.nextLong() | 1;
        long p = DoubleHashing.unsignedMod(h1, m);
        long step = DoubleHashing.unsignedMod(h2, m);
        for (int i = 0; i < 20; i++) {
          long expected =
              unsigned(h1)
                  .add(BigInteger.valueOf(i).multiply(unsigned(h2)))
                  .mod(BigInteger.valueOf(m))
                  .longValueExact();
          assertThat(p).as("m=%d i=%d", m, i).isEqualTo(expected);
          p = DoubleHashing.addMod(p, step, m);
        }
      }
    }
  }

  @Test
  void reduceCoversTheWholeRangeAboveFourBillion() {
    long m = (1L << 33) + 17;
    SplittableRandom r = new SplittableRandom(0xbb67ae8584caa73bL);
    int above = 0;
    for (int i = 0; i < 10_000; i++) {
      if (DoubleHashing.reduce(r.nextLong(), m) >= (1L << 32)) {
        above++;
      }
    }
    // About half of the positions lie above 2^32; 3.9 standard deviations of Binomial(10^4, 1/2).
    assertThat(above).isBetween(5000 - 196, 5000 + 196);
  }
}
