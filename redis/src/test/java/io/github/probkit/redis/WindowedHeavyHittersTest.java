package io.github.probkit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.frequency.HeavyHitters;
import io.github.probkit.frequency.WindowedHeavyHitters;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The Redis-resident windowed heavy hitters against the library's {@link WindowedHeavyHitters} fed
 * the same events in the same order (the same bytes, flags and top lists: late events, a gap longer
 * than the ring and events older than it included), against exact counts of the same window (the
 * Space-Saving guarantee), with a fleet of writers, and through export and import.
 */
class WindowedHeavyHittersTest extends WithServer {
  private static final Duration SLICE = Duration.ofMinutes(1);
  private static final Duration WINDOW = Duration.ofMinutes(10);
  private static final long M = SLICE.toMillis();
  private static final int CAPACITY = 25;
  private static final int SMALL = 60;

  /** A Redis window of {@code capacity} items a slice, with no skew allowed. */
  private RedisWindowedHeavyHitters unskewed(String key, int capacity) {
    return RedisWindowedHeavyHitters.create(
        store, key, WINDOW, SLICE, capacity, RedisOptions.defaults().maxSkew(Duration.ZERO));
  }

  private static byte[] fileOf(WindowedHeavyHitters w) throws IOException {
    return EquivalenceTest.bytesOf(w::writeTo);
  }

  /** A Zipf-like stream of distinct dictionary words: a few very often, most rarely. */
  private static String[] zipf(int n, long seed) throws IOException {
    List<String> words = WindowedCardinalityTest.words();
    SplittableRandom r = new SplittableRandom(seed);
    String[] out = new String[n];
    for (int i = 0; i < n; i++) {
      out[i] = words.get((int) Math.min(words.size() - 1, Math.pow(r.nextDouble(), 3) * 600));
    }
    return out;
  }

  /** One kept event: its item, slice and count. */
  private record Event(String item, long slice, long count) {}

  /**
   * Checks the guarantee of a summary of the window [from, to] of the ring whose newest slice is
   * {@code newest} against the exact counts of the kept events in it: total exact, every listed
   * count in [true, true + error] with error at most N / m, every item above N / m listed.
   */
  private static int checkGuarantee(
      HeavyHitters s, List<Event> kept, long from, long to, long newest, int ring) {
    int m = s.capacity();
    Map<String, Long> exact = new HashMap<>();
    long n = 0;
    for (Event e : kept) {
      if (e.slice >= Math.max(from, newest - ring + 1) && e.slice <= to) {
        exact.merge(e.item, e.count, Long::sum);
        n += e.count;
      }
    }
    assertThat(s.totalCount()).as("the window's total").isEqualTo(n);
    long bound = n / m;
    assertThat(s.maxError()).isLessThanOrEqualTo(bound);
    Map<String, HeavyHitters.Entry> listed = new HashMap<>();
    for (HeavyHitters.Entry e : s.entries()) {
      listed.put(e.itemAsString(), e);
      long truth = exact.getOrDefault(e.itemAsString(), 0L);
      assertThat(e.count()).as("count of %s", e.itemAsString()).isGreaterThanOrEqualTo(truth);
      assertThat(e.lowerBound())
          .as("lower bound of %s", e.itemAsString())
          .isLessThanOrEqualTo(truth);
      assertThat(e.error()).isLessThanOrEqualTo(bound);
    }
    int heavy = 0;
    for (Map.Entry<String, Long> e : exact.entrySet()) {
      if (e.getValue() > bound) {
        assertThat(listed)
            .as("%s occurs %d > N/m = %d times", e.getKey(), e.getValue(), bound)
            .containsKey(e.getKey());
        heavy++;
      }
    }
    return heavy;
  }

  @Test
  void sameBytesFlagsAndTopAsTheLibraryAndTheGuaranteeOverExactCounts() throws IOException {
    RedisWindowedHeavyHitters r = unskewed("hh", CAPACITY);
    WindowedHeavyHitters lib = WindowedHeavyHitters.create(WINDOW, SLICE, CAPACITY);
    assertThat(WindowedCardinalityTest.exportOf(r)).isEqualTo(fileOf(lib));
    int n = 6_000;
    long[] t = WindowedCardinalityTest.times(n, 52);
    String[] items = zipf(n, 52);
    SplittableRandom rnd = new SplittableRandom(52);
    List<Event> kept = new ArrayList<>();
    int heavy = 0;
    for (int from = 0; from < n; from += 500) {
      CountedBatch batch =
          CountedBatch.of(
              from,
              500,
              t,
              i -> items[i],
              i -> i % 211 == 0 ? 0 : i % 97 == 0 ? 40 : 1 + rnd.nextInt(3),
              lib::add);
      for (int i = from; i < from + 500; i++) {
        if (batch.libraryFlags()[i - from]) {
          kept.add(new Event(items[i], Math.floorDiv(t[i], M), batch.counts()[i - from]));
        }
      }
      batch.assertTakenAsTheLibrary(r, from, fileOf(lib));
      assertThat(r.newestSlice()).isEqualTo(lib.newestSlice());
      long now = t[from + 499];
      for (Duration last : new Duration[] {Duration.ZERO, SLICE, Duration.ofMinutes(4), WINDOW}) {
        HeavyHitters s = r.summaryOfLast(last, now);
        assertThat(EquivalenceTest.bytesOf(s::writeTo))
            .isEqualTo(EquivalenceTest.bytesOf(lib.summaryOfLast(last, now)::writeTo));
        assertThat(r.top(10, last, now)).isEqualTo(lib.top(10, last, now));
        heavy +=
            checkGuarantee(
                s,
                kept,
                Math.floorDiv(now - last.toMillis(), M),
                Math.floorDiv(now, M),
                lib.newestSlice(),
                lib.sliceCount());
      }
    }
    assertThat(heavy).as("items above N/m checked").isGreaterThan(100);

    // Import: the same bytes, and then the same answers to the same further events.
    store.importFrom("hh-imp", new ByteArrayInputStream(fileOf(lib)), RedisOptions.defaults());
    RedisWindowedHeavyHitters imp = RedisWindowedHeavyHitters.open(store, "hh-imp");
    assertThat(imp.capacity()).isEqualTo(CAPACITY);
    assertThat(WindowedCardinalityTest.exportOf(imp)).isEqualTo(fileOf(lib));
    long later = t[n - 1] + 2 * M;
    for (int i = 0; i < 300; i++) {
      long at = later - i * 1_000L;
      assertThat(imp.add(items[i], 1 + i % 3, at)).isEqualTo(lib.add(items[i], 1 + i % 3, at));
    }
    assertThat(WindowedCardinalityTest.exportOf(imp)).isEqualTo(fileOf(lib));
    assertThat(imp.toWindowed().top(5, WINDOW, later)).isEqualTo(lib.top(5, WINDOW, later));
    store.delete("hh-imp");
    // Every key goes, the slices' items and orders with their slots.
    assertThat(store.jedis().keys("{hh-imp}*")).isEmpty();
  }

  @Test
  void aStructureCreatedWhereOneLostItsMetadataStartsEmpty() throws IOException {
    // The items and orders have no id of their own: left by a structure whose metadata was lost,
    // they must not come back as counts of the new one.
    RedisWindowedHeavyHitters old = unskewed("hh-lost", 5);
    long t = 1_700_000_000_000L;
    for (int i = 0; i < 40; i++) {
      old.add("w" + i % 7, 1 + i % 3, t + i * 20_000L);
    }
    store.jedis().del("{hh-lost}");
    RedisWindowedHeavyHitters fresh = unskewed("hh-lost", 5);
    assertThat(WindowedCardinalityTest.exportOf(fresh))
        .isEqualTo(fileOf(WindowedHeavyHitters.create(WINDOW, SLICE, 5)));
    fresh.add("w1", 2, t);
    WindowedHeavyHitters lib = WindowedHeavyHitters.create(WINDOW, SLICE, 5);
    lib.add("w1", 2, t);
    assertThat(WindowedCardinalityTest.exportOf(fresh)).isEqualTo(fileOf(lib));
  }

  @Test
  void badArgumentsAreRefusedBeforeAnythingChanges() throws IOException {
    RedisWindowedHeavyHitters r = unskewed("hh-bad", 4);
    long t = 1_700_000_000_000L;
    r.add("a", 1L << 52, t);
    byte[] before = WindowedCardinalityTest.exportOf(r);
    assertThatThrownBy(
            () -> r.addAll(List.of("b", "c"), new long[] {1, (1L << 52) + 1}, new long[] {t, t}))
        .hasMessageContaining("2^53");
    assertThatThrownBy(() -> r.add("b", -1, t)).hasMessageContaining("-1");
    assertThat(WindowedCardinalityTest.exportOf(r)).isEqualTo(before);
    assertThatThrownBy(() -> r.top(0, WINDOW, t)).hasMessageContaining("k must be positive");
    assertThatThrownBy(() -> r.top(1, Duration.ofMinutes(11), t)).hasMessageContaining("slices");
  }

  /**
   * Six writers with their own connections and clocks up to two slices apart (maxSkew two slices)
   * share one window; each event's count is known. With a capacity above the distinct items, every
   * count of the windows read at the end, at the true time and at the slowest and fastest clocks,
   * is exact: none is lost. With a small one, every window read keeps the guarantee over the exact
   * counts of the window.
   */
  @Test
  void aFleetOfWritersLosesNoCount() throws Exception {
    int writers = 6;
    int events = 12_000;
    Duration skew = Duration.ofMinutes(2);
    String[] items = zipf(events, 7);
    long t0 = Math.floorDiv(1_700_000_000_000L, M) * M;
    long span = 3 * WINDOW.toMillis();
    long[] stamped = new long[events];
    RedisOptions o = RedisOptions.defaults().maxSkew(skew).openIfExists(true);
    runFleet(
        writers,
        skew,
        (own, writer, offset) -> {
          RedisWindowedHeavyHitters exact =
              RedisWindowedHeavyHitters.create(own, "fleet-exact", WINDOW, SLICE, 5_000, o);
          RedisWindowedHeavyHitters small =
              RedisWindowedHeavyHitters.create(own, "fleet-small", WINDOW, SLICE, SMALL, o);
          List<Object> keys = new ArrayList<>();
          long[] times = new long[40];
          for (int e = writer; e < events; e += writers) {
            times[keys.size()] = t0 + span * (e + 1) / events + offset;
            stamped[e] = times[keys.size()];
            keys.add(items[e]);
            if (keys.size() == times.length || e + writers >= events) {
              long[] ts = Arrays.copyOf(times, keys.size());
              long[] ones = new long[keys.size()];
              Arrays.fill(ones, 1);
              // Writers run at their own pace: one far ahead may rotate out the slices of one
              // far behind; the flags are checked below, for the slices a reader still asks for.
              exact.addAll(keys, ones, ts);
              small.addAll(keys, ones, ts);
              keys.clear();
            }
          }
        });
    RedisWindowedHeavyHitters exact = RedisWindowedHeavyHitters.open(store, "fleet-exact");
    RedisWindowedHeavyHitters small = RedisWindowedHeavyHitters.open(store, "fleet-small");
    long newest = exact.newestSlice();
    assertThat(small.newestSlice()).isEqualTo(newest);
    List<Event> all = new ArrayList<>();
    for (int e = 0; e < events; e++) {
      all.add(new Event(items[e], Math.floorDiv(stamped[e], M), 1));
    }
    long end = t0 + span;
    int heavy = 0;
    for (long at : new long[] {end, end - skew.toMillis() / 2, end + skew.toMillis() / 2}) {
      for (Duration last : new Duration[] {SLICE, Duration.ofMinutes(5), WINDOW}) {
        long from = Math.floorDiv(at - last.toMillis(), M);
        long to = Math.floorDiv(at, M);
        Map<String, Long> truth = new HashMap<>();
        for (Event e : all) {
          if (e.slice >= from && e.slice <= to) {
            truth.merge(e.item, 1L, Long::sum);
          }
        }
        Map<String, Long> got = new HashMap<>();
        for (HeavyHitters.Entry e : exact.summaryOfLast(last, at).entries()) {
          assertThat(e.error()).isZero();
          got.put(e.itemAsString(), e.count());
        }
        assertThat(got).as("exact counts of the last %s at %d", last, at).isEqualTo(truth);
        // The grace slots keep what the slowest clocks still need: the ring is the Redis one.
        heavy +=
            checkGuarantee(small.summaryOfLast(last, at), all, from, to, newest, small.slotCount());
      }
    }
    assertThat(heavy).as("items above N/m checked").isGreaterThan(30);
  }
}
