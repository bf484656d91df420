package io.github.probkit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * Counting and count-min batches, which are not idempotent: sent again after Redis refused them
 * (nothing applied), never after a lost reply (maybe applied): counted once either way.
 */
class ExactlyOnceTest extends WithServer {
  @AfterEach
  void noHook() {
    RedisStore.afterSync = () -> {};
  }

  @Test
  void aBatchWhoseReplyIsLostFailsAndIsCountedOnce() {
    Counted counted = Counted.create("lost");
    for (Runnable add : counted.adds()) {
      // The batch is applied, then its reply is lost, as when a connection drops after the write
      // (here after Jedis read it, so the message counts it acknowledged).
      boolean[] lose = {true};
      RedisStore.afterSync = FaultTest.loseReply(lose);
      assertThatThrownBy(add::run)
          .isInstanceOf(RedisStoreException.class)
          .hasMessageContaining("add of 100 keys failed")
          .hasMessageContaining("not sent again");
    }
    counted.assertEachKeyCountedOnce();
  }

  @Test
  void aBatchRefusedByAReplicaIsSentAgainAndCountedOnce() throws Exception {
    Counted counted = Counted.create("refused");
    for (Runnable add : counted.adds()) {
      // A replica of a master that does not answer keeps its data and refuses writes (READONLY)
      // until it is made a master again, 0.3 s later: a retry 0.4 s after the refusal goes through.
      try (Jedis j = new Jedis("127.0.0.1", server.port())) {
        j.replicaof("127.0.0.1", RedisServer.freePort());
      }
      Thread promote =
          new Thread(
              () -> {
                RedisServer.sleep(300);
                try (Jedis j = new Jedis("127.0.0.1", server.port())) {
                  j.replicaofNoOne();
                }
              });
      promote.start();
      add.run();
      promote.join();
    }
    counted.assertEachKeyCountedOnce();
  }

  /** A count-min sketch and a counting filter, each to be given the same 100 keys once. */
  private record Counted(
      RedisCountMinSketch cms, RedisCountingBloomFilter counting, List<Object> keys) {
    static Counted create(String prefix) {
      return new Counted(
          RedisCountMinSketch.create(
              store, prefix + "-cms", 1000, 4, false, RedisOptions.defaults()),
          RedisCountingBloomFilter.create(
              store, prefix + "-counting", 1000, 0.01, RedisOptions.defaults()),
          StoreTest.keys("k", 100));
    }

    /** The add of all the keys to each. */
    List<Runnable> adds() {
      return List.of(() -> cms.addAll(keys), () -> counting.addAll(keys));
    }

    void assertEachKeyCountedOnce() {
      assertThat(cms.totalCount()).isEqualTo(100);
      assertThat(cms.estimateAll(keys)).containsOnly(1L);
      assertThat(counting.countAll(keys)).containsOnly(1);
    }
  }
}
