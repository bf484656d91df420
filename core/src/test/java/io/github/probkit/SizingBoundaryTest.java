package io.github.probkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.filter.BinaryFuseFilter.FingerprintBits;
import io.github.probkit.filter.BlockedBloomFilter;
import io.github.probkit.filter.BloomFilter;
import io.github.probkit.filter.CuckooFilter;
import io.github.probkit.frequency.CountMinSketch;
import io.github.probkit.frequency.HeavyHitters;
import io.github.probkit.testing.Theory;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Every sizing function on both sides of each of its boundaries, against the definition it states
 * ("the least d with e^-d <= delta"), computed here by counting up rather than by the function's
 * own ceil or log: a round for a ceil, an off-by-one or a 4x slip lands on the wrong side of some
 * boundary. Just inside a boundary is a relative step of 1e-9, far above floating-point noise.
 */
class SizingBoundaryTest {
  private static final double STEP = 1e-9;

  @Test
  void countMinDepthOnBothSidesOfEveryPowerOfE() {
    for (int d = 1; d <= CountMinSketch.MAX_DEPTH; d++) {
      double boundary = Math.exp(-d);
      assertThat(CountMinSketch.depthFor(boundary * (1 + STEP)))
          .as("just above e^-%d", d)
          .isEqualTo(d);
      // Between two boundaries: a rounding depthFor errs on the lower third of each interval.
      assertThat(CountMinSketch.depthFor(Math.exp(-(d - 0.7)))).as("e^-(%d - 0.7)", d).isEqualTo(d);
      assertThat(CountMinSketch.depthFor(Math.exp(-(d - 0.3)))).as("e^-(%d - 0.3)", d).isEqualTo(d);
      if (d < CountMinSketch.MAX_DEPTH) {
        assertThat(CountMinSketch.depthFor(boundary * (1 - STEP)))
            .as("just below e^-%d", d)
            .isEqualTo(d + 1);
      } else {
        double below = boundary * (1 - STEP);
        assertThatThrownBy(() -> CountMinSketch.depthFor(below))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("delta must be at least e^-64");
      }
    }
    assertThat(CountMinSketch.depthFor(0.999)).isEqualTo(1);
    SplittableRandom r = new SplittableRandom(0x6a09e667f3bcc908L);
    for (int i = 0; i < 2000; i++) {
      double delta = Math.exp(-64 * r.nextDouble());
      assertThat(CountMinSketch.depthFor(delta))
          .as("delta %s", delta)
          .isEqualTo(Theory.countMinDepth(delta));
    }
  }

  @Test
  void countMinWidthOnBothSidesOfEveryEOverW() {
    SplittableRandom r = new SplittableRandom(0xbb67ae8584caa73bL);
    for (int i = 0; i < 2000; i++) {
      int w = i < 100 ? 3 + i : 3 + r.nextInt(1_000_000);
      double boundary = Math.E / w;
      assertThat(CountMinSketch.widthFor(boundary * (1 + STEP), 0.01))
          .as("just above e/%d", w)
          .isEqualTo(w);
      assertThat(CountMinSketch.widthFor(boundary * (1 - STEP), 0.01))
          .as("just below e/%d", w)
          .isEqualTo(w + 1);
      double between = Math.E / (w + 0.3);
      assertThat(CountMinSketch.widthFor(between, 0.01))
          .isEqualTo(Theory.countMinWidth(between))
          .isEqualTo(w + 1);
    }
    CountMinSketch s = CountMinSketch.create(Math.E / 1000 * (1 - STEP), Math.exp(-4) * (1 - STEP));
    assertThat(s.width()).isEqualTo(1001);
    assertThat(s.depth()).isEqualTo(5);
  }

  @Test
  void bloomBitsAreTheCeilingOfTheSpecificationsFormula() {
    SplittableRandom r = new SplittableRandom(0x3c6ef372fe94f82bL);
    int checked = 0;
    while (checked < 2000) {
      long n = 1 + r.nextInt(10_000_000);
      double p = Math.exp(-20 * r.nextDouble());
      double exact = -n * Math.log(p) / (Math.log(2) * Math.log(2));
      if (exact > 1e12 || Math.abs(exact - Math.rint(exact)) < 1e-6 * exact) {
        continue; // too close to an integer to tell ceil from floating-point noise
      }
      long m = BloomFilter.optimalBits(n, p);
      assertThat((double) m).as("n=%d p=%s: %.4f bits", n, p, exact).isGreaterThanOrEqualTo(exact);
      assertThat((double) m - 1).as("n=%d p=%s: %.4f bits", n, p, exact).isLessThan(exact);
      checked++;
    }
    assertThat(BloomFilter.optimalBits(1_000_000, 0.01)).isEqualTo(9_585_059);
  }

  @Test
  void bloomHashesRoundToTheNearestAndAreAtLeastOne() {
    long n = 1_000_000;
    for (int j = 1; j < 40; j++) {
      for (double off : new double[] {-0.45, -0.05, 0.05, 0.45}) {
        double target = j + 0.5 + off;
        long m = (long) Math.floor(target / Math.log(2) * n);
        int expected = off < 0 ? j : j + 1;
        assertThat(BloomFilter.optimalHashes(m, n))
            .as("m/n ln 2 = %.3f", target)
            .isEqualTo(expected);
      }
    }
    assertThat(BloomFilter.optimalHashes(1, n)).isEqualTo(1);
    assertThat(BloomFilter.optimalHashes(n / 2, n)).isEqualTo(1);
    assertThat(BloomFilter.optimalHashes(Long.MAX_VALUE / 4, 1)).isEqualTo(BloomFilter.MAX_HASHES);
  }

  @Test
  void cuckooFingerprintBitsOnBothSidesOfEveryBound() {
    assertThat(CuckooFilter.fingerprintBits(0.9)).isEqualTo(CuckooFilter.MIN_FINGERPRINT_BITS);
    for (int f = CuckooFilter.MIN_FINGERPRINT_BITS; f <= CuckooFilter.MAX_FINGERPRINT_BITS; f++) {
      double bound = 8.0 / (Math.pow(2, f) - 1);
      if (bound < 1) {
        assertThat(CuckooFilter.fingerprintBits(bound)).as("8 / (2^%d - 1)", f).isEqualTo(f);
        assertThat(CuckooFilter.fingerprintBits(bound * (1 + STEP))).isEqualTo(f);
      }
      if (f < CuckooFilter.MAX_FINGERPRINT_BITS) {
        assertThat(CuckooFilter.fingerprintBits(bound * (1 - STEP)))
            .as("below 8 / (2^%d - 1)", f)
            .isEqualTo(f + 1)
            .isEqualTo(Theory.cuckooFingerprintBits(bound * (1 - STEP)));
      } else {
        double below = bound * (1 - STEP);
        assertThatThrownBy(() -> CuckooFilter.fingerprintBits(below))
            .isInstanceOf(IllegalArgumentException.class);
      }
    }
  }

  /**
   * create(n, p) takes {@code ceil((n/a + 6 sqrt(n/a)) / 4)} buckets at the sizing load a = 0.9
   * (0.88 for 6-bit fingerprints), and at least 6 fingerprint bits: the documented formula computed
   * here, for counts around every bucket boundary of the small tables and a spread of large ones.
   */
  @Test
  void cuckooBucketsAreTheDocumentedRoom() {
    SplittableRandom r = new SplittableRandom(0x9b05688c2b3e6c1fL);
    for (int i = 0; i < 3000; i++) {
      long n = i < 1000 ? 1 + i : 1 + r.nextInt(50_000_000);
      double p = i % 3 == 0 ? 0.1 : i % 3 == 1 ? 0.01 : 1e-4;
      int bits = Math.max(6, Theory.cuckooFingerprintBits(p));
      double slots = n / (bits == 6 ? 0.88 : 0.9);
      long buckets = (long) Math.ceil((slots + 6 * Math.sqrt(slots)) / 4);
      assertThat(CuckooFilter.bucketsFor(n, bits))
          .as("n = %d, %d bits", n, bits)
          .isEqualTo(buckets);
      if (n < 100_000) {
        CuckooFilter f = CuckooFilter.create(n, p);
        assertThat(f.bucketCount()).as("n = %d, p = %s", n, p).isEqualTo(buckets);
        assertThat(f.fingerprintBits()).isEqualTo(bits);
      }
    }
  }

  /**
   * The fewest blocks whose rate, with the best k, is at most p: the block count chosen meets p and
   * one block fewer does not. (The rate formula itself is checked against Theory in
   * RateFormulasTest.)
   */
  @Test
  void blockedBitsAreTheFewestBlocksThatMeetTheRate() {
    SplittableRandom r = new SplittableRandom(0xa54ff53a5f1d36f1L);
    for (int i = 0; i < 40; i++) {
      long n = 1 + r.nextInt(i < 20 ? 5_000 : 2_000_000);
      double p = Math.exp(-1 - 9 * r.nextDouble());
      long bits = BlockedBloomFilter.optimalBits(n, p);
      assertThat(bits % BlockedBloomFilter.BLOCK_BITS).isZero();
      assertThat(bestRate(bits, n)).as("n=%d p=%s at %d bits", n, p, bits).isLessThanOrEqualTo(p);
      if (bits > BlockedBloomFilter.BLOCK_BITS) {
        assertThat(bestRate(bits - BlockedBloomFilter.BLOCK_BITS, n))
            .as("n=%d p=%s one block fewer", n, p)
            .isGreaterThan(p);
      }
    }
  }

  private static double bestRate(long bits, long n) {
    int k = BlockedBloomFilter.optimalHashes(bits, n);
    double rate = BlockedBloomFilter.falsePositiveRate(bits, n, k);
    // The k chosen is a minimum: one more or one fewer probe does no better.
    assertThat(rate).isLessThanOrEqualTo(BlockedBloomFilter.falsePositiveRate(bits, n, k + 1));
    if (k > 1) {
      assertThat(rate).isLessThanOrEqualTo(BlockedBloomFilter.falsePositiveRate(bits, n, k - 1));
    }
    return rate;
  }

  @Test
  void binaryFuseWidthOnBothSidesOfTwoToTheMinusEightAndSixteen() {
    assertThat(FingerprintBits.forFpp(0.5)).isEqualTo(FingerprintBits.BITS_8);
    assertThat(FingerprintBits.forFpp(Math.scalb(1.0, -8))).isEqualTo(FingerprintBits.BITS_8);
    assertThat(FingerprintBits.forFpp(Math.nextDown(Math.scalb(1.0, -8))))
        .isEqualTo(FingerprintBits.BITS_16);
    assertThat(FingerprintBits.forFpp(Math.scalb(1.0, -16))).isEqualTo(FingerprintBits.BITS_16);
    assertThatThrownBy(() -> FingerprintBits.forFpp(Math.nextDown(Math.scalb(1.0, -16))))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(FingerprintBits.BITS_8.fpp()).isEqualTo(1.0 / 256);
    assertThat(FingerprintBits.BITS_16.fpp()).isEqualTo(1.0 / 65536);
  }

  @Test
  void heavyHittersCapacityIsTheCeilingOfOneOverEpsilon() {
    for (int c = 1; c <= 5000; c += c < 20 ? 1 : 97) {
      double boundary = 1.0 / c;
      if (boundary < 1) {
        assertThat(HeavyHitters.create(boundary * (1 + STEP)).capacity())
            .as("just above 1/%d", c)
            .isEqualTo(c);
      }
      assertThat(HeavyHitters.create(boundary * (1 - STEP)).capacity())
          .as("just below 1/%d", c)
          .isEqualTo(c + 1);
    }
  }
}
