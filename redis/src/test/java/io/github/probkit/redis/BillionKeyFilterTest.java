package io.github.probkit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.filter.BloomFilter;
import java.io.IOException;
import java.io.OutputStream;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The crawler filter: 10^9 keys at 1 % (9,585,058,378 bits, 1.2 GB), larger than a Redis
 * string, on one Redis (3 shards in one slot) and across a 3-master cluster (24 spread shards). Two
 * million keys are added, in Redis and in the library's filter of the same shape (1.2 GB of heap);
 * every key is found, absent keys answer as the library's filter does, and the export has the same
 * SHA-256 as the library's file. Tagged slow: about 2.5 GB of Redis memory and 1.2 GB of heap.
 */
@Tag("slow")
class BillionKeyFilterTest {
  private static final long N = 1_000_000_000L;
  private static final int ADDED = 2_000_000;

  @Test
  void onOneRedis() throws Exception {
    try (RedisServer server = RedisServer.start();
        RedisStore store = RedisStore.connect(server.uri())) {
      RedisBloomFilter r =
          RedisBloomFilter.create(store, "crawler", N, 0.01, RedisOptions.defaults());
      assertThat(r.shardCount()).isEqualTo(3);
      check(store, r);
    }
  }

  @Test
  void acrossAThreeMasterCluster() throws Exception {
    try (RedisCluster cluster = RedisCluster.start();
        RedisStore store = RedisStore.cluster(null, null, cluster.hostPorts())) {
      RedisBloomFilter r =
          RedisBloomFilter.create(
              store, "crawler", N, 0.01, RedisOptions.defaults().layout(Layout.SPREAD).shards(24));
      check(store, r);
      assertThat(cluster.keysPerNode()).allMatch(n -> n >= 6);
    }
  }

  private static void check(RedisStore store, RedisBloomFilter r)
      throws IOException, NoSuchAlgorithmException {
    BloomFilter f = BloomFilter.create(N, 0.01);
    assertThat(r.bitSize()).isEqualTo(f.bitSize()).isEqualTo(9_585_058_378L);
    assertThat(r.byteSize()).isEqualTo(f.byteSize());
    boolean high = false;
    for (int from = 0; from < ADDED; from += 100_000) {
      List<Object> keys = new ArrayList<>();
      for (int i = from; i < from + 100_000; i++) {
        String k = "https://example.org/page/" + i;
        keys.add(k);
        f.add(k);
        for (long p : f.positions(k)) {
          high |= p > (1L << 33);
        }
      }
      r.addAll(keys);
      assertThat(r.mightContainAll(keys)).doesNotContain(false);
    }
    assertThat(high).as("positions above 2^33").isTrue();
    List<Object> absent = new ArrayList<>();
    for (int i = 0; i < 200_000; i++) {
      absent.add("https://example.org/absent/" + i);
    }
    boolean[] got = r.mightContainAll(absent);
    for (int i = 0; i < got.length; i++) {
      assertThat(got[i]).isEqualTo(f.mightContain((String) absent.get(i)));
    }
    assertThat(sha256(r::exportTo)).isEqualTo(sha256(f::writeTo));
    long usage = r.memoryUsage();
    System.out.printf(
        "%s: %d shards, %d bytes of bits, MEMORY USAGE %d bytes%n",
        store.server(), r.shardCount(), r.byteSize(), usage);
    assertThat(usage).isBetween(r.byteSize(), r.byteSize() + r.byteSize() / 4);
  }

  private static byte[] sha256(EquivalenceTest.IoWriter w)
      throws IOException, NoSuchAlgorithmException {
    MessageDigest d = MessageDigest.getInstance("SHA-256");
    try (DigestOutputStream out = new DigestOutputStream(OutputStream.nullOutputStream(), d)) {
      w.writeTo(out);
    }
    return d.digest();
  }
}
