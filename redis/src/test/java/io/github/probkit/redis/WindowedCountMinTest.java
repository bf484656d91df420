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
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The Redis-resident windowed count-min against the library's {@link WindowedCountMin}: the same
 * bytes, flags and estimates for the same events (late ones, a long gap and events older than the
 * ring included), import and export.
 */
class WindowedCountMinTest extends WithServer {
  private static final Duration SLICE = Duration.ofMinutes(1);
  private static final Duration WINDOW = Duration.ofMinutes(10);
  private static final HashStrategy HASH = HashStrategy.xxh3(0x5eed_0f_a9_e5L);

  private static byte[] fileOf(WindowedCountMin w) throws IOException {
    return EquivalenceTest.bytesOf(w::writeTo);
  }

  @Test
  void sameBytesFlagsAndEstimatesAsTheLibrary() throws IOException {
    RedisOptions o = RedisOptions.defaults().hash(HASH).maxSkew(Duration.ZERO);
    RedisWindowedCountMin r = RedisWindowedCountMin.create(store, "cms", WINDOW, SLICE, 200, 4, o);
    WindowedCountMin lib =
        WindowedCountMin.create(WINDOW, SLICE, CountMinSketch.withDimensions(200, 4, HASH));
    assertThat(WindowedCardinalityTest.exportOf(r)).isEqualTo(fileOf(lib));
    int n = 6_000;
    long[] t = WindowedCardinalityTest.times(n, 50);
    SplittableRandom rnd = new SplittableRandom(50);
    for (int from = 0; from < n; from += 500) {
      List<Object> items = new ArrayList<>();
      long[] counts = new long[500];
      long[] times = new long[500];
      boolean[] expected = new boolean[500];
      for (int i = from; i < from + 500; i++) {
        String item = "item-" + rnd.nextInt(140);
        items.add(item);
        counts[i - from] = i % 97 == 0 ? 1L << 40 : 1 + rnd.nextInt(3);
        times[i - from] = t[i];
        expected[i - from] = lib.add(item, counts[i - from], t[i]);
      }
      assertThat(r.addAll(items, counts, times))
          .as("flags of events %d..", from)
          .isEqualTo(expected);
      assertThat(WindowedCardinalityTest.exportOf(r))
          .as("after %d events", from + 500)
          .isEqualTo(fileOf(lib));
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

  @Test
  void countersSaturateAsTheLibrarysDo() throws IOException {
    RedisOptions o = RedisOptions.defaults().hash(HASH).maxSkew(Duration.ZERO);
    RedisWindowedCountMin r = RedisWindowedCountMin.create(store, "sat", WINDOW, SLICE, 64, 2, o);
    WindowedCountMin lib =
        WindowedCountMin.create(WINDOW, SLICE, CountMinSketch.withDimensions(64, 2, HASH));
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
    assertThatThrownBy(
            () ->
                store.importFrom(
                    "cons", new ByteArrayInputStream(fileOf(cons)), RedisOptions.defaults()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("conservative");
    assertThat(store.exists("cons")).isFalse();
    RedisWindowedCountMin r =
        RedisWindowedCountMin.create(store, "neg", WINDOW, SLICE, 64, 2, RedisOptions.defaults());
    assertThatThrownBy(() -> r.add("x", -1, 0)).isInstanceOf(IllegalArgumentException.class);
  }
}
