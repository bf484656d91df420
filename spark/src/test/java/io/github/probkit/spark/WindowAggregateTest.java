package io.github.probkit.spark;

import static io.github.probkit.spark.ProbkitFunctions.windowBloomAgg;
import static io.github.probkit.spark.ProbkitFunctions.windowCmsAgg;
import static io.github.probkit.spark.ProbkitFunctions.windowHllAgg;
import static org.apache.spark.sql.functions.col;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.cardinality.HyperLogLog;
import io.github.probkit.cardinality.WindowedCardinality;
import io.github.probkit.filter.AgePartitionedBloomFilter;
import io.github.probkit.frequency.CountMinSketch;
import io.github.probkit.frequency.WindowedCountMin;
import java.io.ByteArrayInputStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The windowed aggregates against the library fed the same (key, time) pairs: 20,000 rows over 48
 * hours in an order unrelated to their times, in 4 partitions, so that rows arrive far out of order
 * and partial aggregates are merged.
 */
class WindowAggregateTest {
  private static final int N = 20_000;
  private static final int DISTINCT = 3_000;
  private static final long SPAN = Duration.ofHours(48).toMillis();
  private static final long BASE = Instant.parse("2026-11-01T00:00:00Z").toEpochMilli();

  private static Dataset<Row> events;
  private static Row built;

  private static long number(long id) {
    return id * 7919 % DISTINCT;
  }

  private static long time(long id) {
    return BASE + id * 2654435761L % SPAN;
  }

  @BeforeAll
  static void build() {
    SparkSession spark = TestSpark.get();
    events =
        spark
            .range(0, N, 1, 4)
            .selectExpr(
                "id",
                "id * 7919 % " + DISTINCT + " AS n",
                "concat('user:', id * 7919 % " + DISTINCT + ") AS k",
                "timestamp_millis(" + BASE + " + id * 2654435761 % " + SPAN + ") AS ts");
    events.cache().createOrReplaceTempView("window_events");
    built =
        events
            .agg(
                windowHllAgg(col("k"), col("ts"), "24h", "1h", 12).as("h"),
                windowCmsAgg(col("k"), col("ts"), "24h", "1h", 0.01, 0.01).as("c"),
                windowCmsAgg(col("n"), col("ts"), "24h", "1h", 0.01, 0.01).as("cn"),
                windowBloomAgg(col("k"), col("ts"), "6h", 3000, 0.01).as("f"),
                windowBloomAgg(col("n"), col("ts"), "6h", 3000, 0.01).as("fn"))
            .first();
    spark.createDataFrame(List.of(built), built.schema()).createOrReplaceTempView("window_built");
  }

  private static byte[] sketch(String field) {
    return (byte[]) built.getStruct(built.fieldIndex(field)).getAs("sketch");
  }

  private static AgePartitionedBloomFilter apbf() {
    return AgePartitionedBloomFilter.create(Duration.ofHours(6), 3000, 0.01);
  }

  /** The ids in time order (ties by id): how the library must be fed for the window filter. */
  private static List<Long> byTime() {
    List<Long> ids = new ArrayList<>();
    for (long id = 0; id < N; id++) {
      ids.add(id);
    }
    ids.sort(Comparator.comparingLong(WindowAggregateTest::time));
    return ids;
  }

  @Test
  void windowedCountMinIsTheLibrarysBytesInAnyOrder() {
    WindowedCountMin strings =
        WindowedCountMin.create(
            Duration.ofHours(24), Duration.ofHours(1), CountMinSketch.create(0.01, 0.01));
    WindowedCountMin longs =
        WindowedCountMin.create(
            Duration.ofHours(24), Duration.ofHours(1), CountMinSketch.create(0.01, 0.01));
    for (long id = 0; id < N; id++) {
      strings.add("user:" + number(id), 1, time(id));
      longs.add(number(id), 1, time(id));
    }
    assertThat(sketch("c")).isEqualTo(TestSpark.bytes(strings::writeTo));
    assertThat(sketch("cn")).isEqualTo(TestSpark.bytes(longs::writeTo));
    assertThat(built.getStruct(built.fieldIndex("c")).<String>getAs("key_type"))
        .isEqualTo("string");
    assertThat(built.getStruct(built.fieldIndex("cn")).<String>getAs("key_type"))
        .isEqualTo("bigint");
  }

  @Test
  void windowedHllHasTheLibrarysRegistersInEverySlice() throws Exception {
    WindowedCardinality library =
        WindowedCardinality.create(
            Duration.ofHours(24), Duration.ofHours(1), HyperLogLog.create(12));
    for (long id = 0; id < N; id++) {
      library.add("user:" + number(id), time(id));
    }
    WindowedCardinality spark = WindowedCardinality.readFrom(new ByteArrayInputStream(sketch("h")));
    assertThat(spark.newestSlice()).isEqualTo(library.newestSlice());
    for (long t = BASE + SPAN - Duration.ofHours(25).toMillis(); t < BASE + SPAN; t += 3_600_000) {
      assertThat(((HyperLogLog) spark.sketchOfLast(Duration.ZERO, t)).registers())
          .isEqualTo(((HyperLogLog) library.sketchOfLast(Duration.ZERO, t)).registers());
    }
  }

  @Test
  void windowFilterIsTheLibrarysBytesInTimeOrder() {
    AgePartitionedBloomFilter strings = apbf();
    AgePartitionedBloomFilter longs = apbf();
    for (long id : byTime()) {
      strings.add("user:" + number(id), time(id));
      longs.add(number(id), time(id));
    }
    assertThat(sketch("f")).isEqualTo(TestSpark.bytes(strings::writeTo));
    assertThat(sketch("fn")).isEqualTo(TestSpark.bytes(longs::writeTo));

    // The rows in id order come more than the window late: the library fed them so ignores some
    // and keeps other bits, which is why the aggregate follows time order.
    AgePartitionedBloomFilter idOrder = apbf();
    for (long id = 0; id < N; id++) {
      idOrder.add("user:" + number(id), time(id));
    }
    assertThat(TestSpark.bytes(idOrder::writeTo)).isNotEqualTo(sketch("f"));
  }

  @Test
  void queriesAsOfATimeGiveTheLibrarysAnswers() {
    WindowedCardinality distinct =
        WindowedCardinality.create(
            Duration.ofHours(24), Duration.ofHours(1), HyperLogLog.create(12));
    WindowedCountMin counts =
        WindowedCountMin.create(
            Duration.ofHours(24), Duration.ofHours(1), CountMinSketch.create(0.01, 0.01));
    AgePartitionedBloomFilter seen = apbf();
    for (long id : byTime()) {
      distinct.add("user:" + number(id), time(id));
      counts.add("user:" + number(id), 1, time(id));
      seen.add("user:" + number(id), time(id));
    }
    SparkSession spark = TestSpark.get();
    // After the newest row, so that keys age out of the window by the query's own time (before
    // it, a filter answers as of its newest row: it cannot forget what came later).
    long at = BASE + SPAN + Duration.ofMinutes(30).toMillis();
    String atSql = "timestamp_millis(" + at + ")";
    Row r =
        spark
            .sql(
                "SELECT probkit_window_count(h, '24h', "
                    + atSql
                    + "), probkit_window_count(h, '6h', "
                    + atSql
                    + "), probkit_window_count(h, INTERVAL '3' HOUR, "
                    + atSql
                    + ") FROM window_built")
            .first();
    assertThat(r.getLong(0)).isEqualTo(Math.round(distinct.count(Duration.ofHours(24), at)));
    assertThat(r.getLong(1)).isEqualTo(Math.round(distinct.count(Duration.ofHours(6), at)));
    assertThat(r.getLong(2)).isEqualTo(Math.round(distinct.count(Duration.ofHours(3), at)));

    List<Row> answers =
        spark
            .sql(
                "SELECT q.n, probkit_window_cms_estimate(b.c, concat('user:', q.n), '2h', "
                    + atSql
                    + "), probkit_window_might_contain(b.f, concat('user:', q.n), "
                    + atSql
                    + ") FROM (SELECT id AS n FROM range("
                    + (DISTINCT + 1000)
                    + ")) q CROSS JOIN window_built b ORDER BY q.n")
            .collectAsList();
    boolean[] inWindow = new boolean[DISTINCT + 1000];
    for (long id = 0; id < N; id++) {
      if (time(id) <= at && time(id) > at - seen.window()) {
        inWindow[(int) number(id)] = true;
      }
    }
    int falsePositives = 0;
    for (Row a : answers) {
      int n = (int) a.getLong(0);
      assertThat(a.getLong(1)).isEqualTo(counts.estimate("user:" + n, Duration.ofHours(2), at));
      assertThat(a.getBoolean(2)).isEqualTo(seen.mightContain("user:" + n, at));
      if (inWindow[n]) {
        assertThat(a.getBoolean(2)).as("user:%d in the window", n).isTrue();
      } else if (n >= DISTINCT && a.getBoolean(2)) {
        falsePositives++;
      }
    }
    assertThat(falsePositives).isLessThan(40); // 1,000 never added at 1 %: 10 expected
  }

  @Test
  void partialAggregatesMergeToTheWholeOnes() {
    Row r =
        TestSpark.get()
            .sql(
                "SELECT probkit_union_agg(c), probkit_union_agg(f) FROM (SELECT"
                    + " probkit_window_cms_agg(k, ts, '24h', '1h', 0.01, 0.01) AS c,"
                    + " probkit_window_bloom_agg(k, ts, '6h', 3000, 0.01) AS f FROM window_events"
                    + " GROUP BY id % 5)")
            .first();
    assertThat((byte[]) r.getStruct(0).getAs("sketch")).isEqualTo(sketch("c"));
    assertThat((byte[]) r.getStruct(1).getAs("sketch")).isEqualTo(sketch("f"));
    assertThat(r.getStruct(1).<Long>getAs("keys")).isEqualTo(N);
    assertThat(r.getStruct(1).<String>getAs("key_type")).isEqualTo("string");
  }

  @Test
  void wrongArgumentsAndStructuresFailWithOneLine() {
    SparkSession spark = TestSpark.get();
    String[][] cases = {
      {
        "SELECT probkit_window_hll_agg(k, id, '24h', '1h') FROM window_events",
        "probkit_window_hll_agg: time must be a timestamp or timestamp_ntz, was of type BIGINT"
      },
      {
        "SELECT probkit_window_cms_agg(k, ts, '0h', '1h', 0.01, 0.01) FROM window_events",
        "probkit_window_cms_agg: window must be a time span of whole milliseconds above 0"
      },
      {
        "SELECT probkit_window_hll_agg(k, ts, '1h', '2h') FROM window_events",
        "probkit_window_hll_agg: the window (3600000 ms) must be at least one slice (7200000 ms)"
      },
      {
        "SELECT probkit_window_count(h, '48h', timestamp_millis(0)) FROM window_built",
        "probkit_window_count: a window of 172800000 ms needs"
      },
      {
        "SELECT probkit_might_contain(f, 'user:1') FROM window_built",
        "probkit_window_might_contain(filter, key, at)"
      },
      {
        "SELECT probkit_window_might_contain(f, 1, timestamp_millis(0)) FROM window_built",
        "probkit_window_might_contain: the filter holds string keys, the key is of type INT"
      },
      {
        "SELECT probkit_window_count(c, '1h', timestamp_millis(0)) FROM window_built",
        "probkit_window_count takes a windowed HLL or ULL sketch (probkit_window_hll_agg), was"
            + " given a window-count-min"
      },
      {
        "SELECT probkit_union_agg(s) FROM (SELECT h AS s FROM window_built UNION ALL SELECT c"
            + " FROM window_built)",
        "cannot merge a window-cardinality"
      },
    };
    for (String[] c : cases) {
      assertThatThrownBy(() -> spark.sql(c[0]).collect()).as(c[0]).hasMessageContaining(c[1]);
    }
  }
}
