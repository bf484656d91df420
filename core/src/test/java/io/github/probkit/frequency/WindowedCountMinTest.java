package io.github.probkit.frequency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.hash.HashStrategy;
import io.github.probkit.io.StructureType;
import io.github.probkit.testing.Binomial;
import io.github.probkit.testing.RingBytes;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
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
    byte[] big = "xbigx".getBytes(StandardCharsets.UTF_8);
    assertThat(w.estimate(big, 1, 3, Duration.ofHours(3), now)).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void bytesCountAsTheStringOfTheSameUtf8() {
    // The command line adds and queries a line's bytes; they must land where the String would.
    long t = 1_700_000_000_000L;
    WindowedCountMin w =
        WindowedCountMin.create(
            Duration.ofHours(3), Duration.ofHours(1), CountMinSketch.withDimensions(512, 3));
    List<String> words = List.of("apple", "banana", "cherry", "d\u00e9j\u00e0", "e");
    for (int i = 0; i < words.size(); i++) {
      byte[] b = ("[" + words.get(i) + "]").getBytes(StandardCharsets.UTF_8);
      assertThat(w.add(b, 1, b.length - 2, i + 1, t + i * 30 * MINUTE)).isTrue();
    }
    long now = t + 2 * 60 * MINUTE;
    for (int i = 0; i < words.size(); i++) {
      byte[] b = ("<<" + words.get(i)).getBytes(StandardCharsets.UTF_8);
      for (Duration last : List.of(Duration.ofHours(1), Duration.ofHours(3))) {
        long viaString = w.estimate(words.get(i), last, now);
        assertThat(w.estimate(b, 2, b.length - 2, last, now)).isEqualTo(viaString);
      }
      assertThat(w.estimate(words.get(i), Duration.ofHours(3), now)).isGreaterThanOrEqualTo(i + 1);
    }
    // Too late for the window: refused and counted nowhere.
    w.advanceTo(t + 6 * 60 * MINUTE);
    byte[] x = "x".getBytes(StandardCharsets.UTF_8);
    assertThat(w.add(x, 0, 1, 5, t)).isFalse();
    assertThat(w.estimate(x, 0, 1, Duration.ofHours(3), t + 6 * 60 * MINUTE)).isZero();
    assertThat(w.add(x, 0, 1, 5, t + 6 * 60 * MINUTE)).isTrue();
    assertThat(w.estimate(x, 0, 1, Duration.ofHours(3), t + 6 * 60 * MINUTE)).isEqualTo(5);
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

  @Test
  void aLateEventIsRefusedAndCountsNowhere() {
    long t = 1_700_000_000_000L;
    Clock clock = Clock.fixed(Instant.ofEpochMilli(t), ZoneOffset.UTC);
    WindowedCountMin w =
        WindowedCountMin.create(
            Duration.ofHours(3), Duration.ofHours(1), CountMinSketch.withDimensions(64, 2), clock);
    assertThat(w.sliceMillis()).isEqualTo(60 * MINUTE);
    assertThat(w.sliceCount()).isEqualTo(4);
    assertThat(w.add("x")).isTrue();
    assertThat(w.add("x", 2, t)).isTrue();
    assertThat(w.add(7L, 2, t)).isTrue();
    // Moving 5 h on drops the slice of t: an event there is too late, and says so.
    w.advanceTo(t + 5 * 60 * MINUTE);
    assertThat(w.newestSlice()).isEqualTo(Math.floorDiv(t + 5 * 60 * MINUTE, 60 * MINUTE));
    assertThat(w.add("x")).isFalse();
    assertThat(w.add("x", 2, t)).isFalse();
    assertThat(w.add(7L, 2, t)).isFalse();
    long now = t + 5 * 60 * MINUTE;
    assertThat(w.estimate("x", Duration.ofHours(3), now)).isZero();
    assertThat(w.sketchOfLast(Duration.ofHours(3), now).totalCount()).isZero();
    // Within the window again: counted.
    assertThat(w.add("x", 4, now - 60 * MINUTE)).isTrue();
    assertThat(w.estimate("x", Duration.ofHours(3), now)).isEqualTo(4);
  }

  @Test
  void aPrototypeWithCountsIsRefused() {
    CountMinSketch used = CountMinSketch.withDimensions(64, 2);
    used.add("x", 1);
    assertThatThrownBy(
            () -> WindowedCountMin.create(Duration.ofHours(3), Duration.ofHours(1), used))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("empty");
  }

  /**
   * A ring whose bytes are sound (checksum and all) but whose parts disagree: an empty slice with
   * counts (every new slice would start with them), one of another hash than the ring's, a slot of
   * other dimensions (its merge into a window would fail later, or mix cells).
   */
  @Test
  void aRingWhosePartsDisagreeIsRefused() throws IOException {
    CountMinSketch empty = CountMinSketch.withDimensions(64, 2);
    CountMinSketch counted = empty.copy();
    counted.add("x", 3);
    RingBytes.assertRefused(
        WindowedCountMin::readFrom,
        ring(HashStrategy.xxh3(), counted, empty),
        "empty slice's total");
    RingBytes.assertRefused(
        WindowedCountMin::readFrom, ring(HashStrategy.fnv1a(), empty, empty), "empty slice's hash");
    RingBytes.assertRefused(
        WindowedCountMin::readFrom,
        ring(HashStrategy.xxh3(), empty, CountMinSketch.withDimensions(32, 2)),
        "slot 1");
    WindowedCountMin.readFrom(
        new ByteArrayInputStream(ring(HashStrategy.xxh3(), empty, empty.copy())));
  }

  private static byte[] ring(HashStrategy hash, CountMinSketch empty, CountMinSketch slot)
      throws IOException {
    return RingBytes.of(
        StructureType.WINDOWED_COUNT_MIN,
        hash,
        empty,
        empty::copy,
        slot::copy,
        CountMinSketch::writeTo);
  }
}
