package io.github.probkit.bench;

import com.clearspring.analytics.stream.StreamSummary;
import com.clearspring.analytics.stream.frequency.CountMinSketch;
import com.clearspring.analytics.stream.frequency.FrequencyMergeException;
import io.github.probkit.frequency.HeavyHitters;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.datasketches.common.ArrayOfStringsSerDe;
import org.apache.datasketches.frequencies.ErrorType;
import org.apache.datasketches.frequencies.ItemsSketch;
import org.apache.spark.util.sketch.IncompatibleMergeException;

/**
 * Frequency sketches behind common interfaces: count-min sketches of depth 5 and width 2719
 * (epsilon = e / 2719 = 0.1 %, delta = e^-5 = 0.7 %), and heavy-hitter summaries of about 1,000
 * counters (stream-lib's Space-Saving StreamSummary with capacity 1,000; DataSketches' frequent
 * items with a map of 2,048 slots, which holds up to 1,536 items).
 */
public final class FrequencyImpls {
  public static final int DEPTH = 5;
  public static final int WIDTH = 2719;
  public static final int SEED = 0x2545F491;
  public static final int COUNTERS = 1000;
  static final List<String> COUNT_MIN =
      List.of(
          "probkit-cms",
          "probkit-cms-single",
          "probkit-cms-conservative",
          "streamlib-cms",
          "spark-cms");
  static final List<String> HEAVY_HITTERS =
      List.of("probkit-heavyhitters", "streamlib-spacesaving", "datasketches-frequent");

  private FrequencyImpls() {}

  /** A count-min sketch. */
  public abstract static class CountMin {
    private final Object root;

    /** {@code root}: the library's object, whose retained size is the contestant's memory. */
    CountMin(Object root) {
      this.root = root;
    }

    public abstract void add(String key);

    public abstract void add(long key);

    public abstract long estimate(String key);

    /** Merges {@code other} into a sketch (this one, or a new one where the library makes one). */
    public abstract CountMin merge(CountMin other);

    public abstract byte[] serialize();

    public final Object root() {
      return root;
    }
  }

  /** A heavy-hitters summary. */
  public abstract static class HeavyHittersContestant {
    private final Object root;

    /** {@code root}: the library's object, whose retained size is the contestant's memory. */
    HeavyHittersContestant(Object root) {
      this.root = root;
    }

    public abstract void add(String key);

    /** The most frequent items, most frequent first (at most {@code k}). */
    public abstract List<String> top(int k);

    public abstract byte[] serialize();

    public final Object root() {
      return root;
    }
  }

  public static CountMin countMin(String name) {
    switch (name) {
      case "probkit-cms":
        return new ProbkitCms(
            io.github.probkit.frequency.CountMinSketch.withDimensions(WIDTH, DEPTH));
      case "probkit-cms-single":
        return new ProbkitCms(
            io.github.probkit.frequency.CountMinSketch.withDimensions(
                WIDTH,
                DEPTH,
                io.github.probkit.hash.HashStrategy.xxh3(),
                io.github.probkit.frequency.CountMinSketch.UpdateRule.STANDARD,
                io.github.probkit.Concurrency.SINGLE_WRITER));
      case "probkit-cms-conservative":
        return new ProbkitCms(
            io.github.probkit.frequency.CountMinSketch.withDimensions(
                WIDTH,
                DEPTH,
                io.github.probkit.hash.HashStrategy.xxh3(),
                io.github.probkit.frequency.CountMinSketch.UpdateRule.CONSERVATIVE));
      case "streamlib-cms":
        return new StreamCms(new CountMinSketch(DEPTH, WIDTH, SEED));
      case "spark-cms":
        return new SparkCms(org.apache.spark.util.sketch.CountMinSketch.create(DEPTH, WIDTH, SEED));
      default:
        throw new IllegalArgumentException(
            "unknown count-min sketch " + name + "; known: " + COUNT_MIN);
    }
  }

  public static HeavyHittersContestant heavyHitters(String name) {
    switch (name) {
      case "probkit-heavyhitters":
        return new ProbkitHeavyHitters(HeavyHitters.withCapacity(COUNTERS));
      case "streamlib-spacesaving":
        return new StreamSpaceSaving(new StreamSummary<>(COUNTERS));
      case "datasketches-frequent":
        return new DsFrequent(new ItemsSketch<>(2048));
      default:
        throw new IllegalArgumentException(
            "unknown heavy hitters " + name + "; known: " + HEAVY_HITTERS);
    }
  }

  static final class ProbkitCms extends CountMin {
    private final io.github.probkit.frequency.CountMinSketch s;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    ProbkitCms(io.github.probkit.frequency.CountMinSketch s) {
      super(s);
      this.s = s;
    }

    @Override
    public void add(String key) {
      s.add(key);
    }

    @Override
    public void add(long key) {
      s.add(key);
    }

    @Override
    public long estimate(String key) {
      return s.estimate(key);
    }

    @Override
    public CountMin merge(CountMin o) {
      s.merge(((ProbkitCms) o).s);
      return this;
    }

    @Override
    public byte[] serialize() {
      return bytes(out, s::writeTo);
    }
  }

  static final class StreamCms extends CountMin {
    private final CountMinSketch s;

    StreamCms(CountMinSketch s) {
      super(s);
      this.s = s;
    }

    @Override
    public void add(String key) {
      s.add(key, 1);
    }

    @Override
    public void add(long key) {
      s.add(key, 1);
    }

    @Override
    public long estimate(String key) {
      return s.estimateCount(key);
    }

    @Override
    public CountMin merge(CountMin o) {
      try {
        return new StreamCms(CountMinSketch.merge(s, ((StreamCms) o).s));
      } catch (FrequencyMergeException e) {
        throw new IllegalStateException(e);
      }
    }

    @Override
    public byte[] serialize() {
      return CountMinSketch.serialize(s);
    }
  }

  static final class SparkCms extends CountMin {
    private final org.apache.spark.util.sketch.CountMinSketch s;

    SparkCms(org.apache.spark.util.sketch.CountMinSketch s) {
      super(s);
      this.s = s;
    }

    @Override
    public void add(String key) {
      s.addString(key);
    }

    @Override
    public void add(long key) {
      s.addLong(key);
    }

    @Override
    public long estimate(String key) {
      return s.estimateCount(key);
    }

    @Override
    public CountMin merge(CountMin o) {
      try {
        s.mergeInPlace(((SparkCms) o).s);
        return this;
      } catch (IncompatibleMergeException e) {
        throw new IllegalStateException(e);
      }
    }

    @Override
    public byte[] serialize() {
      try {
        return s.toByteArray();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  static final class ProbkitHeavyHitters extends HeavyHittersContestant {
    private final HeavyHitters s;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    ProbkitHeavyHitters(HeavyHitters s) {
      super(s);
      this.s = s;
    }

    @Override
    public void add(String key) {
      s.add(key);
    }

    @Override
    public List<String> top(int k) {
      List<String> out = new ArrayList<>(k);
      for (HeavyHitters.Entry e : s.top(k)) {
        out.add(e.itemAsString());
      }
      return out;
    }

    @Override
    public byte[] serialize() {
      return bytes(out, s::writeTo);
    }
  }

  static final class StreamSpaceSaving extends HeavyHittersContestant {
    private final StreamSummary<String> s;

    StreamSpaceSaving(StreamSummary<String> s) {
      super(s);
      this.s = s;
    }

    @Override
    public void add(String key) {
      s.offer(key);
    }

    @Override
    public List<String> top(int k) {
      return s.peek(k);
    }

    @Override
    public byte[] serialize() {
      try {
        return s.toBytes();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  static final class DsFrequent extends HeavyHittersContestant {
    private static final ArrayOfStringsSerDe SERDE = new ArrayOfStringsSerDe();
    private final ItemsSketch<String> s;

    DsFrequent(ItemsSketch<String> s) {
      super(s);
      this.s = s;
    }

    @Override
    public void add(String key) {
      s.update(key);
    }

    @Override
    public List<String> top(int k) {
      ItemsSketch.Row<String>[] rows = s.getFrequentItems(ErrorType.NO_FALSE_NEGATIVES);
      List<String> out = new ArrayList<>(k);
      for (int i = 0; i < rows.length && i < k; i++) {
        out.add(rows[i].getItem());
      }
      return out;
    }

    @Override
    public byte[] serialize() {
      return s.toByteArray(SERDE);
    }
  }

  /**
   * Writes to a byte array through a stream, for the APIs that write to one. The stream is the
   * contestant's own, emptied and reused, as a caller serializing repeatedly would keep one: its
   * growth is not part of the serialization, and the other libraries return a new array likewise.
   */
  static byte[] bytes(ByteArrayOutputStream out, StreamWriter w) {
    out.reset();
    try {
      w.writeTo(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  /** Something that writes itself to a stream. */
  interface StreamWriter {
    void writeTo(OutputStream out) throws IOException;
  }
}
