package io.github.probkit.bench;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * Querying a filter that holds {@code n} keys, in ns per query; half the queries are of present
 * keys, half of absent ones, in a seeded random order (2^20 queries, cycled).
 *
 * <pre>
 * java -jar bench/target/benchmarks.jar FilterQueryBenchmark -p impl=probkit-bloom,guava-bloom \
 *     -p n=1000000 -prof gc
 * </pre>
 *
 * For n = 10^8 give the forks more heap: {@code -jvmArgsAppend "-XX:+AlwaysPreTouch -Xms8g
 * -Xmx8g"}.
 */
@State(Scope.Thread)
public class FilterQueryBenchmark extends SizedFilterBenchmark {
  public static final int QUERIES = 1 << 20;
  private static final int MASK = QUERIES - 1;

  /** A name of {@link FilterImpls}; bench/run passes them all, the default is the headline pair. */
  @Param({"probkit-bloom", "guava-bloom"})
  public String impl;

  private FilterContestant filter;
  private String[] strings;
  private long[] longs;
  private int next;

  @Setup(Level.Trial)
  public void build(BenchmarkParams params) {
    boolean s = params.getBenchmark().endsWith("String");
    filter = FilterImpls.filled(impl, n, fpp, s);
    long[] idx = Keys.queryIndices(n, QUERIES, 0x510e527fade682d1L);
    if (s) {
      strings = Keys.stringsAt(idx);
    } else {
      longs = Keys.longsAt(idx);
    }
    // A contestant wired wrongly would be fast and useless: no present key may be missed.
    for (int i = 0; i < QUERIES; i++) {
      if (Keys.present(idx[i], n)
          && !(s ? filter.mightContain(strings[i]) : filter.mightContain(longs[i]))) {
        throw new IllegalStateException(impl + " misses present key #" + idx[i]);
      }
    }
  }

  @Benchmark
  public boolean mightContainString() {
    return filter.mightContain(strings[next++ & MASK]);
  }

  @Benchmark
  public boolean mightContainLong() {
    return filter.mightContain(longs[next++ & MASK]);
  }
}
