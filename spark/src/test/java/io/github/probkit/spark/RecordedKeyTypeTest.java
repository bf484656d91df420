package io.github.probkit.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.cardinality.HyperLogLog;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.SparkException;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/**
 * The key type is part of what an aggregate produces: it decodes topk's items by default, and a
 * merge or query across key types fails with one message unless the session allows it.
 */
class RecordedKeyTypeTest {
  /** Two sketches of the same 98,000 ids, one of their strings and one of their longs. */
  private static final String STRINGS_AND_LONGS =
      "SELECT probkit_hll_agg(CAST(id AS STRING)) AS s FROM range(98000) "
          + "UNION ALL SELECT probkit_hll_agg(id) FROM range(98000)";

  private static void assertFails(String query, String message) {
    assertThatThrownBy(() -> TestSpark.get().sql(query).collect())
        .isInstanceOf(SparkException.class)
        .hasStackTraceContaining(message)
        .hasStackTraceContaining(SketchArg.MIX_KEY_TYPES + "=true");
  }

  @Test
  void eachAggregateRecordsItsKeyType() {
    Row r =
        TestSpark.get()
            .sql(
                "SELECT probkit_hll_agg(id).key_type, probkit_hll_agg(CAST(id AS INT)).key_type, "
                    + "probkit_bloom_agg(CAST(id AS STRING), 10, 0.01).key_type, "
                    + "probkit_cms_agg(date_add(DATE'2026-01-01', CAST(id AS INT)), 0.01, 0.01).key_type, "
                    + "probkit_topk_agg(CAST(CAST(id AS STRING) AS BINARY), 3).key_type, "
                    + "probkit_ull_agg(CAST(id AS DOUBLE)).key_type FROM range(10)")
            .first();
    assertThat(List.of(r.getString(0), r.getString(1), r.getString(2), r.getString(3)))
        .containsExactly("bigint", "bigint", "string", "date");
    assertThat(List.of(r.getString(4), r.getString(5))).containsExactly("binary", "double");
  }

  @Test
  void aUnionOfStringsAndLongsOfTheSameIdsFails() {
    assertFails(
        "SELECT probkit_estimate(probkit_union_agg(s)) FROM (" + STRINGS_AND_LONGS + ")",
        "probkit_union_agg: cannot merge a structure of string keys with one of bigint keys");
  }

  @Test
  void aUnionOfOneKeyTypeKeepsItAndBareBytesMakeItUnknown() {
    Row r =
        TestSpark.get()
            .sql(
                "SELECT probkit_union_agg(s).key_type, probkit_union_agg(s.sketch).key_type, "
                    + "probkit_estimate(probkit_union_agg(s)) FROM ("
                    + "SELECT probkit_hll_agg(id) AS s FROM range(0, 60000, 1, 3) GROUP BY id % 4)")
            .first();
    assertThat(r.getString(0)).isEqualTo("bigint");
    assertThat(r.isNullAt(1)).isTrue();
    HyperLogLog expected = HyperLogLog.create(14);
    for (long id = 0; id < 60000; id++) {
      expected.add(id);
    }
    assertThat(r.getLong(2)).isEqualTo(Math.round(expected.estimate()));

    Row mixed =
        TestSpark.get()
            .sql(
                "SELECT probkit_union_agg(s).key_type FROM ("
                    + "SELECT probkit_hll_agg(id) AS s FROM range(10) "
                    + "UNION ALL SELECT named_struct('sketch', probkit_hll_agg(id).sketch, 'keys', 1L, "
                    + "'nulls', 0L, 'key_type', CAST(NULL AS STRING), 'digest', CAST(NULL AS BINARY)) "
                    + "FROM range(10))")
            .first();
    assertThat(mixed.isNullAt(0)).isTrue();
  }

  @Test
  void theSessionSettingAllowsAMixAndTheResultHasNoKeyType() {
    SparkSession spark = TestSpark.get();
    spark.conf().set(SketchArg.MIX_KEY_TYPES, "true");
    try {
      Row r =
          spark
              .sql(
                  "SELECT probkit_union_agg(s).key_type, probkit_estimate(probkit_union_agg(s)) FROM ("
                      + STRINGS_AND_LONGS
                      + ")")
              .first();
      assertThat(r.isNullAt(0)).isTrue();
      assertThat(r.getLong(1)).isGreaterThan(150_000); // the two sets of keys, as asked
    } finally {
      spark.conf().unset(SketchArg.MIX_KEY_TYPES);
    }
  }

  @Test
  void topkDecodesBigintsAsNumbersAndRefusesToReadThemAsStrings() {
    SparkSession spark = TestSpark.get();
    spark
        .sql("SELECT probkit_topk_agg(id % 3 * 1000, 3) AS t FROM range(30)")
        .createOrReplaceTempView("bigint_top");
    List<Long> items = new ArrayList<>();
    for (Row e :
        spark.sql("SELECT probkit_topk(t, 3, 'bigint') FROM bigint_top").first().<Row>getList(0)) {
      items.add(e.getLong(0));
      assertThat(e.getLong(1)).isEqualTo(10);
    }
    assertThat(items).containsExactlyInAnyOrder(0L, 1000L, 2000L);
    assertFails(
        "SELECT probkit_topk(t, 3) FROM bigint_top",
        "probkit_topk: the summary holds bigint keys, which do not decode as 'string'; "
            + "call probkit_topk(sketch, k, 'bigint')");
  }

  @Test
  void topkRefusesToReadEightCharacterStringsAsNumbers() {
    assertFails(
        "SELECT probkit_topk(probkit_topk_agg(concat('user', id % 10, '000'), 3), 3, 'bigint') "
            + "FROM range(30)",
        "probkit_topk: the summary holds string keys, which do not decode as 'bigint'");
  }

  @Test
  void aFilterOfStringsIsNotAskedAboutLongs() {
    SparkSession spark = TestSpark.get();
    spark
        .sql("SELECT probkit_bloom_agg(CAST(id AS STRING), 1000, 0.001) AS f FROM range(1000)")
        .createOrReplaceTempView("string_filter");
    assertFails(
        "SELECT count_if(probkit_might_contain(f, id)) FROM string_filter, range(1000)",
        "probkit_might_contain: the filter holds string keys, the key is of type BIGINT; "
            + "cast the key (CAST(key AS STRING))");
    Row r =
        spark
            .sql(
                "SELECT count_if(probkit_might_contain(f, CAST(id AS STRING))), "
                    + "count_if(probkit_might_contain(f.sketch, id)) FROM string_filter, range(1000)")
            .first();
    assertThat(r.getLong(0)).isEqualTo(1000);
    // Bare bytes record no key type: the caller's key decides (1000 absent keys at 0.1 %).
    assertThat(r.getLong(1)).isLessThan(10);
  }

  @Test
  void integralColumnsShareOneKeyType() {
    Row r =
        TestSpark.get()
            .sql(
                "SELECT count_if(probkit_might_contain(f, CAST(id AS INT))), "
                    + "count_if(probkit_cms_estimate(c, CAST(id AS SMALLINT)) >= 1) FROM "
                    + "(SELECT probkit_bloom_agg(id, 500, 0.01) AS f, probkit_cms_agg(id, 0.01, 0.01) AS c "
                    + "FROM range(500)), range(500)")
            .first();
    assertThat(r.getLong(0)).isEqualTo(500);
    assertThat(r.getLong(1)).isEqualTo(500);
  }
}
