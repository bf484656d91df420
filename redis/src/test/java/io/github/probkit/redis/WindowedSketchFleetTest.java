package io.github.probkit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.cardinality.HyperLogLog;
import io.github.probkit.cardinality.WindowedCardinality;
import io.github.probkit.frequency.CountMinSketch;
import io.github.probkit.frequency.WindowedCountMin;
import io.github.probkit.io.StructureType;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A fleet of 8 writers, each with its own connection and its own clock (up to 20 minutes apart,
 * {@code maxSkew} 20 minutes), sharing a windowed distinct count and a windowed count-min (24-hour
 * windows in hourly slices) over three days of event time. Readers at the true end and at the
 * slowest and fastest writers' clocks get exactly what the library computes from the same events,
 * and so: distinct counts within the sketch's error of the exact ones, and no count-min estimate
 * below the exact count of its window.
 */
class WindowedSketchFleetTest extends WithServer {
  private static final Duration WINDOW = Duration.ofHours(24);
  private static final Duration SLICE = Duration.ofHours(1);
  private static final Duration SKEW = Duration.ofMinutes(20);
  private static final int WRITERS = 8;
  private static final int EVENTS = 16_000;
  private static final long H = SLICE.toMillis();

  /** A slice boundary: the fastest clocks' last events are past it, the slowest ones' not. */
  private static final long END = Math.floorDiv(1_700_000_000_000L, H) * H + 5 * 60_000;

  private static final String[] item = new String[EVENTS];
  private static final long[] stamped = new long[EVENTS];

  @BeforeAll
  static void runTheFleet() throws Exception {
    List<String> words = WindowedCardinalityTest.words();
    SplittableRandom r = new SplittableRandom(27);
    for (int e = 0; e < EVENTS; e++) {
      // Zipf-like: a few words very often, most rarely.
      item[e] = words.get((int) Math.min(words.size() - 1, Math.pow(r.nextDouble(), 3) * 2_000));
    }
    long span = 3 * WINDOW.toMillis();
    long t0 = END - span;
    RedisOptions o = RedisOptions.defaults().maxSkew(SKEW).openIfExists(true);
    runFleet(
        WRITERS,
        SKEW,
        (own, writer, offset) -> {
          // Each writer "creates" both, as every process of a fleet would.
          RedisWindowedCardinality hll =
              RedisWindowedCardinality.create(own, "fleet-hll", WINDOW, SLICE, false, 12, o);
          RedisWindowedCountMin cms =
              RedisWindowedCountMin.create(own, "fleet-cms", WINDOW, SLICE, 0.01, 0.01, o);
          List<Object> keys = new ArrayList<>();
          long[] times = new long[50];
          for (int e = writer; e < EVENTS; e += WRITERS) {
            // Event e happens at this true time, stamped by this writer's clock.
            times[keys.size()] = t0 + span * (e + 1) / EVENTS + offset;
            stamped[e] = times[keys.size()];
            keys.add(item[e]);
            if (keys.size() == times.length || e + WRITERS >= EVENTS) {
              long[] t = Arrays.copyOf(times, keys.size());
              hll.addAll(keys, t);
              long[] ones = new long[keys.size()];
              Arrays.fill(ones, 1);
              cms.addAll(keys, ones, t);
              keys.clear();
            }
          }
        });
  }

  /** The readers' times: the true end, the slowest and the fastest clock. */
  private static long[] readers() {
    return new long[] {END, END - SKEW.toMillis() / 2, END + SKEW.toMillis() / 2};
  }

  /** The events of slices up to that of {@code at}, in order of their stamps. */
  private static List<Integer> eventsUpTo(long at) {
    List<Integer> out = new ArrayList<>();
    for (int e = 0; e < EVENTS; e++) {
      if (Math.floorDiv(stamped[e], H) <= Math.floorDiv(at, H)) {
        out.add(e);
      }
    }
    out.sort((a, b) -> Long.compare(stamped[a], stamped[b]));
    return out;
  }

  private static boolean inWindow(int e, Duration last, long at) {
    long s = Math.floorDiv(stamped[e], H);
    return s >= Math.floorDiv(at - last.toMillis(), H) && s <= Math.floorDiv(at, H);
  }

  @Test
  void distinctCountsAreTheLibrarysAndWithinTheErrorOfExact() throws IOException {
    RedisWindowedCardinality r = RedisWindowedCardinality.open(store, "fleet-hll");
    assertThat(r.newestSlice()).isEqualTo(Math.floorDiv(END + SKEW.toMillis() / 2, H));
    double rse = 1.039 / Math.sqrt(1 << 12);
    for (long at : readers()) {
      WindowedCardinality lib =
          WindowedCardinality.create(
              WINDOW,
              SLICE,
              RedisWindowedCardinality.emptySlice(
                  StructureType.HYPER_LOG_LOG, 12, r.hashStrategy()));
      for (int e : eventsUpTo(at)) {
        lib.add(item[e], stamped[e]);
      }
      for (Duration last : new Duration[] {SLICE, Duration.ofHours(6), WINDOW}) {
        assertThat(((HyperLogLog) r.sketchOfLast(last, at)).registers())
            .as("registers of the last %s at %d", last, at)
            .isEqualTo(((HyperLogLog) lib.sketchOfLast(last, at)).registers());
        Set<String> exact = new HashSet<>();
        for (int e = 0; e < EVENTS; e++) {
          if (inWindow(e, last, at)) {
            exact.add(item[e]);
          }
        }
        assertThat(exact).hasSizeGreaterThan(50);
        assertThat(Math.abs(r.count(last, at) / exact.size() - 1))
            .as("last %s at %d, exact %d", last, at, exact.size())
            .isLessThanOrEqualTo(3.5 * rse);
      }
      if (at == END + SKEW.toMillis() / 2) {
        // The newest slice is the fastest clock's: the export is the library's file.
        assertThat(EquivalenceTest.bytesOf(r::exportTo))
            .isEqualTo(EquivalenceTest.bytesOf(lib::writeTo));
      }
    }
  }

  @Test
  void countMinEstimatesAreTheLibrarysAndNeverBelowTheExactCounts() throws IOException {
    RedisWindowedCountMin r = RedisWindowedCountMin.open(store, "fleet-cms");
    int checked = 0;
    for (long at : readers()) {
      WindowedCountMin lib =
          WindowedCountMin.create(
              WINDOW, SLICE, CountMinSketch.create(0.01, 0.01, r.hashStrategy()));
      for (int e : eventsUpTo(at)) {
        lib.add(item[e], 1, stamped[e]);
      }
      for (Duration last : new Duration[] {SLICE, Duration.ofHours(6), WINDOW}) {
        Map<String, Long> exact = new HashMap<>();
        for (int e = 0; e < EVENTS; e++) {
          if (inWindow(e, last, at)) {
            exact.merge(item[e], 1L, Long::sum);
          }
        }
        List<String> items = new ArrayList<>(exact.keySet());
        long[] est = r.estimateAll(items, last, at);
        for (int i = 0; i < items.size(); i++) {
          assertThat(est[i])
              .as("%s in the last %s at %d", items.get(i), last, at)
              .isGreaterThanOrEqualTo(exact.get(items.get(i)))
              .isEqualTo(lib.estimate(items.get(i), last, at));
          checked++;
        }
      }
      if (at == END + SKEW.toMillis() / 2) {
        assertThat(EquivalenceTest.bytesOf(r::exportTo))
            .isEqualTo(EquivalenceTest.bytesOf(lib::writeTo));
      }
    }
    assertThat(checked).isGreaterThan(2_000);
  }
}
