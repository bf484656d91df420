package io.github.probkit.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.github.probkit.filter.BloomFilter;
import java.util.HashMap;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A filter that arrives as a column — a scalar subquery, a one-row table joined to every row, a
 * filter per day joined to its rows — answers for each row exactly as the library's filter of that
 * row's day: no key of the day is absent, and no row is answered by another day's filter.
 */
class FilterColumnsTest {
  private static final int DAYS = 4;
  private static final int KEYS = 2000;

  /** The library's filter of each day, built from the same keys as day_filters. */
  private static final Map<Integer, BloomFilter> LIBRARY = new HashMap<>();

  private static String key(long day, long i) {
    return "user:" + (day * 1_000_003 + i);
  }

  @BeforeAll
  static void tables() {
    SparkSession spark = TestSpark.get();
    // Members of each day (i < KEYS) and as many keys of no day.
    spark
        .sql(
            "SELECT CAST(id % "
                + DAYS
                + " AS INT) AS day, CAST(id DIV "
                + DAYS
                + " AS INT) AS i FROM range(0, "
                + 2 * KEYS * DAYS
                + ", 1, 3)")
        .selectExpr("day", "i", "concat('user:', CAST(day AS BIGINT) * 1000003 + i) AS k")
        .createOrReplaceTempView("events");
    // Every day's filter the same size, so that the filters share their length.
    spark
        .sql(
            "SELECT day, probkit_bloom_agg(k, "
                + KEYS
                + ", 0.01) AS f FROM events WHERE i < "
                + KEYS
                + " GROUP BY day")
        .cache()
        .createOrReplaceTempView("day_filters");
    for (int day = 0; day < DAYS; day++) {
      BloomFilter f = BloomFilter.create(KEYS, 0.01);
      for (int i = 0; i < KEYS; i++) {
        f.add(key(day, i));
      }
      LIBRARY.put(day, f);
    }
  }

  /** Checks each row (day of its filter, i, answer) against the library. */
  private static void assertAnswers(String query, int rows) {
    int n = 0;
    for (Row r : TestSpark.get().sql(query).collectAsList()) {
      int day = r.getInt(0);
      int i = r.getInt(1);
      boolean expected = LIBRARY.get(day).mightContain(key(r.getInt(2), i));
      assertThat(r.getBoolean(3)).as("%s: row of day %d, i %d", query, day, i).isEqualTo(expected);
      if (i < KEYS && day == r.getInt(2)) {
        assertThat(r.getBoolean(3)).isTrue();
      }
      n++;
    }
    assertThat(n).isEqualTo(rows);
  }

  @Test
  void aFilterPerDayJoinedToItsRows() {
    assertAnswers(
        "SELECT e.day, e.i, e.day, probkit_might_contain(d.f, e.k) FROM events e "
            + "JOIN day_filters d ON e.day = d.day",
        2 * KEYS * DAYS);
    assertAnswers(
        "SELECT e.day, e.i, e.day, probkit_might_contain(d.f.sketch, e.k) FROM events e "
            + "JOIN day_filters d ON e.day = d.day",
        2 * KEYS * DAYS);
  }

  /**
   * The key type is checked on every row, not once a task: a day whose filter holds binary keys (a
   * name as long as "string") is refused for a string key column although the rows of the other
   * days came first in each partition and were answered.
   */
  @Test
  void aDayWhoseFilterHoldsKeysOfAnotherTypeIsRefusedAfterTheOtherDaysRows() {
    String filters =
        "SELECT day, probkit_bloom_agg(k, "
            + KEYS
            + ", 0.01) AS f FROM events WHERE i < "
            + KEYS
            + " AND day < 3 GROUP BY day UNION ALL SELECT day, probkit_bloom_agg(CAST(k AS"
            + " BINARY), "
            + KEYS
            + ", 0.01) FROM events WHERE i < "
            + KEYS
            + " AND day = 3 GROUP BY day";
    // The filters broadcast, so that the events stream through the join in their order.
    String query =
        "SELECT /*+ BROADCAST(d) */ count(*) FROM events e JOIN ("
            + filters
            + ") d ON e.day = d.day WHERE probkit_might_contain(d.f, e.k)";
    Throwable t = catchThrowable(() -> TestSpark.get().sql(query).first());
    String message = null;
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c.getMessage() != null && c.getMessage().contains(SketchArg.MIX_KEY_TYPES + "=true")) {
        message = c.getMessage();
      }
    }
    assertThat(message).as("the refusal, in %s", t).isNotNull();
    assertThat(message).contains("holds binary keys").contains("STRING");
    // Without day 3, the same join answers.
    assertThat(
            TestSpark.get()
                .sql(query.replace("e.day = d.day", "e.day = d.day AND d.day < 3"))
                .first()
                .getLong(0))
        .isGreaterThanOrEqualTo(3L * KEYS);
  }

  @Test
  void aScalarSubquery() {
    assertAnswers(
        "SELECT 2, i, day, probkit_might_contain((SELECT f FROM day_filters WHERE day = 2), k) "
            + "FROM events",
        2 * KEYS * DAYS);
  }

  @Test
  void aCrossJoinWithAOneRowTable() {
    for (String f : new String[] {"f", "f.sketch"}) {
      assertAnswers(
          "SELECT 1, e.i, e.day, probkit_might_contain(v."
              + f
              + ", e.k) FROM events e CROSS JOIN (SELECT f FROM day_filters WHERE day = 1) v",
          2 * KEYS * DAYS);
    }
  }

  /**
   * A join whose condition asks a joined filter runs compiled: an interpreted join (what a
   * CodegenFallback expression forces) copies every output row, the whole filter with it.
   */
  @Test
  void aJoinOnAFilterColumnIsCompiledSoTheFilterIsNotCopiedPerRow() {
    org.apache.spark.sql.Dataset<Row> q =
        TestSpark.get()
            .sql(
                "SELECT count(*) FROM events e JOIN day_filters d ON e.day = d.day"
                    + " WHERE probkit_might_contain(d.f, e.k)");
    assertThat(q.collectAsList().get(0).getLong(0)).isGreaterThanOrEqualTo((long) DAYS * KEYS);
    String plan = q.queryExecution().executedPlan().toString();
    assertThat(plan).as(plan).containsPattern("\\*\\(\\d+\\) \\w*Join");
  }
}
