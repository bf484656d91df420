package io.github.probkit.spark;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.apache.spark.executor.TaskMetrics;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;

/**
 * A 0.5 MB Bloom filter given to probkit_might_contain as a literal and as a column (scalar
 * subquery, CROSS JOIN with a one-row table holding the aggregate's struct, and one filter per day
 * joined to its rows), over a cached table of {@code rows} keys, local[2]; prints the best of three
 * rounds of each form and its ratio to the literal's. Run with {@code MAIN=FilterColumns
 * spark/side-by-side [rows]} (default 10^6).
 */
public final class FilterColumns {
  private static final int FILTER_KEYS = 420_000; // 1 % at 1.2 bytes a key: 0.5 MB

  private FilterColumns() {}

  public static void main(String[] args) throws Exception {
    long rows = args.length > 0 ? Long.parseLong(args[0]) : 1_000_000L;
    // A second argument keeps only the forms whose name contains it (and the literal): to profile
    // one.
    String only = args.length > 1 ? args[1] : "";
    SparkSession spark =
        SparkSession.builder()
            .master("local[2]")
            .appName("probkit-filter-columns")
            .config("spark.ui.enabled", "false")
            .config("spark.driver.host", "127.0.0.1")
            .getOrCreate();
    spark.sparkContext().setLogLevel("ERROR");
    ProbkitFunctions.register(spark);
    // The CPU time of the tasks, which the load of a shared machine inflates far less than the wall
    // time: it says whether a form's extra time is spent in the rows' tasks or elsewhere.
    AtomicLong taskCpuNanos = TaskTotal.of(spark, TaskMetrics::executorCpuTime);
    TestSpark.cachedView(
        spark,
        "SELECT CAST(id % 4 AS INT) AS day, concat('user:', id) AS k FROM range(" + rows + ")",
        "t");
    spark
        .sql(
            "SELECT CAST(id % 4 AS INT) AS day, probkit_bloom_agg(concat('user:', id), "
                + FILTER_KEYS
                + ", 0.01) AS f FROM range("
                + 4 * FILTER_KEYS
                + ") GROUP BY id % 4")
        .cache()
        .createOrReplaceTempView("day_filters");
    spark.sql("SELECT f FROM day_filters WHERE day = 0").cache().createOrReplaceTempView("vip_f");
    // The same tables in one partition each: a GROUP BY leaves 200 (spark.sql.shuffle.partitions),
    // which caching keeps, and every query that reads the table then runs 200 tasks to find a row.
    spark.table("day_filters").coalesce(1).cache().createOrReplaceTempView("day_filters_1");
    spark.table("vip_f").coalesce(1).cache().createOrReplaceTempView("vip_f_1");
    // The per-day join with day 0's filter on every day: the literal's filter and members, the
    // per-day join's plan and per-row work. Against the per-day join it separates what four
    // filters cost (four times the memory the probes touch) from what the join and the column form
    // cost.
    spark
        .sql("SELECT CAST(id AS INT) AS day, v.f FROM range(4) CROSS JOIN vip_f v")
        .coalesce(1)
        .cache()
        .createOrReplaceTempView("same_filters_1");
    spark.sql("SELECT count(*) FROM day_filters_1, vip_f_1, same_filters_1").first();
    byte[] literal = spark.sql("SELECT f.sketch FROM vip_f").first().getAs(0);
    System.out.printf(Locale.ROOT, "filter: %d bytes, %d rows%n", literal.length, rows);

    Map<String, Supplier<Row>> forms = new LinkedHashMap<>();
    forms.put(
        "literal",
        () ->
            spark
                .table("t")
                .where(ProbkitFunctions.mightContain(literal, functions.col("k")))
                .agg(functions.count("*"))
                .first());
    for (String partitions : new String[] {"", "_1"}) {
      String suffix = partitions.isEmpty() ? ", 200 partitions" : ", 1 partition";
      sql(
          forms,
          "scalar subquery" + suffix,
          "SELECT count(*) FROM t WHERE probkit_might_contain((SELECT f FROM vip_f"
              + partitions
              + "), k)");
      sql(
          forms,
          "CROSS JOIN, struct" + suffix,
          "SELECT count(*) FROM t CROSS JOIN vip_f"
              + partitions
              + " v WHERE probkit_might_contain(v.f, t.k)");
      sql(
          forms,
          "per-day join, struct" + suffix,
          "SELECT count(*) FROM t JOIN day_filters"
              + partitions
              + " d ON t.day = d.day WHERE probkit_might_contain(d.f, t.k)");
    }
    sql(
        forms,
        "per-day join, day 0's filter every day, 1 partition",
        "SELECT count(*) FROM t JOIN same_filters_1 d ON t.day = d.day"
            + " WHERE probkit_might_contain(d.f, t.k)");
    // In rounds, every form once a round, so that the load of a shared machine falls on all.
    Map<String, Double> best = new LinkedHashMap<>();
    Map<String, Double> bestCpu = new LinkedHashMap<>();
    Map<String, Long> present = new LinkedHashMap<>();
    forms.keySet().removeIf(f -> !f.equals("literal") && !f.contains(only));
    for (int round = 0; round < 3; round++) {
      for (Map.Entry<String, Supplier<Row>> f : forms.entrySet()) {
        long cpu0 = taskCpuNanos.get();
        long t0 = System.nanoTime();
        Row r = f.getValue().get();
        best.merge(f.getKey(), (System.nanoTime() - t0) / 1e9, Math::min);
        spark.sparkContext().listenerBus().waitUntilEmpty();
        bestCpu.merge(f.getKey(), (taskCpuNanos.get() - cpu0) / 1e9, Math::min);
        present.put(f.getKey(), r.getLong(0));
      }
    }
    System.out.println("| form | seconds | / literal | task CPU s | / literal | rows present |");
    System.out.println("|---|---:|---:|---:|---:|---:|");
    for (String f : forms.keySet()) {
      System.out.printf(
          Locale.ROOT,
          "| %s | %.2f | %.2f | %.2f | %.2f | %d |%n",
          f,
          best.get(f),
          best.get(f) / best.get("literal"),
          bestCpu.get(f),
          bestCpu.get(f) / bestCpu.get("literal"),
          present.get(f));
    }
    spark.stop();
  }

  private static void sql(Map<String, Supplier<Row>> forms, String name, String query) {
    forms.put(name, () -> SparkSession.active().sql(query).first());
  }
}
