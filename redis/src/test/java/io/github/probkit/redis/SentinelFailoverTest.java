package io.github.probkit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * A Sentinel failover during adds: every key a batch acknowledged is in the promoted master, and
 * count-min counts at least every acknowledged item.
 */
class SentinelFailoverTest {
  @Test
  void aFailoverDuringAddsLosesNoAcknowledgedKey() throws Exception {
    try (RedisSentinelGroup group = RedisSentinelGroup.start(1);
        // the URI form, which goes through the same client as RedisStore.sentinel(...)
        RedisStore store =
            RedisStore.connect(
                "redis+sentinel://"
                    + RedisSentinelGroup.NAME
                    + "@"
                    + String.join(",", group.sentinelHostPorts())
                    + "/sf")) {
      assertThat(store.replicasToWait()).isEqualTo(1);
      store.waitForReplicas(1, Duration.ofMillis(200)); // what it protects does not depend on it
      RedisBloomFilter bloom =
          RedisBloomFilter.create(store, "sf-bloom", 200_000, 0.01, RedisOptions.defaults());
      RedisCountingBloomFilter counting =
          RedisCountingBloomFilter.create(
              store, "sf-counting", 200_000, 0.01, RedisOptions.defaults());
      RedisCountMinSketch cms =
          RedisCountMinSketch.create(store, "sf-cms", 4096, 4, false, RedisOptions.defaults());
      Adder adder = new Adder(bloom, counting, cms);
      Thread t = new Thread(adder);
      t.start();
      try {
        int oldMaster = group.masterPort();
        adder.waitFor(adder.acked, 50, Duration.ofSeconds(10));
        group.failover();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (group.masterPort() == oldMaster && System.nanoTime() < deadline) {
          RedisServer.sleep(50);
        }
        assertThat(group.masterPort()).as("the master after the failover").isNotEqualTo(oldMaster);
        // The new master confirms writes once the old one replicates it (Sentinel's next look at
        // it, within 10 s): then many calls are acknowledged by the new master.
        adder.waitFor(adder.acked, adder.acked.get() + 30, Duration.ofSeconds(25));
      } finally {
        adder.stop.set(true);
        t.join();
      }

      assertThat(adder.bloomAcked).hasSizeGreaterThan(8_000);
      assertThat(absent(bloom.mightContainAll(adder.bloomAcked)))
          .as("acknowledged Bloom keys absent, of %d", adder.bloomAcked.size())
          .isZero();
      assertThat(absent(counting.mightContainAll(adder.countingAcked)))
          .as("acknowledged counting keys absent, of %d", adder.countingAcked.size())
          .isZero();
      assertThat(cms.totalCount())
          .as("count-min total against the items acknowledged")
          .isGreaterThanOrEqualTo(adder.cmsAcked.get());
    }
  }

  private static int absent(boolean[] found) {
    int n = 0;
    for (boolean f : found) {
      n += f ? 0 : 1;
    }
    return n;
  }

  /**
   * Adds batches of 100 new keys to each structure until stopped, keeping what was acknowledged.
   */
  private static final class Adder implements Runnable {
    final RedisBloomFilter bloom;
    final RedisCountingBloomFilter counting;
    final RedisCountMinSketch cms;
    final AtomicBoolean stop = new AtomicBoolean();

    /** Rounds in which all three adds were acknowledged. */
    final AtomicInteger acked = new AtomicInteger();

    final List<Object> bloomAcked = Collections.synchronizedList(new ArrayList<>());
    final List<Object> countingAcked = Collections.synchronizedList(new ArrayList<>());
    final AtomicLong cmsAcked = new AtomicLong();

    Adder(RedisBloomFilter bloom, RedisCountingBloomFilter counting, RedisCountMinSketch cms) {
      this.bloom = bloom;
      this.counting = counting;
      this.cms = cms;
    }

    @Override
    public void run() {
      for (int i = 0; !stop.get(); i++) {
        List<Object> keys = StoreTest.keys("k" + i + ":", 100);
        int ok = 0;
        ok += addNotingAcknowledged(bloom::addAll, keys, bloomAcked);
        ok += addNotingAcknowledged(counting::addAll, keys, countingAcked);
        try {
          cms.addAll(keys);
          cmsAcked.addAndGet(keys.size());
          ok++;
        } catch (RedisStoreException e) {
          cmsAcked.addAndGet(Math.max(0, e.acknowledged()));
        }
        if (ok == 3) {
          acked.incrementAndGet();
        }
      }
    }

    /**
     * Adds {@code keys}, noting in {@code acked} those the store acknowledged (a failed batch's
     * acknowledged prefix); 1 when the whole batch went through, else 0.
     */
    private static int addNotingAcknowledged(
        Consumer<List<Object>> add, List<Object> keys, List<Object> acked) {
      try {
        add.accept(keys);
        acked.addAll(keys);
        return 1;
      } catch (RedisStoreException e) {
        acked.addAll(keys.subList(0, Math.max(0, e.acknowledged())));
        return 0;
      }
    }

    void waitFor(AtomicInteger count, int n, Duration atMost) {
      long deadline = System.nanoTime() + atMost.toNanos();
      while (count.get() < n && System.nanoTime() < deadline) {
        RedisServer.sleep(20);
      }
      assertThat(count.get()).as("rounds acknowledged").isGreaterThanOrEqualTo(n);
    }
  }
}
