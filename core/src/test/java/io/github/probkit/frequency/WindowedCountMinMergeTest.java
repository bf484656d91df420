package io.github.probkit.frequency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link WindowedCountMin#merge}: two rings fed the two halves of a stream (late events included)
 * merge into the bytes of one ring fed all of it, whichever is newer; estimates of the merged ring
 * are never below the exact counts of their slices; rings of other slices or sketches are refused
 * before anything changes.
 */
class WindowedCountMinMergeTest {
  private static final Duration WINDOW = Duration.ofHours(1);
  private static final Duration SLICE = Duration.ofMinutes(5);
  private static final long T0 = 1_700_000_000_000L;

  private static WindowedCountMin ring() {
    return WindowedCountMin.create(WINDOW, SLICE, CountMinSketch.withDimensions(300, 4));
  }

  private static byte[] bytes(WindowedCountMin w) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    w.writeTo(out);
    return out.toByteArray();
  }

  @Test
  void halvesMergeIntoTheRingOfTheWholeStream() throws IOException {
    int n = 20_000;
    SplittableRandom r = new SplittableRandom(50);
    String[] item = new String[n];
    long[] time = new long[n];
    long clock = T0;
    for (int i = 0; i < n; i++) {
      clock += r.nextInt(1_800); // about 5 hours
      time[i] = clock - (r.nextInt(8) == 0 ? r.nextLong(20 * 60_000L) : 0);
      item[i] = "w" + (int) Math.floor(Math.pow(500, r.nextDouble()));
    }
    WindowedCountMin whole = ring();
    WindowedCountMin a = ring();
    WindowedCountMin b = ring();
    for (int i = 0; i < n; i++) {
      assertThat(whole.add(item[i], 1, time[i])).isTrue();
      // The last events go to b: a is older, and must move to b's newest slice.
      assertThat((i % 2 == 0 && i < n - 2_000 ? a : b).add(item[i], 1, time[i])).isTrue();
    }
    assertThat(b.newestSlice()).isGreaterThan(a.newestSlice());
    WindowedCountMin ab = WindowedCountMin.readFrom(new java.io.ByteArrayInputStream(bytes(a)));
    assertThat(bytes(ab.merge(b))).isEqualTo(bytes(whole));
    // The other way round: b is already at the newest slice.
    assertThat(bytes(b.merge(a))).isEqualTo(bytes(whole));

    long now = clock;
    long from = Math.floorDiv(now - WINDOW.toMillis(), SLICE.toMillis());
    Map<String, Long> exact = new HashMap<>();
    for (int i = 0; i < n; i++) {
      if (Math.floorDiv(time[i], SLICE.toMillis()) >= from) {
        exact.merge(item[i], 1L, Long::sum);
      }
    }
    assertThat(exact).hasSizeGreaterThan(100);
    exact.forEach(
        (k, c) -> assertThat(ab.estimate(k, WINDOW, now)).as(k).isGreaterThanOrEqualTo(c));
  }

  @Test
  void anEmptyRingMergesAsNothingAndAnEmptyRingTakesTheOther() throws IOException {
    WindowedCountMin w = ring();
    w.add("x", 3, T0);
    w.add("y", 2, T0 + SLICE.toMillis());
    byte[] before = bytes(w);
    assertThat(w.merge(ring())).isSameAs(w);
    assertThat(bytes(w)).isEqualTo(before);
    WindowedCountMin into = ring();
    assertThat(into.merge(w)).isSameAs(into);
    assertThat(bytes(into)).isEqualTo(before);
    assertThat(into.estimate("x", WINDOW, T0 + SLICE.toMillis())).isEqualTo(3);
  }

  @Test
  void ringsOfOtherSlicesOrSketchesAreRefusedBeforeAnythingChanges() throws IOException {
    WindowedCountMin w = ring();
    w.add("x", 3, T0);
    byte[] before = bytes(w);
    WindowedCountMin otherSlices =
        WindowedCountMin.create(
            WINDOW, Duration.ofMinutes(10), CountMinSketch.withDimensions(300, 4));
    otherSlices.add("x", 1, T0 + 3_600_000L);
    assertThatThrownBy(() -> w.merge(otherSlices))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("slices of 600000 ms");
    WindowedCountMin otherSketch =
        WindowedCountMin.create(WINDOW, SLICE, CountMinSketch.withDimensions(200, 4));
    otherSketch.add("x", 1, T0 + 3_600_000L);
    assertThatThrownBy(() -> w.merge(otherSketch)).isInstanceOf(IllegalArgumentException.class);
    assertThat(bytes(w)).isEqualTo(before);
  }
}
