package io.github.probkit.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.cardinality.HyperLogLog;
import io.github.probkit.filter.BloomFilter;
import java.util.List;
import org.apache.spark.SparkException;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/** probkit_union (row-wise), probkit_info, and DESCRIBE FUNCTION EXTENDED of every function. */
class RowFunctionsTest {
  @Test
  void aRowWiseUnionHasEveryKeyOfItsInputs() {
    Row r =
        TestSpark.get()
            .sql(
                "SELECT probkit_union(a, b, NULL), probkit_union(fa, fb) FROM ("
                    + "SELECT probkit_hll_agg(CASE WHEN id < 7000 THEN id END) AS a, "
                    + "probkit_hll_agg(CASE WHEN id >= 3000 THEN id END) AS b, "
                    + "probkit_bloom_agg(CASE WHEN id < 7000 THEN id END, 10000, 0.01) AS fa, "
                    + "probkit_bloom_agg(CASE WHEN id >= 3000 THEN id END, 10000, 0.01) AS fb "
                    + "FROM range(10000))")
            .first();
    HyperLogLog expected = HyperLogLog.create(14);
    BloomFilter filter = BloomFilter.create(10000, 0.01);
    for (long id = 0; id < 10000; id++) {
      expected.add(id);
      filter.add(id);
    }
    assertThat(Sketches.read(AggregateTest.sketch(r, 0))).isEqualTo(expected);
    assertThat(AggregateTest.sketch(r, 1)).isEqualTo(TestSpark.bytes(filter::writeTo));
    Row union = r.getStruct(0);
    assertThat(union.getLong(1)).isEqualTo(7000 + 7000);
    assertThat(union.getLong(2)).isEqualTo(3000 + 3000);
    assertThat(union.getString(3)).isEqualTo("bigint");
    assertThat((byte[]) union.getAs("digest"))
        .isEqualTo(SketchArg.digest(AggregateTest.sketch(r, 0)));
  }

  @Test
  void aRowWiseUnionRefusesTwoKeyTypes() {
    assertThatThrownBy(
            () ->
                TestSpark.get()
                    .sql(
                        "SELECT probkit_union(probkit_hll_agg(id), probkit_hll_agg(CAST(id AS STRING))) "
                            + "FROM range(100)")
                    .collect())
        .isInstanceOf(SparkException.class)
        .hasStackTraceContaining(
            "probkit_union: cannot merge a structure of bigint keys with one of string keys");
  }

  @Test
  void infoSaysWhatAStructureIs() {
    Row r =
        TestSpark.get()
            .sql(
                "SELECT probkit_info(probkit_hll_agg(id, 12)), probkit_info(probkit_bloom_agg(id, 1000, 0.01).sketch), "
                    + "probkit_info(probkit_cms_agg(CAST(id AS STRING), 0.01, 0.01)) FROM range(500)")
            .first();
    Row hll = r.getStruct(0);
    assertThat(List.of(hll.getString(0), hll.getString(1)))
        .containsExactly("hyperloglog", "bigint");
    assertThat(hll.getString(2)).startsWith("precision 12");
    assertThat(hll.getLong(4)).isBetween(480L, 520L);
    Row bloom = r.getStruct(1);
    assertThat(bloom.getString(0)).isEqualTo("bloom");
    assertThat(bloom.isNullAt(1)).isTrue(); // bare bytes: no key type
    assertThat(bloom.getLong(3)).isEqualTo(BloomFilter.create(1000, 0.01).byteSize() + 60);
    Row cms = r.getStruct(2);
    assertThat(List.of(cms.getString(0), cms.getString(1))).containsExactly("count-min", "string");
    assertThat(cms.getLong(4)).isEqualTo(500);
  }

  @Test
  void describeFunctionExtendedShowsUsageAndExamples() {
    SparkSession spark = TestSpark.get();
    for (var f : ProbkitFunctions.functions()) {
      String name = f._1().funcName();
      String text =
          String.join(
              "\n",
              spark
                  .sql("DESCRIBE FUNCTION EXTENDED " + name)
                  .as(org.apache.spark.sql.Encoders.STRING())
                  .collectAsList());
      assertThat(text)
          .as(name)
          .contains("Usage: " + name + "(")
          .contains("Examples:")
          .contains("> SELECT");
    }
  }
}
