package io.github.probkit.spark;

import static org.apache.spark.sql.functions.call_function;
import static org.apache.spark.sql.functions.lit;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.FunctionIdentifier;
import org.apache.spark.sql.catalyst.analysis.FunctionRegistry;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.ExpressionInfo;
import scala.Function1;
import scala.Tuple3;
import scala.collection.immutable.Seq;

/**
 * probkit's filters and sketches as Spark SQL functions. Call {@link #register} once per session
 * (or set {@code spark.sql.extensions=io.github.probkit.spark.ProbkitExtensions}); then the
 * functions work in SQL and through the static methods here, which return Columns for the DataFrame
 * API of Java and Scala alike:
 *
 * <pre>{@code
 * ProbkitFunctions.register(spark);
 * Row r = events.agg(hllAgg(col("user")).as("users")).first();
 * spark.sql("SELECT probkit_estimate(probkit_union_agg(users)) FROM daily");
 * }</pre>
 *
 * <p>Every aggregate returns {@code struct<sketch: binary, keys: bigint, nulls: bigint>}: the
 * structure as a probkit file (what {@code probkit filter query} and the library read), how many
 * non-null keys were added and how many null keys were skipped. docs/SPARK.md has the reference.
 */
public final class ProbkitFunctions {
  private ProbkitFunctions() {}

  /** Registers every probkit function in the session's function registry (again: replaced). */
  public static void register(SparkSession spark) {
    FunctionRegistry registry =
        ((org.apache.spark.sql.classic.SparkSession) spark).sessionState().functionRegistry();
    for (Tuple3<FunctionIdentifier, ExpressionInfo, Function1<Seq<Expression>, Expression>> f :
        functions()) {
      registry.registerFunction(f._1(), f._2(), f._3());
    }
  }

  /** The name, description and builder of each function. */
  static List<Tuple3<FunctionIdentifier, ExpressionInfo, Function1<Seq<Expression>, Expression>>>
      functions() {
    List<Tuple3<FunctionIdentifier, ExpressionInfo, Function1<Seq<Expression>, Expression>>> all =
        new ArrayList<>();
    for (ProbkitAggregate.Function f : ProbkitAggregate.Function.values()) {
      all.add(
          new Tuple3<>(
              FunctionIdentifier.apply(f.signature.sqlName),
              info(ProbkitAggregate.class, f.signature),
              args -> ProbkitAggregate.of(f, args)));
    }
    for (ProbkitScalar.Function f : ProbkitScalar.Function.values()) {
      all.add(
          new Tuple3<>(
              FunctionIdentifier.apply(f.signature.sqlName),
              info(ProbkitScalar.class, f.signature),
              args -> new ProbkitScalar(f, args)));
    }
    return all;
  }

  private static ExpressionInfo info(Class<?> c, Signature s) {
    return new ExpressionInfo(c.getName(), null, s.sqlName, s.usage(), s.extended());
  }

  // ---- aggregates

  /**
   * A Bloom filter of the keys, sized for {@code expected} keys at false-positive rate {@code fpp}.
   */
  public static Column bloomAgg(Column key, long expected, double fpp) {
    return call_function("probkit_bloom_agg", key, lit(expected), lit(fpp));
  }

  /**
   * A filter of the keys: {@code type} is {@code bloom}, {@code blocked} (one cache line per key),
   * {@code binary-fuse8}, {@code binary-fuse16} or {@code fuse} (static, built from every key; the
   * narrowest fingerprint that meets {@code fpp}).
   */
  public static Column bloomAgg(Column key, long expected, double fpp, String type) {
    return call_function("probkit_bloom_agg", key, lit(expected), lit(fpp), lit(type));
  }

  /**
   * A count-min sketch of the keys: counts too high by more than epsilon N with probability at most
   * delta.
   */
  public static Column cmsAgg(Column key, double epsilon, double delta) {
    return call_function("probkit_cms_agg", key, lit(epsilon), lit(delta));
  }

  /** A heavy-hitters summary for the {@code k} most frequent keys (capacity max(1000, 100 k)). */
  public static Column topkAgg(Column key, int k) {
    return call_function("probkit_topk_agg", key, lit(k));
  }

  public static Column topkAgg(Column key, int k, int capacity) {
    return call_function("probkit_topk_agg", key, lit(k), lit(capacity));
  }

  /** A HyperLogLog sketch of the keys at precision 14 (12 KB, 0.81 % standard error). */
  public static Column hllAgg(Column key) {
    return call_function("probkit_hll_agg", key);
  }

  public static Column hllAgg(Column key, int precision) {
    return call_function("probkit_hll_agg", key, lit(precision));
  }

  /** An UltraLogLog sketch of the keys at precision 14 (16 KB, 0.59 % standard error). */
  public static Column ullAgg(Column key) {
    return call_function("probkit_ull_agg", key);
  }

  public static Column ullAgg(Column key, int precision) {
    return call_function("probkit_ull_agg", key, lit(precision));
  }

  /** The union of a column of structures of one type (daily sketches to a monthly one). */
  public static Column unionAgg(Column sketch) {
    return call_function("probkit_union_agg", sketch);
  }

  // ---- windowed aggregates: the key and its event time (a timestamp column); spans of time as
  // the command line writes them ("30s", "15m", "1h", "7d")

  /**
   * A sliding-window filter of the keys by event time: no false negative for a key added within
   * {@code window} of the query's time, sized for {@code expected} keys per window at rate {@code
   * fpp}.
   */
  public static Column windowBloomAgg(
      Column key, Column time, String window, long expected, double fpp) {
    return call_function(
        "probkit_window_bloom_agg", key, time, lit(window), lit(expected), lit(fpp));
  }

  /** A HyperLogLog sketch (precision 14) per slice of event time, for windows up to window. */
  public static Column windowHllAgg(Column key, Column time, String window, String slice) {
    return call_function("probkit_window_hll_agg", key, time, lit(window), lit(slice));
  }

  public static Column windowHllAgg(
      Column key, Column time, String window, String slice, int precision) {
    return call_function(
        "probkit_window_hll_agg", key, time, lit(window), lit(slice), lit(precision));
  }

  /** An UltraLogLog sketch (precision 14) per slice of event time, for windows up to window. */
  public static Column windowUllAgg(Column key, Column time, String window, String slice) {
    return call_function("probkit_window_ull_agg", key, time, lit(window), lit(slice));
  }

  public static Column windowUllAgg(
      Column key, Column time, String window, String slice, int precision) {
    return call_function(
        "probkit_window_ull_agg", key, time, lit(window), lit(slice), lit(precision));
  }

  /** A count-min sketch per slice of event time, for windows up to window. */
  public static Column windowCmsAgg(
      Column key, Column time, String window, String slice, double epsilon, double delta) {
    return call_function(
        "probkit_window_cms_agg", key, time, lit(window), lit(slice), lit(epsilon), lit(delta));
  }

  // ---- scalars

  /** Whether the filter may contain the key: false means certainly absent; null for a null key. */
  public static Column mightContain(Column filter, Column key) {
    return call_function("probkit_might_contain", filter, key);
  }

  /**
   * A filter given as bytes (built by the library, the command line or Redis), broadcast as a
   * literal.
   */
  public static Column mightContain(byte[] filter, Column key) {
    return call_function("probkit_might_contain", lit(filter), key);
  }

  /** The distinct keys estimated by a cardinality sketch, or a filter's approximate count. */
  public static Column estimate(Column sketch) {
    return call_function("probkit_estimate", sketch);
  }

  /**
   * The count of the key estimated by a count-min sketch (never too low) or a heavy-hitters
   * summary.
   */
  public static Column cmsEstimate(Column sketch, Column key) {
    return call_function("probkit_cms_estimate", sketch, key);
  }

  /**
   * The k most frequent items of a heavy-hitters summary, as {@code array<struct<item: string,
   * count, error>>}.
   */
  public static Column topk(Column sketch, int k) {
    return call_function("probkit_topk", sketch, lit(k));
  }

  /**
   * As {@link #topk(Column, int)}, with items decoded as {@code string}, {@code binary} or {@code
   * bigint}.
   */
  public static Column topk(Column sketch, int k, String itemType) {
    return call_function("probkit_topk", sketch, lit(k), lit(itemType));
  }

  /** The union of one row's structures (null ones skipped), as the aggregates' struct. */
  public static Column union(Column... sketches) {
    return call_function("probkit_union", sketches);
  }

  /**
   * The distinct keys two HLL or ULL sketches share, {@code struct<estimate: bigint,
   * standard_error: double>} (inclusion-exclusion; the error is large when the intersection is
   * small against the union).
   */
  public static Column intersection(Column a, Column b) {
    return call_function("probkit_intersection", a, b);
  }

  /**
   * The Jaccard similarity of two HLL or ULL sketches' keys, {@code struct<estimate,
   * standard_error>}.
   */
  public static Column jaccard(Column a, Column b) {
    return call_function("probkit_jaccard", a, b);
  }

  /** Whether the window filter may hold the key within its window ending at time {@code at}. */
  public static Column windowMightContain(Column filter, Column key, Column at) {
    return call_function("probkit_window_might_contain", filter, key, at);
  }

  /**
   * The distinct keys of a windowed HLL/ULL sketch in the {@code last} span ending at {@code at}.
   */
  public static Column windowCount(Column sketch, String last, Column at) {
    return call_function("probkit_window_count", sketch, lit(last), at);
  }

  /**
   * The key's count in a windowed count-min sketch over the {@code last} span ending at {@code at}.
   */
  public static Column windowCmsEstimate(Column sketch, Column key, String last, Column at) {
    return call_function("probkit_window_cms_estimate", sketch, key, lit(last), at);
  }

  /**
   * A sketch Spark made as probkit's, as the aggregates' struct: {@code format} {@code "hll"} for
   * {@code hll_sketch_agg}'s DataSketches HLL sketches; {@code "bloom"} and {@code "count-min"}
   * (Spark's sketch {@code writeTo} bytes) are refused with the reason.
   */
  public static Column fromSpark(Column sketch, String format) {
    return call_function("probkit_from_spark", sketch, lit(format));
  }

  /** {@code struct<type, key_type, shape, bytes, count>}: what the structure is. */
  public static Column info(Column sketch) {
    return call_function("probkit_info", sketch);
  }
}
