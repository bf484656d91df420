package io.github.probkit.bench;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * Distinct-count sketches at precision 14: adding a key (long or String) or a key's 64-bit hash to
 * a sketch already holding {@code n} distinct keys (so in its dense, steady state), estimating a
 * sketch that has absorbed another of n keys by a merge, merging a sketch of n other keys into it
 * (in place where the library can; DataSketches through a new Union), and serializing it to a byte
 * array. ns per operation.
 *
 * <pre>
 * java -jar bench/target/benchmarks.jar CardinalityBenchmark.addLong -p impl=hash4j-ull,datasketches-hll8 -prof gc
 * </pre>
 */
@State(Scope.Thread)
public class CardinalityBenchmark extends NsPerOperation {
  private static final int KEYS = 1 << 20;
  private static final int MASK = KEYS - 1;

  @Param({
    "probkit-ull",
    "probkit-hll",
    "hash4j-ull",
    "hash4j-hll",
    "datasketches-hll4",
    "datasketches-hll6",
    "datasketches-hll8",
    "datasketches-cpc",
    "streamlib-hllp"
  })
  public String impl;

  @Param({"1000000"})
  public int n;

  private CardinalityImpls.Sketch sketch;
  private CardinalityImpls.Sketch other;
  private long[] longs;
  private long[] hashes;
  private String[] strings;
  private int next;

  @Setup(Level.Trial)
  public void setup(BenchmarkParams params) {
    String method = params.getBenchmark().substring(params.getBenchmark().lastIndexOf('.') + 1);
    boolean s = method.equals("addString");
    sketch = CardinalityImpls.create(impl);
    other = CardinalityImpls.create(impl);
    for (int i = 0; i < n; i++) {
      if (s) {
        sketch.add(Keys.stringKey(i));
        other.add(Keys.stringKey(n + i));
      } else {
        sketch.add(Keys.longKey(i));
        other.add(Keys.longKey(n + i));
      }
    }
    if (method.equals("estimate")) {
      // The estimate after a merge: no running estimate of the keys added one by one is left to
      // return.
      sketch = sketch.merge(other);
    }
    // Keys not yet seen, as a stream of new keys would be.
    if (s) {
      strings = Keys.strings(2L * n, KEYS);
    } else {
      longs = Keys.longs(2L * n, KEYS);
      hashes = new long[KEYS];
      for (int i = 0; i < KEYS; i++) {
        hashes[i] = CardinalityImpls.XXH3.hashLongToLong(longs[i]);
      }
    }
  }

  @Benchmark
  public void addLong() {
    sketch.add(longs[next++ & MASK]);
  }

  /** probkit's and hash4j's sketches only: the others take no hash. */
  @Benchmark
  public void addHash() {
    sketch.addHash(hashes[next++ & MASK]);
  }

  @Benchmark
  public void addString() {
    sketch.add(strings[next++ & MASK]);
  }

  @Benchmark
  public double estimate() {
    return sketch.estimate();
  }

  @Benchmark
  public CardinalityImpls.Sketch merge() {
    return sketch.merge(other);
  }

  @Benchmark
  public byte[] serialize() {
    return sketch.serialize();
  }
}
