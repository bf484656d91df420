package io.github.probkit.bench;

import java.lang.management.ManagementFactory;
import java.util.Collection;
import java.util.List;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * The fork's CPU time per operation ({@code cpu.time.norm}, ns/op), next to JMH's wall-clock score.
 *
 * <p>On a machine shared with busy processes, a benchmark thread waits for a core for a varying
 * share of the wall-clock time, which inflates the score by a factor that changes from one fork to
 * the next; CPU time does not include that wait. It does include the fork's other threads (the
 * garbage collector's work for what the benchmark allocates, which is a fair part of its cost, and
 * little else once warm) and per-invocation setup. Cache and memory-bandwidth contention from the
 * neighbours still shows in both.
 *
 * <pre>
 * java -jar bench/target/benchmarks.jar FilterQueryBenchmark -prof io.github.probkit.bench.CpuTimeProfiler
 * </pre>
 */
public final class CpuTimeProfiler implements InternalProfiler {
  private final com.sun.management.OperatingSystemMXBean os =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
  private long startCpu;

  @Override
  public String getDescription() {
    return "process CPU time per operation";
  }

  @Override
  public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
    startCpu = os.getProcessCpuTime();
  }

  @Override
  public Collection<? extends Result> afterIteration(BenchmarkParams benchmarkParams,
      IterationParams iterationParams, IterationResult result) {
    long cpu = os.getProcessCpuTime() - startCpu;
    long ops = result.getMetadata().getAllOps();
    double perOp = ops == 0 ? Double.NaN : (double) cpu / ops;
    return List.of(new ScalarResult("cpu.time.norm", perOp, "ns/op", AggregationPolicy.AVG));
  }
}
