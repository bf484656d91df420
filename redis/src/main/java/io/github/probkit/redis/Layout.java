package io.github.probkit.redis;

import java.util.Locale;

/**
 * Where a structure's shards live. Redis Cluster places a key by the part of its name in braces
 * (its hash tag), so the names decide whether the shards share one node.
 */
public enum Layout {
  /**
   * Every key of the structure in one hash slot, so on one node: metadata {@code {name}}, shards
   * {@code {name}:0}, {@code {name}:1}, ... A script may touch several shards at once, which the
   * atomic operations (counting remove, count-min, loglog and scalable updates) need; every type
   * supports it, and it is the default.
   */
  SLOT,
  /**
   * Shards spread over a cluster by their number: {@code name:{0}}, {@code name:{1}}, ... (metadata
   * {@code {name}}). For the Bloom and blocked Bloom filters only, whose adds need no script: a
   * blocked filter's key lives in one block and so in one shard; a standard filter's probes touch
   * up to k shards, each command atomic on its own. Shard {@code i} of every spread structure
   * shares one slot, so spread a structure over many more shards than the cluster has masters.
   */
  SPREAD;

  String metaKey(String name) {
    return "{" + name + "}";
  }

  String shardKey(String name, int shard) {
    return this == SLOT ? "{" + name + "}:" + shard : name + ":{" + shard + "}";
  }

  /** {@code slot} or {@code spread}, as stored in the metadata. */
  String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  static Layout byLabel(String label) {
    for (Layout l : values()) {
      if (l.label().equals(label)) {
        return l;
      }
    }
    return null;
  }
}
