package io.github.probkit.frequency;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Windowed top-k against exact counts over the same slices: a Zipf-like stream over six hours whose
 * popular items change every hour, with late events. At several moments, for the last 10 min, 1 h
 * and 5 h, the window's summary must keep Space-Saving's bounds for the window's stream, which are
 * exact inequalities (no statistical slack): every listed count within [lower bound, count] of the
 * truth and at most N / m above it, every item above N / m listed, and every entry of top(10)
 * marked certain truly among the ten most frequent.
 */
class WindowedHeavyHittersTest {
  private static final long MINUTE = 60_000L;

  @Test
  void windowSummariesKeepSpaceSavingsBoundsAgainstExactCounts() {
    int m = 200;
    WindowedHeavyHitters w =
        WindowedHeavyHitters.create(Duration.ofHours(5), Duration.ofMinutes(10), m);
    SplittableRandom rnd = new SplittableRandom(0x70b_4e55L);
    int n = 120_000;
    WindowedEvents events = new WindowedEvents(n, rnd);
    int windows = 0;
    long worstError = 0;
    double worstBound = 0;
    int topFound = 0;
    int topAsked = 0;
    for (int i = 0; i < n; i++) {
      long clock = WindowedEvents.T0 + i * 180L; // six hours
      events.draw(i, clock);
      assertThat(w.add(events.items[i], 1, events.times[i])).isTrue();
      if (i == 0 || i % 20_000 != 0) {
        continue;
      }
      for (Duration last : WindowedEvents.LASTS) {
        Map<Long, Long> exact = events.exactCounts(i, last, clock);
        long total = WindowedEvents.total(exact);
        HeavyHitters window = w.summaryOfLast(last, clock);
        assertThat(window.totalCount()).isEqualTo(total);
        double bound = (double) total / m;
        assertThat((double) window.maxError()).isLessThanOrEqualTo(bound);
        Map<Long, HeavyHitters.Entry> listed = new HashMap<>();
        for (HeavyHitters.Entry e : window.entries()) {
          long item = ByteBuffer.wrap(e.item()).order(ByteOrder.LITTLE_ENDIAN).getLong();
          long truth = exact.getOrDefault(item, 0L);
          assertThat(truth)
              .as("item %d in the last %s", item, last)
              .isBetween(e.lowerBound(), e.count());
          assertThat((double) (e.count() - truth)).isLessThanOrEqualTo(bound);
          worstError = Math.max(worstError, e.count() - truth);
          listed.put(item, e);
        }
        worstBound = Math.max(worstBound, bound);
        for (Map.Entry<Long, Long> e : exact.entrySet()) {
          if (e.getValue() > bound) {
            assertThat(listed)
                .as("item %d, %d times", e.getKey(), e.getValue())
                .containsKey(e.getKey());
          }
        }
        List<Long> counts = new ArrayList<>(exact.values());
        counts.sort((a, b) -> Long.compare(b, a));
        long tenth = counts.get(Math.min(9, counts.size() - 1));
        for (HeavyHitters.Entry e : w.top(10, last, clock)) {
          long item = ByteBuffer.wrap(e.item()).order(ByteOrder.LITTLE_ENDIAN).getLong();
          long truth = exact.getOrDefault(item, 0L);
          if (e.isCertain()) {
            assertThat(truth).as("certain item %d", item).isGreaterThanOrEqualTo(tenth);
          }
          topFound += truth >= tenth ? 1 : 0;
          topAsked++;
        }
        windows++;
      }
    }
    assertThat(windows).isEqualTo(15);
    System.out.printf(
        Locale.ROOT,
        "windowed top-k, capacity %d: %d windows, largest overestimate %d (bound N/m up to %.0f),"
            + " %d of %d top-10 entries truly in the top 10%n",
        m,
        windows,
        worstError,
        worstBound,
        topFound,
        topAsked);
  }

  @Test
  void aLateEventOutsideTheRingIsIgnoredAndSlicesLeave() {
    WindowedHeavyHitters w =
        WindowedHeavyHitters.create(Duration.ofHours(1), Duration.ofMinutes(10), 10);
    long t = 1_700_000_400_000L; // a slice boundary (a multiple of 10 min)
    w.add("old", 5, t);
    w.add("new", 1, t + 60 * MINUTE);
    // 7 slots: the slice of t is the oldest one kept, and a later one pushes it out.
    assertThat(w.summaryOfLast(Duration.ofHours(1), t + 60 * MINUTE).estimate("old")).isEqualTo(5);
    assertThat(w.add("late", 1, t - MINUTE)).isFalse();
    w.advanceTo(t + 70 * MINUTE);
    HeavyHitters s = w.summaryOfLast(Duration.ofHours(1), t + 70 * MINUTE);
    assertThat(s.totalCount()).isEqualTo(1);
    assertThat(s.top(5)).extracting(HeavyHitters.Entry::itemAsString).containsExactly("new");
  }
}
