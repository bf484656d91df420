package io.github.probkit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.cardinality.HyperLogLog;
import io.github.probkit.foreign.RedisHyperLogLogFormat;
import io.github.probkit.hash.HashStrategy;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.UnifiedJedis;

/**
 * Redis's own HYLL strings against a real redis-server: probkit sets the registers PFADD sets (the
 * dense strings are equal byte for byte), reads every sparse string PFADD makes on the way to
 * dense, and writes strings that PFCOUNT and PFMERGE accept and count as probkit does.
 */
class HyllAgainstRedisServerTest extends WithServer {

  /** Items of 1 to 28 bytes, so that MurmurHash64A's blocks and every tail length are covered. */
  static String item(long i) {
    return Long.toString(i, 36) + "abcdefghijklmnopqrstuvwxyz".substring(0, (int) (i % 24));
  }

  private static UnifiedJedis jedis() {
    return store.jedis();
  }

  private static HyperLogLog probkitSketch() {
    return HyperLogLog.create(RedisHyperLogLogFormat.PRECISION, HashStrategy.redis());
  }

  @Test
  void denseStringOfAMillionItemsIsPfaddsByteForByte() throws IOException {
    String key = "hll:million";
    HyperLogLog sketch = probkitSketch();
    List<String> batch = new ArrayList<>();
    for (long i = 0; i < 1_000_000; i++) {
      String item = item(i);
      sketch.add(item);
      batch.add(item);
      if (batch.size() == 1000) {
        jedis().pfadd(key, batch.toArray(new String[0]));
        batch.clear();
      }
    }
    byte[] redis = jedis().get(key.getBytes(StandardCharsets.UTF_8));

    assertThat(RedisHyperLogLogFormat.write(sketch)).isEqualTo(redis);
    assertThat(RedisHyperLogLogFormat.read(redis).denseRegisters())
        .isEqualTo(sketch.denseRegisters());
    long pfcount = jedis().pfcount(key);
    assertThat(RedisHyperLogLogFormat.count(sketch)).isEqualTo(pfcount);
    assertThat(RedisHyperLogLogFormat.count(RedisHyperLogLogFormat.read(redis))).isEqualTo(pfcount);
  }

  @Test
  void pfcountOfProbkitWrittenKeysIsProbkitsCount() {
    SplittableRandom random = new SplittableRandom(0x5eed_4a11_0c0f_fee1L);
    for (int n : new int[] {0, 1, 2, 100, 3_000, 20_000, 100_000, 400_000}) {
      HyperLogLog sketch = probkitSketch();
      for (int i = 0; i < n; i++) {
        sketch.add(Long.toHexString(random.nextLong()));
      }
      byte[] key = ("hll:written:" + n).getBytes(StandardCharsets.UTF_8);
      jedis().set(key, RedisHyperLogLogFormat.write(sketch));
      assertThat(jedis().pfcount(key))
          .as("n = %d", n)
          .isEqualTo(RedisHyperLogLogFormat.count(sketch));
    }
  }

  @Test
  void everySparseStringOnTheWayToDenseReadsAsTheItemsRegisters() throws IOException {
    String key = "hll:sparse";
    byte[] keyBytes = key.getBytes(StandardCharsets.UTF_8);
    HyperLogLog sketch = probkitSketch();
    int sparseReads = 0;
    for (long i = 0; ; i++) {
      String item = item(i * 7919);
      sketch.add(item);
      jedis().pfadd(key, item);
      byte[] redis = jedis().get(keyBytes);
      HyperLogLog read = RedisHyperLogLogFormat.read(redis);
      assertThat(read.registers()).as("after %d items", i + 1).isEqualTo(sketch.registers());
      assertThat(RedisHyperLogLogFormat.count(read))
          .as("after %d items", i + 1)
          .isEqualTo(jedis().pfcount(key));
      if (redis[4] == 0) {
        break;
      }
      sparseReads++;
    }
    // Redis's default hll-sparse-max-bytes (3000) is passed after a few thousand items.
    assertThat(sparseReads).isGreaterThan(1000);
  }

  @Test
  void sparseStringsWithLargeRunsAndValuesRead() throws IOException {
    // A handful of items far apart: XZERO runs between them; a high value in one register.
    String key = "hll:few";
    HyperLogLog sketch = probkitSketch();
    for (int i = 0; i < 40; i++) {
      sketch.add(item(i));
      jedis().pfadd(key, item(i));
    }
    byte[] redis = jedis().get(key.getBytes(StandardCharsets.UTF_8));
    assertThat(redis[4]).isEqualTo((byte) 1);
    assertThat(RedisHyperLogLogFormat.read(redis).registers()).isEqualTo(sketch.registers());
  }

  @Test
  void pfmergeAcceptsProbkitStringsAndGivesTheUnionsRegisters() throws IOException {
    HyperLogLog probkit = probkitSketch();
    HyperLogLog union = probkitSketch();
    for (int i = 0; i < 50_000; i++) {
      probkit.add(item(i));
      union.add(item(i));
    }
    List<String> others = new ArrayList<>();
    for (int i = 30_000; i < 90_000; i++) {
      others.add(item(i));
      union.add(item(i));
    }
    jedis().set("hll:pk".getBytes(StandardCharsets.UTF_8), RedisHyperLogLogFormat.write(probkit));
    jedis().pfadd("hll:other", others.toArray(new String[0]));
    jedis().pfmerge("hll:union", "hll:pk", "hll:other");

    HyperLogLog merged =
        RedisHyperLogLogFormat.read(jedis().get("hll:union".getBytes(StandardCharsets.UTF_8)));
    assertThat(merged.registers()).isEqualTo(union.registers());
    assertThat(jedis().pfcount("hll:union")).isEqualTo(RedisHyperLogLogFormat.count(union));

    // And the other way: Redis's key merged into a probkit sketch.
    HyperLogLog redisSide =
        RedisHyperLogLogFormat.read(jedis().get("hll:other".getBytes(StandardCharsets.UTF_8)));
    assertThat(probkit.copy().merge(redisSide).registers()).isEqualTo(union.registers());
  }
}
