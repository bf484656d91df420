package io.github.probkit.bench;

import com.clearspring.analytics.stream.cardinality.CardinalityMergeException;
import com.clearspring.analytics.stream.cardinality.HyperLogLogPlus;
import com.dynatrace.hash4j.distinctcount.HyperLogLog;
import com.dynatrace.hash4j.distinctcount.UltraLogLog;
import com.dynatrace.hash4j.hashing.Hasher64;
import com.dynatrace.hash4j.hashing.Hashing;
import io.github.probkit.cardinality.CardinalitySketch;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import org.apache.datasketches.cpc.CpcSketch;
import org.apache.datasketches.cpc.CpcUnion;
import org.apache.datasketches.hll.HllSketch;
import org.apache.datasketches.hll.TgtHllType;
import org.apache.datasketches.hll.Union;

/**
 * Distinct-count sketches behind one interface, all at precision 14 (2^14 registers or lgK = 14).
 * Each takes the key: DataSketches and stream-lib hash Strings themselves; hash4j takes a hash, so
 * its contestants hash with hash4j's XXH3 (the chars of a String, the value of a long).
 * stream-lib's {@code offer(Object)} of a long would hash its toString(), so long keys go to {@code
 * offerHashed(xxh3(key))}, the way a user avoids that.
 */
public final class CardinalityImpls {
  public static final int PRECISION = 14;
  static final List<String> NAMES = ParamValues.of(CardinalityBenchmark.class, "impl");

  /** The sketches that take a key's hash. */
  static final List<String> HASH_NAMES =
      List.of("probkit-ull", "probkit-hll", "hash4j-ull", "hash4j-hll");

  static final Hasher64 XXH3 = Hashing.xxh3_64();

  private CardinalityImpls() {}

  /** One distinct-count sketch. */
  public abstract static class Sketch {
    private final Object root;

    /** {@code root}: the library's object, whose retained size is the contestant's memory. */
    Sketch(Object root) {
      this.root = root;
    }

    public abstract void add(long key);

    public abstract void add(String key);

    /** Adds a key by its 64-bit hash, where the library takes one. */
    public void addHash(long hash) {
      throw new UnsupportedOperationException(getClass().getSimpleName() + " takes no hash");
    }

    public abstract double estimate();

    /**
     * Merges {@code other} (of the same implementation) in place where the library can (probkit,
     * hash4j, stream-lib); DataSketches merges through a new Union, as its API requires.
     */
    public abstract Sketch merge(Sketch other);

    public abstract byte[] serialize();

    public final Object root() {
      return root;
    }
  }

  public static Sketch create(String name) {
    switch (name) {
      case "probkit-ull":
        return new Probkit(io.github.probkit.cardinality.UltraLogLog.create(PRECISION));
      case "probkit-hll":
        return new Probkit(io.github.probkit.cardinality.HyperLogLog.create(PRECISION));
      case "hash4j-ull":
        return new Hash4jUll(UltraLogLog.create(PRECISION));
      case "hash4j-hll":
        return new Hash4jHll(HyperLogLog.create(PRECISION));
      case "datasketches-hll4":
        return new DsHll(new HllSketch(PRECISION, TgtHllType.HLL_4));
      case "datasketches-hll6":
        return new DsHll(new HllSketch(PRECISION, TgtHllType.HLL_6));
      case "datasketches-hll8":
        return new DsHll(new HllSketch(PRECISION, TgtHllType.HLL_8));
      case "datasketches-cpc":
        return new DsCpc(new CpcSketch(PRECISION));
      // sp = 25: the sparse precision stream-lib's documentation suggests.
      case "streamlib-hllp":
        return new StreamHllp(new HyperLogLogPlus(PRECISION, 25));
      default:
        throw new IllegalArgumentException(
            "unknown cardinality sketch " + name + "; known: " + NAMES);
    }
  }

  /** probkit's sketches hash the key themselves (XXH3 of its bytes). Merge is in place. */
  static final class Probkit extends Sketch {
    private final CardinalitySketch s;
    private final java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();

    Probkit(CardinalitySketch s) {
      super(s);
      this.s = s;
    }

    @Override
    public void add(long key) {
      s.add(key);
    }

    @Override
    public void add(String key) {
      s.add(key);
    }

    @Override
    public void addHash(long hash) {
      s.addHash(hash);
    }

    @Override
    public double estimate() {
      return s.estimate();
    }

    @Override
    public Sketch merge(Sketch o) {
      CardinalitySketch other = ((Probkit) o).s;
      if (s instanceof io.github.probkit.cardinality.HyperLogLog) {
        ((io.github.probkit.cardinality.HyperLogLog) s)
            .merge((io.github.probkit.cardinality.HyperLogLog) other);
      } else {
        ((io.github.probkit.cardinality.UltraLogLog) s)
            .merge((io.github.probkit.cardinality.UltraLogLog) other);
      }
      return this;
    }

    @Override
    public byte[] serialize() {
      return FrequencyImpls.bytes(out, s::writeTo);
    }
  }

  static final class Hash4jUll extends Sketch {
    private final UltraLogLog s;

    Hash4jUll(UltraLogLog s) {
      super(s);
      this.s = s;
    }

    @Override
    public void add(long key) {
      s.add(XXH3.hashLongToLong(key));
    }

    @Override
    public void add(String key) {
      s.add(XXH3.hashCharsToLong(key));
    }

    @Override
    public void addHash(long hash) {
      s.add(hash);
    }

    @Override
    public double estimate() {
      return s.getDistinctCountEstimate();
    }

    @Override
    public Sketch merge(Sketch o) {
      s.add(((Hash4jUll) o).s);
      return this;
    }

    // getState() is the live register array: a caller that keeps the bytes must copy them.
    @Override
    public byte[] serialize() {
      return s.getState().clone();
    }
  }

  static final class Hash4jHll extends Sketch {
    private final HyperLogLog s;

    Hash4jHll(HyperLogLog s) {
      super(s);
      this.s = s;
    }

    @Override
    public void add(long key) {
      s.add(XXH3.hashLongToLong(key));
    }

    @Override
    public void add(String key) {
      s.add(XXH3.hashCharsToLong(key));
    }

    @Override
    public void addHash(long hash) {
      s.add(hash);
    }

    @Override
    public double estimate() {
      return s.getDistinctCountEstimate();
    }

    @Override
    public Sketch merge(Sketch o) {
      s.add(((Hash4jHll) o).s);
      return this;
    }

    @Override
    public byte[] serialize() {
      return s.getState().clone();
    }
  }

  static final class DsHll extends Sketch {
    private final HllSketch s;

    DsHll(HllSketch s) {
      super(s);
      this.s = s;
    }

    @Override
    public void add(long key) {
      s.update(key);
    }

    @Override
    public void add(String key) {
      s.update(key);
    }

    @Override
    public double estimate() {
      return s.getEstimate();
    }

    @Override
    public Sketch merge(Sketch o) {
      Union u = new Union(PRECISION);
      u.update(s);
      u.update(((DsHll) o).s);
      return new DsHll(u.getResult(s.getTgtHllType()));
    }

    @Override
    public byte[] serialize() {
      return s.toCompactByteArray();
    }
  }

  static final class DsCpc extends Sketch {
    private final CpcSketch s;

    DsCpc(CpcSketch s) {
      super(s);
      this.s = s;
    }

    @Override
    public void add(long key) {
      s.update(key);
    }

    @Override
    public void add(String key) {
      s.update(key);
    }

    @Override
    public double estimate() {
      return s.getEstimate();
    }

    @Override
    public Sketch merge(Sketch o) {
      CpcUnion u = new CpcUnion(PRECISION);
      u.update(s);
      u.update(((DsCpc) o).s);
      return new DsCpc(u.getResult());
    }

    @Override
    public byte[] serialize() {
      return s.toByteArray();
    }
  }

  static final class StreamHllp extends Sketch {
    private final HyperLogLogPlus s;

    StreamHllp(HyperLogLogPlus s) {
      super(s);
      this.s = s;
    }

    @Override
    public void add(long key) {
      s.offerHashed(XXH3.hashLongToLong(key));
    }

    @Override
    public void add(String key) {
      s.offer(key);
    }

    @Override
    public double estimate() {
      return s.cardinality();
    }

    @Override
    public Sketch merge(Sketch o) {
      try {
        s.addAll(((StreamHllp) o).s);
        return this;
      } catch (CardinalityMergeException e) {
        throw new IllegalStateException(e);
      }
    }

    @Override
    public byte[] serialize() {
      try {
        return s.getBytes();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
