package io.github.probkit.cli.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.github.probkit.filter.BloomFilter;
import org.junit.jupiter.api.Test;

class TheoryTest {
  @Test
  void offeredKeysOfAnEmptyOrSparseLayerAreItsStoredKeys() {
    assertThat(Theory.offeredKeys(1_000_000, 0, 7)).isCloseTo(0, within(1e-6));
    // At 10 keys in a million bits almost no key is a false positive on arrival.
    assertThat(Theory.offeredKeys(1_000_000, 10, 7)).isCloseTo(10, within(1e-6));
  }

  /**
   * A layer that stores only the keys it does not already report present, simulated with real
   * filters: its fill is the model's, and farther from the model that counts stored keys as offered
   * (the lab's scalable FAIL of issue 25) than the sampling error allows.
   */
  @Test
  void aLayerStoringOnlyAbsentKeysFillsAsTheModelSays() {
    long m = 8069;
    int k = 4;
    int stored = 1250;
    int filters = 40;
    double fill = 0;
    long key = 0;
    for (int f = 0; f < filters; f++) {
      BloomFilter layer = BloomFilter.withBits(m, k);
      for (int s = 0; s < stored; key++) {
        if (!layer.mightContain(key)) {
          layer.add(key);
          s++;
        }
      }
      fill += (double) layer.bitCount() / m / filters;
    }
    double offered = Theory.offeredKeys(m, stored, k);
    double model = -Math.expm1(k * offered * Math.log1p(-1.0 / m));
    double naive = -Math.expm1(k * stored * Math.log1p(-1.0 / m));
    double l = k * offered / m;
    double sdOfMean =
        Math.sqrt(Math.exp(-l) * (1 - (1 + l) * Math.exp(-l)) / m) / Math.sqrt(filters);
    assertThat(fill).isCloseTo(model, within(Stats.Z * sdOfMean));
    assertThat(Math.abs(fill - naive)).isGreaterThan(Stats.Z * sdOfMean);
    assertThat(Theory.storedOnlyRate(m, stored, k)).isCloseTo(Math.pow(model, k), within(1e-12));
  }
}
