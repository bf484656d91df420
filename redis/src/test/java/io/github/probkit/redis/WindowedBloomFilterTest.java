package io.github.probkit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.filter.AgePartitionedBloomFilter;
import io.github.probkit.hash.HashStrategy;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.LongPredicate;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * The Redis-resident window filter against the library's {@link AgePartitionedBloomFilter}: the
 * same bytes for the same keys and times (in order, late, after a long gap, from writers whose
 * clocks disagree), the same answers, import and export, and no false negative for a reader whose
 * clock is behind the writers'.
 */
class WindowedBloomFilterTest extends WithServer {
  private static final long T0 = 1_700_000_000_000L;
  private static final Duration WINDOW = Duration.ofMinutes(10);
  private static final HashStrategy HASH = HashStrategy.xxh3(0x5eed_0f_a9_e5L);

  private static AgePartitionedBloomFilter library() {
    return AgePartitionedBloomFilter.create(WINDOW, 2_000, 0.01, HASH, Clock.systemUTC());
  }

  private static RedisWindowedBloomFilter redis(String name, Duration maxSkew) {
    return RedisWindowedBloomFilter.create(
        store, name, WINDOW, 2_000, 0.01, RedisOptions.defaults().hash(HASH).maxSkew(maxSkew));
  }

  /** Strings, longs and raw bytes: the three forms a key takes. */
  private static Object key(int i) {
    return i % 3 == 0 ? "k" + i : i % 3 == 1 ? (Object) (i * 0x9E37_79B9_7F4A_7C15L) : bytes(i);
  }

  private static byte[] bytes(int i) {
    return new byte[] {(byte) i, 7, (byte) (i >>> 8), (byte) (i >>> 16)};
  }

  /**
   * The library's overload for the kind of key the Redis filter was given (String, Long, bytes).
   */
  private static boolean byKind(
      Object key, Predicate<String> string, LongPredicate number, Predicate<byte[]> bytes) {
    if (key instanceof String s) {
      return string.test(s);
    }
    if (key instanceof Long l) {
      return number.test(l);
    }
    return bytes.test((byte[]) key);
  }

  private static boolean libraryAdd(AgePartitionedBloomFilter f, Object key, long t) {
    return byKind(key, s -> f.add(s, t), l -> f.add(l, t), b -> f.add(b, 0, b.length, t));
  }

  private static boolean libraryQuery(AgePartitionedBloomFilter f, Object key, long t) {
    return byKind(
        key,
        s -> f.mightContain(s, t),
        l -> f.mightContain(l, t),
        b -> f.mightContain(b, 0, b.length, t));
  }

  private static byte[] fileOf(AgePartitionedBloomFilter f) throws IOException {
    return EquivalenceTest.bytesOf(f::writeTo);
  }

  private static byte[] exportOf(RedisStructure s) throws IOException {
    return EquivalenceTest.bytesOf(s::exportTo);
  }

  /**
   * A stream of event times: steps of up to 0.4 s (about two windows in all), one in ten events
   * late by up to 12 minutes (some beyond the window, which both ignore), and a gap of half an hour
   * (more generations than there are slots) in the middle.
   */
  private static long[] times(int n, long seed) {
    return WindowedCardinalityTest.times(
        n,
        seed,
        400,
        Duration.ofMinutes(30).toMillis(),
        r -> r.nextInt(10) == 0 ? r.nextLong(Duration.ofMinutes(12).toMillis()) : 0);
  }

  @Test
  void sameBytesAndAnswersAsTheLibraryForTheSameKeysAndTimes() throws IOException {
    AgePartitionedBloomFilter lib = library();
    RedisWindowedBloomFilter w = redis("w-same", Duration.ofSeconds(1));
    assertThat(exportOf(w)).isEqualTo(fileOf(lib)); // before any event
    store.batchSize(250);
    try {
      int n = 6_000;
      long[] t = times(n, 0x7133_5eedL);
      for (int from = 0; from < n; from += 1_000) {
        List<Object> keys = new ArrayList<>();
        long[] times = new long[1_000];
        boolean[] libChanged = new boolean[1_000];
        for (int i = 0; i < 1_000; i++) {
          keys.add(key(from + i));
          times[i] = t[from + i];
          libChanged[i] = libraryAdd(lib, key(from + i), times[i]);
        }
        assertThat(w.addAll(keys, times)).isEqualTo(libChanged);
        assertThat(exportOf(w)).as("after %d events", from + 1_000).isEqualTo(fileOf(lib));
      }
      assertThat(w.generation()).isEqualTo(lib.generation());

      // At and after the latest event, the same answers for added and never-added keys.
      long last = lib.generation() * lib.generationMillis();
      for (long at :
          new long[] {last, last + lib.generationMillis() * 3 + 1, last + lib.window() - 1}) {
        List<Object> asked = new ArrayList<>();
        for (int i = 0; i < n; i++) {
          asked.add(key(i));
          asked.add("never" + i);
        }
        boolean[] got = w.mightContainAll(asked, at);
        for (int i = 0; i < asked.size(); i++) {
          assertThat(got[i])
              .as("key %s at %d", asked.get(i), at)
              .isEqualTo(libraryQuery(lib, asked.get(i), at));
        }
      }

      // The library's file imported, opened by name, exported: the same bytes again.
      store.importFrom(
          "w-imported", new ByteArrayInputStream(fileOf(lib)), RedisOptions.defaults());
      RedisStructure imported = store.open("w-imported");
      assertThat(imported).isInstanceOf(RedisWindowedBloomFilter.class);
      assertThat(exportOf(imported)).isEqualTo(fileOf(lib));
    } finally {
      store.batchSize(1_000);
    }
  }

  /**
   * Three writers whose clocks are up to {@code maxSkew} apart take turns: rotation happens once
   * per generation, whoever reaches it first (the bytes equal the library's fed the same times in
   * the same order), and a reader whose clock is the slowest still finds every key added within the
   * window of its own time.
   */
  @Test
  void writersWithOffsetClocksRotateOnceAndLoseNoKey() throws IOException {
    AgePartitionedBloomFilter lib = library();
    long d = lib.generationMillis();
    Duration skew = Duration.ofMillis(2 * d);
    RedisWindowedBloomFilter w = redis("w-skew", skew);
    long[] offset = {-skew.toMillis() / 2, 0, skew.toMillis() / 2};
    SplittableRandom r = new SplittableRandom(0x0ff5_e7c1_0c4bL);
    List<Object> keys = new ArrayList<>();
    List<Long> stamped = new ArrayList<>();
    long now = T0;
    int misses = 0;
    for (int step = 0; step < 4_000; step++) {
      now += r.nextLong(350);
      int writer = r.nextInt(offset.length);
      Object key = key(step);
      long t = now + offset[writer];
      libraryAdd(lib, key, t);
      w.add(key, t);
      keys.add(key);
      stamped.add(t);
      if (step % 200 == 199) {
        long readerTime = now + offset[0];
        List<Object> inWindow = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
          if (readerTime - stamped.get(i) < WINDOW.toMillis()) {
            inWindow.add(keys.get(i));
          }
        }
        for (boolean present : w.mightContainAll(inWindow, readerTime)) {
          misses += present ? 0 : 1;
        }
      }
    }
    assertThat(misses).as("keys inside the slowest reader's window reported absent").isZero();
    assertThat(exportOf(w)).isEqualTo(fileOf(lib));
    assertThat(w.maxSkewMillis()).isGreaterThanOrEqualTo(skew.toMillis());
  }

  /**
   * Every slot carries a TTL once the window has an event; a slot freed by it reads as empty, and
   * the next add recreates it at its size, so the filter keeps working and exporting.
   */
  @Test
  void slotsExpireAsASafetyNetAndComeBackEmpty() {
    RedisWindowedBloomFilter w = redis("w-ttl", Duration.ofSeconds(1));
    long d = w.generationMillis();
    w.add("a", T0);
    w.add("b", T0 + 3 * d);
    List<String> slots = w.redisKeys().subList(1, w.redisKeys().size());
    assertThat(slots).hasSize(w.slotCount());
    for (String slot : slots) {
      assertThat(store.jedis().pttl(slot)).as(slot).isGreaterThan(Duration.ofHours(23).toMillis());
    }
    store.jedis().del(slots.toArray(new String[0]));
    assertThat(w.mightContain("b", T0 + 3 * d)).isFalse();
    assertThat(w.add("c", T0 + 3 * d)).isTrue();
    assertThat(w.mightContain("c", T0 + 3 * d)).isTrue();
    assertThat(w.toFilter().mightContain("c", T0 + 3 * d)).isTrue();
    for (String slot : slots) {
      assertThat(store.jedis().strlen(slot)).as(slot).isEqualTo(w.sliceBits() / 8 + 8 + 16);
    }
  }

  /** A handle of a filter deleted and created again fails before writing; delete leaves no key. */
  @Test
  void aHandleOfADeletedFilterWritesNothing() {
    RedisWindowedBloomFilter old = redis("w-stale", Duration.ofSeconds(1));
    old.add("x", T0);
    List<String> keys = old.redisKeys();
    assertThat(store.delete("w-stale")).isTrue();
    assertThat(store.jedis().exists(keys.toArray(new String[0]))).isZero();
    RedisWindowedBloomFilter fresh = redis("w-stale", Duration.ofSeconds(1));
    assertThatThrownBy(() -> old.add("y", T0))
        .isInstanceOf(RedisStoreException.class)
        .hasMessageContaining("deleted or re-created");
    assertThat(fresh.generation()).isEqualTo(Long.MIN_VALUE);
    assertThat(fresh.mightContain("x", T0)).isFalse();
  }

  @Test
  void refusesWhatItCannotKeep() throws IOException {
    assertThatThrownBy(() -> redis("w-skewed", Duration.ofHours(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxSkew PT1H");
    AgePartitionedBloomFilter byCount = AgePartitionedBloomFilter.create(1_000, 0.01);
    assertImportRefused("w-count", fileOf(byCount), "count-based window");
    RedisCardinalitySketch.createHyperLogLog(store, "w-hll", 10, RedisOptions.defaults());
    assertThatThrownBy(() -> RedisWindowedBloomFilter.open(store, "w-hll"))
        .isInstanceOf(RedisStoreException.class)
        .hasMessageContaining("not a window");
  }
}
