package io.github.probkit.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.filter.BloomFilter;
import io.github.probkit.frequency.CountMinSketch;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.function.LongFunction;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/**
 * Each supported column type becomes the key docs/SPARK.md says; unsupported types fail at
 * analysis.
 */
class KeyTypesTest {
  private static final int N = 500;

  /**
   * The count-min sketch of {@code expr} over id in [0, N), in Spark and from the library's keys.
   */
  private static void assertKeys(String expr, LongFunction<Object> libraryKey) {
    Row r =
        TestSpark.get()
            .sql("SELECT probkit_cms_agg(" + expr + ", 0.01, 0.01) FROM range(0, " + N + ", 1, 3)")
            .first();
    CountMinSketch expected = CountMinSketch.create(0.01, 0.01);
    for (long id = 0; id < N; id++) {
      Object k = libraryKey.apply(id);
      if (k instanceof Long) {
        expected.add((long) (Long) k);
      } else if (k instanceof String) {
        expected.add((String) k);
      } else {
        expected.add((byte[]) k);
      }
    }
    assertThat(AggregateTest.sketch(r, 0)).as(expr).isEqualTo(TestSpark.bytes(expected::writeTo));
  }

  @Test
  void integralTypesDatesAndTimestampsAreLongs() {
    assertKeys("id", id -> id);
    assertKeys("id - 250", id -> id - 250);
    assertKeys("CAST(id AS INT)", id -> id);
    assertKeys("CAST(id % 100 AS SMALLINT)", id -> id % 100);
    assertKeys("CAST(id % 100 - 50 AS TINYINT)", id -> id % 100 - 50);
    assertKeys("id % 2 = 0", id -> id % 2 == 0 ? 1L : 0L);
    assertKeys(
        "date_add(DATE'1970-01-01', CAST(id AS INT) - 100)",
        id -> id - 100); // days since the epoch
    assertKeys("timestamp_micros(id * 1000003)", id -> id * 1000003);
    assertKeys("CAST(timestamp_micros(id * 1000003) AS TIMESTAMP_NTZ)", id -> id * 1000003);
  }

  @Test
  void floatingPointIsTheBitsOfTheDouble() {
    assertKeys("CAST(id AS DOUBLE) / 4", id -> Double.doubleToLongBits(id / 4.0));
    assertKeys("CAST(CAST(id AS DOUBLE) / 4 AS FLOAT)", id -> Double.doubleToLongBits(id / 4.0));
    // -0.0 is 0.0 and every NaN one NaN, as in Spark's joins and groups.
    assertKeys(
        "CASE WHEN id % 3 = 0 THEN -0.0D WHEN id % 3 = 1 THEN 0.0D ELSE CAST('NaN' AS DOUBLE) END",
        id -> Double.doubleToLongBits(id % 3 == 2 ? Double.NaN : 0.0));
  }

  @Test
  void decimalsAreTheirPlainTextWithoutTrailingZeros() {
    assertKeys(
        "CAST(id AS DECIMAL(10, 2)) / 4",
        id ->
            BigDecimal.valueOf(id)
                .divide(BigDecimal.valueOf(4))
                .stripTrailingZeros()
                .toPlainString());
    assertKeys("CAST(id * 100 AS DECIMAL(12, 3))", id -> Long.toString(id * 100));
    assertThat(new String(Keys.decimalKey(new BigDecimal("0.000")), StandardCharsets.UTF_8))
        .isEqualTo("0");
    assertThat(new String(Keys.decimalKey(new BigDecimal("-1.50")), StandardCharsets.UTF_8))
        .isEqualTo("-1.5");
  }

  @Test
  void stringsAreUtf8AndBinaryIsItself() {
    assertKeys("concat('ü', id, '日本')", id -> "ü" + id + "日本");
    assertKeys(
        "CAST(concat('k', id) AS BINARY)", id -> ("k" + id).getBytes(StandardCharsets.UTF_8));
    assertKeys("unhex(hex(id))", id -> hexBytes(id));
  }

  private static byte[] hexBytes(long id) {
    String h = Long.toHexString(id).toUpperCase(java.util.Locale.ROOT);
    if (h.length() % 2 == 1) {
      h = "0" + h;
    }
    byte[] b = new byte[h.length() / 2];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) Integer.parseInt(h.substring(2 * i, 2 * i + 2), 16);
    }
    return b;
  }

  @Test
  void aFilterOfBigintsAnswersForIntsButNotForTheirDigits() {
    SparkSession spark = TestSpark.get();
    BloomFilter f = BloomFilter.create(N, 0.001);
    for (long id = 0; id < N; id++) {
      f.add(id);
    }
    spark
        .createDataFrame(
            java.util.List.of(
                org.apache.spark.sql.RowFactory.create((Object) TestSpark.bytes(f::writeTo))),
            new org.apache.spark.sql.types.StructType().add("f", "binary"))
        .createOrReplaceTempView("bigint_filter");
    Row r =
        spark
            .sql(
                "SELECT count_if(probkit_might_contain(f, CAST(id AS INT))), "
                    + "count_if(probkit_might_contain(f, CAST(id AS SMALLINT))), "
                    + "count_if(probkit_might_contain(f, CAST(id AS STRING))) "
                    + "FROM bigint_filter, range("
                    + N
                    + ")")
            .first();
    assertThat(r.getLong(0)).isEqualTo(N);
    assertThat(r.getLong(1)).isEqualTo(N);
    // "7" is the byte 0x37, not the 8 bytes of 7: at 0.1 %, 500 absent keys give under 5 false
    // positives
    // with probability above 0.99 (binomial mean 0.5).
    assertThat(r.getLong(2)).isLessThan(5);
  }

  @Test
  void unsupportedTypesAreAnalysisErrors() {
    SparkSession spark = TestSpark.get();
    assertThatThrownBy(() -> spark.sql("SELECT probkit_hll_agg(array(id)) FROM range(3)"))
        .isInstanceOf(AnalysisException.class)
        .hasMessageContaining("keys of type ARRAY<BIGINT> are not supported");
    assertThatThrownBy(
            () ->
                spark.sql(
                    "SELECT probkit_bloom_agg(named_struct('a', id), 10, 0.01) FROM range(3)"))
        .isInstanceOf(AnalysisException.class)
        .hasMessageContaining("keys of type STRUCT<a: BIGINT NOT NULL> are not supported");
    assertThatThrownBy(
            () ->
                spark.sql(
                    "SELECT probkit_cms_agg(CAST(id AS STRING) COLLATE UTF8_LCASE, 0.01, 0.01) FROM range(3)"))
        .isInstanceOf(AnalysisException.class)
        .hasMessageContaining("collation UTF8_LCASE");
    assertThatThrownBy(() -> spark.sql("SELECT probkit_might_contain(X'00', map(1, 2))"))
        .isInstanceOf(AnalysisException.class)
        .hasMessageContaining("keys of type MAP<INT, INT> are not supported");
  }
}
