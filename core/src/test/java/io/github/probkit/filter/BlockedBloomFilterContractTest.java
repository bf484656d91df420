package io.github.probkit.filter;

import java.util.List;

class BlockedBloomFilterContractTest extends MembershipFilterContract {
  @Override
  protected MembershipFilter build(long expectedKeys, double fpp, List<byte[]> keys) {
    BlockedBloomFilter f = BlockedBloomFilter.create(expectedKeys, fpp);
    keys.forEach(f::add);
    return f;
  }
}
