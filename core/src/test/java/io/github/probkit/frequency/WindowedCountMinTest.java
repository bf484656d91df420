package io.github.probkit.frequency;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.testing.Binomial;
import java.time.Duration;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Windowed frequencies against exact counts over the same slices: a Zipf-like stream over six hours
 * whose popular items change every hour, with late events; at several moments, for the last 10 min,
 * 1 h and 5 h, every item's estimate is at least its exact count, above it by more than epsilon
 * times the window's total for at most the binomial bound of delta of the items, and never above
 * the window sketch's own estimate.
 */
class WindowedCountMinTest {
  private static final long MINUTE = 60_000L;

  @Test
  void aWindowsSumOfSaturatedSlicesSaturatesRatherThanWrapping() {
    // The count-min promise (never below the true count) over a window whose slices each hold
    // more than half of Long.MAX_VALUE: the sum must stop at Long.MAX_VALUE, not wrap negative.
    WindowedCountMin w =
        WindowedCountMin.create(
            Duration.ofHours(3), Duration.ofHours(1), CountMinSketch.withDimensions(64, 2));
    long t = 1_700_000_000_000L;
    for (int i = 0; i < 3; i++) {
      w.add("big", Long.MAX_VALUE / 2, t + i * 60 * MINUTE);
      w.add(7L, Long.MAX_VALUE / 2, t + i * 60 * MINUTE);
    }
    long now = t + 2 * 60 * MINUTE;
    assertThat(w.estimate("big", Duration.ofHours(3), now)).isEqualTo(Long.MAX_VALUE);
    assertThat(w.estimate(7L, Duration.ofHours(3), now)).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void windowEstimatesAreBoundedByTheExactCountsOfTheSameSlices() {
    double epsilon = 0.002;
    double delta = 0.01;
    WindowedCountMin w =
        WindowedCountMin.create(
            Duration.ofHours(5), Duration.ofMinutes(10), CountMinSketch.create(epsilon, delta));
    SplittableRandom rnd = new SplittableRandom(0xC0_0417L);
    int n = 300_000;
    WindowedEvents events = new WindowedEvents(n, rnd);
    int checked = 0;
    int beyond = 0;
    for (int i = 0; i < n; i++) {
      long clock = WindowedEvents.T0 + i * 72L; // six hours
      events.draw(i, clock);
      w.add(events.items[i], 1, events.times[i]);
      if (i > 0 && i % 50_000 == 0) {
        for (Duration last : WindowedEvents.LASTS) {
          Map<Long, Long> exact = events.exactCounts(i, last, clock);
          long total = WindowedEvents.total(exact);
          CountMinSketch window = w.sketchOfLast(last, clock);
          assertThat(window.totalCount()).isEqualTo(total);
          for (Map.Entry<Long, Long> e : exact.entrySet()) {
            if (rnd.nextInt(20) != 0 && e.getValue() < 50) {
              continue; // every frequent item, and a sample of the rest
            }
            long est = w.estimate(e.getKey(), last, clock);
            assertThat(est).isGreaterThanOrEqualTo(e.getValue());
            assertThat(est).isLessThanOrEqualTo(window.estimate(e.getKey()));
            checked++;
            beyond += est - e.getValue() > epsilon * total ? 1 : 0;
          }
        }
      }
    }
    assertThat(checked).isGreaterThan(1_000);
    assertThat((long) beyond).isLessThanOrEqualTo(Binomial.upper(checked, delta, 0.999));
  }
}
