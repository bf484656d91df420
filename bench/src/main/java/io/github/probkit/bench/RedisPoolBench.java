package io.github.probkit.bench;

import io.github.probkit.redis.RedisBloomFilter;
import io.github.probkit.redis.RedisOptions;
import io.github.probkit.redis.RedisStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Many threads sharing one {@link RedisStore}, each adding its keys in batches of 1,000 to one
 * Bloom filter (10^6 keys at 1 %): keys per second by thread count and pool size ({@code
 * ?poolSize=8} is commons-pool's default, used before probkit set 32). Against a running server:
 * {@code java -cp bench/target/benchmarks.jar io.github.probkit.bench.RedisPoolBench
 * 'redis://127.0.0.1:6379/pool-bench?poolSize=8' 16 20000 3} (URI, threads, keys per thread,
 * rounds); docs/REDIS.md quotes a run.
 */
public final class RedisPoolBench {
  private RedisPoolBench() {}

  public static void main(String[] args) throws Exception {
    String uri = args[0];
    int threads = Integer.parseInt(args[1]);
    int perThread = Integer.parseInt(args[2]);
    int rounds = Integer.parseInt(args[3]);
    String name = RedisStore.keyOf(uri) == null ? "pool-bench" : RedisStore.keyOf(uri);
    try (RedisStore store = RedisStore.connect(uri)) {
      for (int r = 0; r < rounds; r++) {
        store.delete(name);
        RedisBloomFilter f =
            RedisBloomFilter.create(store, name, 1_000_000, 0.01, RedisOptions.defaults());
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          int id = t;
          done.add(
              pool.submit(
                  () -> {
                    go.await();
                    for (int b = 0; b < perThread; b += 1000) {
                      List<String> keys = new ArrayList<>(1000);
                      for (int i = 0; i < 1000; i++) {
                        keys.add("user:" + id + ":" + (b + i));
                      }
                      f.addAll(keys);
                    }
                    return null;
                  }));
        }
        long t0 = System.nanoTime();
        go.countDown();
        for (Future<?> d : done) {
          d.get();
        }
        long nanos = System.nanoTime() - t0;
        pool.shutdown();
        System.out.printf(
            Locale.ROOT,
            "poolSize=%d threads=%d keys=%d %.0f ms %.0f keys/s%n",
            store.settings().poolSize(),
            threads,
            (long) threads * perThread,
            nanos / 1e6,
            threads * (double) perThread / (nanos / 1e9));
      }
      store.delete(name);
    }
  }
}
