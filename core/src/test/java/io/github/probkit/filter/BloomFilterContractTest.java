package io.github.probkit.filter;

import io.github.probkit.testing.Theory;
import java.util.List;

class BloomFilterContractTest extends MembershipFilterContract {
  @Override
  protected MembershipFilter build(long expectedKeys, double fpp, List<byte[]> keys) {
    BloomFilter f = BloomFilter.create(expectedKeys, fpp);
    keys.forEach(f::add);
    return f;
  }

  /** The closed form at the sizing the specification prescribes for (expectedKeys, fpp). */
  @Override
  protected Theory.Rate predictedRate(
      MembershipFilter f, long expectedKeys, double fpp, int keysAdded) {
    return Theory.bloomSizedFor(expectedKeys, fpp, keysAdded);
  }

  @Override
  protected Theory.Rate predictedCount(MembershipFilter f, int keysAdded) {
    return Theory.bloomCount(((BloomFilter) f).bitSize(), keysAdded, ((BloomFilter) f).hashCount());
  }
}
