package io.github.probkit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.commons.math3.distribution.BinomialDistribution;
import org.junit.jupiter.api.Test;

/**
 * A fleet of 8 writers, each with its own connection and its own clock (up to an hour apart), on
 * one redis-server, sharing a 7-day window over two weeks of event time: every key added within the
 * window of the end is reported present, and never-added keys are false positives at no more than
 * the rate p allows (a binomial bound at 99.9 %).
 */
class WindowedFleetTest extends WithServer {
  private static final Duration WINDOW = Duration.ofDays(7);
  private static final Duration SKEW = Duration.ofHours(1);
  private static final int WRITERS = 8;
  private static final int EVENTS = 24_000;
  private static final double FPP = 0.01;

  @Test
  void eightWritersLoseNoKeyInsideTheWindow() throws Exception {
    long span = 2 * WINDOW.toMillis();
    RedisOptions o = RedisOptions.defaults().maxSkew(SKEW).openIfExists(true);
    // Sized for the keys of one window: half the events of two weeks.
    long d =
        RedisWindowedBloomFilter.create(store, "fleet", WINDOW, EVENTS / 2, FPP, o)
            .generationMillis();
    // The end at a generation's start: the fastest clocks' last events are in it, and the slowest
    // clocks, half an hour behind, still in the generation before, whose oldest slice they need.
    long end = Math.floorDiv(1_700_000_000_000L, d) * d;
    long t0 = end - span;
    long[] stamped = new long[EVENTS];
    runFleet(
        WRITERS,
        SKEW,
        (own, writer, offset) -> {
          // Each writer "creates" it, as every process of a fleet would.
          RedisWindowedBloomFilter f =
              RedisWindowedBloomFilter.create(own, "fleet", WINDOW, EVENTS / 2, FPP, o);
          // Writer w sends the events w, w + 8, ... in batches of 100: all the writers'
          // last events are near the end, the fastest clock's past the last boundary.
          List<Object> keys = new ArrayList<>();
          long[] times = new long[100];
          for (int e = writer; e < EVENTS; e += WRITERS) {
            // Event e happens at this true time, stamped by this writer's clock.
            times[keys.size()] = t0 + span * e / EVENTS + offset;
            stamped[e] = times[keys.size()];
            keys.add("user-" + e);
            if (keys.size() == times.length || e + WRITERS >= EVENTS) {
              f.addAll(keys, Arrays.copyOf(times, keys.size()));
              keys.clear();
            }
          }
        });

    RedisWindowedBloomFilter f = RedisWindowedBloomFilter.open(store, "fleet");
    assertThat(f.generation())
        .as("the fastest clocks reached the end's generation")
        .isEqualTo(end / d);
    // Readers at the true end and at the clocks of the slowest and the fastest writer.
    for (long at : new long[] {end, end - SKEW.toMillis() / 2, end + SKEW.toMillis() / 2}) {
      List<Object> inside = new ArrayList<>();
      for (int e = 0; e < EVENTS; e++) {
        if (at - stamped[e] < WINDOW.toMillis()) {
          inside.add("user-" + e);
        }
      }
      assertThat(inside).hasSizeGreaterThan(EVENTS / 3);
      int missing = 0;
      for (boolean present : f.mightContainAll(inside, at)) {
        missing += present ? 0 : 1;
      }
      assertThat(missing).as("keys inside the window at %d reported absent", at).isZero();
    }

    int trials = 20_000;
    List<Object> never = new ArrayList<>();
    for (int i = 0; i < trials; i++) {
      never.add("never-" + i);
    }
    int fp = 0;
    for (boolean present : f.mightContainAll(never, end)) {
      fp += present ? 1 : 0;
    }
    long bound = new BinomialDistribution(null, trials, FPP).inverseCumulativeProbability(0.999);
    System.out.printf(
        "fleet: %d never-added keys, %d false positives (%.4f; p = %s, bound %d)%n",
        trials, fp, fp / (double) trials, FPP, bound);
    assertThat((long) fp).isLessThanOrEqualTo(bound);
  }
}
