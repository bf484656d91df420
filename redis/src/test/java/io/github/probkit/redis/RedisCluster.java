package io.github.probkit.redis;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.Jedis;

/**
 * Three redis-server masters (and, on request, a replica of each) joined into a Redis Cluster on
 * loopback, the 16,384 slots split evenly; started and stopped by the tests.
 */
final class RedisCluster implements AutoCloseable {
  final List<RedisServer> nodes = new ArrayList<>();

  static RedisCluster start() throws IOException {
    return start(false);
  }

  /** With {@code replicas}, nodes 3, 4 and 5 replicate masters 0, 1 and 2. */
  static RedisCluster start(boolean replicas) throws IOException {
    RedisCluster c = new RedisCluster();
    try {
      for (int i = 0; i < (replicas ? 6 : 3); i++) {
        c.nodes.add(
            RedisServer.start(
                "--cluster-enabled",
                "yes",
                "--cluster-config-file",
                "nodes.conf",
                "--cluster-node-timeout",
                replicas ? "1000" : "5000"));
      }
      for (int i = 0; i < 3; i++) {
        try (Jedis j = new Jedis("127.0.0.1", c.nodes.get(i).port())) {
          int from = 16384 * i / 3;
          int to = 16384 * (i + 1) / 3;
          int[] slots = new int[to - from];
          for (int s = from; s < to; s++) {
            slots[s - from] = s;
          }
          j.clusterAddSlots(slots);
          if (i > 0) {
            j.clusterMeet("127.0.0.1", c.nodes.get(0).port());
          }
        }
      }
      for (int i = 3; i < c.nodes.size(); i++) {
        String master;
        try (Jedis j = new Jedis("127.0.0.1", c.nodes.get(i - 3).port())) {
          master = j.clusterMyId();
        }
        try (Jedis j = new Jedis("127.0.0.1", c.nodes.get(i).port())) {
          j.clusterMeet("127.0.0.1", c.nodes.get(0).port());
          long until = System.nanoTime() + 30_000_000_000L;
          while (!j.clusterNodes().contains(master)) { // the replica must know its master first
            if (System.nanoTime() > until) {
              throw new IOException("replica " + i + " does not see its master");
            }
            RedisServer.sleep(100);
          }
          j.clusterReplicate(master);
        }
      }
      long deadline = System.nanoTime() + 30_000_000_000L;
      for (RedisServer n : c.nodes.subList(0, 3)) {
        try (Jedis j = new Jedis("127.0.0.1", n.port())) {
          while (!j.clusterInfo().contains("cluster_state:ok")
              || !j.clusterNodes().contains("connected")
              || j.clusterNodes().lines().filter(l -> l.contains("master")).count() < 3) {
            if (System.nanoTime() > deadline) {
              throw new IOException("cluster not ok after 30 s: " + j.clusterInfo());
            }
            RedisServer.sleep(100);
          }
        }
      }
      for (RedisServer n : c.nodes.subList(3, c.nodes.size())) {
        try (Jedis j = new Jedis("127.0.0.1", n.port())) {
          while (!j.info("replication").contains("master_link_status:up")) {
            if (System.nanoTime() > deadline) {
              throw new IOException("replica not in sync after 30 s: " + j.info("replication"));
            }
            RedisServer.sleep(100);
          }
        }
      }
      return c;
    } catch (IOException | RuntimeException e) {
      c.close();
      throw e;
    }
  }

  /** The masters' host:port. */
  List<String> hostPorts() {
    List<String> out = new ArrayList<>();
    nodes.subList(0, 3).forEach(n -> out.add(n.hostPort()));
    return out;
  }

  /** The number of keys on each master. */
  List<Long> keysPerNode() {
    List<Long> out = new ArrayList<>();
    for (RedisServer n : nodes.subList(0, 3)) {
      try (Jedis j = new Jedis("127.0.0.1", n.port())) {
        out.add(j.dbSize());
      }
    }
    return out;
  }

  @Override
  public void close() {
    nodes.forEach(RedisServer::close);
  }
}
