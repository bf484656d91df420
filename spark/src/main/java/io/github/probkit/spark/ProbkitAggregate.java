package io.github.probkit.spark;

import io.github.probkit.Concurrency;
import io.github.probkit.cardinality.HyperLogLog;
import io.github.probkit.cardinality.UltraLogLog;
import io.github.probkit.filter.AgePartitionedBloomFilter;
import io.github.probkit.filter.BinaryFuseFilter.FingerprintBits;
import io.github.probkit.filter.BlockedBloomFilter;
import io.github.probkit.filter.BloomFilter;
import io.github.probkit.frequency.CountMinSketch;
import io.github.probkit.frequency.HeavyHitters;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Supplier;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.aggregate.TypedImperativeAggregate;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.NullType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import scala.collection.immutable.IndexedSeq;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The aggregate functions {@code probkit_bloom_agg}, {@code probkit_cms_agg}, {@code
 * probkit_topk_agg}, {@code probkit_hll_agg}, {@code probkit_ull_agg} and {@code
 * probkit_union_agg}. Each partition fills its own structure (the {@link Accumulator} buffer,
 * updated in place), the partial structures travel in probkit's format and are merged.
 *
 * <p>The result is {@link #RESULT}: the structure's bytes (a probkit file), the keys added and the
 * null keys skipped. The key column's type and the constant arguments are checked when the query is
 * analysed, so a wrong one fails before any task runs.
 */
public final class ProbkitAggregate extends TypedImperativeAggregate<Accumulator>
    implements Serializable {
  private static final long serialVersionUID = 1L;

  /**
   * {@code struct<sketch: binary, keys: bigint, nulls: bigint, key_type: string, digest: binary>};
   * keys, nulls and key_type are null when unknown. The key type ({@link Keys#typeName}) lives here
   * because the probkit format has no field for it; the digest ({@link SketchArg#digest}) lets a
   * scalar function recognise a sketch it decoded without reading it again.
   */
  public static final StructType RESULT =
      new StructType(
          new StructField[] {
            DataTypes.createStructField("sketch", DataTypes.BinaryType, true),
            DataTypes.createStructField("keys", DataTypes.LongType, true),
            DataTypes.createStructField("nulls", DataTypes.LongType, true),
            DataTypes.createStructField("key_type", DataTypes.StringType, true),
            DataTypes.createStructField("digest", DataTypes.BinaryType, true)
          });

  /** The functions, with their SQL names and how many arguments they take. */
  enum Function {
    BLOOM(
        new Signature(
            "probkit_bloom_agg",
            3,
            4,
            "key, expected, fpp[, type]",
            "A filter of the keys, sized for `expected` keys at false-positive rate `fpp`; `type`"
                + " is bloom (default), blocked, binary-fuse8, binary-fuse16 or fuse. Returns"
                + " struct<sketch, keys, nulls, key_type, digest>.",
            "SELECT probkit_bloom_agg(user, 1000000, 0.01) AS vip FROM users WHERE vip",
            "SELECT probkit_bloom_agg(url, 100000000, 0.01, 'blocked').sketch FROM crawled")),
    CMS(
        new Signature(
            "probkit_cms_agg",
            3,
            3,
            "key, epsilon, delta",
            "A count-min sketch of the keys: a count is too high by more than epsilon times the"
                + " total with probability at most delta.",
            "SELECT probkit_cms_estimate(probkit_cms_agg(term, 0.001, 0.01), 'spark') FROM"
                + " searches")),
    TOPK(
        new Signature(
            "probkit_topk_agg",
            2,
            3,
            "key, k[, capacity]",
            "A heavy-hitters summary for the k most frequent keys (capacity max(1000, 100 k) by"
                + " default); read it with probkit_topk.",
            "SELECT probkit_topk(probkit_topk_agg(term, 10), 10) FROM searches",
            "SELECT probkit_topk(probkit_topk_agg(user_id, 10), 10, 'bigint') FROM clicks")),
    HLL(
        new Signature(
            "probkit_hll_agg",
            1,
            2,
            "key[, precision]",
            "A HyperLogLog sketch of the keys, precision 14 (12 KB, 0.81 % error) by default.",
            "SELECT day, probkit_hll_agg(user) AS users FROM events GROUP BY day",
            "SELECT probkit_estimate(probkit_hll_agg(user, 16)) FROM events")),
    ULL(
        new Signature(
            "probkit_ull_agg",
            1,
            2,
            "key[, precision]",
            "An UltraLogLog sketch of the keys, precision 14 (16 KB, 0.59 % error) by default.",
            "SELECT probkit_estimate(probkit_ull_agg(user)) FROM events")),
    UNION(
        new Signature(
            "probkit_union_agg",
            1,
            1,
            "sketch",
            "The union of a column of structures of one type and one key type (daily sketches to a"
                + " month).",
            "SELECT probkit_estimate(probkit_union_agg(users)) FROM daily WHERE month ="
                + " '2026-11'")),
    WINDOW_BLOOM(
        new Signature(
            "probkit_window_bloom_agg",
            5,
            5,
            "key, time, window, expected, fpp",
            "A sliding-window filter (age-partitioned Bloom filter) of the keys by their event"
                + " time: no false negative for a key added within `window` of the query's time,"
                + " sized for `expected` keys per window at false-positive rate `fpp`; query it"
                + " with probkit_window_might_contain.",
            "SELECT probkit_window_bloom_agg(user, ts, '7d', 10000000, 0.01) AS seen FROM events",
            "SELECT probkit_window_bloom_agg(url, ts, INTERVAL '1' HOUR, 100000, 0.001) FROM"
                + " crawled")),
    WINDOW_HLL(
        new Signature(
            "probkit_window_hll_agg",
            4,
            5,
            "key, time, window, slice[, precision]",
            "Distinct keys over sliding windows of time: a HyperLogLog sketch (precision 14 by"
                + " default) per `slice` of event time, for windows up to `window`; count them"
                + " with probkit_window_count.",
            "SELECT probkit_window_hll_agg(user, ts, '24h', '1h') AS users FROM events",
            "SELECT probkit_window_count(probkit_window_hll_agg(user, ts, '7d', '1h', 12), '24h',"
                + " TIMESTAMP '2026-11-30 00:00:00') FROM events")),
    WINDOW_ULL(
        new Signature(
            "probkit_window_ull_agg",
            4,
            5,
            "key, time, window, slice[, precision]",
            "As probkit_window_hll_agg, with an UltraLogLog sketch per slice (precision 14 by"
                + " default).",
            "SELECT probkit_window_ull_agg(user, ts, '24h', '1h') AS users FROM events")),
    WINDOW_CMS(
        new Signature(
            "probkit_window_cms_agg",
            6,
            6,
            "key, time, window, slice, epsilon, delta",
            "Frequencies over sliding windows of time: a count-min sketch per `slice` of event"
                + " time, for windows up to `window`; read it with probkit_window_cms_estimate.",
            "SELECT probkit_window_cms_agg(term, ts, '24h', '1h', 0.001, 0.01) AS terms FROM"
                + " searches"));
    final Signature signature;

    /** Whether the second argument is the event time. */
    boolean timed() {
      return ordinal() >= WINDOW_BLOOM.ordinal();
    }

    Function(Signature signature) {
      this.signature = signature;
    }
  }

  private final Function function;
  private final Seq<Expression> children;
  private final int mutableAggBufferOffset;
  private final int inputAggBufferOffset;

  /** Made from the constant arguments on first use, on the driver and again in each executor. */
  private transient Supplier<Accumulator> factory;

  private transient Keys keys;

  public ProbkitAggregate(
      Function function,
      Seq<Expression> children,
      int mutableAggBufferOffset,
      int inputAggBufferOffset) {
    this.function = function;
    this.children = children;
    this.mutableAggBufferOffset = mutableAggBufferOffset;
    this.inputAggBufferOffset = inputAggBufferOffset;
  }

  static ProbkitAggregate of(Function function, Seq<Expression> children) {
    return new ProbkitAggregate(function, children, 0, 0);
  }

  private Expression arg(int i) {
    return children.apply(i);
  }

  // ---- analysis

  @Override
  public TypeCheckResult checkInputDataTypes() {
    return Params.typeCheck(this::factory);
  }

  /**
   * Checks the arguments and returns what makes an empty buffer; IllegalArgumentException when one
   * is wrong.
   */
  private Supplier<Accumulator> factory() {
    if (factory != null) {
      return factory;
    }
    String name = function.signature.sqlName;
    int n = children.size();
    function.signature.checkArity(n);
    DataType keyType = arg(0).dataType();
    if (function == Function.UNION) {
      if (!SketchArg.accepts(keyType)) {
        throw Params.fail(
            name, "sketch must be binary or %s, was of type %s", RESULT.sql(), keyType.sql());
      }
    } else if (!(keyType instanceof NullType) && Keys.of(keyType) == null) {
      throw Params.fail(name, "%s", Keys.unsupported(keyType));
    }
    if (function.timed()) {
      Params.checkTime(name, "time", arg(1));
    }
    Supplier<Accumulator> f;
    switch (function) {
      case BLOOM:
        {
          long expected = Params.integer(name, "expected", arg(1));
          double fpp = Params.number(name, "fpp", arg(2));
          String type =
              n > 3 ? Params.text(name, "type", arg(3)).toLowerCase(Locale.ROOT) : "bloom";
          f = bloom(name, type, expected, fpp);
          break;
        }
      case CMS:
        {
          double epsilon = Params.number(name, "epsilon", arg(1));
          double delta = Params.number(name, "delta", arg(2));
          wrap(name, () -> CountMinSketch.widthFor(epsilon, delta));
          f =
              () ->
                  new Accumulator.CountMin(
                      CountMinSketch.create(epsilon, delta, Concurrency.SINGLE_WRITER));
          break;
        }
      case TOPK:
        {
          long k = Params.integer(name, "k", arg(1));
          if (k < 1 || k > HeavyHitters.MAX_CAPACITY) {
            throw Params.fail(name, "k must be in [1, %d], was %d", HeavyHitters.MAX_CAPACITY, k);
          }
          long capacity =
              n > 2
                  ? Params.integer(name, "capacity", arg(2))
                  : Math.min(HeavyHitters.MAX_CAPACITY, Math.max(1000, 100 * k));
          if (capacity < k || capacity > HeavyHitters.MAX_CAPACITY) {
            throw Params.fail(
                name,
                "capacity must be in [k = %d, %d], was %d",
                k,
                HeavyHitters.MAX_CAPACITY,
                capacity);
          }
          f = () -> new Accumulator.TopK(HeavyHitters.withCapacity((int) capacity));
          break;
        }
      case HLL:
      case ULL:
        {
          int p = precision(name, n > 1 ? arg(1) : null);
          f =
              function == Function.HLL
                  ? () -> new Accumulator.Cardinality(HyperLogLog.create(p))
                  : () -> new Accumulator.Cardinality(UltraLogLog.create(p));
          break;
        }
      case WINDOW_BLOOM:
        {
          Duration window = Params.duration(name, "window", arg(2));
          long expected = Params.integer(name, "expected", arg(3));
          double fpp = Params.number(name, "fpp", arg(4));
          wrap(name, () -> AgePartitionedBloomFilter.create(window, expected, fpp));
          f =
              () ->
                  new Accumulator.WindowFilter(
                      () -> AgePartitionedBloomFilter.create(window, expected, fpp));
          break;
        }
      case WINDOW_HLL:
      case WINDOW_ULL:
      case WINDOW_CMS:
        {
          Duration window = Params.duration(name, "window", arg(2));
          Duration slice = Params.duration(name, "slice", arg(3));
          Supplier<Object> empty;
          if (function == Function.WINDOW_CMS) {
            double epsilon = Params.number(name, "epsilon", arg(4));
            double delta = Params.number(name, "delta", arg(5));
            wrap(name, () -> CountMinSketch.widthFor(epsilon, delta));
            empty = () -> CountMinSketch.create(epsilon, delta, Concurrency.SINGLE_WRITER);
          } else {
            int p = precision(name, n > 4 ? arg(4) : null);
            empty =
                function == Function.WINDOW_HLL
                    ? () -> HyperLogLog.create(p)
                    : () -> UltraLogLog.create(p);
          }
          wrap(name, () -> WindowRing.create(window, slice, empty.get()));
          f = () -> new Accumulator.WindowSketch(WindowRing.create(window, slice, empty.get()));
          break;
        }
      default:
        f = Accumulator.Union::new;
    }
    factory = f;
    return f;
  }

  /** A cardinality sketch's precision argument, 14 when not given. */
  private static int precision(String name, Expression e) {
    long p = e == null ? 14 : Params.integer(name, "precision", e);
    if (p < HyperLogLog.MIN_PRECISION || p > HyperLogLog.MAX_PRECISION) {
      throw Params.fail(
          name,
          "precision must be in [%d, %d], was %d",
          HyperLogLog.MIN_PRECISION,
          HyperLogLog.MAX_PRECISION,
          p);
    }
    return (int) p;
  }

  private static Supplier<Accumulator> bloom(String name, String type, long expected, double fpp) {
    switch (type) {
      case "bloom":
        wrap(name, () -> BloomFilter.optimalBits(expected, fpp));
        return () ->
            new Accumulator.Filter(BloomFilter.create(expected, fpp, Concurrency.SINGLE_WRITER));
      case "blocked":
        wrap(name, () -> BlockedBloomFilter.optimalBits(expected, fpp));
        return () ->
            new Accumulator.Filter(
                BlockedBloomFilter.create(expected, fpp, Concurrency.SINGLE_WRITER));
      case "binary-fuse8":
      case "binary-fuse16":
      case "fuse":
        wrap(name, () -> BloomFilter.optimalBits(expected, fpp)); // the same ranges
        FingerprintBits bits =
            type.equals("binary-fuse8")
                ? FingerprintBits.BITS_8
                : type.equals("binary-fuse16")
                    ? FingerprintBits.BITS_16
                    : FingerprintBits.forFpp(fpp);
        if (bits.fpp() > fpp) {
          throw Params.fail(
              name,
              "type %s has a false-positive rate of 2^-%d (%s), above fpp %s; use binary-fuse16",
              type,
              bits.bits(),
              bits.fpp(),
              fpp);
        }
        return () -> new Accumulator.Fuse(bits);
      default:
        throw Params.fail(
            name,
            "type must be one of bloom, blocked, binary-fuse8, binary-fuse16, fuse; was '%s'",
            type);
    }
  }

  /** Runs a library check, naming the function in its IllegalArgumentException. */
  private static void wrap(String name, Runnable check) {
    try {
      check.run();
    } catch (IllegalArgumentException e) {
      throw Params.fail(name, "%s", e.getMessage());
    }
  }

  // ---- execution

  private Keys keys() {
    if (keys == null) {
      keys = Keys.of(arg(0).dataType());
    }
    return keys;
  }

  @Override
  public Accumulator createAggregationBuffer() {
    return factory().get();
  }

  @Override
  public Accumulator update(Accumulator buffer, InternalRow input) {
    Object v = arg(0).eval(input);
    if (function == Function.UNION) {
      SketchArg.addTo((Accumulator.Union) buffer, v);
    } else if (function.timed()) {
      Object t = v == null ? null : arg(1).eval(input);
      if (t == null) {
        buffer.nulls++;
      } else {
        buffer.keys++;
        ((Accumulator.Timed) buffer).time = Params.millis(t);
        keys().apply(v, buffer);
      }
    } else if (v == null) {
      buffer.nulls++;
    } else {
      buffer.keys++;
      keys().apply(v, buffer);
    }
    return buffer;
  }

  @Override
  public Accumulator merge(Accumulator buffer, Accumulator input) {
    buffer.merge(input);
    return buffer;
  }

  @Override
  public Object eval(Accumulator buffer) {
    byte[] sketch = buffer.result();
    if (sketch == null) {
      return null;
    }
    String keyType =
        function == Function.UNION
            ? ((Accumulator.Union) buffer).keyType()
            : arg(0).dataType() instanceof NullType ? null : Keys.typeName(arg(0).dataType());
    return result(sketch, buffer.keys, buffer.nulls, keyType);
  }

  /** The {@link #RESULT} row of a sketch; counts below 0 and a null key type are unknown. */
  static InternalRow result(byte[] sketch, long keys, long nulls, String keyType) {
    return new GenericInternalRow(
        new Object[] {
          sketch,
          keys < 0 ? null : keys,
          nulls < 0 ? null : nulls,
          keyType == null ? null : UTF8String.fromString(keyType),
          SketchArg.digest(sketch)
        });
  }

  @Override
  public byte[] serialize(Accumulator buffer) {
    return buffer.serialize();
  }

  @Override
  public Accumulator deserialize(byte[] bytes) {
    Accumulator a = factory().get();
    try {
      a.deserialize(new ByteArrayInputStream(bytes));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return a;
  }

  // ---- the expression tree

  @Override
  public String prettyName() {
    return function.signature.sqlName;
  }

  @Override
  public boolean nullable() {
    return true;
  }

  @Override
  public DataType dataType() {
    return RESULT;
  }

  @Override
  public Seq<Expression> children() {
    return children;
  }

  @Override
  public Expression withNewChildrenInternal(IndexedSeq<Expression> newChildren) {
    return new ProbkitAggregate(
        function, newChildren, mutableAggBufferOffset, inputAggBufferOffset);
  }

  @Override
  public int mutableAggBufferOffset() {
    return mutableAggBufferOffset;
  }

  @Override
  public int inputAggBufferOffset() {
    return inputAggBufferOffset;
  }

  @Override
  public ProbkitAggregate withNewMutableAggBufferOffset(int offset) {
    return new ProbkitAggregate(function, children, offset, inputAggBufferOffset);
  }

  @Override
  public ProbkitAggregate withNewInputAggBufferOffset(int offset) {
    return new ProbkitAggregate(function, children, mutableAggBufferOffset, offset);
  }

  @Override
  public scala.collection.Iterator<Object> stringArgs() {
    return CollectionConverters.asScala(List.<Object>copyOf(CollectionConverters.asJava(children)))
        .iterator();
  }

  @Override
  public int productArity() {
    return 4;
  }

  @Override
  public Object productElement(int n) {
    switch (n) {
      case 0:
        return function;
      case 1:
        return children;
      case 2:
        return mutableAggBufferOffset;
      case 3:
        return inputAggBufferOffset;
      default:
        throw new IndexOutOfBoundsException(n);
    }
  }

  @Override
  public boolean canEqual(Object that) {
    return that instanceof ProbkitAggregate;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof ProbkitAggregate)) {
      return false;
    }
    ProbkitAggregate a = (ProbkitAggregate) o;
    return function == a.function
        && children.equals(a.children)
        && mutableAggBufferOffset == a.mutableAggBufferOffset
        && inputAggBufferOffset == a.inputAggBufferOffset;
  }

  @Override
  public int hashCode() {
    return Objects.hash(function, children, mutableAggBufferOffset, inputAggBufferOffset);
  }
}
