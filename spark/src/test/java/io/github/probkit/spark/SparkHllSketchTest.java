package io.github.probkit.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.cardinality.HyperLogLog;
import io.github.probkit.foreign.DataSketchesHll;
import io.github.probkit.hash.HashStrategy;
import java.util.List;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;

/**
 * What Spark 4's own {@code hll_sketch_agg} writes (DataSketches HLL sketches, merged across
 * partitions by DataSketches' union) is read by probkit's {@link DataSketchesHll} with the
 * registers probkit's DataSketches hash sets for the same items and Spark's estimate within
 * DataSketches' documented error.
 */
class SparkHllSketchTest {
  @Test
  void hllSketchAggColumnsReadAsTheSameRegistersWithSparksEstimate() throws Exception {
    List<Row> rows =
        TestSpark.get()
            .range(0, 120_000, 1, 4)
            .selectExpr("id % 3 AS g", "concat('user:', id % 50000) AS user", "id * 7 AS n")
            .groupBy("g")
            .agg(
                org.apache.spark.sql.functions.expr("hll_sketch_agg(user, 12)").as("s"),
                org.apache.spark.sql.functions.expr("hll_sketch_agg(n, 14)").as("l"))
            .selectExpr(
                "g", "s", "hll_sketch_estimate(s) AS se", "l", "hll_sketch_estimate(l) AS le")
            .orderBy("g")
            .collectAsList();
    assertThat(rows).hasSize(3);
    for (Row r : rows) {
      long g = r.getLong(0);
      HyperLogLog[] same = group(g, 3, 120_000, 50_000);
      check((byte[]) r.get(1), r.getLong(2), same[0]);
      check((byte[]) r.get(3), r.getLong(4), same[1]);
    }
  }

  /**
   * The registers {@code hll_sketch_agg(user, 12)} and {@code hll_sketch_agg(n, 14)} should hold
   * for group {@code g} of the tests' tables: ids g, g + groups, ... below {@code rows}, user
   * {@code "user:" + id % users}, n {@code id * 7}.
   */
  static HyperLogLog[] group(long g, int groups, long rows, long users) {
    HyperLogLog strings = HyperLogLog.create(12, HashStrategy.datasketches(12));
    HyperLogLog longs = HyperLogLog.create(14, HashStrategy.datasketches(14));
    for (long id = g; id < rows; id += groups) {
      strings.add("user:" + id % users);
      longs.add(id * 7);
    }
    return new HyperLogLog[] {strings, longs};
  }

  private static void check(byte[] sparkBytes, long sparkEstimate, HyperLogLog same)
      throws Exception {
    DataSketchesHll read = DataSketchesHll.read(sparkBytes);
    assertThat(read.toHyperLogLog().registers()).isEqualTo(same.registers());
    double tolerance = sparkEstimate * read.relativeStandardError() / 2 + 1;
    assertThat(Math.abs(read.estimate() - sparkEstimate)).isLessThanOrEqualTo(tolerance);
  }
}
