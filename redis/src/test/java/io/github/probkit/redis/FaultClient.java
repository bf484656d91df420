package io.github.probkit.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A client process for the fault tests: {@code FaultClient URI WORKER THREADS KEYS} adds, on
 * THREADS threads, the keys {@code wWORKER-tT-I} (I below KEYS) to the structures {@link FaultTest}
 * created, in batches of 100, then prints the keys each scalable add reported new; {@code
 * FaultClient URI loop} adds batches of 1,000 keys {@code loop-B-I} forever, printing {@code acked
 * B} after each batch B.
 */
public final class FaultClient {
  private FaultClient() {}

  public static void main(String[] args) throws Exception {
    try (RedisStore store = RedisStore.connect(args[0])) {
      if (args[1].equals("loop")) {
        loop(store);
        return;
      }
      int worker = Integer.parseInt(args[1]);
      int threads = Integer.parseInt(args[2]);
      int keys = Integer.parseInt(args[3]);
      store.batchSize(100);
      AtomicReference<Throwable> failed = new AtomicReference<>();
      long[] added = new long[threads];
      List<Thread> ts = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        Thread th =
            new Thread(
                () -> {
                  try {
                    List<Object> ks = new ArrayList<>();
                    for (int i = 0; i < keys; i++) {
                      ks.add("w" + worker + "-t" + thread + "-" + i);
                    }
                    RedisBloomFilter.open(store, "c-bloom").addAll(ks);
                    RedisBloomFilter.open(store, "c-blocked").addAll(ks);
                    RedisCountingBloomFilter.open(store, "c-counting").addAll(ks);
                    RedisCountMinSketch.open(store, "c-cms").addAll(ks);
                    RedisCountMinSketch.open(store, "c-cms-conservative").addAll(ks);
                    RedisCardinalitySketch.open(store, "c-hll").addAll(ks);
                    RedisCardinalitySketch.open(store, "c-ull").addAll(ks);
                    for (boolean b :
                        RedisScalableBloomFilter.open(store, "c-scalable").addAll(ks)) {
                      added[thread] += b ? 1 : 0;
                    }
                  } catch (Throwable e) {
                    failed.set(e);
                  }
                });
        th.start();
        ts.add(th);
      }
      for (Thread th : ts) {
        th.join();
      }
      if (failed.get() != null) {
        failed.get().printStackTrace();
        System.exit(3);
      }
      long sum = 0;
      for (long a : added) {
        sum += a;
      }
      System.out.println("scalable-added " + sum);
    }
  }

  private static void loop(RedisStore store) {
    RedisCountingBloomFilter counting = RedisCountingBloomFilter.open(store, "k-counting");
    RedisCountMinSketch cms = RedisCountMinSketch.open(store, "k-cms");
    RedisBloomFilter bloom = RedisBloomFilter.open(store, "k-bloom");
    for (int b = 0; ; b++) {
      List<Object> ks = batch(b);
      counting.addAll(ks);
      cms.addAll(ks);
      bloom.addAll(ks);
      System.out.println("acked " + b);
      System.out.flush();
    }
  }

  static List<Object> batch(int b) {
    List<Object> ks = new ArrayList<>(1000);
    for (int i = 0; i < 1000; i++) {
      ks.add("loop-" + b + "-" + i);
    }
    return ks;
  }
}
