package io.github.probkit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.cardinality.HyperLogLog;
import io.github.probkit.cardinality.UltraLogLog;
import io.github.probkit.filter.BlockedBloomFilter;
import io.github.probkit.filter.BloomFilter;
import io.github.probkit.filter.CountingBloomFilter;
import io.github.probkit.filter.ScalableBloomFilter;
import io.github.probkit.frequency.CountMinSketch;
import io.github.probkit.hash.HashStrategy;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * For the same keys, a Redis-resident structure exports the bytes the library's structure writes,
 * and a file imported into Redis exports the same bytes again: every type, both hash strategies,
 * one shard and several.
 */
class EquivalenceTest extends WithServer {

  static List<Object> keys(String prefix, int n) {
    List<Object> keys = new ArrayList<>();
    SplittableRandom r = new SplittableRandom(0x5eed_0f_ca_11_ab1eL);
    for (int i = 0; i < n; i++) {
      // Strings, longs and raw bytes: the three forms a key takes.
      keys.add(
          i % 3 == 0
              ? prefix + i
              : i % 3 == 1 ? (Object) r.nextLong() : new byte[] {(byte) i, 7, (byte) (i >>> 8)});
    }
    return keys;
  }

  static byte[] bytesOf(IoWriter w) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    w.writeTo(out);
    return out.toByteArray();
  }

  interface IoWriter {
    void writeTo(java.io.OutputStream out) throws IOException;
  }

  static HashStrategy hash(String name) {
    return switch (name) {
      case "fnv1a" -> HashStrategy.fnv1a();
      case "guava" -> HashStrategy.guava(); // a Guava filter imported, probing Guava's bits
      case "spark" -> HashStrategy.spark();
      default -> HashStrategy.xxh3(0x1234_5678_9abcL);
    };
  }

  /** Exports, checks the bytes, imports them under another name and checks that export too. */
  static void assertRoundTrip(RedisStructure s, byte[] expected) throws IOException {
    byte[] exported = bytesOf(s::exportTo);
    assertThat(exported).as("export of %s", s).isEqualTo(expected);
    String copy = s.name() + "-copy";
    RedisStructure imported =
        store.importFrom(copy, new ByteArrayInputStream(exported), RedisOptions.defaults());
    assertThat(bytesOf(imported::exportTo)).as("export of the import of %s", s).isEqualTo(expected);
    assertThat(imported.type()).isEqualTo(s.type());
    imported.delete();
  }

  @ParameterizedTest
  @CsvSource({
    "xxh3,1,slot",
    "xxh3,4,slot",
    "xxh3,5,spread",
    "fnv1a,1,slot",
    "fnv1a,3,spread",
    "guava,1,slot",
    "guava,3,spread",
    "spark,2,slot"
  })
  void bloom(String hashName, int shards, String layout) throws IOException {
    RedisBloomFilter r =
        RedisBloomFilter.create(
            store,
            "bloom-" + hashName + "-" + shards + "-" + layout,
            3_000,
            0.01,
            options(hashName, shards, layout));
    BloomFilter f = BloomFilter.create(3_000, 0.01, hash(hashName));
    assertAddsAndQueriesAgree(r, f, keys("bloom:", 2_500));
    assertThat(r.shardCount()).isEqualTo(shards);
    assertThat(r.bitCount()).isEqualTo(f.bitCount());
    assertRoundTrip(r, bytesOf(f::writeTo));
  }

  @ParameterizedTest
  @CsvSource({"xxh3,1,slot", "xxh3,3,spread", "fnv1a,2,slot", "guava,2,spread"})
  void blocked(String hashName, int shards, String layout) throws IOException {
    RedisBloomFilter r =
        RedisBloomFilter.createBlocked(
            store,
            "blocked-" + hashName + "-" + shards + "-" + layout,
            3_000,
            0.001,
            options(hashName, shards, layout));
    BlockedBloomFilter f = BlockedBloomFilter.create(3_000, 0.001, hash(hashName));
    assertAddsAndQueriesAgree(r, f, keys("blocked:", 2_500));
    assertThat(r.isBlocked()).isTrue();
    assertThat(r.hashCount()).isEqualTo(f.hashCount()).isGreaterThan(7);
    assertRoundTrip(r, bytesOf(f::writeTo));
  }

  private static RedisOptions options(String hashName, int shards, String layout) {
    return RedisOptions.defaults()
        .hash(hash(hashName))
        .shards(shards)
        .layout(Layout.valueOf(layout.toUpperCase(java.util.Locale.ROOT)));
  }

  /**
   * Adds {@code keys} to both: each add of {@code r} reports a change where the library's did; then
   * {@code r} answers every probe as the library does and finds every key it was given.
   */
  private static void assertAddsAndQueriesAgree(
      RedisBloomFilter r, io.github.probkit.filter.MutableFilter f, List<Object> keys) {
    boolean[] changed = r.addAll(keys);
    for (int i = 0; i < keys.size(); i++) {
      assertThat(changed[i]).as("add of key %d", i).isEqualTo(add(f, keys.get(i)));
    }
    List<Object> probe = keys("other:", 3_000);
    boolean[] present = r.mightContainAll(probe);
    for (int i = 0; i < probe.size(); i++) {
      assertThat(present[i]).isEqualTo(contains(f, probe.get(i)));
    }
    assertThat(r.mightContainAll(keys)).doesNotContain(false);
  }

  @ParameterizedTest
  @CsvSource({"xxh3,1", "xxh3,3"})
  void counting(String hashName, int shards) throws IOException {
    RedisOptions o = RedisOptions.defaults().hash(hash(hashName)).shards(shards);
    RedisCountingBloomFilter r =
        RedisCountingBloomFilter.withCounters(store, "counting-" + hashName + shards, 1_000, 5, o);
    CountingBloomFilter f = CountingBloomFilter.withCounters(1_000, 5, hash(hashName));
    // Few counters, many keys: saturation at 15 and removes that must fail both happen.
    List<Object> keys = keys("counting:", 1_500);
    boolean[] changed = r.addAll(keys);
    for (int i = 0; i < keys.size(); i++) {
      assertThat(changed[i]).isEqualTo(f.add(RedisStructure.keyBytes(keys.get(i))));
    }
    List<Object> removals = new ArrayList<>(keys.subList(0, 700));
    removals.addAll(keys("absent:", 300));
    removals.addAll(keys.subList(0, 200)); // again: some now fail
    boolean[] removed = r.removeAll(removals);
    int failed = 0;
    for (int i = 0; i < removals.size(); i++) {
      boolean expected = f.remove(RedisStructure.keyBytes(removals.get(i)));
      assertThat(removed[i]).as("remove %d", i).isEqualTo(expected);
      failed += expected ? 0 : 1;
    }
    assertThat(failed).isGreaterThan(0);
    assertThat(f.saturatedCounters()).isGreaterThan(0);
    int[] counts = r.countAll(keys);
    for (int i = 0; i < keys.size(); i++) {
      assertThat(counts[i])
          .isEqualTo(
              f.count(
                  RedisStructure.keyBytes(keys.get(i)),
                  0,
                  RedisStructure.keyBytes(keys.get(i)).length));
    }
    assertRoundTrip(r, bytesOf(f::writeTo));
  }

  @ParameterizedTest
  @CsvSource({
    "xxh3,false,1",
    "xxh3,true,1",
    "xxh3,true,3",
    "xxh3,false,2",
    "fnv1a,false,1",
    "fnv1a,true,1"
  })
  void countMin(String hashName, boolean conservative, int shards) throws IOException {
    int depth = hashName.equals("fnv1a") ? 2 : 5;
    RedisCountMinSketch r =
        RedisCountMinSketch.create(
            store,
            "cms-" + hashName + conservative + shards,
            97,
            depth,
            conservative,
            RedisOptions.defaults().hash(hash(hashName)).shards(shards));
    CountMinSketch s = CountMinSketch.withDimensions(97, depth, hash(hashName));
    if (conservative) {
      s = s.withConservativeUpdate();
    }
    SplittableRandom rnd = new SplittableRandom(0xc0ffee_5eedL);
    Map<Object, Long> counts = new LinkedHashMap<>();
    for (int i = 0; i < 600; i++) {
      String item = "item-" + rnd.nextInt(300);
      long c = i % 50 == 0 ? (1L << 40) + rnd.nextInt(1000) : rnd.nextInt(5);
      counts.put(item, c);
      if (counts.size() == 50) {
        r.addAll(counts);
        for (Map.Entry<Object, Long> e : counts.entrySet()) {
          s.add((String) e.getKey(), e.getValue());
        }
        counts.clear();
      }
    }
    // Counters past 2^53, where a Lua number is no longer exact, and then saturation: the library's
    // counters stop at 2^63 - 1, and so must the script's.
    r.add("big", (1L << 60) + 7);
    s.add("big", (1L << 60) + 7);
    r.add("big", 3);
    s.add("big", 3);
    r.add("huge", Long.MAX_VALUE - 5);
    s.add("huge", Long.MAX_VALUE - 5);
    r.add("huge", 100);
    s.add("huge", 100);
    List<Object> items = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      items.add("item-" + i);
    }
    items.add("big");
    items.add("huge");
    long[] est = r.estimateAll(items);
    for (int i = 0; i < items.size(); i++) {
      assertThat(est[i])
          .as("estimate of %s", items.get(i))
          .isEqualTo(s.estimate((String) items.get(i)));
    }
    assertThat(r.totalCount()).isEqualTo(s.totalCount());
    assertRoundTrip(r, bytesOf(s::writeTo));
  }

  @ParameterizedTest
  @CsvSource({"xxh3,4", "xxh3,11", "xxh3,14", "xxh3,18"})
  void hyperLogLog(String hashName, int p) throws IOException {
    RedisCardinalitySketch r =
        RedisCardinalitySketch.createHyperLogLog(
            store, "hll-" + hashName + p, p, RedisOptions.defaults().hash(hash(hashName)));
    HyperLogLog s = HyperLogLog.create(p, hash(hashName));
    List<Object> keys = keys("hll:", 30_000);
    boolean[] changed = r.addAll(keys);
    for (int i = 0; i < keys.size(); i++) {
      boolean wasSparse =
          s.isSparse(); // a sparse sketch's answer is about its precision-25 entries
      boolean c = s.add(RedisStructure.keyBytes(keys.get(i)));
      if (!wasSparse) {
        assertThat(changed[i]).as("key %d", i).isEqualTo(c);
      }
    }
    assertThat(s.isSparse()).isFalse();
    HyperLogLog dense = HyperLogLog.readFrom(new ByteArrayInputStream(bytesOf(r::exportTo)));
    assertThat(dense.registers()).isEqualTo(s.registers());
    assertThat(r.estimate()).isEqualTo(dense.estimate());
    assertThat(r.estimate()).isEqualTo(s.estimate());
    byte[] lib = bytesOf(s::writeTo);
    byte[] red = bytesOf(r::exportTo);
    // Same container, registers and payload; the parameters differ only in the martingale flag and
    // value.
    assertThat(red.length).isEqualTo(lib.length);
    assertThat(java.util.Arrays.copyOfRange(red, 28 + 15, red.length - 4))
        .isEqualTo(java.util.Arrays.copyOfRange(lib, 28 + 15, lib.length - 4));
    assertRoundTrip(r, red);
  }

  @ParameterizedTest
  @CsvSource({"xxh3,4", "xxh3,10", "xxh3,12"})
  void ultraLogLog(String hashName, int p) throws IOException {
    RedisCardinalitySketch r =
        RedisCardinalitySketch.createUltraLogLog(
            store, "ull-" + hashName + p, p, RedisOptions.defaults().hash(hash(hashName)));
    UltraLogLog s = UltraLogLog.create(p, hash(hashName));
    List<Object> keys = keys("ull:", 20_000);
    boolean[] changed = r.addAll(keys);
    for (int i = 0; i < keys.size(); i++) {
      assertThat(changed[i]).as("key %d", i).isEqualTo(s.add(RedisStructure.keyBytes(keys.get(i))));
    }
    byte[] lib = bytesOf(s::writeTo);
    byte[] red = bytesOf(r::exportTo);
    assertThat(java.util.Arrays.copyOfRange(red, 28 + 10, red.length - 4))
        .isEqualTo(java.util.Arrays.copyOfRange(lib, 28 + 10, lib.length - 4));
    assertThat(r.estimate()).isEqualTo(s.estimate());
    assertRoundTrip(r, red);
  }

  @Test
  void loglogMergeEqualsTheLibrarysMerge() throws IOException {
    for (boolean ultra : new boolean[] {false, true}) {
      RedisCardinalitySketch r =
          ultra
              ? RedisCardinalitySketch.createUltraLogLog(
                  store, "merge-ull", 10, RedisOptions.defaults())
              : RedisCardinalitySketch.createHyperLogLog(
                  store, "merge-hll", 10, RedisOptions.defaults());
      io.github.probkit.cardinality.CardinalitySketch a =
          ultra ? UltraLogLog.create(10) : HyperLogLog.create(10);
      io.github.probkit.cardinality.CardinalitySketch b =
          ultra ? UltraLogLog.create(10) : HyperLogLog.create(10);
      List<Object> keys = keys("m:", 8_000);
      List<Object> other = keys("n:", 8_000);
      r.addAll(keys);
      keys.forEach(k -> a.add(RedisStructure.keyBytes(k)));
      other.forEach(k -> b.add(RedisStructure.keyBytes(k)));
      r.merge(b);
      if (ultra) {
        ((UltraLogLog) a).merge((UltraLogLog) b);
      } else {
        ((HyperLogLog) a).merge((HyperLogLog) b);
      }
      byte[] lib = bytesOf(a::writeTo);
      byte[] red = bytesOf(r::exportTo);
      assertThat(red).isEqualTo(lib);
    }
  }

  /**
   * Where the library refuses Guava's or Spark's hash (a count-min sketch's rows would share one
   * column, a scalable filter's layers would probe other bits, Spark's 32 bits would hold a blocked
   * filter's rate up), a Redis structure refuses it too, in one line, before writing a key.
   */
  @Test
  void foreignHashesAreRefusedWhereTheLibraryRefusesThem() {
    RedisOptions guava = RedisOptions.defaults().hash(HashStrategy.guava());
    RedisOptions spark = RedisOptions.defaults().hash(HashStrategy.spark());
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> RedisCountMinSketch.create(store, "cms-guava", 97, 5, false, guava))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("a count-min structure cannot use the guava hash");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> RedisBloomFilter.createBlocked(store, "blocked-spark", 3_000, 0.01, spark))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("spark hash");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () ->
                RedisScalableBloomFilter.create(store, "scalable-guava", 100, 0.01, 2, 0.5, guava))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("a scalable Bloom filter cannot use the guava hash");
    for (String name : List.of("cms-guava", "blocked-spark", "scalable-guava")) {
      assertThat(store.exists(name)).as(name).isFalse();
    }
  }

  @ParameterizedTest
  @CsvSource({"xxh3", "fnv1a"})
  void scalable(String hashName) throws IOException {
    RedisScalableBloomFilter r =
        RedisScalableBloomFilter.create(
            store,
            "scalable-" + hashName,
            100,
            0.01,
            2,
            0.5,
            RedisOptions.defaults().hash(hash(hashName)));
    ScalableBloomFilter f = ScalableBloomFilter.create(100, 0.01, 2, 0.5, hash(hashName));
    List<Object> keys = keys("sc:", 20_000);
    keys.addAll(keys.subList(0, 500)); // present already: not added again
    store.batchSize(300); // several growths inside one batch and across batches
    try {
      boolean[] added = r.addAll(keys);
      for (int i = 0; i < keys.size(); i++) {
        assertThat(added[i]).as("key %d", i).isEqualTo(f.add(RedisStructure.keyBytes(keys.get(i))));
      }
    } finally {
      store.batchSize(1000);
    }
    assertThat(r.layerCount()).isEqualTo(f.layerCount()).isGreaterThan(3);
    List<Object> probe = keys("other:", 3_000);
    boolean[] present = r.mightContainAll(probe);
    for (int i = 0; i < probe.size(); i++) {
      assertThat(present[i]).isEqualTo(f.mightContain(RedisStructure.keyBytes(probe.get(i))));
    }
    assertRoundTrip(r, bytesOf(f::writeTo));
  }

  @Test
  void structuresTheLibraryRefusesFnv1aForRefuseItToo() {
    RedisOptions fnv = RedisOptions.defaults().hash(HashStrategy.fnv1a());
    long keys = store.jedis().dbSize();
    for (Runnable create :
        List.<Runnable>of(
            () -> RedisCountingBloomFilter.create(store, "fnv-counting", 1000, 0.01, fnv),
            () -> RedisCardinalitySketch.createHyperLogLog(store, "fnv-hll", 12, fnv),
            () -> RedisCardinalitySketch.createUltraLogLog(store, "fnv-ull", 12, fnv))) {
      org.assertj.core.api.Assertions.assertThatThrownBy(create::run)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("cannot use the fnv1a hash");
    }
    assertThat(store.jedis().dbSize()).isEqualTo(keys);
  }

  private static boolean add(io.github.probkit.filter.MutableFilter f, Object key) {
    return f.add(RedisStructure.keyBytes(key));
  }

  private static boolean contains(io.github.probkit.filter.MembershipFilter f, Object key) {
    return f.mightContain(RedisStructure.keyBytes(key));
  }
}
