package io.github.probkit.filter;

class CuckooFilterContractTest extends DeletableFilterContract {
  @Override
  protected DeletableFilter empty(long expectedKeys, double fpp) {
    return CuckooFilter.create(expectedKeys, fpp);
  }
}
