package io.github.probkit.bench;

import io.github.probkit.filter.BloomFilter;
import io.github.probkit.hash.DoubleHashing;
import io.github.probkit.hash.HashStrategy;
import java.nio.charset.StandardCharsets;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * An experiment, not a contestant (bench/run does not run it): would an early exit at the first
 * clear bit make the standard Bloom query cheaper where docs/SPARK.md's per-day join spends its
 * time? Rows alternate between four 0.5 MB filters (FilterColumns' per-day filters: 420,000 keys
 * each at 1 %, 2 MB together against a 1 MB L2) or all probe one of them, and are either members of
 * the filter they probe or absent from all four. {@link #branchless} is a copy of {@code
 * BloomFilter.containsPlain} with k = 7 (every probe loaded, the bits ANDed); {@link #earlyExit}
 * returns at the first clear bit. Both take the filter's own h1 and h2, computed in the setup, so
 * that only the probes are timed; the setup checks that both copies answer every row as {@code
 * BloomFilter.mightContain} does.
 *
 * <pre>
 * java -cp ... org.openjdk.jmh.Main ProbeExitBenchmark -prof io.github.probkit.bench.CpuTimeProfiler
 * </pre>
 */
@State(Scope.Thread)
public class ProbeExitBenchmark extends FilterNsPerOperation {
  private static final int FILTER_KEYS = 420_000;
  private static final int DAYS = 4;
  private static final int ROWS = 1 << 16;

  /** four: row i probes filter i % 4; one: every row probes filter 0. */
  @Param({"four", "one"})
  public String filters;

  /** members: keys of the filter the row probes; absent: keys of no filter. */
  @Param({"members", "absent"})
  public String keys;

  private long[][] words;
  private long m;
  private int[] filterOf;
  private long[] h1;
  private long[] h2;

  @Setup(Level.Trial)
  public void build() {
    HashStrategy hash = HashStrategy.xxh3();
    BloomFilter[] f = new BloomFilter[DAYS];
    for (int d = 0; d < DAYS; d++) {
      f[d] = BloomFilter.create(FILTER_KEYS, 0.01);
    }
    for (long id = 0; id < (long) DAYS * FILTER_KEYS; id++) {
      f[(int) (id % DAYS)].add(("user:" + id).getBytes(StandardCharsets.UTF_8));
    }
    words = new long[DAYS][];
    for (int d = 0; d < DAYS; d++) {
      if (f[d].hashCount() != 7 || f[d].bitSize() != f[0].bitSize()) {
        throw new IllegalStateException("the copies assume k = 7 and one size: " + f[d]);
      }
      words[d] = f[d].words();
    }
    m = f[0].bitSize();
    boolean four = filters.equals("four");
    boolean members = keys.equals("members");
    filterOf = new int[ROWS];
    h1 = new long[ROWS];
    h2 = new long[ROWS];
    for (int i = 0; i < ROWS; i++) {
      int d = four ? i % DAYS : 0;
      // Members of filter d are the ids ≡ d (mod 4) below 4 * FILTER_KEYS; the rows spread over
      // them. Absent keys are ids above every filter's, as most of FilterColumns' 10^7 rows are.
      long id = members ? (long) DAYS * (i * 5L % FILTER_KEYS) + d : 10_000_000L + i;
      byte[] key = ("user:" + id).getBytes(StandardCharsets.UTF_8);
      filterOf[i] = d;
      h1[i] = hash.hash64(key, 0, key.length);
      h2[i] = hash.secondHash(key, 0, key.length, h1[i]);
      boolean expected = f[d].mightContain(key, 0, key.length);
      if (members && !expected) {
        throw new IllegalStateException("member " + id + " missed");
      }
      if (allBits(words[d], m, h1[i], h2[i], 7) != expected
          || firstClear(words[d], m, h1[i], h2[i], 7) != expected) {
        throw new IllegalStateException("a copy answers key " + id + " unlike BloomFilter");
      }
    }
  }

  @Benchmark
  @OperationsPerInvocation(ROWS)
  public int branchless() {
    int present = 0;
    for (int i = 0; i < ROWS; i++) {
      if (allBits(words[filterOf[i]], m, h1[i], h2[i], 7)) {
        present++;
      }
    }
    return present;
  }

  @Benchmark
  @OperationsPerInvocation(ROWS)
  public int earlyExit() {
    int present = 0;
    for (int i = 0; i < ROWS; i++) {
      if (firstClear(words[filterOf[i]], m, h1[i], h2[i], 7)) {
        present++;
      }
    }
    return present;
  }

  /** BloomFilter.containsPlain's loop. */
  private static boolean allBits(long[] w, long m, long h1, long h2, int k) {
    long all = 1;
    for (int i = 0; i < k; i++, h1 += h2) {
      long p = DoubleHashing.reduce(h1, m);
      all &= w[(int) (p >>> 6)] >>> p;
    }
    return (all & 1) != 0;
  }

  /** The same probes, returning at the first clear bit. */
  private static boolean firstClear(long[] w, long m, long h1, long h2, int k) {
    for (int i = 0; i < k; i++, h1 += h2) {
      long p = DoubleHashing.reduce(h1, m);
      if ((w[(int) (p >>> 6)] >>> p & 1) == 0) {
        return false;
      }
    }
    return true;
  }
}
