package io.github.probkit.filter;

import java.util.List;

class BloomFilterContractTest extends MembershipFilterContract {
  @Override
  protected MembershipFilter build(long expectedKeys, double fpp, List<byte[]> keys) {
    BloomFilter f = BloomFilter.create(expectedKeys, fpp);
    keys.forEach(f::add);
    return f;
  }
}
