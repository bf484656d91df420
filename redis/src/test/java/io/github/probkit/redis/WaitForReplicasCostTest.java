package io.github.probkit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What {@link RedisStore#waitForReplicas} costs: 10^5 keys added to a Bloom filter and to a
 * count-min sketch in the default batches of 1,000, on a master with one replica on loopback,
 * without and with {@code WAIT 1}, rounds alternated, each on new structures; prints the median and
 * the best of 5 (docs/REDIS.md). And with WAIT, the replica holds every key the moment the add
 * returns. Tagged slow (timing is printed, never asserted): {@code mvn -pl redis -am test
 * -Dtest=WaitForReplicasCostTest -Dprobkit.excludedGroups=
 * -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@Tag("slow")
class WaitForReplicasCostTest {
  private static final int KEYS = 100_000;
  private static final int ROUNDS = 5;

  @Test
  void measure() throws Exception {
    try (RedisServer master = RedisServer.start();
        RedisServer replica =
            RedisServer.start("--replicaof", "127.0.0.1", Integer.toString(master.port()));
        RedisStore store = RedisStore.connect(master.uri());
        RedisStore onReplica = RedisStore.connect(replica.uri())) {
      List<Object> keys = StoreTest.keys("user:", KEYS);
      long[][] bloom = new long[2][ROUNDS];
      long[][] cms = new long[2][ROUNDS];
      for (int round = 0; round < ROUNDS; round++) {
        for (int w = 0; w < 2; w++) {
          store.waitForReplicas(w, Duration.ofSeconds(1));
          String name = "r" + round + "w" + w;
          RedisBloomFilter f =
              RedisBloomFilter.create(store, name + "b", KEYS, 0.01, RedisOptions.defaults());
          RedisCountMinSketch c =
              RedisCountMinSketch.create(
                  store, name + "c", 8192, 5, false, RedisOptions.defaults());
          long t0 = System.nanoTime();
          f.addAll(keys);
          long t1 = System.nanoTime();
          c.addAll(keys);
          long t2 = System.nanoTime();
          bloom[w][round] = (t1 - t0) / 1_000_000;
          cms[w][round] = (t2 - t1) / 1_000_000;
          if (w == 1) {
            assertThat(RedisBloomFilter.open(onReplica, name + "b").mightContainAll(keys))
                .doesNotContain(false);
            assertThat(RedisCountMinSketch.open(onReplica, name + "c").totalCount())
                .isEqualTo(KEYS);
          }
        }
      }
      for (int w = 0; w < 2; w++) {
        System.out.printf(
            Locale.ROOT,
            "WAIT %d: Bloom add of %d keys median %d ms, best %d ms; count-min median %d ms, best %d ms%n",
            w,
            KEYS,
            median(bloom[w]),
            Arrays.stream(bloom[w]).min().getAsLong(),
            median(cms[w]),
            Arrays.stream(cms[w]).min().getAsLong());
      }
    }
  }

  private static long median(long[] v) {
    long[] s = v.clone();
    Arrays.sort(s);
    return s[s.length / 2];
  }
}
