package io.github.probkit.redis;

import static io.github.probkit.redis.HyllAgainstRedisServerTest.item;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.cardinality.HyperLogLog;
import io.github.probkit.foreign.RedisHyperLogLogFormat;
import io.github.probkit.hash.HashStrategy;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** RedisNativeHyperLogLog shares one key with plain PFADD/PFCOUNT clients. */
class RedisNativeHyperLogLogTest extends WithServer {

  private static HyperLogLog probkitSketch() {
    return HyperLogLog.create(RedisHyperLogLogFormat.PRECISION, HashStrategy.redis());
  }

  @Test
  void addsWhatPlainPfaddAddsAndCountsAsPfcount() throws IOException {
    RedisNativeHyperLogLog hll = RedisNativeHyperLogLog.of(store, "native:visitors");
    HyperLogLog expected = probkitSketch();
    List<String> items = new ArrayList<>();
    for (int i = 0; i < 25_500; i++) {
      items.add(item(i));
      expected.add(item(i));
    }
    assertThat(hll.addAll(items)).isTrue();
    assertThat(hll.addAll(items)).isFalse();
    // Another client, with nothing but PFADD, on the same key.
    store.jedis().pfadd("native:visitors", "from-another-client");
    expected.add("from-another-client");
    // PFADD's answer for one item: whether a register changed, as probkit's add says.
    assertThat(hll.add("one-more")).isEqualTo(expected.add("one-more"));

    assertThat(hll.toSketch().registers()).isEqualTo(expected.registers());
    assertThat(hll.count()).isEqualTo(store.jedis().pfcount("native:visitors"));
    assertThat(hll.count()).isEqualTo(RedisHyperLogLogFormat.count(expected));
  }

  @Test
  void mergesProbkitSketchesAndOtherKeys() throws IOException {
    RedisNativeHyperLogLog hll = RedisNativeHyperLogLog.of(store, "native:merge");
    HyperLogLog union = probkitSketch();
    HyperLogLog fromJava = probkitSketch();
    for (int i = 0; i < 10_000; i++) {
      hll.add(item(i));
      union.add(item(i));
      fromJava.add(item(i + 5_000));
      union.add(item(i + 5_000));
    }
    hll.merge(fromJava);
    for (int i = 0; i < 3_000; i++) {
      store.jedis().pfadd("native:elsewhere", item(i + 100_000));
      union.add(item(i + 100_000));
    }
    hll.mergeKeys("native:elsewhere");

    assertThat(hll.toSketch().registers()).isEqualTo(union.registers());
    assertThat(hll.count()).isEqualTo(RedisHyperLogLogFormat.count(union));
    assertThat(store.jedis().exists("native:merge:probkit-merge")).isFalse();
  }

  @Test
  void refusesASketchOfAnotherHashBeforeWriting() {
    RedisNativeHyperLogLog hll = RedisNativeHyperLogLog.of(store, "native:refuse");
    HyperLogLog xxh3 = HyperLogLog.create(14);
    xxh3.add("a");
    assertThatThrownBy(() -> hll.merge(xxh3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("hashed with xxh3");
    assertThat(store.jedis().exists("native:refuse")).isFalse();
  }

  @Test
  void aMissingKeyIsAnEmptySketch() throws IOException {
    RedisNativeHyperLogLog hll = RedisNativeHyperLogLog.of(store, "native:missing");
    assertThat(hll.count()).isZero();
    assertThat(hll.toSketch().isEmpty()).isTrue();
  }
}
