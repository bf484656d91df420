package io.github.probkit.bench;

import io.github.probkit.Concurrency;
import io.github.probkit.filter.BinaryFuseFilter;
import io.github.probkit.filter.BinaryFuseFilter.FingerprintBits;
import io.github.probkit.filter.BlockedBloomFilter;
import io.github.probkit.filter.BloomFilter;
import io.github.probkit.filter.MappedFilter;
import io.github.probkit.filter.MembershipFilter;
import io.github.probkit.filter.MutableFilter;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * probkit's batch operations against one call per key, and its memory-mapped view against the
 * loaded filter, in ns per key (long keys, queries half present). No peer offers either.
 *
 * <ul>
 *   <li>{@code queryOneByOne} / {@code queryBatch}: {@code mightContain} per key against {@code
 *       mightContainAll} over {@value #BATCH} keys.
 *   <li>{@code addOneByOne} / {@code addBatch}: new keys into the filled filter (single-writer
 *       mode).
 *   <li>{@code queryMapped}: {@code mightContain} per key on a {@link MappedFilter} of the same
 *       filter written to a temporary file (in the page cache after the warm-up).
 * </ul>
 *
 * <pre>
 * java -jar bench/target/benchmarks.jar FilterBatchBenchmark -p n=100000000 \
 *     -jvmArgsAppend "-XX:+AlwaysPreTouch -Xms10g -Xmx10g"
 * </pre>
 */
@State(Scope.Thread)
public class FilterBatchBenchmark extends FilterNsPerOperation {
  /** Keys per batch call. */
  public static final int BATCH = 4096;

  private static final int QUERIES = 1 << 20;

  @Param({"probkit-blocked", "probkit-bloom", "probkit-binaryfuse8"})
  public String impl;

  @Param({"1000000"})
  public long n;

  private MembershipFilter filter;
  private MappedFilter mapped;
  private Path file;
  private long[] queries;
  private long[] fresh;
  private boolean[] present;
  private int next;
  private int nextFresh;

  @Setup(Level.Trial)
  public void build() throws IOException {
    long[] chunk = new long[1 << 16];
    if (impl.equals("probkit-binaryfuse8")) {
      filter = BinaryFuseFilter.ofLongs(Keys.longs(0, Math.toIntExact(n)), FingerprintBits.BITS_8);
    } else {
      MutableFilter f =
          impl.equals("probkit-blocked")
              ? BlockedBloomFilter.create(n, 0.01, Concurrency.SINGLE_WRITER)
              : BloomFilter.create(n, 0.01, Concurrency.SINGLE_WRITER);
      for (long i = 0; i < n; i += chunk.length) {
        int c = (int) Math.min(chunk.length, n - i);
        for (int j = 0; j < c; j++) {
          chunk[j] = Keys.longKey(i + j);
        }
        f.addAll(chunk, 0, c);
      }
      filter = f;
    }
    queries = Keys.longsAt(Keys.queryIndices(n, QUERIES, 0x510e527fade682d1L));
    fresh = Keys.longs(2 * n, QUERIES);
    present = new boolean[QUERIES];
    file = Files.createTempFile("probkit-bench", ".bin");
    try (OutputStream out = Files.newOutputStream(file)) {
      filter.writeTo(out);
    }
    mapped = MappedFilter.open(file);
    // A wrongly wired batch or view would be fast and useless: every answer must be the filter's.
    filter.mightContainAll(queries, present);
    for (int i = 0; i < QUERIES; i++) {
      boolean p = filter.mightContain(queries[i]);
      if (present[i] != p || mapped.mightContain(queries[i]) != p) {
        throw new IllegalStateException(
            impl + ": the batch or the mapped view answers key #" + i + " wrongly");
      }
    }
  }

  @TearDown(Level.Trial)
  public void close() throws IOException {
    mapped.close();
    Files.deleteIfExists(file);
  }

  private int nextBatch() {
    int at = next;
    next = (next + BATCH) & (QUERIES - 1);
    return at;
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public int queryOneByOne() {
    int at = nextBatch();
    int found = 0;
    for (int i = at; i < at + BATCH; i++) {
      found += filter.mightContain(queries[i]) ? 1 : 0;
    }
    return found;
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public int queryBatch() {
    int at = nextBatch();
    return filter.mightContainAll(queries, at, at + BATCH, present);
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public int queryMapped() {
    int at = nextBatch();
    int found = 0;
    for (int i = at; i < at + BATCH; i++) {
      found += mapped.mightContain(queries[i]) ? 1 : 0;
    }
    return found;
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public long addOneByOne() {
    MutableFilter f = mutable();
    int at = nextFresh;
    nextFresh = (nextFresh + BATCH) & (QUERIES - 1);
    long changed = 0;
    for (int i = at; i < at + BATCH; i++) {
      changed += f.add(fresh[i]) ? 1 : 0;
    }
    return changed;
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public long addBatch() {
    MutableFilter f = mutable();
    int at = nextFresh;
    nextFresh = (nextFresh + BATCH) & (QUERIES - 1);
    return f.addAll(fresh, at, at + BATCH);
  }

  private MutableFilter mutable() {
    if (!(filter instanceof MutableFilter)) {
      throw new UnsupportedOperationException(impl + " is static: it has no add");
    }
    return (MutableFilter) filter;
  }
}
