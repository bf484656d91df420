package io.github.probkit.redis;

import static io.github.probkit.redis.StoreTest.keys;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.filter.BloomFilter;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Deletes and re-creates racing imports and batches, evicted or deleted shards, and metadata
 * damaged by hand: no write lands in another structure, no key reads absent, no error is a stack
 * trace.
 */
class RaceTest extends WithServer {

  /** A library Bloom filter of {@code keys} keys at 1 %, its probkit file. */
  private static byte[] bloomFile(List<Object> keys, long expected) throws IOException {
    BloomFilter f = BloomFilter.create(expected, 0.01);
    keys.forEach(k -> f.add((String) k));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    f.writeTo(out);
    return out.toByteArray();
  }

  /** Runs {@code hook} before the import's first chunk only. */
  private static void onFirstChunk(Runnable hook) {
    boolean[] done = {false};
    Import.beforeChunk =
        () -> {
          if (!done[0]) {
            done[0] = true;
            hook.run();
          }
        };
  }

  @Test
  void anImportWhoseNameIsDeletedAndRecreatedMidwayWritesNothingIntoTheNewStructure()
      throws IOException {
    // 5 * 10^6 keys at 1 %: 6 MB, two chunks of the import.
    byte[] file = bloomFile(keys("old:", 1000), 5_000_000);
    List<Object> acknowledged = keys("new:", 1000);
    onFirstChunk(
        () -> {
          assertThat(store.delete("raced")).isTrue();
          RedisBloomFilter.create(store, "raced", 5_000_000, 0.01, RedisOptions.defaults())
              .addAll(acknowledged);
        });
    assertImportFailsAsRaced(
        "raced",
        file,
        "structure 'raced' was deleted or re-created by another client while this one was "
            + "creating it");
    RedisBloomFilter now = RedisBloomFilter.open(store, "raced");
    assertThat(now.mightContainAll(acknowledged)).doesNotContain(false);
    assertThat(now.mightContainAll(keys("old:", 1000))).containsOnly(false);
    assertThat(store.delete("raced")).isTrue();
  }

  @Test
  void anImportWhoseNameIsDeletedMidwayLeavesNothingBehind() throws IOException {
    byte[] file = bloomFile(keys("k", 100), 5_000_000);
    onFirstChunk(() -> assertThat(store.delete("vanished")).isTrue());
    assertImportFailsAsRaced("vanished", file, "was deleted or re-created by another client");
    // No bare metadata hash that open, create, delete and import would refuse.
    assertThat(store.jedis().keys("*vanished*")).isEmpty();
    store.importFrom("vanished", new ByteArrayInputStream(file), RedisOptions.defaults());
    assertThat(RedisBloomFilter.open(store, "vanished").mightContainAll(keys("k", 100)))
        .doesNotContain(false);
    assertThat(store.delete("vanished")).isTrue();
  }

  /**
   * Imports {@code file} as {@code name}: refused with {@code message}; the hook is then undone.
   */
  private static void assertImportFailsAsRaced(String name, byte[] file, String message) {
    try {
      assertThatThrownBy(
              () -> store.importFrom(name, new ByteArrayInputStream(file), RedisOptions.defaults()))
          .isInstanceOf(RedisStoreException.class)
          .hasMessageContaining(message);
    } finally {
      Import.beforeChunk = () -> {};
    }
  }

  /** One structure of each kind of batch: native BITFIELD, scripts, both layouts. */
  private static RedisStructure create(String kind, String name) {
    RedisOptions o = RedisOptions.defaults();
    switch (kind) {
      case "bloom":
        return RedisBloomFilter.create(store, name, 10_000, 0.01, o);
      case "bloom-4":
        return RedisBloomFilter.create(store, name, 10_000, 0.01, o.shards(4));
      case "spread-3":
        return RedisBloomFilter.create(
            store, name, 10_000, 0.01, o.shards(3).layout(Layout.SPREAD));
      case "counting":
        return RedisCountingBloomFilter.create(store, name, 10_000, 0.01, o);
      case "counting-2":
        return RedisCountingBloomFilter.create(store, name, 10_000, 0.01, o.shards(2));
      case "count-min":
        return RedisCountMinSketch.create(store, name, 0.001, 0.01, false, o);
      case "conservative":
        return RedisCountMinSketch.create(store, name, 0.001, 0.01, true, o);
      case "hll":
        return RedisCardinalitySketch.createHyperLogLog(store, name, 12, o);
      case "scalable":
        return RedisScalableBloomFilter.create(store, name, 1000, 0.01, 2, 0.8, o);
      default:
        throw new IllegalArgumentException(kind);
    }
  }

  /** Adds 100 keys through {@code s} (the batch each kind writes). */
  private static void add(RedisStructure s) {
    List<Object> k = keys("stale:", 100);
    if (s instanceof RedisBloomFilter) {
      ((RedisBloomFilter) s).addAll(k);
    } else if (s instanceof RedisCountingBloomFilter) {
      ((RedisCountingBloomFilter) s).addAll(k);
    } else if (s instanceof RedisCountMinSketch) {
      Map<Object, Long> counts = new LinkedHashMap<>();
      k.forEach(x -> counts.put(x, 3L));
      ((RedisCountMinSketch) s).addAll(counts);
    } else if (s instanceof RedisCardinalitySketch) {
      ((RedisCardinalitySketch) s).addAll(k);
    } else {
      ((RedisScalableBloomFilter) s).addAll(k);
    }
  }

  private static byte[] export(RedisStructure s) throws IOException {
    return EquivalenceTest.bytesOf(s::exportTo);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "bloom",
        "bloom-4",
        "spread-3",
        "counting",
        "counting-2",
        "count-min",
        "conservative",
        "hll",
        "scalable"
      })
  void aHandleOpenedBeforeADeleteAndRecreateWritesNothingIntoTheNewStructure(String kind)
      throws IOException {
    String name = "stale-" + kind;
    RedisStructure stale = create(kind, name);
    assertThat(store.delete(name)).isTrue();
    RedisStructure fresh = create(kind, name);
    byte[] empty = export(fresh);
    assertThatThrownBy(() -> add(stale))
        .isInstanceOf(RedisStoreException.class)
        .hasMessageContaining("belongs to another structure of the same name")
        .hasMessageContaining("0 keys of the batch were acknowledged");
    assertThat(export(fresh)).as("the new structure, untouched").isEqualTo(empty);
    assertThat(store.delete(name)).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"bloom-4", "spread-3", "counting-2", "conservative", "scalable"})
  void aDeletedShardIsAnErrorNamingItNeverAbsentAndNeverRecreated(String kind) {
    String name = "gone-" + kind;
    RedisStructure s = create(kind, name);
    add(s);
    String shard = s.layout().shardKey(name, 0);
    store.jedis().del(shard);
    Function<Runnable, Object> fails =
        r ->
            assertThatThrownBy(r::run)
                .isInstanceOf(RedisStoreException.class)
                .hasMessageContaining("key '" + shard + "' does not exist");
    fails.apply(() -> add(s));
    assertThat(store.jedis().exists(shard)).as("re-created by the add").isFalse();
    if (s instanceof RedisBloomFilter) {
      fails.apply(() -> ((RedisBloomFilter) s).mightContainAll(keys("stale:", 100)));
    } else if (s instanceof RedisCountingBloomFilter) {
      fails.apply(() -> ((RedisCountingBloomFilter) s).mightContainAll(keys("stale:", 100)));
    } else if (s instanceof RedisCountMinSketch) {
      fails.apply(() -> ((RedisCountMinSketch) s).estimateAll(keys("stale:", 100)));
    } else {
      fails.apply(() -> ((RedisScalableBloomFilter) s).mightContainAll(keys("stale:", 100)));
    }
    assertThat(store.delete(name)).isTrue();
  }

  @Test
  void evictedShardsAreAnErrorNotAbsentKeys() throws IOException {
    // allkeys-random evicts any key, the shards of a filter among them, and keeps others.
    try (RedisServer small =
            RedisServer.start("--maxmemory", "8mb", "--maxmemory-policy", "allkeys-random");
        RedisStore s = RedisStore.connect(small.uri())) {
      RedisBloomFilter f =
          RedisBloomFilter.create(s, "evicted", 400_000, 0.01, RedisOptions.defaults().shards(4));
      List<Object> added = keys("a:", 20_000);
      f.addAll(added);
      byte[] junk = new byte[100_000];
      for (int i = 0; f.redisKeys().stream().skip(1).allMatch(k -> s.jedis().exists(k)); i++) {
        s.jedis().set(("junk:" + i).getBytes(), junk);
      }
      assertThatThrownBy(() -> f.mightContainAll(added))
          .isInstanceOf(RedisStoreException.class)
          .hasMessageMatching(
              "(?s).*key '\\{evicted\\}:[0-3]' does not exist: the structure was deleted, or the key "
                  + "evicted or expired.*");
    }
  }

  @Test
  void aBatchRetriedAfterALostReplyDoesNotReportItsOwnKeysAsPresent() {
    RedisBloomFilter f =
        RedisBloomFilter.create(store, "lost-reply", 10_000, 0.01, RedisOptions.defaults());
    RedisScalableBloomFilter s =
        RedisScalableBloomFilter.create(
            store, "lost-reply-s", 1000, 0.01, 2, 0.8, RedisOptions.defaults());
    boolean[] lose = {true};
    // The batch is applied, then its reply is lost, as when a connection drops after the write.
    RedisStore.afterSync = FaultTest.loseReply(lose);
    try {
      assertThat(f.addAll(keys("new:", 100))).containsOnly(true);
      lose[0] = true;
      assertThat(s.addAll(keys("new:", 100))).containsOnly(true);
    } finally {
      RedisStore.afterSync = () -> {};
    }
    assertThat(f.addAll(keys("new:", 100))).containsOnly(false);
    assertThat(f.mightContainAll(keys("new:", 100))).containsOnly(true);
    store.delete("lost-reply");
    store.delete("lost-reply-s");
  }

  @Test
  void damagedMetadataIsOneLineNamingTheKeyAndTheFieldAndCanBeDeleted() {
    RedisBloomFilter.create(store, "damaged", 1_000_000, 0.01, RedisOptions.defaults());
    Map<String, String> good = store.jedis().hgetAll("{damaged}");
    Object[][] cases = {
      {"params", "0100", "field params length"},
      {"shards", "3", "field shards"},
      {"shardBytes", "64", "field shards"},
      {"payload", "64", "field payload"},
      {"id", null, "field id: missing"},
      {"seed", "x", "field seed"},
      {"state", "done", "field state"},
    };
    for (Object[] c : cases) {
      store.jedis().del("{damaged}");
      store.jedis().hset("{damaged}", good);
      if (c[1] == null) {
        store.jedis().hdel("{damaged}", (String) c[0]);
      } else {
        store.jedis().hset("{damaged}", (String) c[0], (String) c[1]);
      }
      assertThatThrownBy(() -> store.open("damaged"))
          .as("%s = %s", c[0], c[1])
          .isInstanceOf(RedisStoreException.class)
          .hasMessageStartingWith(
              "redis " + server.hostPort() + ": key '{damaged}' holds damaged probkit metadata: ")
          .hasMessageContaining((String) c[2])
          .hasNoCause()
          .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }
    assertThat(store.delete("damaged")).isTrue();
    assertThat(store.exists("damaged")).isFalse();
    RedisBloomFilter.create(store, "damaged", 1000, 0.01, RedisOptions.defaults());
    assertThat(store.delete("damaged")).isTrue();
  }
}
