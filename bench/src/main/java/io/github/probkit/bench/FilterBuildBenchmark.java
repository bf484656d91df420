package io.github.probkit.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Building a static filter (one built from all its keys at once) from {@code n} long keys, in
 * milliseconds per filter; the report divides by n.
 *
 * <pre>
 * java -jar bench/target/benchmarks.jar FilterBuildBenchmark -p impl=probkit-binaryfuse8,fastfilter-xorfuse8 \
 *     -p n=1000000 -prof gc
 * </pre>
 */
@State(Scope.Thread)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class FilterBuildBenchmark extends FilterNsPerOperation {
  @Param({"probkit-binaryfuse8", "fastfilter-xor8", "fastfilter-xorfuse8"})
  public String impl;

  @Param({"1000000"})
  public int n;

  private FilterImpls.Spec spec;

  @Setup(Level.Trial)
  public void setup() {
    spec = FilterImpls.spec(impl);
  }

  /** Includes making the key array (the same for every contestant: about 1 ns per key). */
  @Benchmark
  public FilterContestant build() {
    return spec.build().build(n, false);
  }
}
