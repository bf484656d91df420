package io.github.probkit.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.cardinality.HyperLogLog;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.spark.SparkException;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/** probkit_intersection and probkit_jaccard against exact counts of the same keys. */
class IntersectionTest {
  /**
   * Seeded pairs of key sets of random sizes and overlaps, from disjoint to one inside the other:
   * every estimate lies within 3 stated standard errors of the exact count, and the standard error
   * is at most the documented bound, relative standard error times (|A| + |B| + |A u B|).
   */
  @Test
  void estimatesLieWithinTheirStatedErrorOfTheExactCounts() {
    SparkSession spark = TestSpark.get();
    SplittableRandom random = new SplittableRandom(0x5eed1a7e85c0ffeeL);
    List<String> pairs = new ArrayList<>();
    List<long[]> exact = new ArrayList<>();
    for (int c = 0; c < 16; c++) {
      long a = 500 + random.nextLong(20_000);
      long b = 500 + random.nextLong(20_000);
      long common = c % 6 == 0 ? 0 : random.nextLong(Math.min(a, b) + 1);
      pairs.add(String.format("(%d, %d, %d, %d)", c, a, b, common));
      exact.add(new long[] {a, b, common});
    }
    // Keys 0 .. a-1 go to A, keys a-common .. a-common+b-1 to B; ULL at precisions 12 and 13
    // merge at 12, as the union does.
    spark
        .sql(
            "SELECT c, a, b, common, explode(sequence(0, a + b - common - 1)) AS id FROM VALUES "
                + String.join(", ", pairs)
                + " AS t(c, a, b, common)")
        .createOrReplaceTempView("overlap_keys");
    List<Row> rows =
        spark
            .sql(
                "SELECT c, probkit_intersection(ha, hb), probkit_jaccard(ha, hb),"
                    + " probkit_intersection(ua, ub), probkit_jaccard(ua, ub) FROM ("
                    + " SELECT c,"
                    + " probkit_hll_agg(IF(id < a, concat(c, ':', id), NULL)) AS ha,"
                    + " probkit_hll_agg(IF(id >= a - common, concat(c, ':', id), NULL)) AS hb,"
                    + " probkit_ull_agg(IF(id < a, concat(c, ':', id), NULL), 13) AS ua,"
                    + " probkit_ull_agg(IF(id >= a - common, concat(c, ':', id), NULL), 12) AS ub"
                    + " FROM overlap_keys GROUP BY c) ORDER BY c")
            .collectAsList();
    assertThat(rows).hasSize(exact.size());
    double hllRse = 1.039 / Math.sqrt(1 << 14);
    double ullRse = Math.sqrt(0.57891114) / 64; // UltraLogLog's 0.761/sqrt(m), m = 2^12
    for (Row r : rows) {
      long[] e = exact.get(r.getInt(0));
      double union = e[0] + e[1] - e[2];
      double jaccard = e[2] / union;
      for (int col : new int[] {1, 3}) {
        double rse = col == 1 ? hllRse : ullRse;
        Row i = r.getStruct(col);
        Row j = r.getStruct(col + 1);
        String what =
            String.format(
                "pair %d (|A| %d, |B| %d, common %d), column %d",
                r.getInt(0), e[0], e[1], e[2], col);
        double se = i.getDouble(1);
        // At most the dense sketches' bound; smaller while an HLL is sparse (2^25 registers).
        assertThat(se).as(what).isPositive().isLessThanOrEqualTo(1.1 * rse * (e[0] + e[1] + union));
        assertThat((double) i.getLong(0))
            .as(what)
            .isCloseTo(e[2], org.assertj.core.data.Offset.offset(3 * se));
        assertThat(j.getDouble(0))
            .as(what)
            .isCloseTo(jaccard, org.assertj.core.data.Offset.offset(3 * j.getDouble(1)));
        assertThat(j.getDouble(0)).as(what).isBetween(0.0, 1.0);
      }
    }
  }

  /** A set inside another: the union's registers are the larger set's, so the estimate is exact. */
  @Test
  void aSubsetsIntersectionIsTheSubsetsOwnEstimate() {
    Row r =
        TestSpark.get()
            .sql(
                "SELECT probkit_intersection(a, b).estimate, probkit_estimate(a),"
                    + " probkit_jaccard(a, a).estimate FROM (SELECT"
                    + " probkit_hll_agg(IF(id < 3000, id, NULL)) AS a, probkit_hll_agg(id) AS b"
                    + " FROM range(50000))")
            .first();
    HyperLogLog a = HyperLogLog.create(14);
    for (long id = 0; id < 3000; id++) {
      a.add(id);
    }
    assertThat(r.getLong(0)).isEqualTo(Math.round(a.estimate()));
    assertThat(r.getDouble(2)).isEqualTo(1.0);
  }

  @Test
  void structuresThatHaveNoIntersectionAreRefused() {
    SparkSession spark = TestSpark.get();
    assertThatThrownBy(
            () ->
                spark
                    .sql(
                        "SELECT probkit_intersection(probkit_hll_agg(id), probkit_hll_agg(CAST(id AS STRING)))"
                            + " FROM range(100)")
                    .collect())
        .isInstanceOf(SparkException.class)
        .hasStackTraceContaining(
            "probkit_intersection: cannot merge a structure of bigint keys with one of string keys");
    assertThatThrownBy(
            () ->
                spark
                    .sql(
                        "SELECT probkit_jaccard(probkit_hll_agg(id), probkit_ull_agg(id)) FROM range(100)")
                    .collect())
        .isInstanceOf(SparkException.class)
        .hasStackTraceContaining("cannot merge a hyperloglog with a ultraloglog");
    assertThatThrownBy(
            () ->
                spark
                    .sql(
                        "SELECT probkit_jaccard(probkit_bloom_agg(id, 100, 0.01), probkit_bloom_agg(id, 100, 0.01))"
                            + " FROM range(100)")
                    .collect())
        .isInstanceOf(SparkException.class)
        .hasStackTraceContaining(
            "probkit_jaccard takes two HLL or two ULL sketches, was given a bloom");
  }
}
