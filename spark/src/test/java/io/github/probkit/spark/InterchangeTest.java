package io.github.probkit.spark;

import static io.github.probkit.spark.ProbkitFunctions.bloomAgg;
import static io.github.probkit.spark.ProbkitFunctions.cmsAgg;
import static io.github.probkit.spark.ProbkitFunctions.cmsEstimate;
import static io.github.probkit.spark.ProbkitFunctions.estimate;
import static io.github.probkit.spark.ProbkitFunctions.hllAgg;
import static io.github.probkit.spark.ProbkitFunctions.mightContain;
import static io.github.probkit.spark.ProbkitFunctions.topk;
import static io.github.probkit.spark.ProbkitFunctions.topkAgg;
import static io.github.probkit.spark.ProbkitFunctions.unionAgg;
import static org.apache.spark.sql.functions.col;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.cardinality.HyperLogLog;
import io.github.probkit.filter.BloomFilter;
import io.github.probkit.frequency.CountMinSketch;
import io.github.probkit.frequency.HeavyHitters;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What Spark builds, the library and the command line (run as a process) read, and the other way
 * round.
 */
class InterchangeTest {
  @TempDir Path dir;

  /** Visits: "user:" + (id^2 mod 1009) on day id mod 7. */
  private static Dataset<Row> visits() {
    return TestSpark.get()
        .range(0, 30_000, 1, 4)
        .selectExpr("id % 7 AS day", "concat('user:', (id * id) % 1009) AS user");
  }

  /** Runs the command line as a process, as a user at a shell does; returns its standard output. */
  private static String cli(String... args) throws IOException {
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                "io.github.probkit.cli.Main"));
    command.addAll(List.of(args));
    Process p =
        new ProcessBuilder(command)
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
            .redirectErrorStream(true)
            .start();
    String out =
        new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    try {
      assertThat(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
    assertThat(p.exitValue()).as(out).isZero();
    return out;
  }

  @Test
  void aFilterBuiltBySparkIsQueriedByTheCommandLine() throws IOException {
    Row r = visits().agg(bloomAgg(col("user"), 1009, 0.01, "blocked")).first();
    Path file = dir.resolve("users.bin");
    Files.write(file, AggregateTest.sketch(r, 0));
    assertThat(cli("filter", "query", file.toString(), "user:0", "user:1", "user:4"))
        .isEqualTo("user:0\tpresent\nuser:1\tpresent\nuser:4\tpresent\n");
    assertThat(cli("filter", "info", file.toString())).contains("type:", "blocked");
    Path hll = dir.resolve("users.hll");
    Files.write(hll, AggregateTest.sketch(visits().agg(hllAgg(col("user"))).first(), 0));
    long estimate = visits().agg(estimate(hllAgg(col("user")))).first().getLong(0);
    assertThat(cli("hll", "count", hll.toString()).trim()).isEqualTo(Long.toString(estimate));
  }

  @Test
  void aFilterBuiltByTheCommandLineIsBroadcastAsALiteralAndPrunesAJoin() throws IOException {
    SparkSession spark = TestSpark.get();
    Path keys = dir.resolve("vip.txt");
    List<String> vip =
        LongStream.range(0, 1009)
            .filter(i -> i % 10 == 0)
            .mapToObj(i -> "user:" + i)
            .collect(Collectors.toList());
    Files.write(keys, vip);
    Path file = dir.resolve("vip.bin");
    cli(
        "filter",
        "create",
        file.toString(),
        "--expected",
        "101",
        "--fpp",
        "0.01",
        "--keys",
        keys.toString());
    byte[] filter = Files.readAllBytes(file);

    Dataset<Row> vips =
        spark.createDataset(vip, org.apache.spark.sql.Encoders.STRING()).toDF("user");
    Dataset<Row> pruned = visits().where(mightContain(filter, col("user")));
    long joined = visits().join(vips, "user").count();
    assertThat(pruned.join(vips, "user").count()).isEqualTo(joined); // no false negatives
    // The rows kept are exactly those whose key the library's filter says may be present.
    BloomFilter library = BloomFilter.readFrom(new ByteArrayInputStream(filter));
    Set<String> kept =
        new HashSet<>(
            pruned
                .select("user")
                .distinct()
                .as(org.apache.spark.sql.Encoders.STRING())
                .collectAsList());
    Set<String> expected = new HashSet<>();
    for (int i = 0; i < 1009; i++) {
      if (library.mightContain("user:" + i)) {
        expected.add("user:" + i);
      }
    }
    expected.retainAll(
        new HashSet<>(
            visits()
                .select("user")
                .distinct()
                .as(org.apache.spark.sql.Encoders.STRING())
                .collectAsList()));
    assertThat(kept).isEqualTo(expected);
  }

  @Test
  void dailySketchesMergeIntoTheMonthAndSurviveParquet() {
    SparkSession spark = TestSpark.get();
    Dataset<Row> daily =
        visits()
            .groupBy("day")
            .agg(
                hllAgg(col("user")).as("users"),
                cmsAgg(col("user"), 0.001, 0.01).as("counts"),
                topkAgg(col("user"), 5, 2000).as("top"));
    Path parquet = dir.resolve("daily.parquet");
    daily.write().parquet(parquet.toString());
    Dataset<Row> stored = spark.read().parquet(parquet.toString());

    Row direct =
        visits()
            .agg(
                hllAgg(col("user")),
                cmsAgg(col("user"), 0.001, 0.01),
                topkAgg(col("user"), 5, 2000))
            .first();
    for (Dataset<Row> d : List.of(daily, stored)) {
      Row month =
          d.agg(
                  unionAgg(col("users")),
                  unionAgg(col("counts")),
                  unionAgg(col("top")),
                  unionAgg(col("users.sketch")))
              .first();
      // HLL: the registers of one pass; count-min: the same counters; top-k: exact counts (capacity
      // 2000 > 1009 items).
      assertThat(Sketches.read(AggregateTest.sketch(month, 0)))
          .isEqualTo(Sketches.read(AggregateTest.sketch(direct, 0)));
      assertThat(AggregateTest.sketch(month, 1)).isEqualTo(AggregateTest.sketch(direct, 1));
      assertThat(AggregateTest.sketch(month, 2)).isEqualTo(AggregateTest.sketch(direct, 2));
      assertThat(month.getStruct(0).getLong(1)).isEqualTo(30_000);
      assertThat(month.getStruct(0).getLong(2)).isZero();
      // Bare bytes carry no counts: unknown, not zero.
      assertThat(AggregateTest.sketch(month, 3)).isEqualTo(AggregateTest.sketch(month, 0));
      assertThat(month.getStruct(3).isNullAt(1)).isTrue();
    }
  }

  @Test
  void aUnionTakesTheLowestPrecisionAndTheSmallestCapacity() {
    Row r =
        TestSpark.get()
            .sql(
                "SELECT probkit_union_agg(h), probkit_union_agg(t) FROM ("
                    + "SELECT probkit_hll_agg(id, 14) AS h, probkit_topk_agg(id, 5, 2000) AS t FROM range(5000) UNION ALL "
                    + "SELECT probkit_hll_agg(id, 12), probkit_topk_agg(id, 5, 1000) FROM range(3000, 9000))")
            .first();
    HyperLogLog expected = HyperLogLog.create(12);
    LongStream.range(0, 9000).forEach(expected::add);
    assertThat(Sketches.read(AggregateTest.sketch(r, 0))).isEqualTo(expected);
    assertThat(((HeavyHitters) Sketches.read(AggregateTest.sketch(r, 1))).capacity())
        .isEqualTo(1000);
    assertThat(r.getStruct(0).getLong(1)).isEqualTo(11_000);
  }

  @Test
  void scalarsAnswerAsTheLibrary() {
    SparkSession spark = TestSpark.get();
    visits()
        .agg(
            hllAgg(col("user")).as("h"),
            cmsAgg(col("user"), 0.01, 0.01).as("c"),
            topkAgg(col("user"), 3, 2000).as("t"))
        .createOrReplaceTempView("sketches");
    Row r =
        spark
            .sql(
                "SELECT probkit_estimate(h), probkit_cms_estimate(c, 'user:4'), probkit_cms_estimate(c.sketch, 'nobody'), "
                    + "probkit_topk(t, 3), probkit_topk(t.sketch, 2, 'binary'), probkit_cms_estimate(t, 'user:4') FROM sketches")
            .first();
    HyperLogLog hll = HyperLogLog.create(14);
    CountMinSketch cms = CountMinSketch.create(0.01, 0.01);
    HeavyHitters top = HeavyHitters.withCapacity(2000);
    for (long id = 0; id < 30_000; id++) {
      String u = "user:" + (id * id) % 1009;
      hll.add(u);
      cms.add(u);
      top.add(u);
    }
    assertThat(r.getLong(0))
        .isEqualTo(Math.round(hll.estimate())); // merged partitions: the register estimate
    assertThat(r.getLong(1)).isEqualTo(cms.estimate("user:4"));
    assertThat(r.getLong(2)).isEqualTo(cms.estimate("nobody"));
    List<String> expected = new ArrayList<>();
    for (HeavyHitters.Entry e : top.top(3)) {
      expected.add(e.itemAsString() + "," + e.count() + "," + e.error());
    }
    List<String> got = new ArrayList<>();
    for (Row t : r.<Row>getList(3)) {
      got.add(t.getString(0) + "," + t.getLong(1) + "," + t.getLong(2));
    }
    assertThat(got).isEqualTo(expected);
    assertThat((byte[]) r.<Row>getList(4).get(0).get(0)).isEqualTo(top.top(1).get(0).item());
    assertThat(r.getLong(5)).isEqualTo(top.estimate("user:4"));

    Row longs =
        spark
            .range(100)
            .selectExpr("id % 4 AS k")
            .agg(
                topk(topkAgg(col("k"), 2), 2, "bigint"),
                cmsEstimate(cmsAgg(col("k"), 0.01, 0.01), org.apache.spark.sql.functions.lit(3)))
            .first();
    assertThat(longs.<Row>getList(0).get(0).getLong(1)).isEqualTo(25);
    assertThat(longs.<Row>getList(0).get(0).getLong(0)).isBetween(0L, 3L);
    assertThat(longs.getLong(1)).isEqualTo(25);
  }
}
