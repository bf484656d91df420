package io.github.probkit.spark;

import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.sql.SparkSession;

/**
 * The traps of docs/SPARK.md, measured on a local[2] Spark: {@code MAIN=Traps spark/side-by-side
 * TRAP [rows]} with TRAP one of {@code distinct} (COUNT(DISTINCT) beside a probkit aggregate, and
 * its workarounds), {@code groups} (GROUP BY of many groups), {@code join} (the Bloom pre-filter
 * against Spark's broadcast hash and sort-merge joins) or {@code shape BYTES} (one Bloom aggregate
 * of that many bytes: does the heap hold it?). Prints each query's best of three rounds, its
 * shuffle bytes and its answer.
 */
public final class Traps {
  private static AtomicLong shuffleBytes;
  private static SparkSession spark;

  private Traps() {}

  public static void main(String[] args) {
    spark =
        SparkSession.builder()
            .master("local[2]")
            .appName("probkit-traps")
            .config("spark.ui.enabled", "false")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.sql.shuffle.partitions", "4")
            .getOrCreate();
    spark.sparkContext().setLogLevel("ERROR");
    shuffleBytes = TaskTotal.of(spark, m -> m.shuffleWriteMetrics().bytesWritten());
    ProbkitFunctions.register(spark);
    long rows = args.length > 1 ? Long.parseLong(args[1]) : 1_000_000L;
    System.out.printf(
        Locale.ROOT,
        "%s, %d rows, heap %d MB%n",
        args[0],
        rows,
        Runtime.getRuntime().maxMemory() >> 20);
    switch (args[0]) {
      case "distinct":
        table(rows);
        time(
            "COUNT(DISTINCT d) and probkit_bloom_agg in one SELECT",
            "SELECT count(DISTINCT d), probkit_estimate(probkit_bloom_agg(k, "
                + rows
                + ", 0.01)) FROM t");
        time(
            "two aggregations, CROSS JOIN",
            "SELECT * FROM (SELECT count(DISTINCT d) FROM t) CROSS JOIN (SELECT probkit_estimate("
                + "probkit_bloom_agg(k, "
                + rows
                + ", 0.01)) FROM t)");
        time(
            "approx_count_distinct(d) and probkit_bloom_agg in one SELECT",
            "SELECT approx_count_distinct(d), probkit_estimate(probkit_bloom_agg(k, "
                + rows
                + ", 0.01)) FROM t");
        time(
            "probkit_bloom_agg alone",
            "SELECT probkit_estimate(probkit_bloom_agg(k, " + rows + ", 0.01)) FROM t");
        break;
      case "groups":
        for (long groups : new long[] {1_000, 10_000, 100_000}) {
          TestSpark.cachedView(
              spark,
              "SELECT id % " + groups + " AS g, concat('user:', id) AS k FROM range(" + rows + ")",
              "t");
          String per = groups + " groups of " + rows / groups + " keys: ";
          time(
              per + "probkit_hll_agg(k)",
              "SELECT sum(length(h.sketch)) FROM (SELECT g, probkit_hll_agg(k) AS h FROM t GROUP BY g)");
          time(
              per + "probkit_hll_agg(k, 10)",
              "SELECT sum(length(h.sketch)) FROM (SELECT g, probkit_hll_agg(k, 10) AS h FROM t GROUP BY g)");
          time(
              per + "probkit_ull_agg(k, 10)",
              "SELECT sum(length(h.sketch)) FROM (SELECT g, probkit_ull_agg(k, 10) AS h FROM t GROUP BY g)");
          time(
              per + "approx_count_distinct(k)",
              "SELECT sum(c) FROM (SELECT g, approx_count_distinct(k) AS c FROM t GROUP BY g)");
          time(
              per + "probkit_bloom_agg(k, 100000, 0.01)",
              "SELECT sum(length(f.sketch)) FROM (SELECT g, probkit_bloom_agg(k, 100000, 0.01) AS f FROM t GROUP BY g)");
          spark.catalog().clearCache();
        }
        break;
      case "join":
        table(rows);
        long small = rows / 100;
        TestSpark.cachedView(
            spark, "SELECT concat('user:', id * 100) AS k, id AS v FROM range(" + small + ")", "s");
        TestSpark.cachedView(
            spark,
            "SELECT probkit_bloom_agg(k, " + small + ", 0.01, 'blocked').sketch AS f FROM s",
            "sf");
        String join = "SELECT count(*), sum(v) FROM t JOIN s ON t.k = s.k";
        String prefiltered = join + " WHERE probkit_might_contain((SELECT f FROM sf), t.k)";
        time("broadcast hash join", join);
        time("broadcast hash join, Bloom pre-filter", prefiltered);
        spark.conf().set("spark.sql.autoBroadcastJoinThreshold", "-1");
        time("sort-merge join", join);
        time("sort-merge join, Bloom pre-filter", prefiltered);
        spark.conf().set("spark.sql.autoBroadcastJoinThreshold", "10MB");
        break;
      case "shape":
        long bytes = Long.parseLong(args[1]);
        long keys = (long) (bytes / 1.198);
        spark
            .sql("SELECT concat('user:', id) AS k FROM range(100000)")
            .createOrReplaceTempView("t");
        time(
            "probkit_bloom_agg of " + (bytes >> 20) + " MB (" + keys + " keys at 1 %)",
            "SELECT length(probkit_bloom_agg(k, " + keys + ", 0.01).sketch) FROM t",
            1);
        break;
      default:
        throw new IllegalArgumentException("no trap " + args[0]);
    }
    spark.stop();
  }

  /** t(d, k): 1,000 distinct d, every k distinct. */
  private static void table(long rows) {
    TestSpark.cachedView(
        spark, "SELECT id % 1000 AS d, concat('user:', id) AS k FROM range(" + rows + ")", "t");
  }

  private static void time(String what, String query) {
    time(what, query, 3);
  }

  private static void time(String what, String query, int rounds) {
    double best = Double.MAX_VALUE;
    long shuffle = 0;
    String answer = null;
    for (int i = 0; i < rounds; i++) {
      shuffleBytes.set(0);
      long t0 = System.nanoTime();
      answer = spark.sql(query).first().toString();
      best = Math.min(best, (System.nanoTime() - t0) / 1e9);
      sleep(); // task-end events arrive on the listener bus after the job
      shuffle = shuffleBytes.get();
    }
    System.out.printf(
        Locale.ROOT,
        "| %s | %.2f s | %.1f MB shuffled | %s |%n",
        what,
        best,
        shuffle / 1e6,
        answer);
  }

  private static void sleep() {
    try {
      Thread.sleep(300);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
