package io.github.probkit.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.SparkException;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A held-out audit of mixed key types: every function that takes a structure and keys (or two
 * structures) is given each pair of key columns — strings, bigints, ints, binary, numbers written
 * as strings, 8-character strings — and each query either answers as an exact computation says or
 * fails with one message naming both key types. Nothing in between: no silently wrong answer.
 */
class MixedKeyTypesTest {
  private static final int KEYS = 600;

  /** Key columns of the same ids, by the name used in the tables' columns. */
  private static final Map<String, String> COLUMNS = new LinkedHashMap<>();

  /** The key type each column records (Keys.typeName). */
  private static final Map<String, String> RECORDED = new LinkedHashMap<>();

  /** The (test, key type, other type) whose refusals were checked. */
  private static final java.util.Set<String> REFUSALS_ASKED = new java.util.HashSet<>();

  /** The SQL type of each column, as a query's refusal may name it. */
  private static final Map<String, String> SQL_TYPE = new LinkedHashMap<>();

  static {
    column("str", "concat('w', id)", "string", "string");
    column("big", "id", "bigint", "bigint");
    column("int", "CAST(id AS INT)", "bigint", "int");
    column("bin", "CAST(concat('w', id) AS BINARY)", "binary", "binary");
    column("numstr", "CAST(id AS STRING)", "string", "string");
    column("str8", "lpad(CAST(id AS STRING), 8, 'k')", "string", "string");
  }

  private static void column(String name, String expression, String recorded, String sql) {
    COLUMNS.put(name, expression);
    RECORDED.put(name, recorded);
    SQL_TYPE.put(name, sql);
  }

  @BeforeAll
  static void tables() {
    SparkSession spark = TestSpark.get();
    StringBuilder keys = new StringBuilder("SELECT id");
    COLUMNS.forEach((c, e) -> keys.append(", ").append(e).append(" AS ").append(c));
    // Ids 0..KEYS-1 build the structures; queries ask ids 0..2*KEYS-1, half of them absent.
    spark
        .sql(keys + ", timestamp_seconds(1800000000 + id) AS ts FROM range(" + 2 * KEYS + ")")
        .createOrReplaceTempView("mixed_keys");
    StringBuilder sketches = new StringBuilder("SELECT 1 AS one");
    for (String c : COLUMNS.keySet()) {
      sketches
          .append(", probkit_bloom_agg(")
          .append(c)
          .append(", " + KEYS + ", 0.01) AS bloom_")
          .append(c)
          .append(", probkit_cms_agg(")
          .append(c)
          .append(", 0.01, 0.01) AS cms_")
          .append(c)
          .append(", probkit_topk_agg(")
          .append(c)
          .append(", 5) AS topk_")
          .append(c)
          .append(", probkit_hll_agg(")
          .append(c)
          .append(") AS hll_")
          .append(c)
          .append(", probkit_window_bloom_agg(")
          .append(c)
          .append(", ts, '1h', " + KEYS + ", 0.01) AS wbloom_")
          .append(c)
          .append(", probkit_window_cms_agg(")
          .append(c)
          .append(", ts, '1h', '10m', 0.01, 0.01) AS wcms_")
          .append(c);
    }
    spark
        .sql(sketches + " FROM mixed_keys WHERE id < " + KEYS)
        .cache()
        .createOrReplaceTempView("mixed_sketches");
  }

  /**
   * For structure column {@code a} and key column {@code b}: when their key types differ, each of
   * {@code probes} (a query) must fail with one message naming both, and null is returned; else the
   * row of {@code query}, which computes the answers and the exact ones.
   */
  private static Row answerOrRefusal(
      String what, String a, String b, String query, List<String> probes) {
    if (RECORDED.get(a).equals(RECORDED.get(b))) {
      return TestSpark.get().sql(query).first();
    }
    // A refusal depends on the two types only: ask each pair of them once (CI time).
    if (REFUSALS_ASKED.add(what + RECORDED.get(a) + "/" + SQL_TYPE.get(b))) {
      for (String probe : probes) {
        assertRefused(probe, RECORDED.get(a), RECORDED.get(b), SQL_TYPE.get(b));
      }
    }
    return null;
  }

  /**
   * Checks that {@code query} fails with one message that names the structure's key type and the
   * other one (its recorded name or the key column's SQL type), and the override.
   */
  private static void assertRefused(String query, String recorded, String other, String otherSql) {
    Throwable t = catchThrowable(() -> TestSpark.get().sql(query).first());
    assertThat(t).as(query).isInstanceOf(SparkException.class);
    String message = null;
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c.getMessage() != null && c.getMessage().contains(SketchArg.MIX_KEY_TYPES + "=true")) {
        message = c.getMessage().toLowerCase(Locale.ROOT);
      }
    }
    assertThat(message).as("the refusal of %s", query).isNotNull();
    assertThat(message).as(query).contains(recorded);
    assertThat(
            message.contains(other + " ")
                || message.contains(otherSql + " ")
                || message.contains(otherSql + ";"))
        .as("%s names %s: %s", query, other, message)
        .isTrue();
  }

  /** Whether the key in column b of a row is one of the keys column a built from (same bytes). */
  private static String member(String a, String b) {
    return "(" + b + " IN (SELECT " + a + " FROM mixed_keys WHERE id < " + KEYS + "))";
  }

  @Test
  void membershipAndFrequencyQueries() {
    for (String a : COLUMNS.keySet()) {
      for (String b : COLUMNS.keySet()) {
        String in = member(a, b);
        String at = "timestamp_seconds(1800000000 + " + KEYS + ")";
        Row r =
            answerOrRefusal(
                "query",
                a,
                b,
                "SELECT count_if("
                    + in
                    + " AND NOT probkit_might_contain(bloom_"
                    + a
                    + ", "
                    + b
                    + ")), count_if(NOT "
                    + in
                    + " AND probkit_might_contain(bloom_"
                    + a
                    + ", "
                    + b
                    + ")), count_if(probkit_cms_estimate(cms_"
                    + a
                    + ", "
                    + b
                    + ") < CASE WHEN "
                    + in
                    + " THEN 1 ELSE 0 END) + count_if(probkit_cms_estimate(topk_"
                    + a
                    + ", "
                    + b
                    + ") < 0), count_if("
                    + in
                    + " AND NOT probkit_window_might_contain(wbloom_"
                    + a
                    + ", "
                    + b
                    + ", "
                    + at
                    + ")), count_if(probkit_window_cms_estimate(wcms_"
                    + a
                    + ", "
                    + b
                    + ", '1h', "
                    + at
                    + ") < CASE WHEN "
                    + in
                    + " THEN 1 ELSE 0 END), count_if(NOT "
                    + in
                    + ") FROM mixed_sketches, mixed_keys",
                probes(
                    "probkit_might_contain(bloom_" + a + ", " + b + ")",
                    "probkit_cms_estimate(cms_" + a + ", " + b + ")",
                    "probkit_cms_estimate(topk_" + a + ", " + b + ")",
                    "probkit_window_might_contain(wbloom_" + a + ", " + b + ", " + at + ")",
                    "probkit_window_cms_estimate(wcms_" + a + ", " + b + ", '1h', " + at + ")"));
        if (r != null) {
          String what = a + " asked with " + b;
          assertThat(r.getLong(0)).as("false negatives, filter: %s", what).isZero();
          assertThat(r.getLong(1))
              .as("false positives: %s", what)
              .isLessThan(r.getLong(5) / 20 + 5);
          assertThat(r.getLong(2)).as("count-min too low: %s", what).isZero();
          assertThat(r.getLong(3)).as("false negatives, window filter: %s", what).isZero();
          assertThat(r.getLong(4)).as("windowed count-min too low: %s", what).isZero();
        }
      }
    }
  }

  @Test
  void mergesAndOverlapsOfTwoStructures() {
    for (String a : COLUMNS.keySet()) {
      for (String b : COLUMNS.keySet()) {
        // Only asked of one key type: int and bigint values union as bigints, strings as strings.
        String exact =
            "(SELECT count(DISTINCT k) FROM (SELECT "
                + a
                + " AS k FROM mixed_keys WHERE id < "
                + KEYS
                + " UNION ALL SELECT "
                + b
                + " FROM mixed_keys WHERE id < "
                + KEYS
                + "))";
        String unionAgg =
            "(SELECT probkit_estimate(probkit_union_agg(s)) FROM (SELECT hll_"
                + a
                + " AS s FROM mixed_sketches UNION ALL SELECT hll_"
                + b
                + " FROM mixed_sketches))";
        Row r =
            answerOrRefusal(
                "merge",
                a,
                b,
                "SELECT probkit_estimate(probkit_union(hll_"
                    + a
                    + ", hll_"
                    + b
                    + ")), probkit_intersection(hll_"
                    + a
                    + ", hll_"
                    + b
                    + ").estimate, probkit_jaccard(hll_"
                    + a
                    + ", hll_"
                    + b
                    + ").estimate, "
                    + exact
                    + ", "
                    + unionAgg
                    + ", (SELECT probkit_union_agg(s).keys FROM (SELECT cms_"
                    + a
                    + " AS s FROM mixed_sketches UNION ALL SELECT cms_"
                    + b
                    + " FROM mixed_sketches)) FROM mixed_sketches",
                List.of(
                    "SELECT probkit_union(hll_" + a + ", hll_" + b + ") FROM mixed_sketches",
                    "SELECT probkit_intersection(hll_" + a + ", hll_" + b + ") FROM mixed_sketches",
                    "SELECT probkit_jaccard(hll_" + a + ", hll_" + b + ") FROM mixed_sketches",
                    "SELECT " + unionAgg,
                    "SELECT probkit_union_agg(s) FROM (SELECT wbloom_"
                        + a
                        + " AS s FROM mixed_sketches UNION ALL SELECT wbloom_"
                        + b
                        + " FROM mixed_sketches)"));
        if (r != null) {
          String what = a + " with " + b;
          long union = r.getLong(3);
          long intersection = 2L * KEYS - union;
          assertThat((double) r.getLong(0)).as("union: %s", what).isCloseTo(union, within(union));
          assertThat((double) r.getLong(4))
              .as("union_agg: %s", what)
              .isCloseTo(union, within(union));
          assertThat((double) r.getLong(1))
              .as("intersection: %s", what)
              .isCloseTo(intersection, within(3 * KEYS));
          assertThat(r.getDouble(2)).as("jaccard: %s", what).isBetween(0.0, 1.0);
          assertThat(r.getLong(5)).as("merged count-min keys: %s", what).isEqualTo(2L * KEYS);
        }
      }
    }
  }

  /** One query a scalar expression, over a few keys. */
  private static List<String> probes(String... expressions) {
    List<String> queries = new java.util.ArrayList<>();
    for (String e : expressions) {
      queries.add("SELECT count(" + e + ") FROM mixed_sketches, mixed_keys WHERE id < 10");
    }
    return queries;
  }

  /** 5 % of the expected size, and a few keys: an HLL of precision 14 errs by 0.8 %. */
  private static org.assertj.core.data.Offset<Double> within(long expected) {
    return org.assertj.core.data.Offset.offset(expected * 0.05 + 5);
  }

  @Test
  void topkDecodesItemsAsTheirKeyTypeOrRefuses() {
    SparkSession spark = TestSpark.get();
    for (String a : COLUMNS.keySet()) {
      for (String decode : List.of("string", "bigint", "binary")) {
        String query =
            "SELECT probkit_topk(probkit_topk_agg("
                + a
                + ", 3), 3, '"
                + decode
                + "') FROM (SELECT m."
                + a
                + " FROM mixed_keys m, range(3) r WHERE m.id < 3 AND r.id <= m.id)";
        boolean fits = decode.equals("binary") || decode.equals(Keys.decodesAs(RECORDED.get(a)));
        if (!fits) {
          assertRefused(query, RECORDED.get(a) + " keys", "'" + decode + "'", "'" + decode + "'");
          continue;
        }
        // Id 2 three times, 1 twice, 0 once: the items are column a's values of ids 2, 1, 0.
        List<Row> items = spark.sql(query).first().getList(0);
        List<Row> values =
            spark
                .sql(
                    "SELECT CAST("
                        + a
                        + " AS STRING) FROM mixed_keys WHERE id < 3 ORDER BY id DESC")
                .collectAsList();
        assertThat(items).as(query).hasSize(3);
        for (int i = 0; i < 3; i++) {
          assertThat(items.get(i).get(0))
              .as(query)
              .isEqualTo(expected(values.get(i).getString(0), RECORDED.get(a), decode));
          assertThat(items.get(i).getLong(1)).isEqualTo(3 - i);
        }
      }
    }
  }

  /** The item probkit_topk should give for the key {@code value} (as a string) decoded so. */
  private static Object expected(String value, String recorded, String decode) {
    switch (decode) {
      case "string":
        return value;
      case "bigint":
        return Long.parseLong(value);
      default:
        return recorded.equals("bigint")
            ? Keys.longBytes(Long.parseLong(value), new byte[8])
            : value.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }
  }
}
