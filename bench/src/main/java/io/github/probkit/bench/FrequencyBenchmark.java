package io.github.probkit.bench;

import io.github.probkit.frequency.HeavyHitters;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Frequency sketches on a Zipf stream (exponent 1.1 over 10^6 distinct {@code "user:"} keys, 2^20
 * draws, cycled): count-min add and estimate, merge and serialize; heavy-hitter add and top-10. ns
 * per operation. And a flood: 30,000 items that share one XXH3 hash, against random ones.
 *
 * <pre>
 * java -jar bench/target/benchmarks.jar 'FrequencyBenchmark.countMin.*' -prof gc
 * java -jar bench/target/benchmarks.jar 'FrequencyBenchmark.heavyHitters.*' -prof gc
 * java -jar bench/target/benchmarks.jar 'FrequencyBenchmark.heavyHittersFlood'
 * </pre>
 */
public class FrequencyBenchmark extends NsPerOperation {
  static final int KEYS = 1 << 20;
  static final int MASK = KEYS - 1;
  static final int UNIVERSE = 1_000_000;
  static final double ZIPF = 1.1;

  /** The stream, its keys allocated in the order they arrive. */
  @State(Scope.Thread)
  public static class Stream {
    String[] strings;
    long[] longs;
    int next;

    @Setup(Level.Trial)
    public void setup() {
      long[] idx = Keys.zipfIndices(UNIVERSE, ZIPF, KEYS, 0x9b05688c2b3e6c1fL);
      strings = Keys.stringsAt(idx);
      longs = Keys.longsAt(idx);
    }

    String nextString() {
      return strings[next++ & MASK];
    }

    long nextLong() {
      return longs[next++ & MASK];
    }
  }

  @State(Scope.Thread)
  public static class CountMinState {
    @Param({
      "probkit-cms",
      "probkit-cms-single",
      "probkit-cms-conservative",
      "streamlib-cms",
      "spark-cms"
    })
    public String cms;

    FrequencyImpls.CountMin sketch;
    FrequencyImpls.CountMin other;

    @Setup(Level.Trial)
    public void setup(Stream stream) {
      sketch = FrequencyImpls.countMin(cms);
      other = FrequencyImpls.countMin(cms);
      for (int i = 0; i < KEYS; i++) {
        sketch.add(stream.strings[i]);
        other.add(stream.strings[KEYS - 1 - i]);
      }
    }
  }

  @State(Scope.Thread)
  public static class HeavyHittersState {
    @Param({"probkit-heavyhitters", "streamlib-spacesaving", "datasketches-frequent"})
    public String hh;

    FrequencyImpls.HeavyHittersContestant sketch;

    @Setup(Level.Trial)
    public void setup(Stream stream) {
      sketch = FrequencyImpls.heavyHitters(hh);
      for (String k : stream.strings) {
        sketch.add(k);
      }
    }
  }

  /** 30,000 distinct 32-byte items, random or all with the same XXH3-64 (seed 0). */
  @State(Scope.Thread)
  public static class FloodState {
    static final int ITEMS = 30_000;

    @Param({"random", "xxh3-collisions"})
    public String items;

    byte[][] keys;

    @Setup(Level.Trial)
    public void setup() {
      keys =
          items.equals("random")
              ? Keys.randomLetters(ITEMS, 32, 0x3c6ef372fe94f82bL)
              : Keys.xxh3Collisions(ITEMS, 0x3c6ef372fe94f82bL);
    }
  }

  @Benchmark
  public void countMinAddString(CountMinState s, Stream keys) {
    s.sketch.add(keys.nextString());
  }

  @Benchmark
  public void countMinAddLong(CountMinState s, Stream keys) {
    s.sketch.add(keys.nextLong());
  }

  @Benchmark
  public long countMinEstimate(CountMinState s, Stream keys) {
    return s.sketch.estimate(keys.nextString());
  }

  @Benchmark
  public FrequencyImpls.CountMin countMinMerge(CountMinState s) {
    return s.sketch.merge(s.other);
  }

  @Benchmark
  public byte[] countMinSerialize(CountMinState s) {
    return s.sketch.serialize();
  }

  @Benchmark
  public void heavyHittersAdd(HeavyHittersState s, Stream keys) {
    s.sketch.add(keys.nextString());
  }

  @Benchmark
  public List<String> heavyHittersTop10(HeavyHittersState s) {
    return s.sketch.top(10);
  }

  /**
   * Issue 14's flood: the 30,000 items added three times each to a new summary that holds them all
   * (90,000 adds per operation), the way {@code probkit top} would count a file of such lines.
   */
  @Benchmark
  @OutputTimeUnit(TimeUnit.MILLISECONDS)
  public HeavyHitters heavyHittersFlood(FloodState s) {
    HeavyHitters h = HeavyHitters.withCapacity(1 << 15);
    for (int round = 0; round < 3; round++) {
      for (byte[] k : s.keys) {
        h.add(k);
      }
    }
    return h;
  }
}
