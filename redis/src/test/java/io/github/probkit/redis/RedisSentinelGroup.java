package io.github.probkit.redis;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.Jedis;

/**
 * A master, its replicas and three Sentinels watching it as {@link #NAME}, on loopback; started and
 * stopped by the tests.
 */
final class RedisSentinelGroup implements AutoCloseable {
  static final String NAME = "probkit-master";

  final List<RedisServer> servers = new ArrayList<>();
  final List<RedisServer> sentinels = new ArrayList<>();

  /** Node 0 the master, nodes 1 to {@code replicas} its replicas. */
  static RedisSentinelGroup start(int replicas) throws IOException {
    RedisSentinelGroup g = new RedisSentinelGroup();
    try {
      RedisServer master = RedisServer.start();
      g.servers.add(master);
      for (int i = 0; i < replicas; i++) {
        g.servers.add(
            RedisServer.start("--replicaof", "127.0.0.1", Integer.toString(master.port())));
      }
      for (int i = 0; i < 3; i++) {
        g.sentinels.add(RedisServer.sentinel(NAME, master.port()));
      }
      long deadline = System.nanoTime() + 30_000_000_000L;
      for (RedisServer r : g.servers.subList(1, g.servers.size())) {
        try (Jedis j = new Jedis("127.0.0.1", r.port())) {
          while (!j.info("replication").contains("master_link_status:up")) {
            check(deadline, "replica not in sync: " + j.info("replication"));
            RedisServer.sleep(50);
          }
        }
      }
      // A Sentinel fails over only to replicas it has seen, and asks the others for a quorum.
      for (RedisServer s : g.sentinels) {
        try (Jedis j = new Jedis("127.0.0.1", s.port())) {
          while (j.sentinelReplicas(NAME).size() < replicas
              || j.sentinelSentinels(NAME).size() < 2) {
            check(deadline, "Sentinel does not see the group");
            RedisServer.sleep(100);
          }
        }
      }
      return g;
    } catch (IOException | RuntimeException e) {
      g.close();
      throw e;
    }
  }

  private static void check(long deadline, String what) throws IOException {
    if (System.nanoTime() > deadline) {
      throw new IOException(what + " after 30 s");
    }
  }

  List<String> sentinelHostPorts() {
    List<String> out = new ArrayList<>();
    sentinels.forEach(s -> out.add(s.hostPort()));
    return out;
  }

  /** The master's port as the first Sentinel names it. */
  int masterPort() {
    try (Jedis j = new Jedis("127.0.0.1", sentinels.get(0).port())) {
      return Integer.parseInt(j.sentinelGetMasterAddrByName(NAME).get(1));
    }
  }

  /** Asks the first Sentinel to fail over now (no agreement needed). */
  void failover() {
    try (Jedis j = new Jedis("127.0.0.1", sentinels.get(0).port())) {
      j.sentinelFailover(NAME);
    }
  }

  @Override
  public void close() {
    sentinels.forEach(RedisServer::close);
    servers.forEach(RedisServer::close);
  }
}
