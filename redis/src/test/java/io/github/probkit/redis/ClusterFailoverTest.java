package io.github.probkit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.filter.BloomFilter;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * A cluster master killed under a spread Bloom filter: its replica takes over, idempotent batches
 * ride it out; and under structures whose every key it held: every add and read either goes through
 * the promoted replica or fails with one RedisStoreException that names the batch.
 */
class ClusterFailoverTest {
  @Test
  void bloomBatchesRideOutTheFailoverOfAMaster() throws IOException {
    try (RedisCluster cluster = RedisCluster.start(true);
        RedisStore store = RedisStore.cluster(null, null, cluster.hostPorts())) {
      RedisBloomFilter f =
          RedisBloomFilter.create(
              store,
              "failover",
              100_000,
              0.01,
              RedisOptions.defaults().layout(Layout.SPREAD).shards(12));
      List<Object> before = StoreTest.keys("before:", 20_000);
      List<Object> after = StoreTest.keys("after:", 20_000);
      f.addAll(before);
      waitReplicated(cluster);
      cluster
          .nodes
          .get(0)
          .kill(); // SIGKILL a master: its replica is promoted after the node timeout (1 s)
      f.addAll(after); // fails over to the promoted replica through the retries
      List<Object> all = new ArrayList<>(before);
      all.addAll(after);
      assertThat(f.mightContainAll(all)).doesNotContain(false);
      BloomFilter expected = BloomFilter.create(100_000, 0.01);
      all.forEach(k -> expected.add((String) k));
      assertThat(FaultTest.export(f)).isEqualTo(FaultTest.bytes(expected::writeTo));
    }
  }

  @Test
  void everyPathSurvivesAKilledMasterOrSaysWhatWasAcknowledged() throws IOException {
    try (RedisCluster cluster = RedisCluster.start(true);
        RedisStore store = RedisStore.cluster(null, null, cluster.hostPorts())) {
      RedisOptions o = RedisOptions.defaults();
      RedisCountMinSketch cms = RedisCountMinSketch.create(store, onNode0("cm"), 4096, 4, false, o);
      RedisCountingBloomFilter counting =
          RedisCountingBloomFilter.create(store, onNode0("cnt"), 50_000, 0.01, o);
      RedisBloomFilter bloom = RedisBloomFilter.create(store, onNode0("bl"), 50_000, 0.01, o);
      RedisCardinalitySketch hll =
          RedisCardinalitySketch.createHyperLogLog(store, onNode0("hl"), 12, o);
      List<Object> before = StoreTest.keys("before:", 2_000);
      cms.addAll(before);
      counting.addAll(before);
      bloom.addAll(before);
      hll.addAll(before);
      waitReplicated(cluster);
      cluster.nodes.get(0).kill();

      // Right after the kill, while node 0 still owns the slots: adds of 500 keys until one is
      // acknowledged; each failure names its 500 keys and how many were acknowledged.
      List<Object> cmsAcked = new ArrayList<>(before);
      List<Object> countingAcked = new ArrayList<>(before);
      List<Object> bloomAcked = new ArrayList<>(before);
      untilAcknowledged("count-min", cmsAcked, cms::addAll);
      untilAcknowledged("counting", countingAcked, counting::addAll);
      untilAcknowledged("bloom", bloomAcked, bloom::addAll);
      untilAcknowledged("hll", new ArrayList<>(), hll::addAll);

      assertThat(cms.totalCount()).isGreaterThanOrEqualTo(cmsAcked.size());
      long[] estimates = cms.estimateAll(cmsAcked);
      assertThat(estimates).doesNotContain(0L);
      assertThat(counting.mightContainAll(countingAcked)).doesNotContain(false);
      assertThat(bloom.mightContainAll(bloomAcked)).doesNotContain(false);
      assertThat(hll.estimate()).isGreaterThan(2_000 * 0.9);
      assertThat(FaultTest.export(cms)).isNotEmpty();
    }
  }

  private static int round;

  /**
   * Adds new batches of 500 keys until one is acknowledged (at most 20 s), adding to {@code acked}
   * what each acknowledged; a failure must be one RedisStoreException naming the batch's size.
   */
  private static void untilAcknowledged(
      String what, List<Object> acked, Consumer<List<Object>> add) {
    long deadline = System.nanoTime() + 20_000_000_000L;
    int failures = 0;
    while (true) {
      List<Object> keys = StoreTest.keys(what + ":" + round++ + ":", 500);
      try {
        add.accept(keys);
        acked.addAll(keys);
        return;
      } catch (RedisStoreException e) {
        assertThat(e.getMessage()).contains("of 500 keys failed");
        assertThat(e.acknowledged()).isBetween(0, 500);
        acked.addAll(keys.subList(0, e.acknowledged()));
        failures++;
        assertThat(System.nanoTime())
            .as("%s: %d batches failed, the last: %s", what, failures, e.getMessage())
            .isLessThan(deadline);
      }
    }
  }

  /** A name whose hash slot node 0 serves (slots 0 to 5460). */
  private static String onNode0(String prefix) {
    for (int i = 0; ; i++) {
      if (JedisClusterCRC16.getSlot(prefix + i) < 16384 / 3) {
        return prefix + i;
      }
    }
  }

  /** Waits until every replica has every write of its master (replication is asynchronous). */
  private static void waitReplicated(RedisCluster cluster) {
    for (int i = 0; i < 3; i++) {
      try (Jedis master = new Jedis("127.0.0.1", cluster.nodes.get(i).port());
          Jedis replica = new Jedis("127.0.0.1", cluster.nodes.get(i + 3).port())) {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (offset(replica, "slave_repl_offset") < offset(master, "master_repl_offset")) {
          assertThat(System.nanoTime()).as("replica %d in sync", i).isLessThan(deadline);
          RedisServer.sleep(50);
        }
      }
    }
  }

  private static long offset(Jedis j, String field) {
    for (String line : j.info("replication").split("\\r?\\n")) {
      if (line.startsWith(field + ":")) {
        return Long.parseLong(line.substring(field.length() + 1).trim());
      }
    }
    return -1;
  }
}
