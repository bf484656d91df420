package io.github.probkit.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.spark.SparkException;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A wrong argument is one AnalysisException naming the function, the argument and the value: no job
 * runs.
 */
class ArgumentsTest {
  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "probkit_bloom_agg(k, 100, 1.5)|probkit_bloom_agg: fpp must be in (0, 1), was 1.5",
        "probkit_bloom_agg(k, 0, 0.01)|probkit_bloom_agg: expectedKeys must be positive, was 0",
        "probkit_bloom_agg(k, 10.5, 0.01)|probkit_bloom_agg: expected must be a whole number, was 10.5",
        "probkit_bloom_agg(k, 100, 0.01, 'cuckoo')|type must be one of bloom, blocked, binary-fuse8, binary-fuse16, fuse; was 'cuckoo'",
        "probkit_bloom_agg(k, 100, 0.001, 'binary-fuse8')|above fpp 0.001; use binary-fuse16",
        "probkit_bloom_agg(k, 100, id)|probkit_bloom_agg: fpp must be a constant, was ",
        "probkit_bloom_agg(k, 100, 'x')|probkit_bloom_agg: fpp must be a number, was of type STRING",
        "probkit_bloom_agg(k, 100, NULL)|fpp must be a number, was of type VOID",
        "probkit_bloom_agg(k, 100, CAST(NULL AS DOUBLE))|probkit_bloom_agg: fpp must not be null",
        "probkit_cms_agg(k)|probkit_cms_agg: takes (key, epsilon, delta), was given 1 argument",
        "probkit_cms_agg(k, 0, 0.01)|probkit_cms_agg: epsilon must be in (0, 1), was 0.0",
        "probkit_topk_agg(k, 0)|probkit_topk_agg: k must be in [1, 268435456], was 0",
        "probkit_topk_agg(k, 10, 5)|probkit_topk_agg: capacity must be in [k = 10, 268435456], was 5",
        "probkit_hll_agg(k, 19)|probkit_hll_agg: precision must be in [4, 18], was 19",
        "probkit_ull_agg(k, 3)|probkit_ull_agg: precision must be in [4, 18], was 3",
        "probkit_union_agg(k)|probkit_union_agg: sketch must be binary or STRUCT<sketch: BINARY, keys: BIGINT, nulls: BIGINT, key_type: STRING, digest: BINARY>, was of type STRING",
        "probkit_estimate(k)|probkit_estimate: sketch must be binary",
        "probkit_topk(X'00', 5, 'double')|probkit_topk: type must be string, binary or bigint",
        "probkit_might_contain(X'00')|probkit_might_contain: takes (filter, key), was given 1 argument",
      })
  void badArgumentsFailAtAnalysis(String call, String message) {
    SparkSession spark = TestSpark.get();
    assertThatThrownBy(
            () ->
                spark.sql(
                    "SELECT " + call + " FROM (SELECT id, CAST(id AS STRING) AS k FROM range(3))"))
        .isInstanceOf(AnalysisException.class)
        .hasMessageContaining(message);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "probkit_estimate(X'00010203')|not a probkit structure",
        "probkit_estimate(s) FROM (SELECT probkit_cms_agg(id, 0.01, 0.01).sketch AS s FROM range(3))"
            + "|probkit_estimate takes a cardinality sketch or a filter, was given a count-min; use probkit_cms_estimate",
        "probkit_might_contain(s, 1) FROM (SELECT probkit_hll_agg(id).sketch AS s FROM range(3))"
            + "|probkit_might_contain takes a filter, was given a hyperloglog",
        "probkit_union_agg(s) FROM (SELECT probkit_hll_agg(id).sketch AS s FROM range(3) "
            + "UNION ALL SELECT probkit_ull_agg(id).sketch FROM range(3))|cannot merge a hyperloglog with a ultraloglog",
        "probkit_union_agg(s) FROM (SELECT probkit_bloom_agg(id, 10, 0.01, 'fuse').sketch AS s FROM range(3))"
            + "|a binary-fuse filter cannot be merged",
        "probkit_union_agg(s) FROM (SELECT probkit_bloom_agg(id, 10, 0.01).sketch AS s FROM range(3) "
            + "UNION ALL SELECT probkit_bloom_agg(id, 20, 0.01).sketch FROM range(3))|cannot merge",
      })
  void wrongStructuresFailTheQueryWithTheReason(String query, String message) {
    SparkSession spark = TestSpark.get();
    // The type of a structure is in its bytes, so this is known only when they are read.
    assertThatThrownBy(() -> spark.sql("SELECT " + query).collect())
        .isInstanceOf(SparkException.class)
        .hasStackTraceContaining(message);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "probkit_might_contain(NULL, 1)",
        "probkit_might_contain(X'00', NULL)",
        "probkit_estimate(NULL)",
        "probkit_cms_estimate(NULL, 'a')"
      })
  void nullArgumentsGiveNull(String call) {
    assertThat(TestSpark.get().sql("SELECT " + call).first().isNullAt(0)).isTrue();
  }
}
