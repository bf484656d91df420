package io.github.probkit.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * The CPU time of the benchmark threads per operation ({@code cpu.time.norm}, ns/op), next to JMH's
 * wall-clock score, and the bytes they allocate per operation ({@code alloc.norm}, B/op).
 *
 * <p>On a machine shared with busy processes a benchmark thread waits for a core for a share of the
 * wall-clock time that changes from one minute to the next; its own CPU time does not include that
 * wait. Only JMH's worker threads are counted (not the JIT compiler, not the garbage collector's
 * threads: an allocating library's collection cost shows in its B/op, not here), and the CPU time
 * they spend in per-iteration and per-invocation setup is left out when the benchmark's setup
 * reports it through {@link #setupStart()} and {@link #setupEnd(long)}; so are the bytes allocated
 * there (a new filter per invocation), which {@code -prof gc} would count. Cache and
 * memory-bandwidth contention from the neighbours still shows, which is why every figure is
 * measured in several forks with the contestants interleaved (see BenchRunner).
 *
 * <pre>
 * java -jar bench/target/benchmarks.jar FilterQueryBenchmark -prof io.github.probkit.bench.CpuTimeProfiler
 * </pre>
 */
public final class CpuTimeProfiler implements InternalProfiler {
  /** JMH names its benchmark threads {@code <benchmark>-jmh-worker-<n>}. */
  private static final String WORKER = "-jmh-worker-";

  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  /** Setup CPU time and allocation reported since the iteration began, in ns and bytes. */
  private static final AtomicLong SETUP_CPU = new AtomicLong();

  private static final AtomicLong SETUP_BYTES = new AtomicLong();
  private static final ThreadLocal<long[]> SETUP_START = ThreadLocal.withInitial(() -> new long[1]);

  private final Map<Long, long[]> start = new HashMap<>();

  /**
   * The calling thread's CPU time now: pass it to {@link #setupEnd} when the setup is done (which
   * also leaves out what the setup allocates).
   */
  public static long setupStart() {
    SETUP_START.get()[0] = THREADS.getCurrentThreadAllocatedBytes();
    return THREADS.getCurrentThreadCpuTime();
  }

  /**
   * Leaves the calling thread's CPU time and allocation since {@code start} out of the iteration's
   * figures.
   */
  public static void setupEnd(long start) {
    SETUP_CPU.addAndGet(THREADS.getCurrentThreadCpuTime() - start);
    SETUP_BYTES.addAndGet(THREADS.getCurrentThreadAllocatedBytes() - SETUP_START.get()[0]);
  }

  @Override
  public String getDescription() {
    return "CPU time of the benchmark threads per operation, setup excluded";
  }

  @Override
  public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
    start.clear();
    for (long id : workers()) {
      start.put(id, new long[] {THREADS.getThreadCpuTime(id), THREADS.getThreadAllocatedBytes(id)});
    }
    SETUP_CPU.set(0);
    SETUP_BYTES.set(0);
  }

  @Override
  public Collection<? extends Result> afterIteration(
      BenchmarkParams benchmarkParams, IterationParams iterationParams, IterationResult result) {
    long cpu = 0;
    long bytes = 0;
    int found = 0;
    for (long id : workers()) {
      long now = THREADS.getThreadCpuTime(id);
      long allocated = THREADS.getThreadAllocatedBytes(id);
      if (now >= 0 && allocated >= 0) {
        // A worker started during the iteration counts from its start.
        long[] before = start.getOrDefault(id, new long[2]);
        cpu += now - before[0];
        bytes += allocated - before[1];
        found++;
      }
    }
    cpu -= SETUP_CPU.getAndSet(0);
    bytes -= SETUP_BYTES.getAndSet(0);
    long ops = result.getMetadata().getAllOps();
    boolean none = found == 0 || ops == 0;
    return List.of(
        new ScalarResult(
            "cpu.time.norm",
            none ? Double.NaN : (double) cpu / ops,
            "ns/op",
            AggregationPolicy.AVG),
        new ScalarResult(
            "alloc.norm", none ? Double.NaN : (double) bytes / ops, "B/op", AggregationPolicy.AVG));
  }

  private static long[] workers() {
    ThreadInfo[] infos = THREADS.getThreadInfo(THREADS.getAllThreadIds());
    long[] ids = new long[infos.length];
    int n = 0;
    for (ThreadInfo t : infos) {
      if (t != null && t.getThreadName().contains(WORKER)) {
        ids[n++] = t.getThreadId();
      }
    }
    return java.util.Arrays.copyOf(ids, n);
  }
}
