package io.github.probkit.cli.format;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class DistinctHashesTest {
  @Test
  void keepsEachHashOnceWhateverTheRepeatsAndGrowth() {
    SplittableRandom random = new SplittableRandom(7);
    for (int distinct : new int[] {0, 1, 9, 1000, 300_000}) {
      long[] pool = new long[distinct];
      for (int i = 0; i < distinct; i++) {
        // Some hashes share their top bits, the slot they start probing from: up to 1,024 in one
        // run of the table, enough to probe past many and re-place them as the table grows (with
        // 65,536 each add probed ~30,000 slots: two minutes of CPU, and no more caught).
        pool[i] = i % 3 == 0 ? random.nextLong() : (random.nextLong() & 0x3FFL) | (1L << 62);
      }
      if (distinct > 1) {
        pool[1] = 0; // the hash 0, kept aside of the table
      }
      FilterTypes.DistinctHashes set = new FilterTypes.DistinctHashes(distinct / 4);
      Set<Long> expected = new HashSet<>();
      for (int i = 0; i < 5 * distinct; i++) {
        long h = pool[random.nextInt(distinct)];
        set.add(h);
        expected.add(h);
      }
      long[] got = set.toArray();
      assertThat(got).hasSize(expected.size());
      assertThat(set.size()).isEqualTo(expected.size());
      Set<Long> gotSet = new HashSet<>();
      Arrays.stream(got).forEach(gotSet::add);
      assertThat(gotSet).isEqualTo(expected);
    }
  }
}
