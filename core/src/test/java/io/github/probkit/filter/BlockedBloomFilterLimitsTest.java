package io.github.probkit.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.hash.HashStrategy;
import org.junit.jupiter.api.Test;

/** The blocked filter's answers at its limits that the other tests reach only from one side. */
class BlockedBloomFilterLimitsTest {

  /**
   * One key in a very large filter: the rate keeps falling well past 64 probes (about (k/512)^k
   * while k/512 < 1/e), so the walk must stop at the cap the format allows, not one past it.
   */
  @Test
  void theProbeCountStopsAtTheFormatsCap() {
    assertThat(BlockedBloomFilter.optimalHashes(1L << 40, 1))
        .isEqualTo(BlockedBloomFilter.MAX_HASHES);
    assertThat(BlockedBloomFilter.falsePositiveRate(1L << 40, 1, 65))
        .isLessThan(BlockedBloomFilter.falsePositiveRate(1L << 40, 1, 64));
    BlockedBloomFilter sparse = BlockedBloomFilter.create(1, 1e-30);
    assertThat(sparse.hashCount()).isBetween(1, BlockedBloomFilter.MAX_HASHES);
    sparse.add("only");
    assertThat(sparse.mightContain("only")).isTrue();
  }

  /** Each of size, probes and hashing alone makes two filters unmergeable, and says which. */
  @Test
  void compatibilityNamesEachDifference() {
    BlockedBloomFilter a = BlockedBloomFilter.withBits(1 << 16, 6);
    assertThat(a.isCompatible(BlockedBloomFilter.withBits(1 << 16, 6))).isTrue();
    BlockedBloomFilter[] others = {
      BlockedBloomFilter.withBits(1 << 17, 6),
      BlockedBloomFilter.withBits(1 << 16, 7),
      BlockedBloomFilter.withBits(1 << 16, 6, HashStrategy.fnv1a()),
    };
    String[] named = {"different sizes", "different hash counts", "different hashing"};
    for (int i = 0; i < others.length; i++) {
      BlockedBloomFilter other = others[i];
      assertThat(a.isCompatible(other)).isFalse();
      assertThat(other.isCompatible(a)).isFalse();
      assertThatThrownBy(() -> a.merge(other)).hasMessageContaining(named[i]);
    }
    assertThat(a.isCompatible(BloomFilter.withBits(1 << 16, 6))).isFalse();
  }
}
