package io.github.probkit.spark;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.apache.spark.executor.TaskMetrics;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;

/**
 * A 0.5 MB Bloom filter given to probkit_might_contain as a literal and as a column (scalar
 * subquery, CROSS JOIN with a one-row table holding the aggregate's struct, and one filter per day
 * joined to its rows), over a cached table of {@code rows} keys, local[2]; and the per-day join's
 * four filters as four literals chosen by the row's day. Prints each round's time and task CPU of
 * every form with its ratio to the literal's of the same round, then the medians, and fails if two
 * forms that probe the same filters for the same rows count different rows. A round unmeasured
 * comes first. Run with {@code MAIN=FilterColumns spark/side-by-side [rows [forms [rounds]]]}
 * (default 10^6 rows, every form, 3 rounds).
 */
public final class FilterColumns {
  private static final int FILTER_KEYS = 420_000; // 1 % at 1.2 bytes a key: 0.5 MB

  private FilterColumns() {}

  public static void main(String[] args) throws Exception {
    long rows = args.length > 0 ? Long.parseLong(args[0]) : 1_000_000L;
    // A second argument keeps only some forms (and the literal): to profile one, or to give more
    // rounds to those compared.
    String only = args.length > 1 ? args[1] : "";
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 3;
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
    // The per-day join's four filters as four literals: the same bits probed for the same rows,
    // so that the join's cost can be told from the cost of four filters' memory.
    byte[][] dayLiterals = new byte[4][];
    for (Row r : spark.sql("SELECT day, f.sketch FROM day_filters").collectAsList()) {
      dayLiterals[r.getInt(0)] = r.getAs(1);
    }
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
    forms.put(
        "four literals, chosen by day",
        () -> {
          Column byDay = null;
          for (int day = 0; day < dayLiterals.length; day++) {
            Column cond = functions.col("day").equalTo(day);
            Column probe = ProbkitFunctions.mightContain(dayLiterals[day], functions.col("k"));
            byDay = byDay == null ? functions.when(cond, probe) : byDay.when(cond, probe);
          }
          return spark.table("t").where(byDay).agg(functions.count("*")).first();
        });
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
    // Forms that probe the same filters for the same rows must count the same rows: the literal's
    // one filter (day 0's, for every row) or the four filters of the per-day join.
    Set<String> fourFilters = new HashSet<>();
    for (String f : forms.keySet()) {
      if (f.startsWith("per-day join, struct") || f.startsWith("four literals")) {
        fourFilters.add(f);
      }
    }
    // A second argument keeps the literal and the forms whose name contains one of its
    // '|'-separated parts.
    List<String> wanted = Arrays.asList(only.split("\\|"));
    forms.keySet().removeIf(f -> !f.equals("literal") && wanted.stream().noneMatch(f::contains));
    // In rounds, every form once a round, in an order rotated from round to round, so that the load
    // of a shared machine falls on all and no form always follows the same one.
    List<String> names = new ArrayList<>(forms.keySet());
    Map<String, double[]> wall = new LinkedHashMap<>();
    Map<String, double[]> cpu = new LinkedHashMap<>();
    Map<String, Long> present = new LinkedHashMap<>();
    for (String f : names) {
      wall.put(f, new double[rounds]);
      cpu.put(f, new double[rounds]);
    }
    // One round unmeasured first: the first run of a form compiles its code and JITs its path.
    for (String f : names) {
      forms.get(f).get();
    }
    for (int round = 0; round < rounds; round++) {
      for (int i = 0; i < names.size(); i++) {
        String f = names.get((i + round) % names.size());
        long cpu0 = taskCpuNanos.get();
        long t0 = System.nanoTime();
        Row r = forms.get(f).get();
        wall.get(f)[round] = (System.nanoTime() - t0) / 1e9;
        spark.sparkContext().listenerBus().waitUntilEmpty();
        cpu.get(f)[round] = (taskCpuNanos.get() - cpu0) / 1e9;
        Long before = present.put(f, r.getLong(0));
        if (before != null && before != r.getLong(0)) {
          throw new IllegalStateException(f + ": " + before + " rows, then " + r.getLong(0));
        }
      }
      System.out.printf(Locale.ROOT, "round %d done%n", round + 1);
    }
    for (String f : names) {
      String same =
          names.stream()
              .filter(g -> fourFilters.contains(g) == fourFilters.contains(f))
              .findFirst()
              .orElseThrow();
      if (!present.get(f).equals(present.get(same))) {
        throw new IllegalStateException(
            f + " counts " + present.get(f) + " rows, " + same + " " + present.get(same));
      }
    }
    System.out.println("| form | round | seconds | / literal | task CPU s | / literal |");
    System.out.println("|---|---:|---:|---:|---:|---:|");
    for (String f : names) {
      for (int round = 0; round < rounds; round++) {
        System.out.printf(
            Locale.ROOT,
            "| %s | %d | %.2f | %.2f | %.2f | %.2f |%n",
            f,
            round + 1,
            wall.get(f)[round],
            wall.get(f)[round] / wall.get("literal")[round],
            cpu.get(f)[round],
            cpu.get(f)[round] / cpu.get("literal")[round]);
      }
    }
    // Medians of the times and of the per-round ratios (a ratio of two forms of one round, which
    // ran seconds apart, under much the same load).
    System.out.println();
    System.out.printf(Locale.ROOT, "medians of %d rounds:%n", rounds);
    System.out.println("| form | seconds | / literal | task CPU s | / literal | rows present |");
    System.out.println("|---|---:|---:|---:|---:|---:|");
    for (String f : names) {
      System.out.printf(
          Locale.ROOT,
          "| %s | %.2f | %.2f | %.2f | %.2f | %d |%n",
          f,
          median(wall.get(f)),
          median(ratios(wall.get(f), wall.get("literal"))),
          median(cpu.get(f)),
          median(ratios(cpu.get(f), cpu.get("literal"))),
          present.get(f));
    }
    // The per-day join against the same four filters given as literals, round by round.
    for (String f : names) {
      if (f.startsWith("per-day join, struct")
          && forms.containsKey("four literals, chosen by day")) {
        double[] w = ratios(wall.get(f), wall.get("four literals, chosen by day"));
        double[] c = ratios(cpu.get(f), cpu.get("four literals, chosen by day"));
        System.out.printf(
            Locale.ROOT,
            "%s / four literals: wall %s (median %.2f), task CPU %s (median %.2f)%n",
            f,
            Arrays.toString(round2(w)),
            median(w),
            Arrays.toString(round2(c)),
            median(c));
      }
    }
    spark.stop();
  }

  private static double[] ratios(double[] a, double[] b) {
    double[] r = new double[a.length];
    for (int i = 0; i < a.length; i++) {
      r[i] = a[i] / b[i];
    }
    return r;
  }

  private static double[] round2(double[] a) {
    double[] r = new double[a.length];
    for (int i = 0; i < a.length; i++) {
      r[i] = Math.round(a[i] * 100) / 100.0;
    }
    return r;
  }

  private static double median(double[] a) {
    double[] s = a.clone();
    Arrays.sort(s);
    int n = s.length;
    return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  }

  private static void sql(Map<String, Supplier<Row>> forms, String name, String query) {
    forms.put(name, () -> SparkSession.active().sql(query).first());
  }
}
