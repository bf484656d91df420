package io.github.probkit.filter;

class CountingBloomFilterContractTest extends DeletableFilterContract {
  @Override
  protected DeletableFilter empty(long expectedKeys, double fpp) {
    return CountingBloomFilter.create(expectedKeys, fpp);
  }
}
