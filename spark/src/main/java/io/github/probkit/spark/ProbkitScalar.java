package io.github.probkit.spark;

import io.github.probkit.cardinality.CardinalitySketch;
import io.github.probkit.filter.AgePartitionedBloomFilter;
import io.github.probkit.filter.BinaryFuseFilter;
import io.github.probkit.filter.MembershipFilter;
import io.github.probkit.filter.MutableFilter;
import io.github.probkit.frequency.CountMinSketch;
import io.github.probkit.frequency.HeavyHitters;
import java.io.Serializable;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.catalyst.expressions.codegen.CodeBlock;
import org.apache.spark.sql.catalyst.expressions.codegen.CodeGenerator$;
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenContext;
import org.apache.spark.sql.catalyst.expressions.codegen.ExprCode;
import org.apache.spark.sql.catalyst.expressions.codegen.JavaCode;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.execution.ScalarSubquery;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.NullType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import scala.collection.immutable.IndexedSeq;
import scala.collection.immutable.Seq;

/**
 * The scalar functions {@code probkit_might_contain(filter, key)}, {@code
 * probkit_estimate(sketch)}, {@code probkit_cms_estimate(sketch, key)} and {@code
 * probkit_topk(sketch, k[, type])}. The structure argument is a probkit file's bytes or an
 * aggregate's result; it is decoded once per task when it is a constant (a literal, a scalar
 * subquery) and otherwise once per distinct value in a task ({@link StructureCache}). Keys are
 * encoded as the aggregates encode them, so a filter built from a bigint column answers for an int
 * column.
 */
public final class ProbkitScalar extends Expression implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The functions, with their SQL names and how many arguments they take. */
  enum Function {
    MIGHT_CONTAIN(
        new Signature(
            "probkit_might_contain",
            2,
            2,
            "filter, key",
            "Whether the filter may contain the key: false means certainly absent; null for a null"
                + " key.",
            "SELECT * FROM clicks WHERE probkit_might_contain((SELECT vip FROM vip_filter), user)",
            "SELECT probkit_might_contain(X'504B4954...', 'user:42')")),
    ESTIMATE(
        new Signature(
            "probkit_estimate",
            1,
            1,
            "sketch",
            "The distinct keys estimated by an HLL or ULL sketch, or a filter's approximate count.",
            "SELECT probkit_estimate(probkit_hll_agg(user)) FROM events")),
    CMS_ESTIMATE(
        new Signature(
            "probkit_cms_estimate",
            2,
            2,
            "sketch, key",
            "The key's count estimated by a count-min sketch (never too low) or heavy-hitters"
                + " summary.",
            "SELECT probkit_cms_estimate(counts, 'spark') FROM daily_counts")),
    TOPK(
        new Signature(
            "probkit_topk",
            2,
            3,
            "sketch, k[, type]",
            "The k most frequent items of a heavy-hitters summary, as array<struct<item, count,"
                + " error>>; `type` decodes items as string (default), bigint or binary, and must"
                + " fit the summary's key type.",
            "SELECT probkit_topk(top, 10) FROM daily_top",
            "SELECT probkit_topk(probkit_topk_agg(user_id, 5), 5, 'bigint') FROM clicks")),
    UNION(
        new Signature(
            "probkit_union",
            2,
            64,
            "sketch, sketch[, ...]",
            "The union of the structures of one row (one type, one key type), null ones skipped;"
                + " returns struct<sketch, keys, nulls, key_type, digest>.",
            "SELECT probkit_estimate(probkit_union(web_users, app_users)) FROM daily")),
    INFO(
        new Signature(
            "probkit_info",
            1,
            1,
            "sketch",
            "What a structure is: struct<type, key_type, shape, bytes, count> (count: a filter's"
                + " approximate keys, a cardinality sketch's estimate, a frequency sketch's"
                + " total).",
            "SELECT probkit_info(users) FROM daily",
            "SELECT probkit_info(X'504B4954...')")),
    INTERSECTION(
        new Signature(
            "probkit_intersection",
            2,
            2,
            "sketch, sketch",
            "The distinct keys two HLL or ULL sketches have in common, |A| + |B| - |A u B|, as"
                + " struct<estimate: bigint, standard_error: double>; standard_error bounds the"
                + " estimate's standard deviation by the sum of the three estimates' (the relative"
                + " error is large when the intersection is small against the union).",
            "SELECT probkit_intersection(web_users, app_users) FROM daily",
            "SELECT i.estimate, i.estimate - 2 * i.standard_error AS at_least FROM (SELECT"
                + " probkit_intersection(a.users, b.users) AS i FROM a, b)")),
    JACCARD(
        new Signature(
            "probkit_jaccard",
            2,
            2,
            "sketch, sketch",
            "The Jaccard similarity |A n B| / |A u B| of two HLL or ULL sketches' keys, as"
                + " struct<estimate: double, standard_error: double> (to first order; see"
                + " probkit_intersection).",
            "SELECT probkit_jaccard(monday, tuesday).estimate FROM weekly")),
    WINDOW_MIGHT_CONTAIN(
        new Signature(
            "probkit_window_might_contain",
            3,
            3,
            "filter, key, at",
            "Whether the window filter (probkit_window_bloom_agg) may hold the key within its"
                + " window ending at time `at`: false means certainly not added in that window;"
                + " null for a null key or time.",
            "SELECT probkit_window_might_contain(seen, 'user:42', TIMESTAMP '2026-11-30"
                + " 12:00:00') FROM weekly_seen",
            "SELECT e.* FROM events e CROSS JOIN seen s WHERE NOT"
                + " probkit_window_might_contain(s.f, e.user, e.ts)")),
    WINDOW_COUNT(
        new Signature(
            "probkit_window_count",
            3,
            3,
            "sketch, last, at",
            "The distinct keys of a windowed HLL or ULL sketch (probkit_window_hll_agg) in the"
                + " `last` span of time ending at `at`: every slice from the one holding at - last"
                + " to the one holding at.",
            "SELECT probkit_window_count(users, '24h', TIMESTAMP '2026-11-30 00:00:00') FROM"
                + " hourly_users")),
    WINDOW_CMS_ESTIMATE(
        new Signature(
            "probkit_window_cms_estimate",
            4,
            4,
            "sketch, key, last, at",
            "The key's count in a windowed count-min sketch (probkit_window_cms_agg) over the"
                + " `last` span of time ending at `at` (never too low).",
            "SELECT probkit_window_cms_estimate(terms, 'spark', '1h', TIMESTAMP '2026-11-30"
                + " 12:00:00') FROM hourly_terms")),
    FROM_SPARK(
        new Signature(
            "probkit_from_spark",
            2,
            2,
            "sketch, format",
            "A sketch Spark made, as probkit's: `format` 'hll' reads what hll_sketch_agg writes"
                + " (DataSketches HLL) and returns the probkit HyperLogLog of the same registers as"
                + " struct<sketch, keys, nulls, key_type, digest>; 'bloom' reads the writeTo bytes of"
                + " df.stat().bloomFilter and returns the probkit Bloom filter of its bits and"
                + " Spark's probes (probkit_might_contain gives Spark's answers); 'count-min'"
                + " (countMinSketch's bytes) is read and refused with the reason: no probkit sketch"
                + " answers as it does.",
            "SELECT probkit_estimate(probkit_union_agg(probkit_from_spark(users, 'hll'))) FROM"
                + " daily_hll_sketches",
            "SELECT day, probkit_from_spark(hll_sketch_agg(user, 14), 'hll') AS users FROM events"
                + " GROUP BY day"));
    final Signature signature;

    Function(Signature signature) {
      this.signature = signature;
    }

    /** Whether every argument is a structure. */
    boolean takesSketches() {
      return this == UNION || this == INTERSECTION || this == JACCARD;
    }

    /** Whether the second argument is a key (looked up, and checked against the key type). */
    boolean keyed() {
      return this == MIGHT_CONTAIN
          || this == CMS_ESTIMATE
          || this == WINDOW_MIGHT_CONTAIN
          || this == WINDOW_CMS_ESTIMATE;
    }

    /** The index of the {@code at} argument (a time), or -1. */
    int at() {
      return this == WINDOW_MIGHT_CONTAIN || this == WINDOW_COUNT
          ? 2
          : this == WINDOW_CMS_ESTIMATE ? 3 : -1;
    }

    /** The index of the {@code last} argument (a span of time), or -1. */
    int last() {
      return this == WINDOW_COUNT ? 1 : this == WINDOW_CMS_ESTIMATE ? 2 : -1;
    }
  }

  private final Function function;
  private final Seq<Expression> children;

  /** The structure of a {@link #isConstant constant} argument, once decoded. */
  private transient Object constant;

  private transient boolean constantArg;

  /** The structures decoded from a column. */
  private transient StructureCache cache;

  private transient Keys keys;

  /** The last key type recorded by a structure that passed {@link #checkKeyType}. */
  private transient UTF8String acceptedKeyType;

  /** {@link #acceptedKeyType}, compared where a row holds it. */
  private transient InPlaceText acceptedInPlace;

  private transient Boolean mixKeyTypes;

  /** probkit_from_spark's format, once read. */
  private transient SparkSketches.Format format;

  /** The {@code last} argument in ms, once read (0 before). */
  private transient long lastMillis;

  private transient int k;
  private transient String itemType;

  public ProbkitScalar(Function function, Seq<Expression> children) {
    this.function = function;
    this.children = children;
  }

  private Expression arg(int i) {
    return children.apply(i);
  }

  // ---- analysis

  @Override
  public TypeCheckResult checkInputDataTypes() {
    return Params.typeCheck(this::check);
  }

  private void check() {
    String name = function.signature.sqlName;
    int n = children.size();
    function.signature.checkArity(n);
    if (function == Function.FROM_SPARK) {
      if (!(arg(0).dataType() instanceof BinaryType || arg(0).dataType() instanceof NullType)) {
        throw Params.fail(name, "sketch must be binary, was of type %s", arg(0).dataType().sql());
      }
      format();
      return;
    }
    for (int i = 0; i < (function.takesSketches() ? n : 1); i++) {
      DataType sketchType = arg(i).dataType();
      if (!SketchArg.accepts(sketchType) && !(sketchType instanceof NullType)) {
        throw Params.fail(
            name,
            "%s must be binary or %s, was of type %s",
            function == Function.MIGHT_CONTAIN ? "filter" : "sketch",
            ProbkitAggregate.RESULT.sql(),
            sketchType.sql());
      }
    }
    if (function.at() >= 0) {
      Params.checkTime(name, "at", arg(function.at()));
    }
    if (function.last() >= 0) {
      lastMillis();
    }
    if (function.keyed()) {
      DataType keyType = arg(1).dataType();
      if (!(keyType instanceof NullType) && Keys.of(keyType) == null) {
        throw Params.fail(name, "%s", Keys.unsupported(keyType));
      }
    }
    if (function == Function.TOPK) {
      topkArgs();
    }
  }

  /** The constant {@code last} argument in ms (read here, after the plan reached an executor). */
  private long lastMillis() {
    if (lastMillis == 0) {
      String name = function.signature.sqlName;
      lastMillis = Params.duration(name, "last", arg(function.last())).toMillis();
    }
    return lastMillis;
  }

  private SparkSketches.Format format() {
    if (format == null) {
      String name = function.signature.sqlName;
      format = SparkSketches.format(name, Params.text(name, "format", arg(1)));
    }
    return format;
  }

  private void topkArgs() {
    if (itemType != null) {
      return;
    }
    String name = function.signature.sqlName;
    long value = Params.integer(name, "k", arg(1));
    if (value < 1 || value > HeavyHitters.MAX_CAPACITY) {
      throw Params.fail(name, "k must be in [1, %d], was %d", HeavyHitters.MAX_CAPACITY, value);
    }
    String type =
        children.size() > 2 ? Params.text(name, "type", arg(2)).toLowerCase(Locale.ROOT) : "string";
    if (!List.of("string", "binary", "bigint").contains(type)) {
      throw Params.fail(
          name, "type must be string, binary or bigint (how items are decoded), was '%s'", type);
    }
    k = (int) value;
    itemType = type;
  }

  @Override
  public DataType dataType() {
    switch (function) {
      case MIGHT_CONTAIN:
      case WINDOW_MIGHT_CONTAIN:
        return DataTypes.BooleanType;
      case TOPK:
        topkArgs();
        DataType item =
            itemType.equals("string")
                ? DataTypes.StringType
                : itemType.equals("binary") ? DataTypes.BinaryType : DataTypes.LongType;
        return DataTypes.createArrayType(
            new StructType(
                new StructField[] {
                  DataTypes.createStructField("item", item, false),
                  DataTypes.createStructField("count", DataTypes.LongType, false),
                  DataTypes.createStructField("error", DataTypes.LongType, false)
                }),
            false);
      case UNION:
      case FROM_SPARK:
        return ProbkitAggregate.RESULT;
      case INFO:
        return INFO_TYPE;
      case INTERSECTION:
        return overlapType(DataTypes.LongType);
      case JACCARD:
        return overlapType(DataTypes.DoubleType);
      default:
        return DataTypes.LongType;
    }
  }

  /** What probkit_info returns. */
  static final StructType INFO_TYPE =
      new StructType(
          new StructField[] {
            DataTypes.createStructField("type", DataTypes.StringType, false),
            DataTypes.createStructField("key_type", DataTypes.StringType, true),
            DataTypes.createStructField("shape", DataTypes.StringType, false),
            DataTypes.createStructField("bytes", DataTypes.LongType, false),
            DataTypes.createStructField("count", DataTypes.LongType, true)
          });

  private static StructType overlapType(DataType estimate) {
    return new StructType(
        new StructField[] {
          DataTypes.createStructField("estimate", estimate, false),
          DataTypes.createStructField("standard_error", DataTypes.DoubleType, false)
        });
  }

  // ---- evaluation

  @Override
  public Object eval(InternalRow row) {
    return evaluate(null, row);
  }

  /** {@link #eval} from generated code, which evaluated the arguments itself. */
  public Object evalValues(Object[] values) {
    return evaluate(values, null);
  }

  /**
   * Argument {@code i}: from {@code values} when generated code evaluated them, else evaluated on
   * {@code row} when asked for (a decoded constant's argument is then not evaluated again). Two
   * parameters rather than a lambda: this runs once a row, and a capturing lambda is an allocation
   * a row.
   */
  private Object argValue(Object[] values, InternalRow row, int i) {
    return values != null ? values[i] : arg(i).eval(row);
  }

  private Object evaluate(Object[] values, InternalRow row) {
    if (function == Function.FROM_SPARK) {
      Object v = argValue(values, row, 0);
      return v == null
          ? null
          : SparkSketches.convert(function.signature.sqlName, format(), (byte[]) v);
    }
    if (function == Function.UNION) {
      return union(values, row);
    }
    if (function == Function.INTERSECTION || function == Function.JACCARD) {
      return overlap(values, row);
    }
    boolean keyed = function.keyed();
    Object key = keyed ? argValue(values, row, 1) : null;
    if (keyed && key == null) {
      return null;
    }
    Object at = function.at() >= 0 ? argValue(values, row, function.at()) : null;
    if (function.at() >= 0 && at == null) {
      return null;
    }
    Object structure = constant;
    if (structure == null) {
      Object s = argValue(values, row, 0);
      if (s == null) {
        return null;
      }
      checkKeyType(s);
      if (cache == null) {
        cache = new StructureCache();
        constantArg = isConstant(arg(0));
      }
      structure = cache.get(s, Sketches::read);
      if (structure == null) {
        return null;
      }
      if (constantArg) {
        constant = structure;
      }
    }
    switch (function) {
      case MIGHT_CONTAIN:
        if (structure instanceof AgePartitionedBloomFilter) {
          throw new IllegalArgumentException(
              function.signature.sqlName
                  + " takes a filter without a window, was given a window filter; ask it as of a"
                  + " time with probkit_window_might_contain(filter, key, at)");
        }
        return keys().apply(key, new Query(expect(structure, MembershipFilter.class, "a filter")));
      case WINDOW_MIGHT_CONTAIN:
        return keys()
            .apply(
                key,
                new WindowQuery(
                    expect(
                        structure,
                        AgePartitionedBloomFilter.class,
                        "a window filter (probkit_window_bloom_agg)"),
                    Params.millis(at)));
      case WINDOW_COUNT:
        WindowRing ring =
            window(structure, false, "a windowed HLL or ULL sketch (probkit_window_hll_agg)");
        try {
          return Math.round(ring.count(lastMillis(), Params.millis(at)));
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException(function.signature.sqlName + ": " + e.getMessage(), e);
        }
      case WINDOW_CMS_ESTIMATE:
        return keys()
            .apply(
                key,
                new WindowQuery(
                    window(structure, true, "a windowed count-min sketch (probkit_window_cms_agg)"),
                    Params.millis(at)));
      case CMS_ESTIMATE:
        if (!(structure instanceof HeavyHitters)) {
          expect(structure, CountMinSketch.class, "a count-min sketch or heavy-hitters summary");
        }
        return keys().apply(key, new Query(structure));
      case ESTIMATE:
        return estimate(structure);
      case INFO:
        return info(structure, argValue(values, row, 0));
      default:
        return topk(
            expect(structure, HeavyHitters.class, "a heavy-hitters summary (probkit_topk_agg)"));
    }
  }

  /**
   * Whether {@code e} has one value for the whole query: a constant, a scalar subquery (run once,
   * before the rows), or a deterministic expression of those. Such a structure is decoded once and
   * its argument not evaluated again.
   */
  private static boolean isConstant(Expression e) {
    if (e.foldable()) {
      return true;
    }
    if (!e.deterministic()) {
      return false;
    }
    if (e instanceof ScalarSubquery) {
      return true;
    }
    return !e.children().isEmpty() && e.children().forall(ProbkitScalar::isConstant);
  }

  /** The union of the row's structures, null ones skipped; null when all are. */
  private Object union(Object[] values, InternalRow row) {
    Accumulator.Union u = new Accumulator.Union(function.signature.sqlName);
    boolean any = false;
    for (int i = 0; i < children.size(); i++) {
      Object v = argValue(values, row, i);
      if (v != null && SketchArg.bytes(v) != null) {
        SketchArg.addTo(u, v);
        any = true;
      }
    }
    byte[] sketch = any ? u.result() : null;
    return sketch == null ? null : ProbkitAggregate.result(sketch, u.keys, u.nulls, u.keyType());
  }

  /**
   * probkit_intersection and probkit_jaccard by inclusion-exclusion, |A n B| = |A| + |B| - |A u B|,
   * the three read from registers at the lower precision of the two, so that a subset's union reads
   * as the superset and its intersection exactly as itself. The three errors are correlated in ways
   * that depend on the sets, so the standard error given is the bound sd(X + Y) <= sd(X) + sd(Y):
   * the sum of the three estimates' own. The Jaccard's is that of the intersection over the union
   * plus the union's own relative error times the ratio, to first order.
   */
  private Object overlap(Object[] values, InternalRow row) {
    Object va = argValue(values, row, 0);
    Object vb = argValue(values, row, 1);
    if (va == null || vb == null || SketchArg.bytes(va) == null || SketchArg.bytes(vb) == null) {
      return null;
    }
    String name = function.signature.sqlName;
    Accumulator.Union u = new Accumulator.Union(name);
    SketchArg.addTo(u, va);
    SketchArg.addTo(u, vb);
    CardinalitySketch union =
        expect(u.structure(), CardinalitySketch.class, "two HLL or two ULL sketches");
    CardinalitySketch a =
        atPrecision((CardinalitySketch) Sketches.read(SketchArg.bytes(va)), union);
    CardinalitySketch b =
        atPrecision((CardinalitySketch) Sketches.read(SketchArg.bytes(vb)), union);
    double ea = a.estimate();
    double eb = b.estimate();
    double eu = union.estimate();
    double intersection = Math.max(0, Math.min(ea + eb - eu, Math.min(ea, eb)));
    double error =
        ea * a.relativeStandardError()
            + eb * b.relativeStandardError()
            + eu * union.relativeStandardError();
    if (function == Function.INTERSECTION) {
      return new GenericInternalRow(new Object[] {Math.round(intersection), error});
    }
    double jaccard = eu == 0 ? 0 : intersection / eu;
    double jaccardError = eu == 0 ? 0 : error / eu + jaccard * union.relativeStandardError();
    return new GenericInternalRow(new Object[] {jaccard, jaccardError});
  }

  private static CardinalitySketch atPrecision(CardinalitySketch s, CardinalitySketch union) {
    return s.precision() == union.precision() ? s : s.downsize(union.precision());
  }

  private static Object info(Object s, Object v) {
    String shape;
    Long count = null;
    if (s instanceof MembershipFilter) {
      MembershipFilter f = (MembershipFilter) s;
      shape =
          String.format(
              Locale.ROOT, "%d bits, false-positive rate %.3g", f.bitSize(), f.expectedFpp());
      if (s instanceof MutableFilter) {
        count = ((MutableFilter) s).approximateCount();
      } else if (s instanceof BinaryFuseFilter) {
        count = (long) ((BinaryFuseFilter) s).keyCount();
      }
    } else if (s instanceof CardinalitySketch) {
      CardinalitySketch c = (CardinalitySketch) s;
      shape =
          String.format(
              Locale.ROOT,
              "precision %d, relative standard error %.3g",
              c.precision(),
              c.bestRelativeStandardError());
      count = Math.round(c.bestEstimate());
    } else if (s instanceof WindowRing) {
      shape = ((WindowRing) s).shape();
    } else if (s instanceof CountMinSketch) {
      CountMinSketch c = (CountMinSketch) s;
      shape = String.format(Locale.ROOT, "width %d, depth %d", c.width(), c.depth());
      count = c.totalCount();
    } else {
      HeavyHitters h = (HeavyHitters) s;
      shape = String.format(Locale.ROOT, "capacity %d, %d items", h.capacity(), h.size());
      count = h.totalCount();
    }
    String keyType = SketchArg.keyType(v);
    return new GenericInternalRow(
        new Object[] {
          UTF8String.fromString(Sketches.label(s)),
          keyType == null ? null : UTF8String.fromString(keyType),
          UTF8String.fromString(shape),
          (long) SketchArg.bytes(v).length,
          count
        });
  }

  private Object estimate(Object s) {
    if (s instanceof CardinalitySketch) {
      return Math.round(((CardinalitySketch) s).bestEstimate());
    }
    if (s instanceof MutableFilter) {
      return ((MutableFilter) s).approximateCount();
    }
    if (s instanceof BinaryFuseFilter) {
      return ((BinaryFuseFilter) s).keyCount();
    }
    throw new IllegalArgumentException(
        function.signature.sqlName
            + " takes a cardinality sketch or a filter, was given a "
            + Sketches.label(s)
            + (s instanceof WindowRing
                ? "; count a window with probkit_window_count, probkit_window_cms_estimate"
                : s instanceof CountMinSketch
                    ? "; use probkit_cms_estimate"
                    : "; use probkit_topk"));
  }

  private Object topk(HeavyHitters h) {
    topkArgs();
    List<HeavyHitters.Entry> top = h.top(k);
    Object[] rows = new Object[top.size()];
    for (int i = 0; i < rows.length; i++) {
      HeavyHitters.Entry e = top.get(i);
      rows[i] = new GenericInternalRow(new Object[] {item(e), e.count(), e.error()});
    }
    return new GenericArrayData(rows);
  }

  private Object item(HeavyHitters.Entry e) {
    switch (itemType) {
      case "string":
        return UTF8String.fromString(e.itemAsString());
      case "binary":
        return e.item();
      default:
        byte[] b = e.item();
        if (b.length != 8) {
          throw new IllegalArgumentException(
              String.format(
                  Locale.ROOT,
                  "%s: item of %d bytes is not a bigint key (8 bytes); decode it as 'binary' or"
                      + " 'string'",
                  function.signature.sqlName,
                  b.length));
        }
        return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }
  }

  /**
   * Refuses a key column, or a decoding of topk's items, of another type than the one the structure
   * recorded (unless the session allows it); bare bytes record none.
   */
  private void checkKeyType(Object s) {
    if (!function.keyed() && function != Function.TOPK || !(s instanceof InternalRow)) {
      return;
    }
    InternalRow r = (InternalRow) s;
    if (r.numFields() <= SketchArg.KEY_TYPE || r.isNullAt(SketchArg.KEY_TYPE)) {
      return;
    }
    if (acceptedInPlace != null
        && r instanceof UnsafeRow
        && acceptedInPlace.matches((UnsafeRow) r, SketchArg.KEY_TYPE)) {
      return;
    }
    UTF8String t = r.getUTF8String(SketchArg.KEY_TYPE);
    if (t.equals(acceptedKeyType)) {
      return;
    }
    String recorded = t.toString();
    if (mixKeyTypes == null) {
      mixKeyTypes = SketchArg.mixKeyTypes();
    }
    if (!mixKeyTypes) {
      if (function == Function.TOPK) {
        topkArgs();
        if (!Keys.decodes(recorded, itemType)) {
          throw SketchArg.mixed(
              function.signature.sqlName,
              String.format(
                  Locale.ROOT,
                  "the summary holds %s keys, which do not decode as '%s'; "
                      + "call probkit_topk(sketch, k, '%s')",
                  recorded,
                  itemType,
                  Keys.decodesAs(recorded)));
        }
      } else {
        String given = Keys.typeName(arg(1).dataType());
        if (!recorded.equals(given)) {
          throw SketchArg.mixed(
              function.signature.sqlName,
              String.format(
                  Locale.ROOT,
                  "the %s holds %s keys, the key is of type %s; cast the key (CAST(key AS %s))",
                  function == Function.MIGHT_CONTAIN || function == Function.WINDOW_MIGHT_CONTAIN
                      ? "filter"
                      : "sketch",
                  recorded,
                  arg(1).dataType().sql(),
                  recorded.toUpperCase(Locale.ROOT)));
        }
      }
    }
    acceptedKeyType = t.clone();
    acceptedInPlace = InPlaceText.of(acceptedKeyType);
  }

  private WindowRing window(Object s, boolean countMin, String what) {
    WindowRing r = expect(s, WindowRing.class, what);
    if (r.isCountMin() != countMin) {
      throw new IllegalArgumentException(
          function.signature.sqlName + " takes " + what + ", was given a " + Sketches.label(s));
    }
    return r;
  }

  /**
   * A key looked up as of a time: in a window filter, present in the window ending then; in a
   * windowed count-min sketch, the sum of its slices' estimates over the last {@link #lastMillis}
   * (each at least the slice's true count), as the library's {@code WindowedCountMin.estimate}.
   */
  private final class WindowQuery implements Keys.Visitor<Object> {
    private final Object structure;
    private final long atMillis;

    WindowQuery(Object structure, long atMillis) {
      this.structure = structure;
      this.atMillis = atMillis;
    }

    @Override
    public Object bytes(byte[] key, int off, int len) {
      if (structure instanceof AgePartitionedBloomFilter) {
        return ((AgePartitionedBloomFilter) structure).mightContain(key, off, len, atMillis);
      }
      return sum(s -> ((CountMinSketch) s).estimate(key, off, len));
    }

    @Override
    public Object longKey(long key) {
      if (structure instanceof AgePartitionedBloomFilter) {
        return ((AgePartitionedBloomFilter) structure).mightContain(key, atMillis);
      }
      return sum(s -> ((CountMinSketch) s).estimate(key));
    }

    private long sum(java.util.function.ToLongFunction<Object> estimate) {
      long[] sum = {0};
      try {
        ((WindowRing) structure)
            .forWindow(
                lastMillis(),
                atMillis,
                s -> {
                  long e = estimate.applyAsLong(s);
                  sum[0] = sum[0] > Long.MAX_VALUE - e ? Long.MAX_VALUE : sum[0] + e;
                });
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(function.signature.sqlName + ": " + e.getMessage(), e);
      }
      return sum[0];
    }
  }

  private <T> T expect(Object s, Class<T> type, String what) {
    if (!type.isInstance(s)) {
      throw new IllegalArgumentException(
          function.signature.sqlName + " takes " + what + ", was given a " + Sketches.label(s));
    }
    return type.cast(s);
  }

  private Keys keys() {
    if (keys == null) {
      keys = Keys.of(arg(1).dataType());
    }
    return keys;
  }

  /** A key looked up in a filter (present or not) or a frequency sketch (its estimated count). */
  private static final class Query implements Keys.Visitor<Object> {
    private final Object structure;

    Query(Object structure) {
      this.structure = structure;
    }

    @Override
    public Object bytes(byte[] key, int off, int len) {
      if (structure instanceof MembershipFilter) {
        return ((MembershipFilter) structure).mightContain(key, off, len);
      }
      if (structure instanceof CountMinSketch) {
        return ((CountMinSketch) structure).estimate(key, off, len);
      }
      return ((HeavyHitters) structure).estimate(key, off, len);
    }

    @Override
    public Object longKey(long key) {
      if (structure instanceof MembershipFilter) {
        return ((MembershipFilter) structure).mightContain(key);
      }
      if (structure instanceof CountMinSketch) {
        return ((CountMinSketch) structure).estimate(key);
      }
      return ((HeavyHitters) structure).estimate(Keys.longBytes(key, new byte[8]));
    }
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

  /**
   * Generated code that evaluates the arguments in place and calls {@link #evalValues}. Without it
   * (CodegenFallback), Spark runs the operator holding this expression interpreted, and a join
   * whose condition holds it copies every joined row into an UnsafeRow for its output: the whole
   * filter, once a row. With it the join is compiled and reads the filter's struct where it lies.
   */
  @Override
  public ExprCode doGenCode(CodegenContext ctx, ExprCode ev) {
    CodeGenerator$ gen = CodeGenerator$.MODULE$;
    String self = ctx.addReferenceObj("probkit", this, ProbkitScalar.class.getName());
    int n = children.size();
    // One array for the generated operator, which runs one task's rows one at a time: evalValues
    // keeps nothing of it, and every element is written on every row.
    String values =
        ctx.addMutableState(
            "Object[]", "probkitValues", v -> v + " = new Object[" + n + "];", false, true);
    String result = ctx.freshName("result");
    StringBuilder code = new StringBuilder();
    for (int i = 0; i < n; i++) {
      ExprCode c = arg(i).genCode(ctx);
      DataType t = arg(i).dataType();
      String value = c.value().toString();
      if (gen.isPrimitiveType(t)) {
        value = gen.boxedType(t) + ".valueOf(" + value + ")";
      }
      code.append(c.code().toString()).append("\n");
      code.append(values).append('[').append(i).append("] = ").append(c.isNull());
      code.append(" ? null : ").append(value).append(";\n");
    }
    DataType type = dataType();
    String javaType = gen.javaType(type);
    String cast = "((" + gen.boxedType(type) + ") " + result + ")";
    code.append("Object ").append(result).append(" = ").append(self);
    code.append(".evalValues(").append(values).append(");\n");
    code.append("boolean ").append(ev.isNull()).append(" = ").append(result).append(" == null;\n");
    code.append(javaType).append(' ').append(ev.value()).append(" = ");
    code.append(ev.isNull()).append(" ? ").append(gen.defaultValue(type, false)).append(" : ");
    code.append(gen.isPrimitiveType(type) ? cast + "." + javaType + "Value()" : cast).append(";\n");
    return ev.copy(
        new CodeBlock(
            scala.jdk.javaapi.CollectionConverters.asScala(List.of(code.toString())).toSeq(),
            scala.jdk.javaapi.CollectionConverters.asScala(List.<JavaCode>of()).toSeq()),
        ev.isNull(),
        ev.value());
  }

  @Override
  public Seq<Expression> children() {
    return children;
  }

  @Override
  public Expression withNewChildrenInternal(IndexedSeq<Expression> newChildren) {
    return new ProbkitScalar(function, newChildren);
  }

  @Override
  public int productArity() {
    return 2;
  }

  @Override
  public Object productElement(int n) {
    switch (n) {
      case 0:
        return function;
      case 1:
        return children;
      default:
        throw new IndexOutOfBoundsException(n);
    }
  }

  @Override
  public scala.collection.Iterator<Object> stringArgs() {
    return children.iterator().map(c -> (Object) c);
  }

  @Override
  public boolean canEqual(Object that) {
    return that instanceof ProbkitScalar;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ProbkitScalar
        && function == ((ProbkitScalar) o).function
        && children.equals(((ProbkitScalar) o).children);
  }

  @Override
  public int hashCode() {
    return Objects.hash(function, children);
  }
}
