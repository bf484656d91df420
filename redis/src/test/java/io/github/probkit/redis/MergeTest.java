package io.github.probkit.redis;

import static io.github.probkit.redis.EquivalenceTest.bytesOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.filter.BlockedBloomFilter;
import io.github.probkit.filter.BloomFilter;
import io.github.probkit.filter.CountingBloomFilter;
import io.github.probkit.filter.MutableFilter;
import io.github.probkit.frequency.CountMinSketch;
import io.github.probkit.hash.HashStrategy;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Merging a library structure into a Redis-resident one: the export is the file of the library's
 * merge, byte for byte; keys that other clients add during the merge are all kept; a structure of
 * another shape is refused before anything is written.
 */
class MergeTest extends WithServer {

  private static List<String> keys(String prefix, int from, int to) {
    List<String> out = new ArrayList<>();
    for (int i = from; i < to; i++) {
      out.add(prefix + i);
    }
    return out;
  }

  private static void addAll(MutableFilter f, List<String> keys) {
    keys.forEach(f::add);
  }

  private static void addAll(CountMinSketch s, List<String> items) {
    items.forEach(i -> s.add(i, 1));
  }

  @ParameterizedTest
  @CsvSource({
    "bloom,1,slot",
    "bloom,4,slot",
    "bloom,3,spread",
    "blocked,1,slot",
    "blocked,3,spread"
  })
  void bloomMergesToTheLibrarysUnion(String type, int shards, String layout) throws IOException {
    boolean blocked = type.equals("blocked");
    RedisOptions o =
        RedisOptions.defaults()
            .shards(shards)
            .layout(Layout.valueOf(layout.toUpperCase(Locale.ROOT)));
    String name = "merge-" + type + shards + layout;
    RedisBloomFilter r =
        blocked
            ? RedisBloomFilter.createBlocked(store, name, 20_000, 0.01, o)
            : RedisBloomFilter.create(store, name, 20_000, 0.01, o);
    MutableFilter mine =
        blocked ? BlockedBloomFilter.create(20_000, 0.01) : BloomFilter.create(20_000, 0.01);
    MutableFilter theirs =
        blocked ? BlockedBloomFilter.create(20_000, 0.01) : BloomFilter.create(20_000, 0.01);
    r.addAll(keys("k", 0, 9_000));
    addAll(mine, keys("k", 0, 9_000));
    addAll(theirs, keys("k", 6_000, 15_000));
    r.merge(theirs);
    r.merge(theirs); // OR is idempotent: a merge run again changes nothing
    if (blocked) {
      ((BlockedBloomFilter) mine).merge(theirs);
    } else {
      ((BloomFilter) mine).merge(theirs);
    }
    assertThat(bytesOf(r::exportTo)).isEqualTo(bytesOf(mine::writeTo));
    r.delete();
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 3})
  void countingMergesToTheLibrarysSum(int shards) throws IOException {
    RedisCountingBloomFilter r =
        RedisCountingBloomFilter.withCounters(
            store, "merge-counting" + shards, 3_000, 5, RedisOptions.defaults().shards(shards));
    CountingBloomFilter mine = CountingBloomFilter.withCounters(3_000, 5);
    CountingBloomFilter theirs = CountingBloomFilter.withCounters(3_000, 5);
    // Few counters for the keys: sums pass 15 and must saturate there, as the library's.
    r.addAll(keys("k", 0, 2_000));
    addAll(mine, keys("k", 0, 2_000));
    addAll(theirs, keys("k", 1_000, 4_000));
    r.merge(theirs);
    mine.merge(theirs);
    assertThat(mine.saturatedCounters()).isGreaterThan(0);
    assertThat(bytesOf(r::exportTo)).isEqualTo(bytesOf(mine::writeTo));
    r.delete();
  }

  @ParameterizedTest
  @CsvSource({"false,1", "false,2", "true,1", "true,3"})
  void countMinMergesToTheLibrarysSum(boolean conservative, int shards) throws IOException {
    RedisCountMinSketch r =
        RedisCountMinSketch.create(
            store,
            "merge-cms" + conservative + shards,
            500,
            4,
            conservative,
            RedisOptions.defaults().shards(shards));
    CountMinSketch mine = CountMinSketch.withDimensions(500, 4);
    CountMinSketch theirs = CountMinSketch.withDimensions(500, 4);
    if (conservative) {
      mine = mine.withConservativeUpdate();
      theirs = theirs.withConservativeUpdate();
    }
    r.addAll(keys("i", 0, 3_000));
    addAll(mine, keys("i", 0, 3_000));
    addAll(theirs, keys("i", 2_000, 6_000));
    // Saturation at 2^63 - 1, as the library's merge.
    r.add("huge", Long.MAX_VALUE - 5);
    mine.add("huge", Long.MAX_VALUE - 5);
    theirs.add("huge", 1_000);
    r.merge(theirs);
    mine.merge(theirs);
    assertThat(bytesOf(r::exportTo)).isEqualTo(bytesOf(mine::writeTo));
    r.delete();
  }

  /**
   * A source of 10^7 keys' size (12 MB, 12 chunks per merge) merged while another client adds
   * batches of keys: every key of both is in the result, which is the library's filter of them all.
   * A merge that read the shards, ORed and wrote them back would lose the batches added between its
   * read and its write.
   */
  @ParameterizedTest
  @ValueSource(strings = {"bloom", "blocked", "counting", "count-min"})
  void keysAddedDuringAMergeAreKept(String type) throws Exception {
    String name = "concurrent-" + type;
    RedisOptions o = RedisOptions.defaults().shards(2);
    List<String> source = keys("src", 0, 200_000);
    // theirs: the source merged; all: the library's copy of everything the Redis one gets.
    RedisStructure r;
    java.util.function.Consumer<List<String>> addToRedis;
    java.util.function.Consumer<List<String>> addToAll;
    EquivalenceTest.IoWriter expected;
    Runnable merge;
    if (type.equals("count-min")) {
      RedisCountMinSketch s = RedisCountMinSketch.create(store, name, 100_000, 5, false, o);
      CountMinSketch theirs = CountMinSketch.withDimensions(100_000, 5);
      CountMinSketch all = CountMinSketch.withDimensions(100_000, 5);
      addAll(theirs, source);
      r = s;
      addToRedis = s::addAll;
      addToAll = batch -> addAll(all, batch);
      expected = all::writeTo;
      merge = () -> s.merge(theirs);
    } else {
      java.util.function.Supplier<MutableFilter> make =
          type.equals("bloom")
              ? () -> BloomFilter.create(10_000_000, 0.01)
              : type.equals("blocked")
                  ? () -> BlockedBloomFilter.create(10_000_000, 0.01)
                  : () -> CountingBloomFilter.create(2_000_000, 0.01);
      MutableFilter theirs = make.get();
      MutableFilter all = make.get();
      addAll(theirs, source);
      if (type.equals("counting")) {
        RedisCountingBloomFilter f =
            RedisCountingBloomFilter.create(store, name, 2_000_000, 0.01, o);
        r = f;
        addToRedis = f::addAll;
        merge = () -> f.merge((CountingBloomFilter) theirs);
      } else {
        RedisBloomFilter f =
            type.equals("blocked")
                ? RedisBloomFilter.createBlocked(store, name, 10_000_000, 0.01, o)
                : RedisBloomFilter.create(store, name, 10_000_000, 0.01, o);
        r = f;
        addToRedis = f::addAll;
        merge = () -> f.merge(theirs);
      }
      addToAll = batch -> addAll(all, batch);
      expected = all::writeTo;
    }
    addToAll.accept(source);
    java.util.function.Consumer<List<String>> add = addToRedis.andThen(addToAll);
    // Only the adder's thread touches the library's copy until it has stopped.
    AtomicBoolean merging = new AtomicBoolean(true);
    AtomicInteger batches = new AtomicInteger();
    CompletableFuture<Void> adder =
        CompletableFuture.runAsync(
            () -> {
              while (merging.get()) {
                add.accept(keys("live" + batches.get() + "-", 0, 500));
                batches.incrementAndGet();
              }
            });
    while (batches.get() < 3 && !adder.isDone()) {
      Thread.sleep(1);
    }
    int before = batches.get();
    merge.run();
    int after = batches.get();
    merging.set(false);
    adder.get();
    assertThat(after - before - 1).as("batches added wholly during the merge").isGreaterThan(0);
    // Compared whole (a failure would print megabytes): the export is the library's of all keys.
    assertThat(java.util.Arrays.equals(bytesOf(r::exportTo), bytesOf(expected)))
        .as("the export of %s equals the library's structure of the source and every added key", r)
        .isTrue();
    r.delete();
  }

  @ParameterizedTest
  @ValueSource(strings = {"size", "hashes", "hashing", "type"})
  void aFilterOfAnotherShapeIsRefusedBeforeAnythingIsWritten(String what) throws IOException {
    RedisBloomFilter r =
        RedisBloomFilter.withBits(store, "shape-" + what, false, 4096, 5, RedisOptions.defaults());
    r.addAll(keys("k", 0, 100));
    byte[] before = bytesOf(r::exportTo);
    MutableFilter other;
    switch (what) {
      case "size":
        other = BloomFilter.withBits(4097, 5);
        break;
      case "hashes":
        other = BloomFilter.withBits(4096, 6);
        break;
      case "hashing":
        other = BloomFilter.withBits(4096, 5, HashStrategy.xxh3(7));
        break;
      default:
        other = BlockedBloomFilter.withBits(4096, 5);
    }
    addAll(other, keys("x", 0, 100));
    assertThatThrownBy(() -> r.merge(other))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("cannot merge a " + other.type().label() + " filter of ")
        .hasMessageContaining("into 'shape-" + what + "', a bloom filter of 4096 bits, 5 hashes");
    assertThat(bytesOf(r::exportTo)).isEqualTo(before);
    r.delete();
  }

  @org.junit.jupiter.api.Test
  void countersOfAnotherShapeAreRefused() throws IOException {
    RedisCountMinSketch r =
        RedisCountMinSketch.create(store, "shape-cms", 100, 3, true, RedisOptions.defaults());
    r.addAll(keys("i", 0, 50));
    byte[] before = bytesOf(r::exportTo);
    assertThatThrownBy(() -> r.merge(CountMinSketch.withDimensions(100, 3)))
        .hasMessage(
            "cannot merge a count-min sketch of 100 x 3, standard, xxh3(seed=0x0) into 'shape-cms', a"
                + " count-min sketch of 100 x 3, conservative, xxh3(seed=0x0), 1 shard (slot)");
    RedisCountingBloomFilter c =
        RedisCountingBloomFilter.withCounters(
            store, "shape-counting", 1000, 4, RedisOptions.defaults());
    assertThatThrownBy(() -> c.merge(CountingBloomFilter.withCounters(1001, 4)))
        .hasMessageStartingWith("cannot merge a counting filter of 1001 counters, 4 hashes");
    assertThat(bytesOf(r::exportTo)).isEqualTo(before);
    r.delete();
    c.delete();
  }
}
