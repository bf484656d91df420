package io.github.probkit.frequency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.hash.HashStrategy;
import io.github.probkit.io.StructureType;
import io.github.probkit.testing.RingBytes;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
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

  @Test
  void everyAddSaysWhetherItCountedAndALateOneIsRefused() {
    long t = 1_700_000_400_000L;
    Clock clock = Clock.fixed(Instant.ofEpochMilli(t), ZoneOffset.UTC);
    WindowedHeavyHitters w =
        WindowedHeavyHitters.create(Duration.ofHours(1), Duration.ofMinutes(10), 10, clock);
    assertThat(w.byteSize()).isEqualTo(7 * HeavyHitters.withCapacity(10).byteSize());
    byte[] key = "bytes".getBytes(StandardCharsets.UTF_8);
    assertThat(w.add("clock")).isTrue();
    assertThat(w.add("chars", 2, t)).isTrue();
    assertThat(w.add(key, 0, key.length, 3, t)).isTrue();
    assertThat(w.add(42L, 4, t)).isTrue();
    HeavyHitters s = w.summaryOfLast(Duration.ofMinutes(10), t);
    assertThat(s.totalCount()).isEqualTo(10);
    assertThat(s.estimate(key, 0, key.length)).isEqualTo(3);
    assertThat(w.top(1, Duration.ofMinutes(10)))
        .extracting(HeavyHitters.Entry::count)
        .containsExactly(4L);
    assertThat(w.capacity()).isEqualTo(10);
    assertThat(w.sliceMillis()).isEqualTo(10 * MINUTE);
    assertThat(w.sliceCount()).isEqualTo(7);

    // Moving 2 h on drops every slice of t: an event there is too late, and says so.
    w.advanceTo(t + 120 * MINUTE);
    assertThat(w.newestSlice()).isEqualTo((t + 120 * MINUTE) / (10 * MINUTE));
    assertThat(w.add("clock")).isFalse();
    assertThat(w.add("chars", 2, t)).isFalse();
    assertThat(w.add(key, 0, key.length, 3, t)).isFalse();
    assertThat(w.add(42L, 4, t)).isFalse();
    assertThat(w.top(1, Duration.ofMinutes(10))).isEmpty();
  }

  @Test
  void topOfNoneIsRefused() {
    WindowedHeavyHitters w =
        WindowedHeavyHitters.create(Duration.ofHours(1), Duration.ofMinutes(10), 10);
    assertThat(w.top(1, Duration.ofHours(1), 0)).isEmpty();
    assertThatThrownBy(() -> w.top(0, Duration.ofHours(1), 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("was 0");
  }

  /**
   * Sound bytes whose parts disagree: an empty summary with items (every new slice would start with
   * them), one of another hash than the ring's, a slot of another capacity.
   */
  @Test
  void aRingWhosePartsDisagreeIsRefused() throws IOException {
    HeavyHitters empty = HeavyHitters.withCapacity(10);
    HeavyHitters used = HeavyHitters.withCapacity(10);
    used.add("x", 1);
    RingBytes.assertRefused(
        WindowedHeavyHitters::readFrom, ring(HashStrategy.xxh3(), used, empty), "empty slice");
    RingBytes.assertRefused(
        WindowedHeavyHitters::readFrom,
        ring(HashStrategy.fnv1a(), empty, empty),
        "empty slice's hash");
    RingBytes.assertRefused(
        WindowedHeavyHitters::readFrom,
        ring(HashStrategy.xxh3(), empty, HeavyHitters.withCapacity(11)),
        "slot 1's");
    WindowedHeavyHitters.readFrom(
        new ByteArrayInputStream(ring(HashStrategy.xxh3(), empty, empty)));
  }

  private static byte[] ring(HashStrategy hash, HeavyHitters empty, HeavyHitters slot)
      throws IOException {
    return RingBytes.of(
        StructureType.WINDOWED_HEAVY_HITTERS,
        hash,
        empty,
        empty::copy,
        slot::copy,
        HeavyHitters::writeTo);
  }
}
