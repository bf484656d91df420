package io.github.probkit.bench;

import io.github.probkit.redis.RedisOptions;
import io.github.probkit.redis.RedisStore;
import io.github.probkit.redis.RedisWindowedCountMin;
import io.github.probkit.redis.RedisWindowedHeavyHitters;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A batch of 1,000 timed events into a window kept in Redis: the windowed heavy hitters (capacity
 * 1,000 per slice, so evictions from the first slices on) against its peer, the windowed count-min
 * of epsilon 0.001, delta 0.01 (2,719 x 5), both a 1-hour window of 5-minute slices; items drawn
 * Zipf-like among 20,000 distinct, times advancing 1 s per batch, so slices rotate during the run.
 * Each benchmark starts its own redis-server (/usr/bin/redis-server, no persistence) on a free
 * loopback port. In µs per batch.
 *
 * <pre>
 * java -jar bench/target/benchmarks.jar RedisWindowBenchmark
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class RedisWindowBenchmark {
  private static final int BATCH = 1000;
  private static final int BATCHES = 64;

  @Param({"heavy-hitters", "count-min"})
  public String impl;

  private Process server;
  private RedisStore store;
  private RedisWindowedHeavyHitters top;
  private RedisWindowedCountMin cms;
  private final List<List<Object>> items = new ArrayList<>();
  private final long[] ones = new long[BATCH];
  private final long[] times = new long[BATCH];
  private long now = 1_700_000_000_000L;
  private int next;

  @Setup(Level.Trial)
  public void setUp() throws IOException, InterruptedException {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    server =
        new ProcessBuilder(
                "/usr/bin/redis-server",
                "--port",
                Integer.toString(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no")
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    for (int i = 0; ; i++) {
      try (Socket ignored = new Socket("127.0.0.1", port)) {
        break;
      } catch (IOException notYet) {
        if (i > 200) {
          throw notYet;
        }
        Thread.sleep(25);
      }
    }
    store = RedisStore.connect("redis://127.0.0.1:" + port);
    Duration window = Duration.ofHours(1);
    Duration slice = Duration.ofMinutes(5);
    top =
        RedisWindowedHeavyHitters.create(
            store, "top", window, slice, 1000, RedisOptions.defaults());
    cms =
        RedisWindowedCountMin.create(
            store, "cms", window, slice, 0.001, 0.01, RedisOptions.defaults());
    SplittableRandom r = new SplittableRandom(27);
    for (int b = 0; b < BATCHES; b++) {
      List<Object> batch = new ArrayList<>(BATCH);
      for (int i = 0; i < BATCH; i++) {
        batch.add("term-" + (int) Math.pow(20_000, r.nextDouble()));
      }
      items.add(batch);
    }
    Arrays.fill(ones, 1);
  }

  @Benchmark
  public Object addBatch() {
    now += 1_000;
    Arrays.fill(times, now);
    List<Object> batch = items.get(next++ & (BATCHES - 1));
    return impl.equals("heavy-hitters")
        ? top.addAll(batch, ones, times)
        : cms.addAll(batch, ones, times);
  }

  @TearDown(Level.Trial)
  public void tearDown() throws InterruptedException {
    store.close();
    server.destroy();
    server.waitFor();
  }
}
