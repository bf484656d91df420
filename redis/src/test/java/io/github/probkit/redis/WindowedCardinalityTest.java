package io.github.probkit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.cardinality.CardinalitySketch;
import io.github.probkit.cardinality.HyperLogLog;
import io.github.probkit.cardinality.UltraLogLog;
import io.github.probkit.cardinality.WindowedCardinality;
import io.github.probkit.hash.HashStrategy;
import io.github.probkit.io.StructureType;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The Redis-resident windowed distinct count against the library's {@link WindowedCardinality}: the
 * same bytes and counts for the same events (late ones, a long gap and events older than the ring
 * included), import and export, and counts against exact distinct counts of real words over the
 * same windows within the sketch's error.
 */
class WindowedCardinalityTest extends WithServer {
  private static final long T0 = 1_700_000_000_000L;
  private static final Duration SLICE = Duration.ofMinutes(1);
  private static final Duration WINDOW = Duration.ofMinutes(10);
  private static final HashStrategy HASH = HashStrategy.xxh3(0x5eed_0f_a9_e5L);

  static List<String> words() throws IOException {
    // The system dictionary (wamerican, which .ci/run installs), or distinct generated words.
    Path dictionary = Path.of("/usr/share/dict/words");
    java.util.Set<String> distinct =
        Files.isReadable(dictionary)
            ? new java.util.LinkedHashSet<>(Files.readAllLines(dictionary))
            : new java.util.LinkedHashSet<>();
    for (long i = 1; distinct.size() < 60_000; i++) {
      distinct.add(Long.toString((i * 0x9E3779B97F4A7C15L) >>> 24, 36));
    }
    List<String> all = new ArrayList<>(distinct);
    assertThat(all).hasSizeGreaterThan(50_000);
    return all;
  }

  static byte[] fileOf(WindowedCardinality w) throws IOException {
    return EquivalenceTest.bytesOf(w::writeTo);
  }

  static byte[] exportOf(RedisStructure s) throws IOException {
    return EquivalenceTest.bytesOf(s::exportTo);
  }

  /**
   * Events of 6,000 keys (strings, longs, bytes) over about 40 minutes: mostly in order, one in
   * eight up to 8 slices late, one in fifty older than the ring, and a gap of more than the ring.
   */
  static long[] times(int n, long seed) {
    return times(
        n,
        seed,
        800,
        3 * WINDOW.toMillis(), // a gap longer than the ring: every slot rotates
        r -> {
          int kind = r.nextInt(50);
          return kind == 0
              ? 2 * WINDOW.toMillis() // older than every slot: ignored
              : kind < 7 ? r.nextLong(8 * SLICE.toMillis()) : 0;
        });
  }

  /** How late an event is, drawn after its step (0: in order). */
  interface Lateness {
    long draw(SplittableRandom r);
  }

  /**
   * Event times from {@code T0} on: steps of up to {@code maxStep} ms, a gap of {@code gap} ms
   * halfway, each event stamped {@code late} ms before the walk's time.
   */
  static long[] times(int n, long seed, long maxStep, long gap, Lateness late) {
    SplittableRandom r = new SplittableRandom(seed);
    long[] t = new long[n];
    long now = T0;
    for (int i = 0; i < n; i++) {
      now += r.nextLong(maxStep);
      if (i == n / 2) {
        now += gap;
      }
      t[i] = now - late.draw(r);
    }
    return t;
  }

  static Object key(int i) {
    return i % 3 == 0
        ? "k" + i % 4_000
        : i % 3 == 1 ? (Object) (long) (i % 3_000) : new byte[] {(byte) i, 7, (byte) (i >>> 8)};
  }

  private static boolean libraryAdd(WindowedCardinality w, Object key, long t) {
    if (key instanceof String) {
      return w.add((String) key, t);
    }
    if (key instanceof Long) {
      return w.add((long) (Long) key, t);
    }
    byte[] b = (byte[]) key;
    return w.add(b, 0, b.length, t);
  }

  private static void sameBytesAndCounts(boolean ultra, int precision) throws IOException {
    String name = (ultra ? "ull" : "hll") + precision;
    StructureType type = ultra ? StructureType.ULTRA_LOG_LOG : StructureType.HYPER_LOG_LOG;
    RedisOptions o = RedisOptions.defaults().hash(HASH).maxSkew(Duration.ZERO);
    RedisWindowedCardinality r =
        RedisWindowedCardinality.create(store, name, WINDOW, SLICE, ultra, precision, o);
    WindowedCardinality lib =
        WindowedCardinality.create(
            WINDOW, SLICE, RedisWindowedCardinality.emptySlice(type, precision, HASH));
    // The library's default slices (sparse, with a martingale estimate): the same registers.
    WindowedCardinality plain =
        WindowedCardinality.create(
            WINDOW,
            SLICE,
            ultra ? UltraLogLog.create(precision, HASH) : HyperLogLog.create(precision, HASH));
    assertThat(r.sliceCount()).isEqualTo(lib.sliceCount());
    assertThat(exportOf(r)).isEqualTo(fileOf(lib)); // before any event

    int n = 6_000;
    long[] t = times(n, precision);
    int ignored = 0;
    for (int from = 0; from < n; from += 500) {
      List<Object> keys = new ArrayList<>();
      long[] times = new long[500];
      boolean[] expected = new boolean[500];
      for (int i = from; i < from + 500; i++) {
        keys.add(key(i));
        times[i - from] = t[i];
        expected[i - from] = libraryAdd(lib, key(i), t[i]);
        libraryAdd(plain, key(i), t[i]);
        ignored +=
            lib.newestSlice() - Math.floorDiv(t[i], SLICE.toMillis()) >= lib.sliceCount() ? 1 : 0;
      }
      assertThat(r.addAll(keys, times)).as("flags of events %d..", from).isEqualTo(expected);
      assertThat(exportOf(r)).as("after %d events", from + 500).isEqualTo(fileOf(lib));
      long now = t[from + 499];
      for (Duration last : new Duration[] {Duration.ZERO, SLICE, Duration.ofMinutes(4), WINDOW}) {
        assertThat(r.count(last, now)).isEqualTo(lib.count(last, now));
        assertThat(registers(r.sketchOfLast(last, now)))
            .isEqualTo(registers(plain.sketchOfLast(last, now)));
      }
    }
    assertThat(ignored).as("events older than the ring").isGreaterThan(50);
    assertThat(r.newestSlice()).isEqualTo(lib.newestSlice());

    // A ring of the library's default slices (sparse, martingale) imported: the same registers.
    store.importFrom(
        name + "-plain", new ByteArrayInputStream(fileOf(plain)), RedisOptions.defaults());
    RedisWindowedCardinality fromPlain = RedisWindowedCardinality.open(store, name + "-plain");
    long end = t[n - 1];
    assertThat(registers(fromPlain.sketchOfLast(WINDOW, end)))
        .isEqualTo(registers(plain.sketchOfLast(WINDOW, end)));
    assertThat(fromPlain.toWindowed().count(WINDOW, end)).isEqualTo(lib.count(WINDOW, end));

    // The library's file imported and exported: the same bytes; then both go on alike.
    store.importFrom(name + "-imp", new ByteArrayInputStream(fileOf(lib)), RedisOptions.defaults());
    RedisWindowedCardinality imp = RedisWindowedCardinality.open(store, name + "-imp");
    assertThat(exportOf(imp)).isEqualTo(fileOf(lib));
    long later = t[n - 1] + 3 * SLICE.toMillis();
    for (int i = 0; i < 300; i++) {
      imp.add("after-" + i, later - i * 1_000L);
      lib.add("after-" + i, later - i * 1_000L);
    }
    assertThat(exportOf(imp)).isEqualTo(fileOf(lib));
    assertThat(imp.toWindowed().count(WINDOW, later)).isEqualTo(lib.count(WINDOW, later));
  }

  static Object registers(CardinalitySketch s) {
    return s instanceof HyperLogLog ? ((HyperLogLog) s).registers() : ((UltraLogLog) s).registers();
  }

  @Test
  void hyperLogLogSlicesHaveTheLibrarysBytesAndCounts() throws IOException {
    sameBytesAndCounts(false, 10);
  }

  @Test
  void ultraLogLogSlicesHaveTheLibrarysBytesAndCounts() throws IOException {
    sameBytesAndCounts(true, 8);
  }

  @Test
  void countsOfRealWordsAreWithinTheSketchsError() throws IOException {
    List<String> words = words();
    int p = 11;
    RedisWindowedCardinality r =
        RedisWindowedCardinality.create(
            store,
            "words",
            Duration.ofHours(6),
            Duration.ofMinutes(30),
            false,
            p,
            RedisOptions.defaults());
    // 40,000 events over 12 hours, drawn from the first 30,000 words with repeats: some keys come
    // back in later windows, most windows hold thousands of distinct words.
    SplittableRandom rnd = new SplittableRandom(11);
    int n = 40_000;
    String[] key = new String[n];
    long[] t = new long[n];
    for (int i = 0; i < n; i++) {
      key[i] = words.get(rnd.nextInt(30_000));
      t[i] = T0 + 12 * 3_600_000L * i / n - (rnd.nextInt(10) == 0 ? rnd.nextLong(3_600_000) : 0);
    }
    double rse = 1.039 / Math.sqrt(1 << p); // dense HyperLogLog's (HyperLogLog's javadoc)
    int checks = 0;
    double worst = 0;
    long now = Long.MIN_VALUE;
    // After each batch, as live use asks: the windows ending at the latest event time so far.
    for (int from = 0; from < n; from += 1_000) {
      r.addAll(
          List.of(key).subList(from, from + 1_000),
          java.util.Arrays.copyOfRange(t, from, from + 1_000));
      for (int i = from; i < from + 1_000; i++) {
        now = Math.max(now, t[i]);
      }
      for (Duration last : new Duration[] {Duration.ofHours(1), Duration.ofHours(6)}) {
        long fromSlice = Math.floorDiv(now - last.toMillis(), 1_800_000L);
        long toSlice = Math.floorDiv(now, 1_800_000L);
        Set<String> exact = new HashSet<>();
        for (int i = 0; i < from + 1_000; i++) {
          long s = Math.floorDiv(t[i], 1_800_000L);
          if (s >= fromSlice && s <= toSlice) {
            exact.add(key[i]);
          }
        }
        double err = r.count(last, now) / exact.size() - 1;
        worst = Math.max(worst, Math.abs(err));
        assertThat(Math.abs(err))
            .as("last %s at %d: exact %d", last, now, exact.size())
            .isLessThanOrEqualTo(3.5 * rse);
        checks++;
      }
    }
    System.out.printf(
        "windowed HLL p=%d: %d windows, worst error %.4f (RSE %.4f)%n", p, checks, worst, rse);
  }

  @Test
  void aWindowLongerThanTheRingOrNegativeIsRefused() {
    RedisWindowedCardinality r =
        RedisWindowedCardinality.create(
            store, "refuse", WINDOW, SLICE, false, 8, RedisOptions.defaults());
    assertThatThrownBy(() -> r.count(WINDOW.plus(SLICE), T0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("the ring keeps 11");
    assertThatThrownBy(() -> r.count(Duration.ofMillis(-1), T0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(r.count(WINDOW, T0)).isZero();
    assertThat(store.open("refuse")).isInstanceOf(RedisWindowedCardinality.class);
    assertThat(r.describe())
        .contains("hyperloglog of precision 8 in 11 slices (+1 for clock skew)");
  }

  @Test
  void aStaleHandleOrADamagedSlotIsAnErrorNotAnAnswer() {
    RedisOptions o = RedisOptions.defaults();
    RedisWindowedCardinality old =
        RedisWindowedCardinality.create(store, "stale", WINDOW, SLICE, false, 8, o);
    RedisWindowedCountMin oldCms =
        RedisWindowedCountMin.create(store, "stale-cms", WINDOW, SLICE, 64, 2, o);
    old.add("x", T0);
    oldCms.add("x", 1, T0);
    for (String name : new String[] {"stale", "stale-cms"}) {
      List<String> keys = store.open(name).redisKeys();
      assertThat(store.delete(name)).isTrue();
      assertThat(store.jedis().exists(keys.toArray(new String[0]))).isZero();
    }
    RedisWindowedCardinality fresh =
        RedisWindowedCardinality.create(store, "stale", WINDOW, SLICE, false, 8, o);
    RedisWindowedCountMin freshCms =
        RedisWindowedCountMin.create(store, "stale-cms", WINDOW, SLICE, 64, 2, o);
    assertThatThrownBy(() -> old.add("y", T0))
        .isInstanceOf(RedisStoreException.class)
        .hasMessageContaining("deleted or re-created");
    assertThatThrownBy(() -> oldCms.estimate("x", WINDOW, T0))
        .isInstanceOf(RedisStoreException.class)
        .hasMessageContaining("deleted or re-created");
    assertThat(fresh.newestSlice()).isEqualTo(Long.MIN_VALUE);
    assertThat(freshCms.estimate("x", WINDOW, T0)).isZero();

    // A slot another client overwrote with a string of the wrong length: an error naming it.
    fresh.add("x", T0);
    int slot = (int) Math.floorMod(Math.floorDiv(T0, SLICE.toMillis()), (long) fresh.slotCount());
    String key = fresh.redisKeys().get(1 + slot);
    store.jedis().set(key, "not a sketch");
    assertThatThrownBy(() -> fresh.count(WINDOW, T0))
        .isInstanceOf(RedisStoreException.class)
        .hasMessageContaining(key);
  }
}
