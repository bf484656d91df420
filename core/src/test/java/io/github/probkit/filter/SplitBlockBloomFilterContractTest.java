package io.github.probkit.filter;

import io.github.probkit.testing.Theory;
import java.util.List;

class SplitBlockBloomFilterContractTest extends MembershipFilterContract {
  @Override
  protected MembershipFilter build(long expectedKeys, double fpp, List<byte[]> keys) {
    SplitBlockBloomFilter f = SplitBlockBloomFilter.create(expectedKeys, fpp);
    keys.forEach(f::add);
    return f;
  }

  /**
   * Parquet's sizing rounds up to a power of two bytes, so the rate is at most the one its formula
   * gives the unrounded size: what the requested rate means here.
   */
  @Override
  protected double promisedFpp(long expectedKeys, double fpp, int keysAdded) {
    double bits = -8.0 * expectedKeys / Math.log(1 - Math.pow(fpp, 1.0 / 8));
    return Theory.splitBlock((long) Math.ceil(bits / 256), keysAdded).mean();
  }

  /** The exact mixture at the filter's blocks (its sizing is compared with parquet-java's). */
  @Override
  protected Theory.Rate predictedRate(
      MembershipFilter f, long expectedKeys, double fpp, int keysAdded) {
    return Theory.splitBlock(((SplitBlockBloomFilter) f).blockCount(), keysAdded);
  }
}
