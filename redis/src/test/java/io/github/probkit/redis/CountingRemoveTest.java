package io.github.probkit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.hash.HashStrategy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A counting filter in Redis counts every add, so that removing keys never takes a kept key with
 * them: on one shard (adds by BITFIELD) and on several (adds by script). The library's own add
 * always did; these guard the promise in Redis, where the CLI used to add a key only when it read
 * absent.
 */
class CountingRemoveTest extends WithServer {

  /** 20,000 distinct keys, the first half removed: every key of the second half is present. */
  @ParameterizedTest
  @ValueSource(ints = {1, 3})
  void removingHalfOfTheKeysKeepsEveryOtherKey(int shards) {
    RedisCountingBloomFilter f =
        RedisCountingBloomFilter.create(
            store, "half-" + shards, 20_000, 0.01, RedisOptions.defaults().shards(shards));
    List<String> keys = new ArrayList<>();
    for (int i = 1; i <= 20_000; i++) {
      keys.add("k" + i);
    }
    f.addAll(keys);
    for (boolean removed : f.removeAll(keys.subList(0, 10_000))) {
      assertThat(removed).isTrue();
    }
    boolean[] present = f.mightContainAll(keys.subList(10_000, 20_000));
    int absent = 0;
    for (boolean p : present) {
      absent += p ? 0 : 1;
    }
    assertThat(absent).as("kept keys reported absent").isZero();
  }

  /**
   * Random batches of adds (keys repeat), removes of keys held and queries on a filter of 256
   * counters, where keys collide often and counters saturate, checked against an exact multiset
   * after every batch: a key added more often than removed is never absent.
   */
  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void aKeyAddedMoreOftenThanRemovedIsNeverAbsent(int shards) {
    SplittableRandom r = new SplittableRandom(0x5eed_c0_17_e4L + shards);
    RedisCountingBloomFilter f =
        RedisCountingBloomFilter.withCounters(
            store,
            "model-" + shards,
            256,
            3,
            RedisOptions.defaults().shards(shards).hash(HashStrategy.xxh3(0x77L)));
    Map<String, Integer> held = new HashMap<>();
    List<String> live = new ArrayList<>();
    for (int batch = 0; batch < 300; batch++) {
      List<String> adds = new ArrayList<>();
      List<String> removes = new ArrayList<>();
      for (int i = r.nextInt(8); i > 0; i--) {
        if (live.size() < 100 && (live.isEmpty() || r.nextBoolean())) {
          String k = "key-" + r.nextInt(150);
          adds.add(k);
          if (held.merge(k, 1, Integer::sum) == 1) {
            live.add(k);
          }
        } else {
          int at = r.nextInt(live.size());
          String k = live.get(at);
          removes.add(k);
          if (held.merge(k, -1, Integer::sum) == 0) {
            held.remove(k);
            live.set(at, live.get(live.size() - 1));
            live.remove(live.size() - 1);
          }
        }
      }
      f.addAll(adds);
      for (boolean removed : f.removeAll(removes)) {
        assertThat(removed).as("batch %d: a remove of a key held", batch).isTrue();
      }
      boolean[] present = f.mightContainAll(live);
      for (int i = 0; i < live.size(); i++) {
        assertThat(present[i])
            .as("batch %d: %s held %d times", batch, live.get(i), held.get(live.get(i)))
            .isTrue();
      }
    }
  }
}
