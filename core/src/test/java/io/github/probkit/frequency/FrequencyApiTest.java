package io.github.probkit.frequency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.frequency.CountMinSketch.UpdateRule;
import io.github.probkit.hash.HashStrategy;
import io.github.probkit.hash.KeyEncoder;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Count-min through the FrequencySketch interface: every key form, the update rule, collectors. */
class FrequencyApiTest {
  @Test
  void everyKeyFormCountsTheSameBytes() {
    FrequencySketch s = CountMinSketch.withDimensions(1 << 12, 4);
    KeyEncoder<Long> asLong = (v, sink) -> sink.putLong(v);
    s.add(7L);
    s.add(7L, asLong, 2);
    s.add(new byte[] {7, 0, 0, 0, 0, 0, 0, 0}, 3);
    assertThat(s.estimate(7L)).isEqualTo(6);
    assertThat(s.estimate(7L, asLong)).isEqualTo(6);
    s.add("x", 4);
    assertThat(s.estimate("x")).isEqualTo(4);
    assertThat(s.totalCount()).isEqualTo(10);
    FrequencySketch more = CountMinSketch.withDimensions(1 << 12, 4);
    more.addAll(List.of("a", "b", "a"));
    more.addAll(new long[] {7, 7});
    more.addAll(java.util.stream.Stream.of("b"));
    assertThat(more.estimate("a")).isEqualTo(2);
    assertThat(more.estimate("b")).isEqualTo(2);
    assertThat(more.estimate(7L)).isEqualTo(2);
    FrequencySketch copy = s.copy();
    copy.add("x");
    assertThat(s.estimate("x")).isEqualTo(4);
    assertThat(s.merge(copy).estimate("x")).isEqualTo(9);
  }

  @Test
  void theUpdateRuleIsChosenWhenTheSketchIsMade() {
    CountMinSketch c =
        CountMinSketch.create(0.01, 0.01, HashStrategy.xxh3(), UpdateRule.CONSERVATIVE);
    assertThat(c.isConservative()).isTrue();
    assertThat(c.updateRule()).hasToString("conservative");
    CountMinSketch s =
        CountMinSketch.withDimensions(272, 5, HashStrategy.xxh3(), UpdateRule.STANDARD);
    assertThat(s.isCompatible(c)).isFalse();
    assertThatThrownBy(() -> s.merge(c))
        .hasMessage(
            "cannot merge count-min sketches with different update rules: standard and conservative");
  }

  @Test
  void collectsSequentiallyAndInParallel() {
    List<String> terms =
        IntStream.range(0, 30_000).mapToObj(i -> "t" + (i % 977)).collect(Collectors.toList());
    CountMinSketch serial = CountMinSketch.create(0.001, 0.01);
    terms.forEach(serial::add);
    assertThat(terms.stream().collect(CountMinSketch.toCountMinSketch(0.001, 0.01)))
        .isEqualTo(serial);
    assertThat(terms.parallelStream().collect(CountMinSketch.toCountMinSketch(0.001, 0.01)))
        .isEqualTo(serial);
  }
}
