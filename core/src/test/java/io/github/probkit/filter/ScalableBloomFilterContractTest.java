package io.github.probkit.filter;

import io.github.probkit.testing.Theory;
import java.util.List;

class ScalableBloomFilterContractTest extends MembershipFilterContract {
  @Override
  protected MembershipFilter build(long expectedKeys, double fpp, List<byte[]> keys) {
    ScalableBloomFilter f = ScalableBloomFilter.create(expectedKeys, fpp);
    keys.forEach(f::add);
    return f;
  }

  /** Any layer may answer: each layer's closed form at its shape and the keys stored in it. */
  @Override
  protected Theory.Rate predictedRate(
      MembershipFilter f, long expectedKeys, double fpp, int keysAdded) {
    return Theory.anyOf(
        ((ScalableBloomFilter) f)
            .layers().stream()
                .map(l -> Theory.bloom(l.bits(), l.keys(), l.hashes()))
                .toArray(Theory.Rate[]::new));
  }
}
