package io.github.probkit.filter;

import io.github.probkit.testing.Theory;

class CountingBloomFilterContractTest extends DeletableFilterContract {
  @Override
  protected DeletableFilter empty(long expectedKeys, double fpp) {
    return CountingBloomFilter.create(expectedKeys, fpp);
  }

  /** A Bloom filter's closed form, with m counters in place of m bits. */
  @Override
  protected Theory.Rate predictedRate(
      MembershipFilter f, long expectedKeys, double fpp, int keysAdded) {
    return Theory.bloomSizedFor(expectedKeys, fpp, keysAdded);
  }

  @Override
  protected Theory.Rate predictedCount(MembershipFilter f, int keysAdded) {
    return Theory.bloomCount(
        ((CountingBloomFilter) f).counterCount(), keysAdded, ((CountingBloomFilter) f).hashCount());
  }
}
