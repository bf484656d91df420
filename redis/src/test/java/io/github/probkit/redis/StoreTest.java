package io.github.probkit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.filter.BloomFilter;
import io.github.probkit.hash.HashStrategy;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.RedisClient;

/**
 * Creation, opening, shapes, names, memory and the errors Redis can give, on a real redis-server.
 */
class StoreTest extends WithServer {
  private static final RedisSettings NO_RETRIES = RedisSettings.defaults().retries(0);

  static List<Object> keys(String prefix, int n) {
    List<Object> keys = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      keys.add(prefix + i);
    }
    return keys;
  }

  @Test
  void keyNamesFollowTheLayout() {
    RedisBloomFilter slot =
        RedisBloomFilter.create(store, "names", 10_000, 0.01, RedisOptions.defaults().shards(3));
    assertThat(slot.redisKeys()).containsExactly("{names}", "{names}:0", "{names}:1", "{names}:2");
    RedisBloomFilter spread =
        RedisBloomFilter.create(
            store, "names2", 10_000, 0.01, RedisOptions.defaults().shards(2).layout(Layout.SPREAD));
    assertThat(spread.redisKeys()).containsExactly("{names2}", "names2:{0}", "names2:{1}");
    assertThat(store.jedis().hget("{names}", "state")).isEqualTo("ready");
    assertThat(store.jedis().hget("{names}", "type")).isEqualTo("bloom");
  }

  @Test
  void memoryPerKeyIsTheFiltersBytesSizedOnce() {
    // 10^6 keys at 1 %: 1,198,136 bytes, as the library's filter.
    RedisBloomFilter r =
        RedisBloomFilter.create(store, "memory", 1_000_000, 0.01, RedisOptions.defaults());
    long bytes = BloomFilter.create(1_000_000, 0.01).byteSize();
    assertThat(r.byteSize()).isEqualTo(bytes).isEqualTo(1_198_136);
    r.addAll(keys("m:", 20_000));
    long usage = store.jedis().memoryUsage("{memory}:0");
    // jemalloc rounds a large allocation up to its size class (four per power of two): 1.25 MiB
    // here.
    // Growing the string by SETBIT instead doubles it (BENCHMARKING.md: 2.6 MB).
    assertThat(usage).isBetween(bytes, 1_310_720L + 200);
    // The payload, then the structure's id (16 bytes; docs/REDIS.md).
    assertThat(store.jedis().strlen("{memory}:0")).isEqualTo(bytes + 16);
  }

  @Test
  void createIsRefusedForAnExistingNameUnlessSameShapeIsOpened() {
    RedisBloomFilter.create(store, "exists", 1000, 0.01, RedisOptions.defaults());
    assertThatThrownBy(
            () -> RedisBloomFilter.create(store, "exists", 1000, 0.01, RedisOptions.defaults()))
        .isInstanceOf(RedisStoreException.class)
        .hasMessage(
            "redis "
                + server.hostPort()
                + ": structure 'exists' exists: bloom filter of 9586 bits, "
                + "7 hashes, xxh3(seed=0x0), 1 shard (slot)");
    assertThatThrownBy(
            () ->
                RedisBloomFilter.create(
                    store, "exists", 2000, 0.01, RedisOptions.defaults().openIfExists(true)))
        .isInstanceOf(RedisStoreException.class)
        .hasMessageEndingWith(
            "exists: bloom filter of 9586 bits, 7 hashes, xxh3(seed=0x0), 1 shard (slot); "
                + "asked for bloom filter of 19171 bits, 7 hashes, xxh3(seed=0x0), 1 shard (slot)");
    RedisBloomFilter same =
        RedisBloomFilter.create(
            store, "exists", 1000, 0.01, RedisOptions.defaults().openIfExists(true));
    assertThat(same.bitSize()).isEqualTo(9586);
    assertThatThrownBy(() -> RedisCountMinSketch.open(store, "exists"))
        .isInstanceOf(RedisStoreException.class)
        .hasMessageEndingWith(
            "structure 'exists' is a bloom filter of 9586 bits, 7 hashes, xxh3(seed=0x0), "
                + "1 shard (slot), not a count-min");
    assertThatThrownBy(() -> RedisBloomFilter.open(store, "missing"))
        .isInstanceOf(RedisStoreException.class)
        .hasMessageEndingWith("no probkit structure named 'missing'");
  }

  @Test
  void badNamesAndShapesAreRefusedBeforeAnythingIsWritten() {
    long keys = store.jedis().dbSize();
    for (String bad : new String[] {"", "a b", "x{y}", "tab\tname", "new\nline"}) {
      assertThatThrownBy(
              () -> RedisBloomFilter.create(store, bad, 1000, 0.01, RedisOptions.defaults()))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("name must be");
    }
    assertThatThrownBy(
            () -> RedisBloomFilter.create(store, "shape", 1000, 1.5, RedisOptions.defaults()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("1.5");
    assertThatThrownBy(
            () ->
                RedisCountingBloomFilter.create(
                    store, "shape", 1000, 0.01, RedisOptions.defaults().layout(Layout.SPREAD)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("use Layout.SLOT");
    assertThatThrownBy(
            () ->
                RedisBloomFilter.create(
                    store, "shape", 1000, 0.01, RedisOptions.defaults().shards(1000)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "1200 bytes cannot be split into 1000 shards of whole 64-byte blocks, all but the last of one "
                + "size; 19 shards of 64 bytes would hold them");
    assertThatThrownBy(
            () ->
                RedisBloomFilter.create(
                    store, "shape", 2_000_000_000L, 0.01, RedisOptions.defaults().shards(2)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("use at least 5 shards");
    assertThatThrownBy(
            () ->
                RedisCountMinSketch.create(
                    store,
                    "shape",
                    10,
                    3,
                    false,
                    RedisOptions.defaults().hash(HashStrategy.fnv1a())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("depth 3");
    assertThatThrownBy(
            () ->
                RedisCardinalitySketch.createHyperLogLog(
                    store, "shape", 19, RedisOptions.defaults()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("precision must be in [4, 18], was 19");
    assertThat(store.jedis().dbSize()).isEqualTo(keys);
  }

  @Test
  void aKeyOfAnotherRedisTypeIsOneClearError() {
    store.jedis().set("{plain}", "hello");
    assertThatThrownBy(() -> RedisBloomFilter.open(store, "plain"))
        .isInstanceOf(RedisStoreException.class)
        .hasMessage(
            "redis "
                + server.hostPort()
                + ": key '{plain}' holds a string, not probkit metadata (a hash)");
    assertThatThrownBy(
            () -> RedisBloomFilter.create(store, "plain", 100, 0.01, RedisOptions.defaults()))
        .isInstanceOf(RedisStoreException.class)
        .hasMessageEndingWith("key '{plain}' holds a string, not probkit metadata (a hash)");
    store.jedis().hset("{hash}", "a", "b");
    assertThatThrownBy(() -> RedisBloomFilter.open(store, "hash"))
        .isInstanceOf(RedisStoreException.class)
        .hasMessageContaining("is a hash that is not a probkit structure");

    RedisBloomFilter f =
        RedisBloomFilter.create(store, "clobbered", 100, 0.01, RedisOptions.defaults());
    store.jedis().del("{clobbered}:0");
    store.jedis().lpush("{clobbered}:0", "x");
    assertThatThrownBy(() -> f.addAll(keys("k", 10)))
        .isInstanceOf(RedisStoreException.class)
        .hasMessageContaining(
            "add of 10 keys failed: a key of this structure holds another Redis type: WRONGTYPE")
        .hasMessageEndingWith("; 0 keys of the batch were acknowledged");
  }

  @Test
  void aStructureDeletedOrRecreatedWhileOpenFailsItsNextBatch() {
    RedisBloomFilter f =
        RedisBloomFilter.create(store, "deleted", 1000, 0.01, RedisOptions.defaults());
    f.addAll(keys("k", 10));
    assertThat(store.delete("deleted")).isTrue();
    assertThat(store.jedis().exists("{deleted}:0")).isFalse();
    RedisBloomFilter.create(store, "deleted", 1000, 0.01, RedisOptions.defaults());
    assertThatThrownBy(() -> f.mightContainAll(keys("k", 10)))
        .isInstanceOf(RedisStoreException.class)
        .hasMessageContaining(
            "key '{deleted}:0' belongs to another structure of the same name: it was deleted and "
                + "re-created since this client opened it");
    assertThat(store.delete("never")).isFalse();
  }

  @Test
  void aStructureStillBeingCreatedIsNotOpenedHalfMade() {
    // A creator that died after claiming the name: the state stays "creating".
    store
        .jedis()
        .hset(
            "{dead}",
            RedisBloomFilter.meta(
                    io.github.probkit.io.StructureType.BLOOM_FILTER,
                    1000,
                    3,
                    0,
                    0,
                    RedisOptions.defaults())
                .withId("0000000000000001", false)
                .fields());
    long wait = store.creatingWaitMillis;
    store.creatingWaitMillis = 300;
    try {
      assertThatThrownBy(() -> RedisBloomFilter.open(store, "dead"))
          .isInstanceOf(RedisStoreException.class)
          .hasMessageContaining("structure 'dead' has been in state 'creating' for 0.3 s")
          .hasMessageContaining("then delete it");
    } finally {
      store.creatingWaitMillis = wait;
    }
    assertThat(store.delete("dead")).isTrue();
  }

  @Test
  void outOfMemoryIsOneClearErrorWithTheAcknowledgedCount() throws IOException {
    try (RedisServer small =
            RedisServer.start("--maxmemory", "3mb", "--maxmemory-policy", "noeviction");
        RedisStore s = RedisStore.connect(small.uri())) {
      // The strings are sized at creation, under the limit; adds then change no memory, but Redis
      // refuses every write command once used memory is above maxmemory.
      RedisBloomFilter f =
          RedisBloomFilter.create(s, "oom", 1_000_000, 0.01, RedisOptions.defaults());
      assertThat(f.addAll(keys("a", 100))).contains(true);
      assertThatThrownBy(
              () -> RedisBloomFilter.create(s, "oom2", 3_000_000, 0.01, RedisOptions.defaults()))
          .isInstanceOf(RedisStoreException.class)
          .hasMessageContaining("out of memory");
      assertThat(s.exists("oom2")).isFalse();
      s.jedis().configSet("maxmemory", "1mb");
      assertThatThrownBy(() -> f.addAll(keys("b", 2_500)))
          .isInstanceOf(RedisStoreException.class)
          .hasMessageStartingWith(
              "redis " + small.hostPort() + ": add of 1000 keys failed: out of memory: OOM")
          .hasMessageEndingWith("; 0 keys of the batch were acknowledged");
      // A failure after earlier batches of the same call says so.
      s.jedis().configSet("maxmemory", "0");
      RedisCountMinSketch cms =
          RedisCountMinSketch.create(s, "oom-cms", 100, 3, false, RedisOptions.defaults());
      s.batchSize(10);
      List<Object> many = keys("c", 1_000_000);
      Thread limiter =
          new Thread(
              () -> {
                while (cms.totalCount() == 0) { // once some batches are in
                  RedisServer.sleep(5);
                }
                s.jedis().configSet("maxmemory", "1mb");
              });
      limiter.start();
      try {
        assertThatThrownBy(() -> cms.addAll(many))
            .isInstanceOf(RedisStoreException.class)
            .hasMessageContaining("add of 10 keys failed: out of memory")
            .hasMessageMatching(
                ".*; 0 keys of the batch were acknowledged \\(and the [1-9][0-9]* keys of the call's "
                    + "earlier batches\\)");
      } finally {
        s.batchSize(1000);
      }
      assertThat(f.mightContainAll(keys("a", 100))).doesNotContain(false);
    }
  }

  @Test
  void anUnreachableServerIsOneClearError() throws IOException {
    int port = RedisServer.freePort();
    // No retries: the message is the same after them, and ConnectTest waits through them.
    try (RedisStore s = RedisStore.connect("redis://127.0.0.1:" + port, null, NO_RETRIES)) {
      assertThatThrownBy(() -> RedisBloomFilter.open(s, "x"))
          .isInstanceOf(RedisStoreException.class)
          .hasMessageStartingWith("redis 127.0.0.1:" + port + ": unreachable or timed out");
    }
  }

  @Test
  void aServerDyingMidBatchIsOneClearErrorWithTheAcknowledgedCount() throws IOException {
    RedisServer dying = RedisServer.start();
    try (RedisStore s = RedisStore.connect(dying.uri())) {
      RedisCountMinSketch c =
          RedisCountMinSketch.create(s, "dying", 1000, 4, false, RedisOptions.defaults());
      c.addAll(keys("a", 10));
      dying.kill();
      assertThatThrownBy(() -> c.addAll(keys("b", 10)))
          .isInstanceOf(RedisStoreException.class)
          .hasMessageStartingWith(
              "redis " + dying.hostPort() + ": add of 10 keys failed: unreachable or timed out")
          .hasMessageEndingWith("; 0 keys of the batch were acknowledged");
    } finally {
      dying.close();
    }
  }

  @Test
  void aTimeoutIsOneClearErrorAndIdempotentBatchesAreRetriedFirst() throws Exception {
    try (RedisServer stopped = RedisServer.start();
        RedisStore s =
            RedisStore.wrap(
                RedisClient.builder()
                    .hostAndPort("127.0.0.1", stopped.port())
                    .clientConfig(
                        DefaultJedisClientConfig.builder().socketTimeoutMillis(300).build())
                    .build(),
                stopped.hostPort())) {
      RedisBloomFilter bloom =
          RedisBloomFilter.create(s, "paused", 1000, 0.01, RedisOptions.defaults());
      RedisCountMinSketch cms =
          RedisCountMinSketch.create(s, "paused-cms", 100, 3, false, RedisOptions.defaults());
      signal("STOP", stopped);
      try {
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> cms.addAll(keys("c", 10)))
            .isInstanceOf(RedisStoreException.class)
            .hasMessageStartingWith(
                "redis "
                    + stopped.hostPort()
                    + ": add of 10 keys failed: timed out: no reply within the socket timeout")
            .hasMessageEndingWith("; 0 keys of the batch were acknowledged");
        long cmsMillis = (System.nanoTime() - t0) / 1_000_000;
        t0 = System.nanoTime();
        assertThatThrownBy(() -> bloom.addAll(keys("b", 10)))
            .isInstanceOf(RedisStoreException.class)
            .hasMessageContaining("timed out: no reply within the socket timeout");
        long bloomMillis = (System.nanoTime() - t0) / 1_000_000;
        // Four attempts with pauses of 0.4, 1.6 and 6.4 s between them, against one for count-min.
        assertThat(bloomMillis).isGreaterThan(cmsMillis + 8_300);
      } finally {
        signal("CONT", stopped);
      }
      // Once the server answers again, the retried Bloom batch goes through.
      assertThat(bloom.addAll(keys("b", 10))).hasSize(10);
      assertThat(bloom.mightContainAll(keys("b", 10))).doesNotContain(false);
    }
  }

  private static void signal(String sig, RedisServer s) throws Exception {
    Process p = new ProcessBuilder("kill", "-" + sig, Long.toString(s.pid())).inheritIO().start();
    assertThat(p.waitFor()).isZero();
  }

  @Test
  void aReadOnlyReplicaIsOneClearError() throws IOException {
    try (RedisServer replica =
            RedisServer.start("--replicaof", "127.0.0.1", Integer.toString(server.port()));
        // No retries: the replica stays read-only; ExactlyOnceTest has READONLY retried.
        RedisStore r = RedisStore.connect(replica.uri(), null, NO_RETRIES)) {
      RedisBloomFilter.create(store, "replicated", 1000, 0.01, RedisOptions.defaults())
          .addAll(keys("k", 100));
      long deadline =
          System.nanoTime() + 60_000_000_000L; // the first sync is slow on a loaded machine
      while (!r.jedis().exists("{replicated}:0")
          || store.jedis().waitReplicas("{replicated}", 1, 1000) < 1) {
        assertThat(System.nanoTime()).as("replica in sync within 60 s").isLessThan(deadline);
        RedisServer.sleep(100);
      }
      RedisBloomFilter f = RedisBloomFilter.open(r, "replicated");
      assertThat(f.mightContainAll(keys("k", 100))).doesNotContain(false);
      assertThatThrownBy(() -> f.addAll(keys("n", 5)))
          .isInstanceOf(RedisStoreException.class)
          .hasMessageStartingWith(
              "redis "
                  + replica.hostPort()
                  + ": add of 5 keys failed: a read-only replica answered")
          .hasMessageEndingWith("; 0 keys of the batch were acknowledged");
    }
  }

  @Test
  void importRefusesACorruptFileAndWritesNothing() throws IOException {
    BloomFilter f = BloomFilter.create(1000, 0.01);
    f.add("x");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    f.writeTo(out);
    byte[] b = out.toByteArray();
    b[100] ^= 1;
    long keys = store.jedis().dbSize();
    assertThatThrownBy(
            () -> store.importFrom("corrupt", new ByteArrayInputStream(b), RedisOptions.defaults()))
        .isInstanceOf(io.github.probkit.io.SketchFormatException.class)
        .hasMessageContaining("checksum mismatch");
    assertThatThrownBy(
            () ->
                store.importFrom(
                    "corrupt",
                    new ByteArrayInputStream("hello".getBytes()),
                    RedisOptions.defaults()))
        .isInstanceOf(io.github.probkit.io.SketchFormatException.class);
    assertThat(store.jedis().dbSize()).isEqualTo(keys);
  }
}
