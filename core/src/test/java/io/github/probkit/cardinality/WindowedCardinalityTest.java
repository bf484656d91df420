package io.github.probkit.cardinality;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.hash.HashStrategy;
import io.github.probkit.io.StructureType;
import io.github.probkit.testing.RingBytes;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Windowed distinct counts against exact counts over the same slices: about four days of events at
 * a rate swinging by a factor of five, keys repeating (drawn from a pool that drifts with time),
 * some events late; the count of the last 1 h, 6 h and 24 h at many moments is within the
 * underlying sketch's error.
 */
class WindowedCardinalityTest {
  private static final long HOUR = 3_600_000L;

  /**
   * 4.0 standard errors: 27 checks per sketch, each two-sided normal beyond 4.0 with chance 6.3e-5,
   * so correct sketches fail the test with chance under 0.4 %.
   */
  private static final double SIGMAS = 4.0;

  @Test
  void countOfTheLastWindowIsWithinTheSketchErrorOfTheExactCount() {
    for (Supplier<CardinalitySketch> empty :
        java.util.List.<Supplier<CardinalitySketch>>of(
            () -> HyperLogLog.create(12), () -> UltraLogLog.create(12))) {
      WindowedCardinality w =
          WindowedCardinality.create(Duration.ofHours(24), Duration.ofHours(1), empty.get());
      assertThat(w.sliceCount()).isEqualTo(25);
      SplittableRandom rnd = new SplittableRandom(0xD15_71CL);
      int n = 400_000;
      long[] times = new long[n];
      long[] keys = new long[n];
      long t0 = 1_700_000_000_000L;
      long clock = t0;
      int checks = 0;
      for (int i = 0; i < n; i++) {
        double rate = 0.6 + 0.4 * Math.sin(2 * Math.PI * (clock - t0) / (24.0 * HOUR));
        clock += (long) (500 / rate * -Math.log(1 - rnd.nextDouble()));
        times[i] = clock - (rnd.nextInt(10) == 0 ? rnd.nextLong(2 * HOUR) : 0);
        // A pool that drifts: old keys stop coming back, new ones appear.
        keys[i] = (clock - t0) / 20_000 + rnd.nextInt(20_000);
        w.add(keys[i], times[i]);
        if (i > 0 && i % 40_000 == 0) {
          long now = Math.max(clock, times[i]);
          for (Duration last :
              new Duration[] {Duration.ofHours(1), Duration.ofHours(6), Duration.ofHours(24)}) {
            long from = Math.floorDiv(now - last.toMillis(), HOUR);
            long to = Math.floorDiv(now, HOUR);
            Set<Long> exact = new HashSet<>();
            for (int j = 0; j <= i; j++) {
              long s = Math.floorDiv(times[j], HOUR);
              if (s >= from && s <= to) {
                exact.add(keys[j]);
              }
            }
            CardinalitySketch sketch = w.sketchOfLast(last, now);
            double est = sketch.estimate();
            double err = (est - exact.size()) / exact.size();
            assertThat(Math.abs(err))
                .as(
                    "%s last %s at event %d: %.0f against %d",
                    sketch.type(), last, i, est, exact.size())
                .isLessThanOrEqualTo(SIGMAS * sketch.relativeStandardError());
            assertThat(w.count(last, now)).isEqualTo(est);
            checks++;
          }
        }
      }
      assertThat(checks).isEqualTo(27);
    }
  }

  @Test
  void oldSlicesAreDroppedAndLateEventsOlderThanTheRingIgnored() {
    WindowedCardinality w =
        WindowedCardinality.create(
            Duration.ofHours(2), Duration.ofHours(1), HyperLogLog.create(12));
    long t = 1_000 * HOUR;
    for (int i = 0; i < 1_000; i++) {
      w.add("early-" + i, t);
    }
    assertThat(w.count(Duration.ofHours(2), t)).isBetween(950.0, 1_050.0);
    w.add("later", t + 3 * HOUR);
    assertThat(w.count(Duration.ofHours(2), t + 3 * HOUR)).isBetween(0.5, 1.5);
    assertThat(w.add("too-late", t)).isFalse();
    assertThatThrownBy(() -> w.count(Duration.ofHours(3), t))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("the ring keeps 3");
  }

  /** Each form of add says whether a slice changed: new key yes, repeat no, late event no. */
  @Test
  void everyAddSaysWhetherItChangedASliceAndALateOneNever() {
    long t = 1_000 * HOUR;
    Clock clock = Clock.fixed(Instant.ofEpochMilli(t), ZoneOffset.UTC);
    WindowedCardinality w =
        WindowedCardinality.create(
            Duration.ofHours(2), Duration.ofHours(1), UltraLogLog.create(10), clock);
    byte[] key = "bytes".getBytes(StandardCharsets.UTF_8);
    assertThat(w.add("clock")).isTrue();
    assertThat(w.add("clock")).isFalse();
    assertThat(w.add("chars", t)).isTrue();
    assertThat(w.add("chars", t)).isFalse();
    assertThat(w.add(key, 0, key.length, t)).isTrue();
    assertThat(w.add(key, 0, key.length, t)).isFalse();
    assertThat(w.add(42L, t)).isTrue();
    assertThat(w.add(42L, t)).isFalse();
    assertThat(w.count(Duration.ofHours(2))).isBetween(3.5, 4.5);
    assertThat(w.sliceMillis()).isEqualTo(HOUR);
    assertThat(w.sliceCount()).isEqualTo(3);
    assertThat(w.byteSize()).isEqualTo(3 * UltraLogLog.create(10).byteSize());

    w.advanceTo(t + 4 * HOUR);
    assertThat(w.newestSlice()).isEqualTo(1_004);
    assertThat(w.add("fresh", t)).isFalse();
    assertThat(w.add(key, 0, key.length, t)).isFalse();
    assertThat(w.add(43L, t)).isFalse();
    assertThat(w.count(Duration.ofHours(2))).isZero();
  }

  @Test
  void aPrototypeWithKeysIsRefused() {
    UltraLogLog used = UltraLogLog.create(10);
    used.add("x");
    assertThatThrownBy(
            () -> WindowedCardinality.create(Duration.ofHours(2), Duration.ofHours(1), used))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("empty");
  }

  /**
   * Sound bytes whose parts disagree: an empty slice with keys (every new slice would start with
   * them), one of another hash than the ring's, slots of another precision or type.
   */
  @Test
  void aRingWhosePartsDisagreeIsRefused() throws IOException {
    UltraLogLog empty = UltraLogLog.create(10);
    UltraLogLog used = UltraLogLog.create(10);
    used.add("x");
    RingBytes.assertRefused(
        WindowedCardinality::readFrom, ring(HashStrategy.xxh3(), used, empty), "empty slice");
    RingBytes.assertRefused(
        WindowedCardinality::readFrom,
        ring(HashStrategy.fnv1a(), empty, empty),
        "empty slice's hash");
    RingBytes.assertRefused(
        WindowedCardinality::readFrom,
        ring(HashStrategy.xxh3(), empty, UltraLogLog.create(11)),
        "slot 1");
    RingBytes.assertRefused(
        WindowedCardinality::readFrom,
        ring(HashStrategy.xxh3(), empty, HyperLogLog.create(10)),
        "slot 1");
    WindowedCardinality.readFrom(new ByteArrayInputStream(ring(HashStrategy.xxh3(), empty, empty)));
  }

  private static byte[] ring(HashStrategy hash, CardinalitySketch empty, CardinalitySketch slot)
      throws IOException {
    return RingBytes.of(
        StructureType.WINDOWED_CARDINALITY,
        hash,
        empty,
        empty::copy,
        slot::copy,
        CardinalitySketch::writeTo);
  }
}
