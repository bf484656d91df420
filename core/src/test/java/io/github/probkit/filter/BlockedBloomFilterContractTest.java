package io.github.probkit.filter;

import io.github.probkit.testing.Theory;
import java.util.List;

class BlockedBloomFilterContractTest extends MembershipFilterContract {
  @Override
  protected MembershipFilter build(long expectedKeys, double fpp, List<byte[]> keys) {
    BlockedBloomFilter f = BlockedBloomFilter.create(expectedKeys, fpp);
    keys.forEach(f::add);
    return f;
  }

  /**
   * The exact Poisson mixture at the filter's blocks and probes (the sizing search that chose them
   * is checked at its boundaries in BlockedBloomFilterTest).
   */
  @Override
  protected Theory.Rate predictedRate(
      MembershipFilter f, long expectedKeys, double fpp, int keysAdded) {
    BlockedBloomFilter b = (BlockedBloomFilter) f;
    return Theory.blocked(b.blockCount(), keysAdded, b.hashCount(), BlockedBloomFilter.BLOCK_BITS);
  }
}
