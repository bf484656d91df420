package io.github.probkit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.frequency.CountMinSketch;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * countmin.lua, the scripted add (conservative rule, or the standard one on several shards),
 * against the library batch by batch: after every batch the export is the library's file after the
 * same adds, so one counter raised too far, or not raised, fails it. Both ways the script reads and
 * writes a shard: one range for a narrow sketch (many counters per byte), a BITFIELD sub-command
 * per counter for a wide one; and both ways it counts: plain numbers, and exact halves once a
 * counter nears 2^53, where Lua's numbers stop being exact, up to saturation at 2^63 - 1.
 */
class CountMinScriptTest extends WithServer {
  private static final long TWO_53 = 1L << 53;

  private static void assertSame(RedisCountMinSketch r, CountMinSketch s, String after)
      throws IOException {
    assertThat(EquivalenceTest.bytesOf(r::exportTo))
        .as("export after %s", after)
        .isEqualTo(EquivalenceTest.bytesOf(s::writeTo));
  }

  private static RedisCountMinSketch create(
      String name, int width, int shards, boolean conservative) {
    return RedisCountMinSketch.create(
        store, name, width, 5, conservative, RedisOptions.defaults().shards(shards));
  }

  private static CountMinSketch library(int width, boolean conservative) {
    CountMinSketch s = CountMinSketch.withDimensions(width, 5, RedisOptions.defaults().hash());
    return conservative ? s.withConservativeUpdate() : s;
  }

  /** Batches that name an item many times, in counts of 1 and as counts of all sizes. */
  @ParameterizedTest(name = "width {0}, {1} shards, conservative {2}")
  @CsvSource({"61,1,true", "61,3,true", "61,2,false", "20000,1,true", "20000,3,false"})
  void batchesOfRepeatedItems(int width, int shards, boolean conservative) throws IOException {
    RedisCountMinSketch r =
        create("cms-repeat-" + width + shards + conservative, width, shards, conservative);
    CountMinSketch s = library(width, conservative);
    SplittableRandom rnd = new SplittableRandom(0xbadc0ffeeL + width);
    for (int b = 0; b < 30; b++) {
      if (b % 2 == 0) {
        List<String> batch = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
          batch.add("item-" + rnd.nextInt(25)); // about 15 repeats a batch
        }
        r.addAll(batch);
        batch.forEach(k -> s.add(k, 1));
      } else {
        Map<Object, Long> batch = new LinkedHashMap<>();
        for (int i = 0; i < 40; i++) {
          long c = i % 13 == 0 ? (1L << 40) + rnd.nextInt(100) : i % 7 == 0 ? 0 : rnd.nextInt(9);
          batch.put("item-" + rnd.nextInt(60), c);
        }
        r.addAll(batch);
        batch.forEach((k, c) -> s.add((String) k, c));
      }
      assertSame(r, s, "batch " + b);
    }
    r.delete();
  }

  /** Counters crossing 2^53 inside a batch, read and raised above it, and saturating. */
  @ParameterizedTest(name = "width {0}, {1} shards, conservative {2}")
  @CsvSource({"61,1,true", "61,3,true", "61,2,false", "20000,1,true", "20000,3,false"})
  void countersNearTwoTo53AndSaturated(int width, int shards, boolean conservative)
      throws IOException {
    RedisCountMinSketch r =
        create("cms-2^53-" + width + shards + conservative, width, shards, conservative);
    CountMinSketch s = library(width, conservative);
    r.addAll(Map.of("zero", 0L)); // a batch of nothing to add: no counter, and not the total
    assertSame(r, s, "a count of 0");
    // One count just above 2^53, into zeros: a sum of doubles would round it to 2^53.
    r.add("odd", TWO_53 + 1);
    s.add("odd", TWO_53 + 1);
    assertSame(r, s, "2^53 + 1 into zeros");
    r.add("b", TWO_53 - 2);
    s.add("b", TWO_53 - 2);
    // The same item three times in one batch: 2^53 - 1, 2^53, then 2^53 + 1.
    r.addAll(List.of("b", "b", "b"));
    for (int i = 0; i < 3; i++) {
      s.add("b", 1);
    }
    assertSame(r, s, "b crossing 2^53 in one batch");
    r.add("b", 5);
    s.add("b", 5);
    assertSame(r, s, "b read above 2^53");
    // Small counts beside the large counters, in the same shards: their neighbours must be kept.
    SplittableRandom rnd = new SplittableRandom(53);
    List<String> small = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      small.add("small-" + rnd.nextInt(30));
    }
    r.addAll(small);
    small.forEach(k -> s.add(k, 1));
    assertSame(r, s, "small counts beside counters above 2^53");
    r.add("sat", Long.MAX_VALUE - 5);
    s.add("sat", Long.MAX_VALUE - 5);
    Map<Object, Long> past = new LinkedHashMap<>();
    past.put("sat", 100L);
    past.put("b", Long.MAX_VALUE);
    past.put("odd", 3L);
    r.addAll(past);
    past.forEach((k, c) -> s.add((String) k, c));
    assertSame(r, s, "saturation");
    r.addAll(List.of("sat", "sat", "odd"));
    List.of("sat", "sat", "odd").forEach(k -> s.add(k, 1));
    assertSame(r, s, "adds to saturated counters");
    assertThat(r.estimate("sat")).isEqualTo(Long.MAX_VALUE);
    r.delete();
  }
}
