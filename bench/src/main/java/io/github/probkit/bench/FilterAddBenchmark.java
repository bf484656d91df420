package io.github.probkit.bench;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * Adding new keys to a filter sized for {@code n} keys, in ns per key.
 *
 * <p>Each invocation adds {@link #BATCH} distinct keys to a new, empty filter: re-adding keys
 * already present would be cheaper for filters that read before they write, so every add here is of
 * a new key. At n = 10^6 an invocation builds the whole filter; at larger n it adds the first 10^6
 * keys into a filter of full size, so every probe still lands at a random place in the whole array.
 * The filter is made in the per-invocation setup, whose CPU time and allocation CpuTimeProfiler
 * leaves out ({@code -prof gc} counts the bytes).
 *
 * <pre>
 * java -jar bench/target/benchmarks.jar FilterAddBenchmark -p impl=probkit-bloom,guava-bloom \
 *     -p n=1000000 -prof gc
 * </pre>
 */
@State(Scope.Thread)
public class FilterAddBenchmark extends SizedFilterBenchmark {
  /** Keys added per invocation. */
  public static final int BATCH = 1_000_000;

  /** A name of {@link FilterImpls}; bench/run passes them all, the default is the headline pair. */
  @Param({"probkit-bloom", "guava-bloom"})
  public String impl;

  private String[] strings;
  private long[] longs;
  private FilterContestant filter;

  @Setup(Level.Trial)
  public void keys(BenchmarkParams params) {
    if (n < BATCH) {
      throw new IllegalArgumentException("n must be at least " + BATCH + ", was " + n);
    }
    if (params.getBenchmark().endsWith("String")) {
      strings = Keys.strings(0, BATCH);
    } else {
      longs = Keys.longs(0, BATCH);
    }
  }

  @Setup(Level.Invocation)
  public void emptyFilter() {
    long start = CpuTimeProfiler.setupStart();
    filter = null; // let the previous one be collected before the next is allocated
    filter = FilterImpls.empty(impl, n, fpp, strings != null);
    CpuTimeProfiler.setupEnd(start);
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public FilterContestant addString() {
    FilterContestant f = filter;
    for (String k : strings) {
      f.add(k);
    }
    return f;
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public FilterContestant addLong() {
    FilterContestant f = filter;
    for (long k : longs) {
      f.add(k);
    }
    return f;
  }
}
