package io.github.probkit.filter;

import java.util.List;

class ScalableBloomFilterContractTest extends MembershipFilterContract {
  @Override
  protected MembershipFilter build(long expectedKeys, double fpp, List<byte[]> keys) {
    ScalableBloomFilter f = ScalableBloomFilter.create(expectedKeys, fpp);
    keys.forEach(f::add);
    return f;
  }
}
