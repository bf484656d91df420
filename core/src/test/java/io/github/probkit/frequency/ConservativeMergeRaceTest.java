package io.github.probkit.frequency;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.frequency.CountMinSketch.UpdateRule;
import io.github.probkit.hash.HashStrategy;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A conservative merge reads the other sketch's counters and total as one state. Before, it read
 * the counters, then the total, without the other's lock: an add between the two left a merged
 * counter above the merged total, which the reader rejects ("count-min counter ... must be in [0,
 * total count ...]"). One item added over and over keeps every counter it touches at the total, so
 * any add caught half-way shows.
 */
class ConservativeMergeRaceTest {
  @Test
  void mergingASketchThatIsBeingAddedToGivesAConsistentSketch() throws Exception {
    CountMinSketch busy =
        CountMinSketch.withDimensions(4, 2, HashStrategy.xxh3(), UpdateRule.CONSERVATIVE);
    AtomicBoolean stop = new AtomicBoolean();
    Thread adder =
        new Thread(
            () -> {
              while (!stop.get()) {
                busy.add(42L);
              }
            });
    adder.start();
    try {
      for (int round = 0; round < 20_000; round++) {
        CountMinSketch merged =
            CountMinSketch.withDimensions(4, 2, HashStrategy.xxh3(), UpdateRule.CONSERVATIVE);
        merged.merge(busy);
        long total = merged.totalCount();
        for (int r = 0; r < 2; r++) {
          for (int c = 0; c < 4; c++) {
            assertThat(merged.counter(r, c))
                .as("round %d: counter (%d, %d) against the total", round, r, c)
                .isLessThanOrEqualTo(total);
          }
        }
        if (round % 1_000 == 0) {
          assertThat(roundTrip(merged)).isEqualTo(merged);
        }
      }
    } finally {
      stop.set(true);
      adder.join();
    }
    assertThat(roundTrip(busy)).isEqualTo(busy);
  }

  private static CountMinSketch roundTrip(CountMinSketch s) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    s.writeTo(out);
    return CountMinSketch.readFrom(new ByteArrayInputStream(out.toByteArray()));
  }
}
