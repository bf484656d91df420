package io.github.probkit.filter;

import io.github.probkit.testing.Theory;

class CuckooFilterContractTest extends DeletableFilterContract {
  @Override
  protected DeletableFilter empty(long expectedKeys, double fpp) {
    return CuckooFilter.create(expectedKeys, fpp);
  }

  /**
   * Fingerprint bits from the requested rate, load from the keys added and the filter's buckets.
   */
  @Override
  protected Theory.Rate predictedRate(
      MembershipFilter f, long expectedKeys, double fpp, int keysAdded) {
    long slots = 4 * ((CuckooFilter) f).bucketCount();
    return Theory.cuckoo(Theory.cuckooFingerprintBits(fpp), (double) keysAdded / slots);
  }

  /** One fingerprint per key added: exact. */
  @Override
  protected Theory.Rate predictedCount(MembershipFilter f, int keysAdded) {
    return Theory.Rate.exactly(keysAdded);
  }
}
