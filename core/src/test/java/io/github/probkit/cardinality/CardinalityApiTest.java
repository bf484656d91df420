package io.github.probkit.cardinality;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.hash.HashStrategy;
import io.github.probkit.testing.Binomial;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Confidence bounds, merge through the interface, addAll and collectors. */
class CardinalityApiTest {
  /**
   * Over 600 sketches of 20,000 random keys (dense, p = 10), [lowerBound(s), upperBound(s)] holds
   * the true count about as often as the normal model says (68.3 %, 95.4 %, 99.7 %): not less,
   * within a one-in-a-million binomial tolerance, and not much more.
   */
  @Test
  void boundsCoverTheTrueCountAsOftenAsStated() {
    int sketches = 600;
    int n = 20_000;
    double[] sigmas = {1, 2, 3};
    double[] coverage = {0.6827, 0.9545, 0.9973};
    SplittableRandom r = new SplittableRandom(0x452821e638d01377L);
    for (boolean ultra : new boolean[] {false, true}) {
      int[] inside = new int[3];
      int[] above = new int[3];
      for (int s = 0; s < sketches; s++) {
        CardinalitySketch sk = ultra ? UltraLogLog.create(10) : HyperLogLog.create(10);
        for (int i = 0; i < n; i++) {
          sk.addHash(r.nextLong());
        }
        if (s % 2 == 1) {
          sk.merge(sk.copy()); // a merged sketch: the register estimate and its error
        }
        for (int j = 0; j < 3; j++) {
          inside[j] += sk.lowerBound(sigmas[j]) <= n && n <= sk.upperBound(sigmas[j]) ? 1 : 0;
          above[j] += sk.lowerBound(sigmas[j]) <= n ? 1 : 0;
        }
      }
      for (int j = 0; j < 3; j++) {
        long[] band = Binomial.interval(sketches, coverage[j], 1 - 1e-6);
        assertThat((long) inside[j])
            .as("%s, %s sigmas: sketches whose bounds hold n", ultra ? "ULL" : "HLL", sigmas[j])
            .isGreaterThanOrEqualTo(band[0])
            .isLessThanOrEqualTo(Math.min(sketches, band[1] + sketches / 50));
        assertThat(above[j]).isGreaterThanOrEqualTo(inside[j]);
      }
    }
  }

  @Test
  void boundsAreOrderedAndRefuseBadSigmas() {
    HyperLogLog h = HyperLogLog.create(12);
    assertThat(h.lowerBound(2)).isZero();
    assertThat(h.upperBound(2)).isZero();
    IntStream.range(0, 5000).forEach(i -> h.add("k" + i));
    assertThat(h.lowerBound(1)).isLessThan(h.bestEstimate()).isGreaterThan(h.lowerBound(3));
    assertThat(h.upperBound(1)).isGreaterThan(h.bestEstimate()).isLessThan(h.upperBound(3));
    assertThatThrownBy(() -> h.lowerBound(0))
        .hasMessage("sigmas must be positive and finite, was 0.0");
    assertThatThrownBy(() -> h.upperBound(Double.NaN)).hasMessageContaining("NaN");
  }

  @Test
  void mergeThroughTheInterfaceAndCollectors() {
    CardinalitySketch h = HyperLogLog.create(12);
    CardinalitySketch u = UltraLogLog.create(12);
    assertThat(h.isCompatible(u)).isFalse();
    assertThatThrownBy(() -> h.merge(u))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("cannot merge a ultraloglog sketch into a hyperloglog sketch");
    assertThat(h.isCompatible(HyperLogLog.create(12, HashStrategy.xxh3(3)))).isFalse();
    assertThat(h.isCompatible(HyperLogLog.create(14))).isTrue();
    List<String> keys =
        IntStream.range(0, 50_000).mapToObj(i -> "user:" + i).collect(Collectors.toList());
    HyperLogLog serial = HyperLogLog.create(12);
    assertThat(serial.addAll(keys)).isPositive().isLessThanOrEqualTo(keys.size());
    assertThat(keys.stream().collect(CardinalitySketches.toHyperLogLog(12))).isEqualTo(serial);
    assertThat(keys.parallelStream().collect(CardinalitySketches.toHyperLogLog(12)))
        .isEqualTo(serial);
    UltraLogLog ull = keys.parallelStream().collect(CardinalitySketches.toUltraLogLog(12));
    UltraLogLog ullSerial = UltraLogLog.create(12);
    ullSerial.addAll(keys.stream());
    assertThat(ull).isEqualTo(ullSerial);
    assertThat(UltraLogLog.create(12).addAll(new long[] {1, 2, 2})).isEqualTo(2);
  }
}
