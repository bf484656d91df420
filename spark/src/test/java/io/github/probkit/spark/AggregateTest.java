package io.github.probkit.spark;

import static io.github.probkit.spark.ProbkitFunctions.bloomAgg;
import static io.github.probkit.spark.ProbkitFunctions.cmsAgg;
import static io.github.probkit.spark.ProbkitFunctions.hllAgg;
import static io.github.probkit.spark.ProbkitFunctions.topkAgg;
import static io.github.probkit.spark.ProbkitFunctions.ullAgg;
import static org.apache.spark.sql.functions.col;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.cardinality.CardinalitySketch;
import io.github.probkit.cardinality.HyperLogLog;
import io.github.probkit.cardinality.UltraLogLog;
import io.github.probkit.filter.BinaryFuseFilter;
import io.github.probkit.filter.BinaryFuseFilter.FingerprintBits;
import io.github.probkit.filter.BlockedBloomFilter;
import io.github.probkit.filter.BloomFilter;
import io.github.probkit.frequency.CountMinSketch;
import io.github.probkit.frequency.HeavyHitters;
import io.github.probkit.hash.HashStrategy;
import java.util.Arrays;
import java.util.function.Supplier;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every aggregate against the library on the same keys: "user:" + (id mod 5000) for id in [0,
 * 20000), every 17th null. In one partition the rows arrive in the library's order; in 200 the
 * partial structures are merged.
 */
class AggregateTest {
  private static final int N = 20_000;
  private static final int DISTINCT = 5_000;

  private static String key(long id) {
    return id % 17 == 0 ? null : "user:" + id % DISTINCT;
  }

  private static Dataset<Row> keys(int partitions) {
    return TestSpark.get()
        .range(0, N, 1, partitions)
        .selectExpr(
            "CASE WHEN id % 17 = 0 THEN NULL ELSE concat('user:', id % " + DISTINCT + ") END AS k");
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 200})
  void everyAggregateEqualsTheLibraryOnTheSameKeys(int partitions) {
    Row r =
        keys(partitions)
            .agg(
                bloomAgg(col("k"), DISTINCT, 0.01),
                bloomAgg(col("k"), DISTINCT, 0.01, "blocked"),
                bloomAgg(col("k"), DISTINCT, 0.004, "binary-fuse8"),
                cmsAgg(col("k"), 0.001, 0.01),
                topkAgg(col("k"), 10, DISTINCT),
                hllAgg(col("k")),
                ullAgg(col("k"), 12))
            .first();

    BloomFilter bloom = BloomFilter.create(DISTINCT, 0.01);
    BlockedBloomFilter blocked = BlockedBloomFilter.create(DISTINCT, 0.01);
    CountMinSketch cms = CountMinSketch.create(0.001, 0.01);
    HeavyHitters top = HeavyHitters.withCapacity(DISTINCT);
    HyperLogLog hll = HyperLogLog.create(14);
    UltraLogLog ull = UltraLogLog.create(12);
    long[] hashes = new long[N];
    int n = 0;
    long nulls = 0;
    for (long id = 0; id < N; id++) {
      String k = key(id);
      if (k == null) {
        nulls++;
        continue;
      }
      bloom.add(k);
      blocked.add(k);
      cms.add(k);
      top.add(k);
      hll.add(k);
      ull.add(k);
      hashes[n++] = HashStrategy.xxh3().hash64(k);
    }
    long[] distinct = Arrays.stream(hashes, 0, n).sorted().distinct().toArray();

    assertThat(sketch(r, 0)).isEqualTo(TestSpark.bytes(bloom::writeTo));
    assertThat(sketch(r, 1)).isEqualTo(TestSpark.bytes(blocked::writeTo));
    BinaryFuseFilter fuse =
        BinaryFuseFilter.fromHashes(distinct, FingerprintBits.BITS_8, HashStrategy.xxh3());
    assertThat(sketch(r, 2)).isEqualTo(TestSpark.bytes(fuse::writeTo));
    assertThat(sketch(r, 3)).isEqualTo(TestSpark.bytes(cms::writeTo));
    assertThat(sketch(r, 4)).isEqualTo(TestSpark.bytes(top::writeTo));
    if (partitions == 1) {
      // Rows in the library's order: even the martingale estimate is the same.
      assertThat(sketch(r, 5)).isEqualTo(TestSpark.bytes(hll::writeTo));
      assertThat(sketch(r, 6)).isEqualTo(TestSpark.bytes(ull::writeTo));
    } else {
      // Merged partitions: the registers of one pass, the martingale estimate ended by the merges.
      assertThat(sketch(r, 5))
          .isEqualTo(TestSpark.bytes(merged(() -> HyperLogLog.create(14))::writeTo));
      assertThat(sketch(r, 6))
          .isEqualTo(TestSpark.bytes(merged(() -> UltraLogLog.create(12))::writeTo));
      assertThat(Sketches.read(sketch(r, 5))).isEqualTo(hll);
      assertThat(Sketches.read(sketch(r, 6))).isEqualTo(ull);
    }
    for (int i = 0; i < 7; i++) {
      assertThat(r.getStruct(i).getLong(1)).as("keys").isEqualTo(n);
      assertThat(r.getStruct(i).getLong(2)).as("nulls").isEqualTo(nulls);
    }
  }

  /** The library's sketch of the keys built as two halves and merged. */
  private static CardinalitySketch merged(Supplier<CardinalitySketch> create) {
    CardinalitySketch a = create.get();
    CardinalitySketch b = create.get();
    for (long id = 0; id < N; id++) {
      String k = key(id);
      if (k != null) {
        (id < N / 2 ? a : b).add(k);
      }
    }
    return a instanceof HyperLogLog
        ? ((HyperLogLog) a).merge((HyperLogLog) b)
        : ((UltraLogLog) a).merge((UltraLogLog) b);
  }

  static byte[] sketch(Row r, int i) {
    return r.getStruct(i).getAs("sketch");
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 3})
  void emptyInputGivesTheEmptyStructure(int partitions) {
    SparkSession spark = TestSpark.get();
    Row r =
        keys(partitions)
            .where("k = 'nobody'")
            .agg(
                bloomAgg(col("k"), 100, 0.01),
                hllAgg(col("k")),
                cmsAgg(col("k"), 0.01, 0.01),
                bloomAgg(col("k"), 100, 0.01, "fuse"))
            .first();
    assertThat(sketch(r, 0)).isEqualTo(TestSpark.bytes(BloomFilter.create(100, 0.01)::writeTo));
    assertThat(sketch(r, 1)).isEqualTo(TestSpark.bytes(HyperLogLog.create(14)::writeTo));
    assertThat(sketch(r, 2)).isEqualTo(TestSpark.bytes(CountMinSketch.create(0.01, 0.01)::writeTo));
    assertThat(((BinaryFuseFilter) Sketches.read(sketch(r, 3))).keyCount()).isZero();
    assertThat(r.getStruct(0).getLong(1)).isZero();
    assertThat(r.getStruct(0).getLong(2)).isZero();
    // Grouped, an empty input has no groups; a group of only nulls has an empty structure.
    assertThat(keys(partitions).where("k = 'nobody'").groupBy("k").agg(hllAgg(col("k"))).count())
        .isZero();
    Row onlyNulls =
        spark
            .sql(
                "SELECT probkit_hll_agg(CAST(NULL AS STRING)), probkit_hll_agg(NULL) FROM range(5)")
            .first();
    assertThat(onlyNulls.getStruct(0).getLong(2)).isEqualTo(5);
    assertThat(sketch(onlyNulls, 1)).isEqualTo(TestSpark.bytes(HyperLogLog.create(14)::writeTo));
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 200})
  void groupsAreSketchedSeparately(int partitions) {
    Row[] rows =
        (Row[])
            TestSpark.get()
                .range(0, N, 1, partitions)
                .selectExpr("id % 3 AS g", "concat('user:', id % " + DISTINCT + ") AS k")
                .groupBy("g")
                .agg(bloomAgg(col("k"), DISTINCT, 0.01).as("f"))
                .orderBy("g")
                .collect();
    assertThat(rows).hasSize(3);
    for (Row row : rows) {
      long g = row.getLong(0);
      BloomFilter expected = BloomFilter.create(DISTINCT, 0.01);
      for (long id = g; id < N; id += 3) {
        expected.add("user:" + id % DISTINCT);
      }
      assertThat((byte[]) row.getStruct(1).getAs("sketch"))
          .isEqualTo(TestSpark.bytes(expected::writeTo));
    }
  }
}
