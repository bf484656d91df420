package io.github.probkit.cardinality;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.hash.HashStrategy;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class CardinalitySketchesTest {
  @Test
  void registerUpdateIsWhatAnAddWrites() {
    for (HashStrategy hash : List.of(HashStrategy.xxh3(), HashStrategy.xxh3(0x77))) {
      for (int p : new int[] {4, 5, 11, 18}) {
        for (int i = 0; i < 200; i++) {
          byte[] key = ("key-" + i).getBytes(StandardCharsets.UTF_8);
          long u = CardinalitySketches.registerUpdate(hash, p, key, 0, key.length);
          int register = (int) (u >>> 8);
          int value = (int) (u & 0xFF);
          assertThat(value).isBetween(1, 65 - p);
          UltraLogLog ull = UltraLogLog.create(p, hash);
          ull.add(key);
          assertThat(ull.registers()[register] & 0xFF)
              .as("ull p %d key %d", p, i)
              .isEqualTo(value << 2);
          HyperLogLog hll = HyperLogLog.create(p, hash);
          hll.add(key); // sparse from p = 6 on: registers() folds it to p
          assertThat(hll.registers()[register]).as("hll p %d key %d", p, i).isEqualTo(value);
        }
      }
    }
    assertThatThrownBy(
            () -> CardinalitySketches.registerUpdate(HashStrategy.xxh3(), 3, new byte[1], 0, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("precision must be in [4, 18], was 3");
    // As the sketches themselves, it refuses a hash whose bits are too regular.
    assertThatThrownBy(
            () -> CardinalitySketches.registerUpdate(HashStrategy.fnv1a(), 12, new byte[1], 0, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cannot use the fnv1a hash");
  }
}
