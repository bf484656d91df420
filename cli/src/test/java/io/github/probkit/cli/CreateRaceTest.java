package io.github.probkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code create} without --force makes a new file or fails: when several start at once, all find no
 * file before the lock, so the one check that counts is the one made again once the lock is held.
 * Exactly one create of each round succeeds; the others say the file exists, and the file holds the
 * one key of the create that succeeded.
 */
class CreateRaceTest {
  @TempDir Path dir;

  @Test
  void ofCreatesStartedAtOnceExactlyOneSucceeds() throws Exception {
    int threads = 6;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      for (int round = 0; round < 10; round++) {
        String file = dir.resolve("f" + round + ".bin").toString();
        CyclicBarrier start = new CyclicBarrier(threads);
        List<Future<Cli>> runs = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          String key = "key-of-" + t;
          Callable<Cli> create =
              () -> {
                start.await();
                return Cli.runWithInput(
                    key + "\n", "filter", "create", file, "--expected", "100000", "--keys", "-");
              };
          runs.add(pool.submit(create));
        }
        List<Integer> succeeded = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          Cli r = runs.get(t).get();
          if (r.exit == 0) {
            succeeded.add(t);
          } else {
            assertThat(r.err).as("round %d, thread %d", round, t).contains("already exists");
          }
        }
        assertThat(succeeded).as("round %d: the creates that succeeded", round).hasSize(1);
        int winner = succeeded.get(0);
        for (int t = 0; t < threads; t++) {
          Cli q = Cli.runWithInput("key-of-" + t + "\n", "filter", "query", file, "--keys", "-");
          assertThat(q.out.trim())
              .as("round %d: key of thread %d (the winner %d)", round, t, winner)
              .endsWith(t == winner ? "present" : "absent");
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
