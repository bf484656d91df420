package io.github.probkit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.cardinality.HyperLogLog;
import io.github.probkit.filter.BlockedBloomFilter;
import io.github.probkit.filter.BloomFilter;
import io.github.probkit.filter.CountingBloomFilter;
import io.github.probkit.frequency.CountMinSketch;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The structures on a 3-master Redis Cluster: spread filters on every node, slot structures whole.
 */
class ClusterTest {
  private static RedisCluster cluster;
  private static RedisStore store;

  @BeforeAll
  static void start() throws IOException {
    cluster = RedisCluster.start();
    store = RedisStore.cluster(null, null, cluster.hostPorts());
  }

  @AfterAll
  static void stop() throws Exception {
    WithServer.closeStarted(store, cluster);
  }

  @Test
  void aClusterUriConnectsThroughItsNodes() {
    String uri =
        "redis+cluster://" + String.join(",", cluster.hostPorts()) + "/uri-spread?poolSize=4";
    List<Object> keys = StoreTest.keys("u:", 2_000);
    try (RedisStore s = RedisStore.connect(uri)) {
      assertThat(s.server()).isEqualTo("cluster " + String.join(",", cluster.hostPorts()));
      assertThat(s.settings().poolSize()).isEqualTo(4);
      RedisBloomFilter f =
          RedisBloomFilter.create(
              s,
              RedisStore.keyOf(uri),
              10_000,
              0.01,
              RedisOptions.defaults().layout(Layout.SPREAD).shards(6));
      f.addAll(keys);
    }
    RedisBloomFilter seen = RedisBloomFilter.open(store, "uri-spread");
    assertThat(seen.mightContainAll(keys)).containsOnly(true);
    assertThat(cluster.keysPerNode()).allMatch(n -> n > 0);
    store.delete("uri-spread");
  }

  /**
   * A spread filter's shards live on other nodes than its metadata; the guard sits in each shard,
   * so a handle opened before a delete and re-create fails there too, writing nothing.
   */
  @Test
  void aStaleHandleOfASpreadFilterWritesNothingIntoTheNewOne() throws IOException {
    RedisOptions spread = RedisOptions.defaults().layout(Layout.SPREAD).shards(12);
    RedisBloomFilter stale = RedisBloomFilter.create(store, "spread-stale", 50_000, 0.01, spread);
    assertThat(store.delete("spread-stale")).isTrue();
    RedisBloomFilter fresh = RedisBloomFilter.create(store, "spread-stale", 50_000, 0.01, spread);
    List<Object> keys = StoreTest.keys("n:", 1_000);
    fresh.addAll(keys);
    assertThatThrownBy(() -> stale.addAll(StoreTest.keys("s:", 1_000)))
        .isInstanceOf(RedisStoreException.class)
        .hasMessageContaining("belongs to another structure of the same name");
    assertThatThrownBy(() -> stale.mightContainAll(keys))
        .isInstanceOf(RedisStoreException.class)
        .hasMessageContaining("belongs to another structure of the same name");
    BloomFilter expected = BloomFilter.create(50_000, 0.01);
    keys.forEach(k -> expected.add((String) k));
    assertThat(fresh.bitCount()).isEqualTo(expected.bitCount());
    assertThat(fresh.mightContainAll(keys)).doesNotContain(false);
    store.delete("spread-stale");
  }

  @Test
  void spreadFiltersUseEveryNodeAndExportTheLibrarysBytes() throws IOException {
    List<Object> keys = StoreTest.keys("c:", 20_000);
    RedisBloomFilter bloom =
        RedisBloomFilter.create(
            store,
            "spread-bloom",
            50_000,
            0.01,
            RedisOptions.defaults().layout(Layout.SPREAD).shards(12));
    RedisBloomFilter blocked =
        RedisBloomFilter.createBlocked(
            store,
            "spread-blocked",
            50_000,
            0.01,
            RedisOptions.defaults().layout(Layout.SPREAD).shards(12));
    BloomFilter b = BloomFilter.create(50_000, 0.01);
    BlockedBloomFilter bb = BlockedBloomFilter.create(50_000, 0.01);
    bloom.addAll(keys);
    blocked.addAll(keys);
    keys.forEach(k -> b.add((String) k));
    keys.forEach(k -> bb.add((String) k));
    assertThat(bloom.mightContainAll(keys)).doesNotContain(false);
    assertThat(cluster.keysPerNode()).allMatch(n -> n >= 4); // 24 shards over 3 masters
    assertThat(FaultTest.export(bloom)).isEqualTo(FaultTest.bytes(b::writeTo));
    assertThat(FaultTest.export(blocked)).isEqualTo(FaultTest.bytes(bb::writeTo));
    List<Object> absent = StoreTest.keys("absent:", 20_000);
    boolean[] got = bloom.mightContainAll(absent);
    for (int i = 0; i < got.length; i++) {
      assertThat(got[i]).isEqualTo(b.mightContain((String) absent.get(i)));
    }
  }

  @Test
  void slotStructuresWorkWholeOnOneNode() throws IOException {
    List<Object> keys = StoreTest.keys("s:", 5_000);
    RedisOptions o = RedisOptions.defaults().shards(3);
    RedisCountingBloomFilter counting =
        RedisCountingBloomFilter.create(store, "slot-counting", 10_000, 0.01, o);
    RedisCountMinSketch cms = RedisCountMinSketch.create(store, "slot-cms", 1200, 5, false, o);
    RedisCardinalitySketch hll =
        RedisCardinalitySketch.createHyperLogLog(store, "slot-hll", 12, RedisOptions.defaults());
    RedisScalableBloomFilter scalable =
        RedisScalableBloomFilter.create(
            store, "slot-scalable", 1000, 0.01, 2, 0.5, RedisOptions.defaults());
    counting.addAll(keys);
    counting.removeAll(keys.subList(0, 2000));
    cms.addAll(keys);
    hll.addAll(keys);
    scalable.addAll(keys);
    CountingBloomFilter c = CountingBloomFilter.create(10_000, 0.01);
    CountMinSketch m = CountMinSketch.withDimensions(1200, 5);
    HyperLogLog h = HyperLogLog.create(12);
    keys.forEach(
        k -> {
          c.add((String) k);
          m.add((String) k);
          h.add((String) k);
        });
    keys.subList(0, 2000).forEach(k -> c.remove((String) k));
    assertThat(FaultTest.export(counting)).isEqualTo(FaultTest.bytes(c::writeTo));
    assertThat(FaultTest.export(cms)).isEqualTo(FaultTest.bytes(m::writeTo));
    assertThat(hll.estimate()).isEqualTo(h.estimate());
    assertThat(scalable.mightContainAll(keys)).doesNotContain(false);
    assertThat(scalable.layerCount()).isEqualTo(3);
  }

  @Test
  void openingAndDeletingByNameWorkOnTheCluster() {
    RedisBloomFilter.create(
        store, "named", 1000, 0.01, RedisOptions.defaults().layout(Layout.SPREAD).shards(2));
    assertThat(store.open("named")).isInstanceOf(RedisBloomFilter.class);
    assertThat(store.delete("named")).isTrue();
    assertThatThrownBy(() -> store.open("named"))
        .isInstanceOf(RedisStoreException.class)
        .hasMessageStartingWith("redis cluster 127.0.0.1:");
  }
}
