package io.github.probkit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.frequency.CountMinSketch;
import io.github.probkit.frequency.CountMinSketch.UpdateRule;
import io.github.probkit.frequency.WindowedCountMin;
import io.github.probkit.hash.HashStrategy;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The Redis-resident windowed count-min against the library's {@link WindowedCountMin}: the same
 * bytes, flags and estimates for the same events (late ones, a long gap and events older than the
 * ring included), import and export, and the merge of a library ring (the library's merge's bytes;
 * no count lost to writers racing it).
 */
class WindowedCountMinTest extends WithServer {
  private static final Duration SLICE = Duration.ofMinutes(1);
  private static final Duration WINDOW = Duration.ofMinutes(10);
  private static final HashStrategy HASH = HashStrategy.xxh3(0x5eed_0f_a9_e5L);

  /** The library's window of {@code width} x {@code depth} sketches with the tests' hash. */
  private static WindowedCountMin library(int width, int depth) {
    return WindowedCountMin.create(
        WINDOW, SLICE, CountMinSketch.withDimensions(width, depth, HASH));
  }

  /** The Redis window of the same shape as {@link #library}, with no skew allowed. */
  private RedisWindowedCountMin unskewed(String key, int width, int depth) {
    RedisOptions o = RedisOptions.defaults().hash(HASH).maxSkew(Duration.ZERO);
    return RedisWindowedCountMin.create(store, key, WINDOW, SLICE, width, depth, o);
  }

  private static byte[] fileOf(WindowedCountMin w) throws IOException {
    return EquivalenceTest.bytesOf(w::writeTo);
  }

  @Test
  void sameBytesFlagsAndEstimatesAsTheLibrary() throws IOException {
    RedisWindowedCountMin r = unskewed("cms", 200, 4);
    WindowedCountMin lib = library(200, 4);
    assertThat(WindowedCardinalityTest.exportOf(r)).isEqualTo(fileOf(lib));
    int n = 6_000;
    long[] t = WindowedCardinalityTest.times(n, 50);
    SplittableRandom rnd = new SplittableRandom(50);
    for (int from = 0; from < n; from += 500) {
      CountedBatch.of(
              from,
              500,
              t,
              i -> "item-" + rnd.nextInt(140),
              i -> i % 97 == 0 ? 1L << 40 : 1 + rnd.nextInt(3),
              lib::add)
          .assertTakenAsTheLibrary(r, from, fileOf(lib));
      long now = t[from + 499];
      List<Object> probe = new ArrayList<>();
      for (int i = 0; i < 150; i++) {
        probe.add("item-" + i);
      }
      for (Duration last : new Duration[] {Duration.ZERO, SLICE, Duration.ofMinutes(4), WINDOW}) {
        long[] est = r.estimateAll(probe, last, now);
        for (int i = 0; i < probe.size(); i++) {
          assertThat(est[i]).isEqualTo(lib.estimate((String) probe.get(i), last, now));
        }
        assertThat(r.sketchOfLast(last, now).totalCount())
            .isEqualTo(lib.sketchOfLast(last, now).totalCount());
      }
    }

    store.importFrom("cms-imp", new ByteArrayInputStream(fileOf(lib)), RedisOptions.defaults());
    RedisWindowedCountMin imp = RedisWindowedCountMin.open(store, "cms-imp");
    assertThat(WindowedCardinalityTest.exportOf(imp)).isEqualTo(fileOf(lib));
    long later = t[n - 1] + 2 * SLICE.toMillis();
    for (int i = 0; i < 200; i++) {
      imp.add("item-" + i % 20, 3, later - i * 1_000L);
      lib.add("item-" + i % 20, 3, later - i * 1_000L);
    }
    assertThat(WindowedCardinalityTest.exportOf(imp)).isEqualTo(fileOf(lib));
    assertThat(imp.toWindowed().estimate("item-3", WINDOW, later))
        .isEqualTo(lib.estimate("item-3", WINDOW, later));
  }

  /** A library ring of 3,000 events of 60 items, over 30 s each, from {@code start}. */
  private static WindowedCountMin ring(long start, long seed, List<Object[]> events) {
    WindowedCountMin w = library(200, 4);
    SplittableRandom rnd = new SplittableRandom(seed);
    for (int i = 0; i < 3_000; i++) {
      String item = "item-" + rnd.nextInt(60);
      long count = i % 499 == 0 ? 1L << 61 : 1 + rnd.nextInt(3);
      // Mostly in order, some late by up to four slices.
      long t = start + i * 200L - (i % 7 == 0 ? rnd.nextLong(4 * SLICE.toMillis()) : 0);
      w.add(item, count, t);
      events.add(new Object[] {item, count, t});
    }
    return w;
  }

  /** Adds {@code events} to {@code r}, in batches. */
  private static void addTo(RedisWindowedCountMin r, List<Object[]> events) {
    for (int from = 0; from < events.size(); from += 700) {
      List<Object[]> part = events.subList(from, Math.min(events.size(), from + 700));
      List<Object> items = new ArrayList<>();
      long[] counts = new long[part.size()];
      long[] times = new long[part.size()];
      for (int i = 0; i < part.size(); i++) {
        items.add(part.get(i)[0]);
        counts[i] = (Long) part.get(i)[1];
        times[i] = (Long) part.get(i)[2];
      }
      r.addAll(items, counts, times);
    }
  }

  /**
   * Redis's merge of a library ring is the library's merge, byte for byte: the source newer by a
   * few slices, by more than the ring (every slice of the key's leaves), older (its oldest slices
   * left out), or the same span; with and without grace slots; large counts saturate alike.
   */
  @Test
  void aMergedRingIsTheLibrarysMerge() throws IOException {
    long t0 = 1_700_000_000_000L;
    long slice = SLICE.toMillis();
    int c = 0;
    for (Duration skew : new Duration[] {Duration.ZERO, Duration.ofMinutes(3)}) {
      RedisOptions o = RedisOptions.defaults().hash(HASH).maxSkew(skew);
      for (long shift : new long[] {3 * slice, 40 * slice, -5 * slice, -30 * slice, 0}) {
        List<Object[]> mine = new ArrayList<>();
        WindowedCountMin lib = ring(t0, 7 + c, mine);
        WindowedCountMin other = ring(t0 + shift, 1_000 + c, new ArrayList<>());
        RedisWindowedCountMin r =
            RedisWindowedCountMin.create(store, "merge-" + c++, WINDOW, SLICE, 200, 4, o);
        addTo(r, mine);
        assertThat(WindowedCardinalityTest.exportOf(r)).isEqualTo(fileOf(lib));
        r.merge(other);
        lib.merge(other);
        assertThat(WindowedCardinalityTest.exportOf(r))
            .as("skew %s, source shifted %d ms", skew, shift)
            .isEqualTo(fileOf(lib));
      }
    }
    // An empty source changes nothing; another shape is refused before anything is written.
    RedisWindowedCountMin r = RedisWindowedCountMin.open(store, "merge-0");
    byte[] before = WindowedCardinalityTest.exportOf(r);
    r.merge(library(200, 4));
    assertThat(WindowedCardinalityTest.exportOf(r)).isEqualTo(before);
    for (WindowedCountMin bad :
        new WindowedCountMin[] {
          WindowedCountMin.create(
              WINDOW.multipliedBy(2), SLICE, CountMinSketch.withDimensions(200, 4, HASH)),
          library(201, 4),
          WindowedCountMin.create(WINDOW, SLICE, CountMinSketch.withDimensions(200, 4)),
          WindowedCountMin.create(
              WINDOW, SLICE, CountMinSketch.withDimensions(200, 4, HASH, UpdateRule.CONSERVATIVE))
        }) {
      bad.add("x", 5, t0);
      assertThatThrownBy(() -> r.merge(bad)).isInstanceOf(IllegalArgumentException.class);
      assertThat(WindowedCardinalityTest.exportOf(r)).isEqualTo(before);
    }
  }

  /**
   * Writers adding while a ring is merged in lose no count: every item's estimate afterwards is at
   * least its exact count over both (all events within the window, so none leaves it).
   */
  @Test
  void writersRacingAMergeLoseNoCount() throws Exception {
    long t0 = 1_700_000_000_000L;
    RedisOptions o = RedisOptions.defaults().hash(HASH).maxSkew(Duration.ofMinutes(1));
    RedisWindowedCountMin r = RedisWindowedCountMin.create(store, "race", WINDOW, SLICE, 200, 4, o);
    // Events within 8 slices: the source's ring holds every one.
    WindowedCountMin other = library(200, 4);
    Map<Object, Long> exact = new HashMap<>();
    Map<Object, Long> once = new HashMap<>();
    for (int i = 0; i < 2_000; i++) {
      String item = "item-" + i % 50;
      other.add(item, 1, t0 + i * 200L);
      once.merge(item, 1L, Long::sum);
    }
    List<List<Object[]>> writers = new ArrayList<>();
    for (int w = 0; w < 3; w++) {
      List<Object[]> ev = new ArrayList<>();
      for (int i = 0; i < 2_000; i++) {
        String item = "item-" + (i * 7 + w) % 50;
        ev.add(new Object[] {item, 1L, t0 + 100L * i + 1_000L * w});
        exact.merge(item, 1L, Long::sum);
      }
      writers.add(ev);
    }
    List<Thread> threads = new ArrayList<>();
    List<Throwable> failed = Collections.synchronizedList(new ArrayList<>());
    for (List<Object[]> ev : writers) {
      threads.add(
          new Thread(
              () -> {
                try {
                  for (int i = 0; i < ev.size(); i += 100) {
                    addTo(r, ev.subList(i, i + 100));
                  }
                } catch (Throwable e) {
                  failed.add(e);
                }
              }));
    }
    threads.forEach(Thread::start);
    for (int m = 0; m < 3; m++) {
      r.merge(other);
    }
    for (Thread t : threads) {
      t.join();
    }
    assertThat(failed).isEmpty();
    List<Object> items = new ArrayList<>(once.keySet());
    long now = t0 + 8 * SLICE.toMillis();
    long[] est = r.estimateAll(items, WINDOW, now);
    for (int i = 0; i < items.size(); i++) {
      // The source merged three times: its counts count thrice.
      Object item = items.get(i);
      assertThat(est[i])
          .as("%s", item)
          .isGreaterThanOrEqualTo(exact.getOrDefault(item, 0L) + 3 * once.getOrDefault(item, 0L));
    }
  }

  @Test
  void countersSaturateAsTheLibrarysDo() throws IOException {
    RedisWindowedCountMin r = unskewed("sat", 64, 2);
    WindowedCountMin lib = library(64, 2);
    long t = 1_700_000_000_000L;
    for (int i = 0; i < 3; i++) {
      r.add("big", Long.MAX_VALUE / 2, t + i * SLICE.toMillis() / 2);
      lib.add("big", Long.MAX_VALUE / 2, t + i * SLICE.toMillis() / 2);
    }
    // Each counter saturates at 2^63 - 1 as the library's (the same bytes); the window's sum of
    // them too (the library's WindowedCountMin.estimate wraps around to a negative number here).
    assertThat(r.estimate("big", WINDOW, t + SLICE.toMillis())).isEqualTo(Long.MAX_VALUE);
    assertThat(WindowedCardinalityTest.exportOf(r)).isEqualTo(fileOf(lib));
  }

  @Test
  void conservativeSlicesAndNegativeCountsAreRefused() throws IOException {
    WindowedCountMin cons =
        WindowedCountMin.create(
            WINDOW, SLICE, CountMinSketch.withDimensions(64, 2, HASH, UpdateRule.CONSERVATIVE));
    assertImportRefused("cons", fileOf(cons), "conservative");
    RedisWindowedCountMin r =
        RedisWindowedCountMin.create(store, "neg", WINDOW, SLICE, 64, 2, RedisOptions.defaults());
    assertThatThrownBy(() -> r.add("x", -1, 0)).isInstanceOf(IllegalArgumentException.class);
  }
}
