package io.github.probkit.bench;

import java.util.SplittableRandom;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The sliding-window filter against the standard Bloom filter at the same rate (issue 27's goal:
 * add and query within 1.5x), with present and absent queries apart, in ns per operation.
 *
 * <p>A window filter of window {@code n} is given {@code 2n} keys first, so that all its k + l
 * slices are in use as in a long-running stream (after only n keys, the k oldest are still empty
 * and absent keys are turned away sooner); a Bloom filter is given n keys. Present queries are of
 * the last n keys added, absent ones of keys never added. {@code add} keeps adding new keys to the
 * same filter: a window shifts as in steady use; a Bloom filter fills up, which does not change the
 * cost of its {@code put}.
 *
 * <pre>
 * java -jar bench/target/benchmarks.jar WindowFilterBenchmark \
 *     -p impl=probkit-bloom-sw,probkit-window,probkit-window-b -prof io.github.probkit.bench.CpuTimeProfiler
 * </pre>
 */
@State(Scope.Thread)
public class WindowFilterBenchmark extends SizedFilterBenchmark {
  private static final int KEYS = 1 << 20;
  private static final int MASK = KEYS - 1;

  /** A name of {@link FilterImpls}. */
  @Param({"probkit-bloom-sw", "probkit-window", "probkit-window-b"})
  public String impl;

  private FilterContestant filter;
  private long[] present;
  private long[] absent;
  private long[] fresh;
  private int next;

  @Setup(Level.Trial)
  public void build() {
    filter = FilterImpls.empty(impl, n, fpp, false);
    boolean window = FilterImpls.spec(impl).family().equals(FilterImpls.WINDOW);
    long first = window ? 0 : n;
    for (long i = first; i < 2 * n; i++) {
      filter.add(Keys.longKey(i));
    }
    SplittableRandom random = new SplittableRandom(0x9b05688c2b3e6c1fL);
    present = new long[KEYS];
    absent = new long[KEYS];
    fresh = new long[KEYS];
    for (int i = 0; i < KEYS; i++) {
      present[i] = Keys.longKey(n + random.nextLong(n));
      absent[i] = Keys.longKey(2 * n + random.nextLong(1L << 40));
      fresh[i] = Keys.longKey(-1 - i);
      // A contestant wired wrongly would be fast and useless: no present key may be missed.
      if (!filter.mightContain(present[i])) {
        throw new IllegalStateException(impl + " misses a key of the window");
      }
    }
  }

  @Benchmark
  public boolean queryPresent() {
    return filter.mightContain(present[next++ & MASK]);
  }

  @Benchmark
  public boolean queryAbsent() {
    return filter.mightContain(absent[next++ & MASK]);
  }

  @Benchmark
  public void add() {
    filter.add(fresh[next++ & MASK]);
  }
}
