package io.github.probkit.bench;

import java.util.SplittableRandom;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Long-key queries the way FastFilter's own JMH benchmark ({@code MembershipBenchmark}) asks them,
 * beside {@link FilterQueryBenchmark}'s way, with each difference between the two a parameter, so
 * that a verdict can be checked under both protocols and the difference that flips it found (issue
 * 31).
 *
 * <p>The defaults are FastFilter's protocol: 2^20 queries, the first half the first 2^19 keys the
 * filter was built from, the second half 2^19 distinct absent keys, in that order ({@code
 * order=blocks}, {@code keys=distinct}). {@link FilterQueryBenchmark} draws both halves with
 * repetition and shuffles them ({@code order=shuffled}, {@code keys=uniform}) and asks one key per
 * call ({@link #oneKey}); {@link #loop} asks the whole array per call and reports ns per key.
 *
 * <p>The order decides which branches a query can predict: an early-exit Bloom query (stop at the
 * first clear bit) branches on every probe. In blocks of 2^19 present then 2^19 absent keys a
 * present key never leaves early, so only where an absent key leaves is unknown; shuffled, whether
 * the key leaves at all is a coin toss too. A branch-free query does not care.
 *
 * <pre>
 * java -jar bench/target/benchmarks.jar MixedQueryBenchmark -p impl=probkit-bloom,fastfilter-bloom \
 *     -p order=blocks,shuffled -prof io.github.probkit.bench.CpuTimeProfiler
 * </pre>
 */
@State(Scope.Thread)
public class MixedQueryBenchmark extends SizedFilterBenchmark {
  public static final int QUERIES = 1 << 20;
  private static final int MASK = QUERIES - 1;
  private static final long SEED = 0x1f83d9abfb41bd6bL;

  /** A name of {@link FilterImpls} (a filter that takes long keys). */
  @Param({"probkit-bloom", "fastfilter-bloom"})
  public String impl;

  /**
   * {@code blocks}: every present key, then every absent one (FastFilter's order); {@code
   * shuffled}: a seeded random order (FilterQueryBenchmark's); {@code alternate}: present and
   * absent in turn, a pattern the branch predictor learns.
   */
  @Param({"blocks"})
  public String order;

  /**
   * {@code distinct}: the first 2^19 keys the filter was built from and the 2^19 absent keys after
   * them, each once (FastFilter's); {@code uniform}: each half drawn with repetition from the n
   * present and n absent keys (FilterQueryBenchmark's).
   */
  @Param({"distinct"})
  public String keys;

  /**
   * {@code mono}: only this contestant's class reaches the measured call site; {@code mega}: three
   * other contestants went through it first, so that the JIT sees a megamorphic call there, as in a
   * harness that measures several filters in one JVM.
   */
  @Param({"mono"})
  public String profile;

  private FilterContestant filter;
  private long[] longs;
  private int next;

  @Setup(Level.Trial)
  public void build() {
    if (keys.equals("distinct") && QUERIES / 2 > n) {
      throw new IllegalArgumentException("n must be at least 2^19 for distinct present keys");
    }
    if (profile.equals("mega")) {
      pollute();
    } else if (!profile.equals("mono")) {
      throw new IllegalArgumentException("profile is mono or mega, not " + profile);
    }
    filter = FilterImpls.filled(impl, n, fpp, false);
    long[] idx = indices(n, keys, order);
    longs = Keys.longsAt(idx);
    // A contestant wired wrongly would be fast and useless: no present key may be missed.
    for (int i = 0; i < QUERIES; i++) {
      if (Keys.present(idx[i], n) && !filter.mightContain(longs[i])) {
        throw new IllegalStateException(impl + " misses present key #" + idx[i]);
      }
    }
  }

  /** The query indices: half present, half absent, in the given order. */
  static long[] indices(long n, String keys, String order) {
    int half = QUERIES / 2;
    SplittableRandom r = new SplittableRandom(SEED);
    long[] present = new long[half];
    long[] absent = new long[half];
    for (int i = 0; i < half; i++) {
      switch (keys) {
        case "distinct" -> {
          present[i] = i;
          absent[i] = n + i;
        }
        case "uniform" -> {
          present[i] = r.nextLong(n);
          absent[i] = n + r.nextLong(n);
        }
        default -> throw new IllegalArgumentException("keys is distinct or uniform, not " + keys);
      }
    }
    long[] out = new long[QUERIES];
    switch (order) {
      case "blocks", "shuffled" -> {
        System.arraycopy(present, 0, out, 0, half);
        System.arraycopy(absent, 0, out, half, half);
        if (order.equals("shuffled")) {
          for (int i = QUERIES - 1; i > 0; i--) {
            int k = r.nextInt(i + 1);
            long t = out[i];
            out[i] = out[k];
            out[k] = t;
          }
        }
      }
      case "alternate" -> {
        for (int i = 0; i < half; i++) {
          out[2 * i] = present[i];
          out[2 * i + 1] = absent[i];
        }
      }
      default ->
          throw new IllegalArgumentException(
              "order is blocks, shuffled or alternate, not " + order);
    }
    return out;
  }

  /**
   * Runs {@link #count} with three contestants of other classes (small filters) until the JIT has
   * profiled the call site with all of them.
   */
  private void pollute() {
    String[] others =
        impl.startsWith("probkit")
            ? new String[] {"fastfilter-bloom", "guava-bloom", "fastfilter-xorfuse8"}
            : new String[] {"probkit-bloom", "guava-bloom", "probkit-binaryfuse8"};
    long[] small = Keys.longs(0, 4096);
    for (int round = 0; round < 200; round++) {
      for (String o : others) {
        count(FilterImpls.filled(o, 4096, fpp, false), small);
      }
    }
  }

  private static int count(FilterContestant f, long[] keys) {
    int found = 0;
    for (long k : keys) {
      if (f.mightContain(k)) {
        found++;
      }
    }
    return found;
  }

  /** Every key of the array in one call: ns per key. */
  @Benchmark
  @OperationsPerInvocation(QUERIES)
  public int loop() {
    return count(filter, longs);
  }

  /** One key per call, the next in the array, as FastFilter's MembershipBenchmark and ours do. */
  @Benchmark
  public boolean oneKey() {
    return filter.mightContain(longs[next++ & MASK]);
  }
}
