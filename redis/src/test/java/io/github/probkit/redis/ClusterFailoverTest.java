package io.github.probkit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.filter.BloomFilter;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * A cluster master killed under a spread Bloom filter: its replica takes over, idempotent batches
 * ride it out.
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
