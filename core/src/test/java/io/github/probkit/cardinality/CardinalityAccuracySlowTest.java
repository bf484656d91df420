package io.github.probkit.cardinality;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Locale;
import java.util.function.Supplier;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The long statistical runs: 1,000 trials per sketch at precision 12, n from 1 to 10^7, and the
 * memory-variance product (MVP = register bits x RSE^2, the UltraLogLog paper's measure) at
 * n = 10^6. About three minutes on two cores:
 *
 * <pre>
 *   mvn -B -o test -pl core -Dtest=CardinalityAccuracySlowTest -Dprobkit.excludedGroups=
 * </pre>
 */
@Tag("slow")
class CardinalityAccuracySlowTest {
  private static final int TRIALS = 1000;
  private static final int P = 12;

  @Test
  void hyperLogLog() {
    // Theory: 6 bits x (3 ln 2 - 1) = 6.48 (estimate), 6 ln 2 = 4.16 (martingale).
    check("HyperLogLog", () -> HyperLogLog.create(P), 6, 0x3e1f5a7c9b2d4e60L);
  }

  @Test
  void ultraLogLog() {
    // Theory: 8 bits x 0.5789 = 4.63 (estimate), 8 x (5/8) ln 2 = 3.47 (martingale).
    check("UltraLogLog", () -> UltraLogLog.create(P), 8, 0x7a9c1e3f5b6d8024L);
  }

  private static void check(String name, Supplier<CardinalitySketch> factory, int bitsPerRegister, long seed) {
    long[] checkpoints = Accuracy.checkpoints(10_000_000);
    Accuracy a = Accuracy.measure(factory, checkpoints, TRIALS, seed);
    CardinalitySketch shape = factory.get();
    for (int i = 0; i < 100_000; i++) {
      shape.addHash(i * 0x9E3779B97F4A7C15L);
    }
    double[] rse = {shape.relativeStandardError(), shape.martingaleRelativeStandardError()};
    String table = a.table(rse[0], rse[1]);
    double bits = (double) bitsPerRegister * (1 << P);
    int k6 = java.util.Arrays.binarySearch(checkpoints, 1_000_000);
    String mvp = String.format(Locale.ROOT,
        "%s p=%d, %d trials, n=10^6: MVP %.3f (estimate), %.3f (martingale); theory %.3f, %.3f%n",
        name, P, TRIALS,
        bits * a.rmse(0, k6) * a.rmse(0, k6), bits * a.rmse(1, k6) * a.rmse(1, k6),
        bits * rse[0] * rse[0], bits * rse[1] * rse[1]);
    System.out.print(table + mvp);
    for (int e = 0; e < 2; e++) {
      for (int k = 0; k < checkpoints.length; k++) {
        assertThat(Math.abs(a.bias(e, k))).as("bias at n=%d%n%s", checkpoints[k], table)
            .isLessThanOrEqualTo(4 * rse[e] / Math.sqrt(TRIALS));
        assertThat(a.rmse(e, k)).as("rmse at n=%d%n%s", checkpoints[k], table)
            .isLessThanOrEqualTo(1.1 * rse[e]);
      }
    }
  }
}
