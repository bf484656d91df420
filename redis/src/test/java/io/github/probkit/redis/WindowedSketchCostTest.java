package io.github.probkit.redis;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What a window costs in Redis: 50,000 keys added in the default batches of 1,000 to a windowed
 * HyperLogLog (p = 14, a day in hourly slices, the keys' times spread over the day) and to a {@link
 * RedisCardinalitySketch} of the same precision, then 20 counts of the last day against 20
 * estimates; the same for a windowed count-min (epsilon 0.001, delta 0.01) against a {@link
 * RedisCountMinSketch}, with estimates of 10,000 items. Rounds alternate the two, each on new
 * structures; prints the median of 3 (docs/REDIS.md). Tagged slow (timing is printed, never
 * asserted): {@code mvn -pl redis -am test -Dtest=WindowedSketchCostTest -Dprobkit.excludedGroups=
 * -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@Tag("slow")
class WindowedSketchCostTest extends WithServer {
  private static final int KEYS = 50_000;
  private static final int ROUNDS = 3;
  private static final int COUNTS = 20;
  private static final long T0 = 1_700_000_000_000L;
  private static final Duration DAY = Duration.ofDays(1);
  private static final Duration HOUR = Duration.ofHours(1);

  @Test
  void measure() {
    List<Object> keys = StoreTest.keys("user:", KEYS);
    long[] times = new long[KEYS];
    for (int i = 0; i < KEYS; i++) {
      times[i] = T0 + DAY.toMillis() * i / KEYS;
    }
    long end = times[KEYS - 1];
    List<Object> probe = keys.subList(0, 10_000);
    // [structure][add, query] per round, in ns
    long[][][] ns = new long[4][2][ROUNDS];
    RedisOptions o = RedisOptions.defaults();
    for (int round = 0; round < ROUNDS; round++) {
      String r = "r" + round;
      long t = System.nanoTime();
      RedisWindowedCardinality wh =
          RedisWindowedCardinality.create(store, r + "wh", DAY, HOUR, false, 14, o);
      wh.addAll(keys, times);
      ns[0][0][round] = System.nanoTime() - t;
      t = System.nanoTime();
      for (int i = 0; i < COUNTS; i++) {
        wh.count(DAY, end);
      }
      ns[0][1][round] = System.nanoTime() - t;

      t = System.nanoTime();
      RedisCardinalitySketch h = RedisCardinalitySketch.createHyperLogLog(store, r + "h", 14, o);
      h.addAll(keys);
      ns[1][0][round] = System.nanoTime() - t;
      t = System.nanoTime();
      for (int i = 0; i < COUNTS; i++) {
        h.estimate();
      }
      ns[1][1][round] = System.nanoTime() - t;

      t = System.nanoTime();
      RedisWindowedCountMin wc =
          RedisWindowedCountMin.create(store, r + "wc", DAY, HOUR, 0.001, 0.01, o);
      long[] ones = new long[KEYS];
      Arrays.fill(ones, 1);
      wc.addAll(keys, ones, times);
      ns[2][0][round] = System.nanoTime() - t;
      t = System.nanoTime();
      wc.estimateAll(probe, DAY, end);
      ns[2][1][round] = System.nanoTime() - t;

      t = System.nanoTime();
      RedisCountMinSketch c = RedisCountMinSketch.create(store, r + "c", 0.001, 0.01, false, o);
      c.addAll(keys);
      ns[3][0][round] = System.nanoTime() - t;
      t = System.nanoTime();
      c.estimateAll(probe);
      ns[3][1][round] = System.nanoTime() - t;
    }
    String[] names = {
      "windowed HLL p14, 25 x 1 h",
      "RedisCardinalitySketch p14",
      "windowed count-min 2719x5, 25 x 1 h",
      "RedisCountMinSketch 2719x5"
    };
    for (int s = 0; s < 4; s++) {
      long add = median(ns[s][0]);
      long query = median(ns[s][1]);
      System.out.printf(
          Locale.ROOT,
          "%-38s add %6.1f us/key   %s%n",
          names[s],
          add / 1e3 / KEYS,
          s < 2
              ? String.format(Locale.ROOT, "count %7.2f ms each", query / 1e6 / COUNTS)
              : String.format(Locale.ROOT, "estimate %6.1f us/item", query / 1e3 / probe.size()));
    }
  }

  private static long median(long[] v) {
    long[] s = v.clone();
    Arrays.sort(s);
    return s[s.length / 2];
  }
}
