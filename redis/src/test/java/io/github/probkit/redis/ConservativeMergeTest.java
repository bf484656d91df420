package io.github.probkit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.frequency.CountMinSketch;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A conservative count-min sketch keeps its total N apart from its counters, and no counter of it
 * may exceed N. A merge into one in Redis writes the counters in many commands while other clients
 * read, so it must raise the total before the first of them, and not at all when it refuses the
 * merge.
 */
class ConservativeMergeTest extends WithServer {
  private static final int WIDTH = 50_000;

  /**
   * One row, so that an item's estimate is its one counter; 200 heavy items among 40,000 light
   * ones, so that the first heavy counter is written early in the merge's 400 commands of 100
   * counters. A reader that asks for the estimates and then for the total must find no estimate
   * above the total, whichever moment of the merge it reads.
   */
  @Test
  void noReaderSeesACounterAboveTheTotalDuringAMerge() throws Exception {
    CountMinSketch theirs = CountMinSketch.withDimensions(WIDTH, 1).withConservativeUpdate();
    List<String> heavy = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      heavy.add("heavy" + i);
      theirs.add("heavy" + i, 1_000_000);
    }
    for (int i = 0; i < 40_000; i++) {
      theirs.add("light" + i, 1);
    }
    try (RedisStore merging = RedisStore.connect(server.uri()).batchSize(100)) {
      RedisCountMinSketch target =
          RedisCountMinSketch.create(
              merging, "conservative-merge", WIDTH, 1, true, RedisOptions.defaults());
      RedisCountMinSketch reader = RedisCountMinSketch.open(store, "conservative-merge");
      AtomicBoolean done = new AtomicBoolean();
      CompletableFuture<Long> reads =
          CompletableFuture.supplyAsync(
              () -> {
                long n = 0;
                while (!done.get()) {
                  long highest = 0;
                  for (long e : reader.estimateAll(heavy)) {
                    highest = Math.max(highest, e);
                  }
                  long total = reader.totalCount();
                  assertThat(highest)
                      .as("an estimate against the total read after it")
                      .isLessThanOrEqualTo(total);
                  n++;
                }
                return n;
              });
      try {
        for (int round = 1; round <= 3 && !reads.isDone(); round++) {
          target.merge(theirs);
        }
      } finally {
        done.set(true);
      }
      assertThat(reads.get()).isPositive();
      assertThat(target.totalCount()).isEqualTo(3 * theirs.totalCount());
      assertThat(target.estimate("heavy0")).isEqualTo(3 * theirs.estimate("heavy0"));
      target.delete();
    }
  }

  @Test
  void aRefusedMergeLeavesTheTotalAsItWas() {
    RedisCountMinSketch r =
        RedisCountMinSketch.create(
            store, "conservative-refused", 100, 3, true, RedisOptions.defaults());
    r.add("a", 7);
    CountMinSketch standard = CountMinSketch.withDimensions(100, 3);
    standard.add("b", 5);
    CountMinSketch narrower = CountMinSketch.withDimensions(99, 3).withConservativeUpdate();
    narrower.add("b", 5);
    assertThatThrownBy(() -> r.merge(standard)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> r.merge(narrower)).isInstanceOf(IllegalArgumentException.class);
    assertThat(r.totalCount()).isEqualTo(7);
    assertThat(r.estimate("a")).isEqualTo(7);
    r.delete();
  }
}
