package io.github.probkit.bench;

import io.github.probkit.filter.BloomFilter;
import io.github.probkit.redis.RedisBloomFilter;
import io.github.probkit.redis.RedisCardinalitySketch;
import io.github.probkit.redis.RedisCountMinSketch;
import io.github.probkit.redis.RedisCountingBloomFilter;
import io.github.probkit.redis.RedisOptions;
import io.github.probkit.redis.RedisStore;
import io.github.probkit.redis.RedisStructure;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import org.redisson.Redisson;
import org.redisson.api.RBloomFilter;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.RedisClient;

/**
 * Shared Bloom filters on a real redis-server: probkit-redis (standard and blocked) against
 * Redisson's {@code RBloomFilter} (one key per call, and 1,000 keys per collection call) and a
 * plain Jedis pipeline of k {@code SETBIT}/{@code GETBIT} per key (1,000 keys per sync), with 1 and
 * 8 clients. A filter for 10^6 keys at 1 %; keys "user:" + 15 digits; queries half present, half
 * absent. Each figure is the median of three rounds, each on a new filter; also Redis's {@code
 * MEMORY USAGE} of each filter's keys.
 *
 * <p>Run {@code bench/redis-run} (starts a redis-server on a free loopback port), or against a
 * running server: {@code java -cp bench/target/benchmarks.jar io.github.probkit.bench.RedisBench
 * 127.0.0.1:6379 [keys]}.
 */
public final class RedisBench {
  private static final long CAPACITY = 1_000_000;
  private static final double FPP = 0.01;
  private static final int BATCH = 1000;

  /** Redisson's one-key calls cost a round trip each: fewer keys keep that run short. */
  private static final int SINGLE_CALL_KEYS = 20_000;

  private final String host;
  private final int port;
  private final RedisStore store;
  private final RedissonClient redisson;
  private final RedisClient jedis;

  private RedisBench(String host, int port) {
    this.host = host;
    this.port = port;
    this.store = RedisStore.connect("redis://" + host + ":" + port);
    Config c = new Config();
    c.useSingleServer().setAddress("redis://" + host + ":" + port);
    this.redisson = Redisson.create(c);
    this.jedis = RedisClient.create(host, port);
  }

  /** One contestant: adds or queries its slice of keys. */
  interface Contestant {
    String name();

    /**
     * How many of {@code total} keys it is given: all, unless one call a key would take too long.
     */
    default int keys(int total) {
      return total;
    }

    void reset();

    void add(String[] keys);

    void query(String[] keys);

    long memory();
  }

  public static void main(String[] args) throws Exception {
    String[] hp = args[0].split(":");
    int keys = args.length > 1 ? Integer.parseInt(args[1]) : 200_000;
    String only = args.length > 2 ? args[2] : ".*";
    RedisBench b = new RedisBench(hp[0], Integer.parseInt(hp[1]));
    try {
      b.run(keys, only);
    } finally {
      b.store.close();
      b.redisson.shutdown();
      b.jedis.close();
    }
  }

  private void run(int total, String only) throws Exception {
    String[] present = Keys.strings(0, total);
    String[] absent = Keys.strings(10_000_000, total / 2);
    String[] queries = new String[total];
    for (int i = 0; i < total; i++) {
      queries[i] = i % 2 == 0 ? present[i / 2] : absent[i / 2];
    }
    List<Contestant> all =
        List.of(
            probkit(false),
            probkit(true),
            redissonSingle(),
            redissonCollection(),
            setbit(),
            sketch("probkit-redis counting Bloom (add: one BITFIELD per key)", "bench-counting"),
            sketch(
                "probkit-redis count-min 2719 x 5, standard (add: one BITFIELD per item)",
                "bench-cms"),
            sketch(
                "probkit-redis count-min 2719 x 5, conservative (add: a script per batch)",
                "bench-cms-conservative"),
            sketch(
                "probkit-redis HyperLogLog p = 14 (script per batch; count = one GET)",
                "bench-hll"));
    System.out.printf(
        Locale.ROOT,
        "redis %s:%d, %s; load average before: %s%n",
        host,
        port,
        store
            .jedis()
            .info("server")
            .lines()
            .filter(l -> l.startsWith("redis_version"))
            .findFirst()
            .orElse(""),
        loadAverage());
    System.out.printf(
        Locale.ROOT,
        "%d keys added then %d queried (half absent); capacity %d at %.0f %%%n%n",
        total,
        total,
        CAPACITY,
        FPP * 100);
    System.out.println(
        "| contestant | clients | add keys/s | query keys/s | MEMORY USAGE bytes "
            + "| client CPU µs/key | Redis µs/key |");
    System.out.println("|---|---:|---:|---:|---:|---:|---:|");
    for (int clients : new int[] {1, 8}) {
      for (Contestant c : all) {
        if (!c.name().matches(only)) {
          continue;
        }
        int n = c.keys(total);
        double[] add = new double[3];
        double[] query = new double[3];
        long memory = 0;
        // One round to warm up the JIT, not counted.
        c.reset();
        seconds(clients, Arrays.copyOf(present, n), c::add);
        seconds(clients, Arrays.copyOf(queries, n), c::query);
        long cpu0 = cpuNanos();
        try (redis.clients.jedis.Jedis j = new redis.clients.jedis.Jedis(host, port)) {
          j.configResetStat();
        }
        for (int round = 0; round < 3; round++) {
          c.reset();
          add[round] = n / seconds(clients, Arrays.copyOf(present, n), c::add);
          query[round] = n / seconds(clients, Arrays.copyOf(queries, n), c::query);
          memory = c.memory();
        }
        System.out.printf(
            Locale.ROOT,
            "| %s | %d | %,.0f | %,.0f | %,d | %.2f | %.2f |%n",
            c.name(),
            clients,
            median(add),
            median(query),
            memory,
            (cpuNanos() - cpu0) / 1e3 / (6.0 * n),
            serverMicros() / (6.0 * n));
      }
    }
    System.out.printf(Locale.ROOT, "%nload average after: %s%n", loadAverage());
  }

  interface Work {
    void run(String[] keys);
  }

  /** Splits the keys over the clients, runs them together, and returns the wall time in seconds. */
  private static double seconds(int clients, String[] keys, Work w) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    try {
      List<Callable<Void>> tasks = new ArrayList<>();
      for (int c = 0; c < clients; c++) {
        String[] slice =
            Arrays.copyOfRange(keys, keys.length * c / clients, keys.length * (c + 1) / clients);
        tasks.add(
            () -> {
              w.run(slice);
              return null;
            });
      }
      long t0 = System.nanoTime();
      for (Future<Void> f : pool.invokeAll(tasks)) {
        f.get();
      }
      return (System.nanoTime() - t0) / 1e9;
    } finally {
      pool.shutdown();
    }
  }

  private static double median(double[] v) {
    double[] s = v.clone();
    Arrays.sort(s);
    return s[s.length / 2];
  }

  /**
   * The microseconds Redis spent in commands since the last CONFIG RESETSTAT (INFO commandstats).
   */
  private double serverMicros() {
    double sum = 0;
    for (String line : store.jedis().info("commandstats").split("\r?\n")) {
      int at = line.indexOf("usec=");
      if (line.startsWith("cmdstat_") && at > 0) {
        sum += Double.parseDouble(line.substring(at + 5, line.indexOf(',', at)));
      }
    }
    return sum;
  }

  /** The CPU time of this JVM (all threads, including the clients' I/O). */
  private static long cpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean)
            java.lang.management.ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  private static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).trim();
    } catch (IOException e) {
      return "unknown";
    }
  }

  private long memoryOf(String... keys) {
    long sum = 0;
    for (String k : keys) {
      Long m = store.jedis().memoryUsage(k);
      sum += m == null ? 0 : m;
    }
    return sum;
  }

  private Contestant probkit(boolean blocked) {
    String name = blocked ? "bench-blocked" : "bench-bloom";
    return new Contestant() {
      RedisBloomFilter f;

      @Override
      public String name() {
        return blocked
            ? "probkit-redis blocked Bloom, batches of 1,000"
            : "probkit-redis Bloom, batches of 1,000";
      }

      @Override
      public void reset() {
        store.delete(name);
        f =
            blocked
                ? RedisBloomFilter.createBlocked(
                    store, name, CAPACITY, FPP, RedisOptions.defaults())
                : RedisBloomFilter.create(store, name, CAPACITY, FPP, RedisOptions.defaults());
      }

      @Override
      public void add(String[] keys) {
        f.addAll(Arrays.asList(keys));
      }

      @Override
      public void query(String[] keys) {
        f.mightContainAll(Arrays.asList(keys));
      }

      @Override
      public long memory() {
        return memoryOf(f.redisKeys().toArray(new String[0]));
      }
    };
  }

  /**
   * probkit-redis's scripted structures, for their own throughput (no peer keeps them in Redis).
   */
  private Contestant sketch(String title, String name) {
    return new Contestant() {
      RedisStructure s;

      @Override
      public String name() {
        return title;
      }

      @Override
      public void reset() {
        store.delete(name);
        RedisOptions o = RedisOptions.defaults();
        s =
            name.endsWith("counting")
                ? RedisCountingBloomFilter.create(store, name, CAPACITY, FPP, o)
                : name.contains("cms")
                    ? RedisCountMinSketch.create(
                        store, name, 0.001, 0.01, name.endsWith("conservative"), o)
                    : RedisCardinalitySketch.createHyperLogLog(store, name, 14, o);
      }

      @Override
      public void add(String[] keys) {
        List<String> k = Arrays.asList(keys);
        if (s instanceof RedisCountingBloomFilter) {
          ((RedisCountingBloomFilter) s).addAll(k);
        } else if (s instanceof RedisCountMinSketch) {
          ((RedisCountMinSketch) s).addAll(k);
        } else {
          ((RedisCardinalitySketch) s).addAll(k);
        }
      }

      @Override
      public void query(String[] keys) {
        List<String> k = Arrays.asList(keys);
        if (s instanceof RedisCountingBloomFilter) {
          ((RedisCountingBloomFilter) s).mightContainAll(k);
        } else if (s instanceof RedisCountMinSketch) {
          ((RedisCountMinSketch) s).estimateAll(k);
        } else {
          for (int i = 0; i < keys.length; i += BATCH) {
            ((RedisCardinalitySketch) s)
                .estimate(); // one count per 1,000 keys: "keys/s" of counts x 1,000
          }
        }
      }

      @Override
      public long memory() {
        return memoryOf(s.redisKeys().toArray(new String[0]));
      }
    };
  }

  private Contestant redissonSingle() {
    return new RedissonContestant("Redisson RBloomFilter, one key per call", false);
  }

  private Contestant redissonCollection() {
    return new RedissonContestant("Redisson RBloomFilter, collections of 1,000", true);
  }

  private final class RedissonContestant implements Contestant {
    private final String name;
    private final boolean collections;
    private RBloomFilter<String> f;

    RedissonContestant(String name, boolean collections) {
      this.name = name;
      this.collections = collections;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public int keys(int total) {
      return collections ? total : Math.min(total, SINGLE_CALL_KEYS);
    }

    @Override
    public void reset() {
      f = redisson.getBloomFilter("redisson-bench", StringCodec.INSTANCE);
      f.delete();
      f.tryInit(CAPACITY, FPP);
    }

    @Override
    public void add(String[] keys) {
      send(keys, f::add, f::add);
    }

    @Override
    public void query(String[] keys) {
      send(keys, f::contains, f::contains);
    }

    /** In BATCH-key collections when {@code collections}, else one call a key. */
    private void send(String[] keys, Consumer<List<String>> batch, Consumer<String> one) {
      if (collections) {
        for (int i = 0; i < keys.length; i += BATCH) {
          batch.accept(Arrays.asList(keys).subList(i, Math.min(keys.length, i + BATCH)));
        }
      } else {
        for (String k : keys) {
          one.accept(k);
        }
      }
    }

    @Override
    public long memory() {
      return memoryOf("redisson-bench", "{redisson-bench}:config");
    }
  }

  /** k SETBIT / GETBIT per key at probkit's positions, grown by SETBIT, 1,000 keys per sync. */
  private Contestant setbit() {
    long m = BloomFilter.optimalBits(CAPACITY, FPP);
    int k = BloomFilter.optimalHashes(m, CAPACITY);
    return new Contestant() {
      @Override
      public String name() {
        return "Jedis pipeline, " + k + " SETBIT / GETBIT per key, 1,000 keys per sync";
      }

      @Override
      public void reset() {
        jedis.del("setbit-bench");
      }

      @Override
      public void add(String[] keys) {
        run(keys, true);
      }

      @Override
      public void query(String[] keys) {
        run(keys, false);
      }

      private void run(String[] keys, boolean set) {
        long[] pos = new long[k];
        byte[] key = "setbit-bench".getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < keys.length; i += BATCH) {
          try (AbstractPipeline p = jedis.pipelined()) {
            for (int j = i; j < Math.min(keys.length, i + BATCH); j++) {
              byte[] b = keys[j].getBytes(StandardCharsets.UTF_8);
              BloomFilter.positions(
                  io.github.probkit.hash.HashStrategy.xxh3(), m, k, b, 0, b.length, pos);
              for (long q : pos) {
                if (set) {
                  p.setbit(key, q, true);
                } else {
                  p.getbit(key, q);
                }
              }
            }
            p.sync();
          }
        }
      }

      @Override
      public long memory() {
        return memoryOf("setbit-bench");
      }
    };
  }
}
