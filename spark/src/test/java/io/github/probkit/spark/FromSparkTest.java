package io.github.probkit.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.cardinality.CardinalitySketches;
import io.github.probkit.cardinality.HyperLogLog;
import io.github.probkit.hash.HashStrategy;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.util.sketch.BloomFilter;
import org.apache.spark.util.sketch.CountMinSketch;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * probkit_from_spark against Spark's own sketches, made by Spark in a real local Spark:
 * hll_sketch_agg columns become probkit HyperLogLogs of the same registers, Spark's Bloom filters
 * probkit Bloom filters answering as Spark's, and Spark's count-min sketch is refused with the
 * reason.
 */
class FromSparkTest {
  private static final int N = 100_000;

  @BeforeAll
  static void view() {
    TestSpark.get()
        .range(0, N, 1, 4)
        .selectExpr("id % 2 AS g", "concat('user:', id % 60000) AS user", "id * 7 AS n")
        .createOrReplaceTempView("spark_made");
  }

  /** What Spark's sketches write themselves as. */
  private interface Serialized {
    void writeTo(OutputStream out) throws IOException;
  }

  private static byte[] bytesOf(Serialized s) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    s.writeTo(out);
    return out.toByteArray();
  }

  /** A one-row view {@code name} of binary columns {@code a} and {@code b}. */
  private static void twoBinaries(String name, String a, Serialized sa, String b, Serialized sb)
      throws IOException {
    TestSpark.get()
        .createDataFrame(
            List.of(org.apache.spark.sql.RowFactory.create(bytesOf(sa), bytesOf(sb))),
            new org.apache.spark.sql.types.StructType().add(a, "binary").add(b, "binary"))
        .createOrReplaceTempView(name);
  }

  private static HyperLogLog read(Row struct) throws Exception {
    return (HyperLogLog)
        CardinalitySketches.readFrom(new ByteArrayInputStream((byte[]) struct.getAs("sketch")));
  }

  @Test
  void hllSketchAggBecomesTheHyperLogLogOfItsRegisters() throws Exception {
    List<Row> rows =
        TestSpark.get()
            .sql(
                "SELECT g, probkit_from_spark(s, 'hll') AS s, hll_sketch_estimate(s),"
                    + " probkit_estimate(probkit_from_spark(s, 'hll')), probkit_from_spark(l,"
                    + " 'hll') AS l, hll_sketch_estimate(l) FROM (SELECT g, hll_sketch_agg(user,"
                    + " 12) AS s, hll_sketch_agg(n, 14) AS l FROM spark_made GROUP BY g) ORDER BY"
                    + " g")
            .collectAsList();
    assertThat(rows).hasSize(2);
    for (Row r : rows) {
      long g = r.getLong(0);
      HyperLogLog[] same = SparkHllSketchTest.group(g, 2, N, 60_000);
      HyperLogLog s = read(r.getStruct(1));
      assertThat(s.registers()).isEqualTo(same[0].registers());
      assertThat(s.hashStrategy()).isEqualTo(HashStrategy.datasketches(12));
      assertThat(read(r.getStruct(4)).registers()).isEqualTo(same[1].registers());
      assertThat(r.getStruct(1).isNullAt(3)).as("key type unknown").isTrue();
      // probkit's estimate of Spark's registers, within 2 standard errors of Spark's own
      long spark = r.getLong(2);
      assertThat((double) r.getLong(3))
          .isCloseTo(
              spark, org.assertj.core.data.Offset.offset(2 * spark * s.relativeStandardError()));
    }
  }

  @Test
  void convertedSketchesMergeAsSparksUnionDoes() throws Exception {
    Row r =
        TestSpark.get()
            .sql(
                "SELECT probkit_union_agg(probkit_from_spark(s, 'hll')),"
                    + " probkit_from_spark(hll_union_agg(s), 'hll') FROM (SELECT g,"
                    + " hll_sketch_agg(user, 12) AS s FROM spark_made GROUP BY g)")
            .first();
    assertThat(read(r.getStruct(0)).registers()).isEqualTo(read(r.getStruct(1)).registers());
  }

  @Test
  void sparksBloomFiltersBecomeProbkitFiltersWithSparksAnswers() throws Exception {
    SparkSession spark = TestSpark.get();
    BloomFilter users = spark.table("spark_made").stat().bloomFilter("user", 60_000, 0.03);
    BloomFilter numbers = spark.table("spark_made").stat().bloomFilter("n", N, 0.03);
    twoBinaries("spark_filters", "u", users::writeTo, "n", numbers::writeTo);
    // Every key present (user:0..59999, n = 7*id) and as many absent (user:60000.., n = 7*id + 3),
    // asked of the converted filters in Spark and compared with Spark's own filters' answers.
    List<Row> rows =
        spark
            .sql(
                "SELECT k, probkit_might_contain(fu, k), l, probkit_might_contain(fn, l) FROM"
                    + " (SELECT probkit_from_spark(u, 'bloom') AS fu, probkit_from_spark(n,"
                    + " 'bloom') AS fn FROM spark_filters) CROSS JOIN (SELECT concat('user:', id) AS k,"
                    + " IF(id < "
                    + N
                    + ", id * 7, (id - "
                    + N
                    + ") * 7 + 3) AS l FROM range(0, "
                    + 2 * N
                    + "))")
            .collectAsList();
    assertThat(rows).hasSize(2 * N);
    int absentStrings = 0;
    for (Row r : rows) {
      String k = r.getString(0);
      long l = r.getLong(2);
      assertThat(r.getBoolean(1)).as(k).isEqualTo(users.mightContainString(k));
      assertThat(r.getBoolean(3)).as("%d", l).isEqualTo(numbers.mightContainLong(l));
      absentStrings += r.getBoolean(1) ? 0 : 1;
    }
    assertThat(absentStrings)
        .as("Spark's filter answers absent for most absent keys")
        .isGreaterThan(N);
  }

  @Test
  void whatCannotBeConvertedFailsWithOneLine() throws Exception {
    SparkSession spark = TestSpark.get();
    BloomFilter bloom = spark.table("spark_made").stat().bloomFilter("user", 60_000, 0.03);
    CountMinSketch cms = spark.table("spark_made").stat().countMinSketch("n", 0.001, 0.99, 42);
    twoBinaries("spark_sketches", "b", bloom::writeTo, "c", cms::writeTo);
    String[][] cases = {
      {
        "SELECT probkit_from_spark(c, 'count-min') FROM spark_sketches",
        "probkit_from_spark: Spark's CountMinSketch cannot become a probkit count-min sketch"
      },
      {
        "SELECT probkit_from_spark(X'0000000200000003', 'bloom')",
        "probkit_from_spark: spark BloomFilter: version is 2, probkit reads version 1"
      },
      {"SELECT probkit_from_spark(b, 'hll') FROM spark_sketches", "probkit_from_spark: "},
      {
        "SELECT probkit_from_spark(hll_sketch_agg(user, 21), 'hll') FROM spark_made",
        "a DataSketches HLL sketch of lgK 21 has more registers than a probkit HyperLogLog"
      },
      {
        "SELECT probkit_from_spark(b, 'parquet') FROM spark_sketches",
        "probkit_from_spark: format must be 'hll' (hll_sketch_agg), 'bloom' or 'count-min'"
      },
      {
        "SELECT probkit_union_agg(s) FROM (SELECT probkit_from_spark(hll_sketch_agg(user, 12),"
            + " 'hll') AS s FROM spark_made UNION ALL SELECT probkit_hll_agg(user, 12) FROM"
            + " spark_made)",
        "cannot merge"
      },
    };
    for (String[] x : cases) {
      assertThatThrownBy(() -> spark.sql(x[0]).collect()).as(x[0]).hasMessageContaining(x[1]);
    }
  }
}
