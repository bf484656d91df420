package io.github.probkit.bench;

import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * The filter benchmarks that size a filter for {@code n} keys at rate {@code fpp}: one default for
 * both, so that their figures are of the same filters. JMH takes {@code @Param} fields only in a
 * {@code @State} class; the benchmarks that extend this declare the same scope.
 */
@State(Scope.Thread)
public abstract class SizedFilterBenchmark extends FilterNsPerOperation {
  @Param({"1000000"})
  public long n;

  @Param({"0.01"})
  public double fpp;
}
