package io.github.probkit.cardinality;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.github.probkit.testing.Theory;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.SplittableRandom;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;

/**
 * HyperLogLog and UltraLogLog keep their estimator's inputs (the register histogram; the empty
 * count, unseen probability and seen counts) up to date as registers change, instead of reading the
 * registers on every estimate. A sketch read back from its bytes counts those inputs afresh from
 * the registers, so after any mix of adds, merges, downsizes and copies its estimate must be
 * exactly the live sketch's.
 */
class EstimatorInputsTest {

  private static CardinalitySketch reread(CardinalitySketch s, Reader reader) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    s.writeTo(out);
    return reader.read(new ByteArrayInputStream(out.toByteArray()));
  }

  interface Reader {
    CardinalitySketch read(ByteArrayInputStream in) throws IOException;
  }

  /**
   * After each add, merge (of a sketch of a higher precision), downsize and copy, at precisions 4,
   * 10 and 14, through HyperLogLog's sparse form and its switch to dense, the live estimate is the
   * one of the sketch read back.
   */
  private static void keepsItsInputs(
      IntFunction<CardinalitySketch> create, Reader reader, long seed) throws IOException {
    SplittableRandom r = new SplittableRandom(seed);
    for (int p : new int[] {4, 10, 14}) {
      CardinalitySketch a = create.apply(p);
      CardinalitySketch b = create.apply(p + 2);
      for (int n = 1; n <= 40_000; n++) {
        a.addHash(r.nextLong());
        if (n % 3 == 0) {
          b.addHash(r.nextLong());
        }
        if (Long.bitCount(n) == 1 || n % 9_973 == 0) {
          assertThat(a.estimate()).as("p=%d n=%d", p, n).isEqualTo(reread(a, reader).estimate());
          CardinalitySketch merged = a.copy().merge(b);
          assertThat(merged.estimate())
              .as("merged p=%d n=%d", p, n)
              .isEqualTo(reread(merged, reader).estimate());
          CardinalitySketch small = a.downsize(4);
          assertThat(small.estimate())
              .as("downsized p=%d n=%d", p, n)
              .isEqualTo(reread(small, reader).estimate());
          assertThat(create.apply(p).merge(a).estimate())
              .as("into an empty one")
              .isEqualTo(a.estimate());
          assertThat(a.copy().estimate()).isEqualTo(a.estimate());
        }
      }
    }
  }

  @Test
  void hyperLogLogKeepsItsHistogram() throws IOException {
    keepsItsInputs(HyperLogLog::create, HyperLogLog::readFrom, 0x5eed0f1a2b3c4d5eL);
  }

  @Test
  void ultraLogLogKeepsItsLikelihoodInputs() throws IOException {
    keepsItsInputs(UltraLogLog::create, UltraLogLog::readFrom, 0x0a1b2c3d4e5f6071L);
  }

  /**
   * The martingale estimate, which files store, follows hash4j's MartingaleEstimator to the bit:
   * the chance that a key raises a register, kept here from a table, is hash4j's.
   */
  @Test
  void ultraLogLogMartingaleIsHash4jsToTheBit() {
    for (int p : new int[] {4, 9, 14, 18}) {
      UltraLogLog ours = UltraLogLog.create(p);
      com.dynatrace.hash4j.distinctcount.UltraLogLog theirs =
          com.dynatrace.hash4j.distinctcount.UltraLogLog.create(p);
      com.dynatrace.hash4j.distinctcount.MartingaleEstimator martingale =
          new com.dynatrace.hash4j.distinctcount.MartingaleEstimator();
      SplittableRandom r = new SplittableRandom(0x3a4b5c6d7e8f9011L + p);
      for (int n = 1; n <= 200_000; n++) {
        long h = r.nextLong();
        if (n % 5 == 0) {
          h &= -1L << (64 - p); // the largest update values too, up to saturated registers
        }
        ours.addHash(h);
        theirs.add(h, martingale);
        if (Long.bitCount(n) == 1 || n % 50_000 == 0) {
          assertThat(ours.martingaleEstimate().getAsDouble())
              .as("p=%d n=%d", p, n)
              .isEqualTo(martingale.getDistinctCountEstimate());
          assertThat(ours.stateChangeProbability())
              .as("p=%d n=%d", p, n)
              .isEqualTo(theirs.getStateChangeProbability());
        }
      }
    }
  }

  /**
   * Kept inputs that agree with a re-read sketch can still be wrong in the same way on both sides
   * (the estimator's arithmetic, the martingale's increments, the choice of register count between
   * HyperLogLog's sparse and dense forms): the estimates against the true count of distinct keys,
   * within six of the papers' standard errors (Theory's constants, not the sketch's own) plus one
   * key, at every power of two up to 2^17 keys; and the sketch's stated errors as the papers'.
   */
  @Test
  void estimatesFollowTheTrueCountWithinThePapersErrors() {
    for (boolean hll : new boolean[] {true, false}) {
      for (int p : new int[] {4, 8, 12, 16}) {
        CardinalitySketch s = hll ? HyperLogLog.create(p) : UltraLogLog.create(p);
        SplittableRandom r = new SplittableRandom(0x7ea1c0417L + p);
        for (int n = 1; n <= 1 << 17; n++) {
          s.addHash(r.nextLong()); // 2^17 random longs: a repeat has odds of about 1e-9
          if (Long.bitCount(n) != 1) {
            continue;
          }
          double m = hll && ((HyperLogLog) s).isSparse() ? 1 << 25 : 1 << p;
          double rse = Math.sqrt(hll ? Theory.HLL_VARIANCE : Theory.ULL_VARIANCE) / Math.sqrt(m);
          double mrse =
              Math.sqrt(hll ? Theory.HLL_MARTINGALE_VARIANCE : Theory.ULL_MARTINGALE_VARIANCE)
                  / Math.sqrt(m);
          String where = (hll ? "HLL" : "ULL") + " p=" + p + " n=" + n;
          assertThat(s.estimate()).as(where).isCloseTo(n, within(6 * rse * n + 1));
          assertThat(s.martingaleEstimate().getAsDouble())
              .as("martingale, %s", where)
              .isCloseTo(n, within(6 * mrse * n + 1));
          assertThat(s.relativeStandardError()).as(where).isCloseTo(rse, within(1e-3 * rse));
          assertThat(s.martingaleRelativeStandardError())
              .as(where)
              .isCloseTo(mrse, within(1e-3 * mrse));
        }
      }
    }
  }

  @Test
  void emptyAndSaturatedSketches() {
    assertThat(UltraLogLog.create(4).estimate()).isZero();
    assertThat(HyperLogLog.create(4).estimate()).isZero();
    assertThat(UltraLogLog.create(4).isEmpty()).isTrue();
    // Every register has seen the three largest update values (q + 1, q, q - 1 for q = 60):
    // nothing is known unseen, and only an infinite count is likely.
    UltraLogLog u = UltraLogLog.create(4);
    for (long i = 0; i < 16; i++) {
      u.addHash(i << 60);
      assertThat(u.estimate()).isFinite();
      u.addHash(i << 60 | 1);
      u.addHash(i << 60 | 2);
    }
    assertThat(u.isEmpty()).isFalse();
    assertThat(u.estimate()).isInfinite();
  }

  /**
   * The likelihood solver against a root found by bisection of the likelihood's derivative,
   * computed directly with exponentials: {@code -a + sum_k b[k] 2^-k / (exp(x 2^-k) - 1)}.
   */
  @Test
  void maximumLikelihoodSolvesTheLikelihoodEquation() {
    SplittableRandom r = new SplittableRandom(0x7e57ab1e5eedL);
    for (int trial = 0; trial < 500; trial++) {
      int n = 1 + r.nextInt(60);
      long[] b = new long[64];
      int lo = r.nextInt(n);
      for (int k = lo; k <= n; k++) {
        b[k] = r.nextInt(3) == 0 ? 0 : r.nextLong(1, 1 << 14);
      }
      b[n] = Math.max(1, b[n]);
      double a = Math.scalb(r.nextDouble(0.5, 1), -r.nextInt(20)) * (1 << 14);
      double x = LogLogMath.maximumLikelihood(a, b, 0, n, 1e-15);
      double root = bisect(a, b, n);
      assertThat(x).as("trial %d", trial).isCloseTo(root, within(1e-9 * root));
    }
  }

  private static double derivative(double x, double a, long[] b, int n) {
    double d = -a;
    for (int k = 0; k <= n; k++) {
      if (b[k] != 0) {
        double s = Math.scalb(1.0, -k);
        d += b[k] * s / Math.expm1(x * s);
      }
    }
    return d;
  }

  private static double bisect(double a, long[] b, int n) {
    double lo = 0x1p-60;
    double hi = 1;
    while (derivative(hi, a, b, n) > 0) {
      hi *= 2;
    }
    for (int i = 0; i < 200 && hi - lo > 1e-14 * hi; i++) {
      double mid = 0.5 * (lo + hi);
      if (derivative(mid, a, b, n) > 0) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return 0.5 * (lo + hi);
  }
}
