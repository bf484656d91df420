package io.github.probkit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.frequency.CountMinSketch;
import io.github.probkit.frequency.WindowedCountMin;
import io.github.probkit.hash.HashStrategy;
import java.time.Duration;
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
          .hasMessageContaining("not sent again")
          .hasMessageContaining("it may have been applied");
    }
    counted.assertEachKeyCountedOnce();
  }

  @Test
  void aMergeThatOutlivesTheSocketTimeoutSaysItMayHaveBeenApplied() {
    // 20 full one-minute slices of 2,719 x 5: about 270,000 counters in one script, some 270 ms
    // of Redis on a quiet 2-core machine against a 100 ms socket timeout. The client gives up; a
    // script Redis has read whole runs to its end, so the message must not let a user think the
    // merge can be run again.
    Duration slice = Duration.ofMinutes(1);
    Duration window = slice.multipliedBy(20);
    HashStrategy hash = HashStrategy.xxh3(0x5eed_0f_a9_e5L);
    WindowedCountMin lib =
        WindowedMergeBlockingTest.ring(
            WindowedCountMin.create(window, slice, CountMinSketch.withDimensions(2719, 5, hash)),
            1.0,
            2719);
    RedisOptions o = RedisOptions.defaults().hash(hash).maxSkew(Duration.ZERO);
    try (RedisStore impatient =
        RedisStore.connect(server.uri() + "/x?socketTimeout=100ms&retries=0", null)) {
      RedisWindowedCountMin r =
          RedisWindowedCountMin.create(impatient, "late", window, slice, 2719, 5, o);
      assertThatThrownBy(() -> r.merge(lib))
          .isInstanceOf(RedisStoreException.class)
          .hasMessageContaining("timed out")
          .hasMessageContaining("it may have been applied");
    }
    // Whole or not at all (Redis drops a command whose connection closed before it was read
    // whole): the store with the default timeout waits for the script, then reads the window.
    long end = (lib.newestSlice() + 1) * slice.toMillis() - 1;
    assertThat(RedisWindowedCountMin.open(store, "late").sketchOfLast(window, end).totalCount())
        .isIn(0L, lib.sketchOfLast(window, end).totalCount());
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

  @Test
  void aBatchRefusedWhileAnotherClientsScriptRunsIsSentAgainAndCountedOnce() throws Exception {
    // Past busy-reply-threshold Redis answers every other command BUSY without running it (a long
    // merge of another client does this for seconds): refused, so sent again, and counted once.
    try (Jedis admin = new Jedis("127.0.0.1", server.port())) {
      admin.configSet("busy-reply-threshold", "100");
      Thread[] running = {null};
      try {
        Counted counted = Counted.create("busy");
        for (Runnable add : counted.adds()) {
          long busyBefore = busyReplies(admin);
          Thread script =
              new Thread(
                  () -> {
                    try (Jedis j = new Jedis("127.0.0.1", server.port())) {
                      j.eval(
                          "local t = redis.call('TIME') while true do local n = redis.call('TIME')"
                              + " if (n[1] - t[1]) * 1000000 + (n[2] - t[2]) > 700000 then"
                              + " return 1 end end");
                    }
                  });
          running[0] = script;
          script.start();
          RedisServer.sleep(250);
          add.run();
          script.join();
          assertThat(busyReplies(admin)).isGreaterThan(busyBefore);
        }
        counted.assertEachKeyCountedOnce();
      } finally {
        if (running[0] != null) {
          running[0].join(); // Redis answers BUSY to the reset until the script ends
        }
        admin.configSet("busy-reply-threshold", "5000");
      }
    }
  }

  /** How many BUSY replies the server has given (INFO errorstats). */
  private static long busyReplies(Jedis admin) {
    for (String line : admin.info("errorstats").split("\r\n")) {
      if (line.startsWith("errorstat_BUSY:count=")) {
        return Long.parseLong(line.substring("errorstat_BUSY:count=".length()).split(",")[0]);
      }
    }
    return 0;
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
