package io.github.probkit.spark;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.spark.sql.SparkSession;

/**
 * The one local Spark of the test JVM (starting one takes seconds), with the functions registered.
 */
final class TestSpark {
  private static SparkSession spark;

  private TestSpark() {}

  static synchronized SparkSession get() {
    if (spark == null) {
      spark =
          SparkSession.builder()
              .master("local[2]")
              .appName("probkit-spark-test")
              .config("spark.ui.enabled", "false")
              .config("spark.sql.shuffle.partitions", "4")
              .config("spark.driver.host", "127.0.0.1")
              .config("spark.sql.session.timeZone", "UTC")
              .getOrCreate();
      ProbkitFunctions.register(spark);
    }
    return spark;
  }

  /**
   * Caches the rows of {@code sql} as the view {@code name} and reads them once, so that what a
   * measurement times next does not include computing them.
   */
  static void cachedView(SparkSession spark, String sql, String name) {
    spark.sql(sql).cache().createOrReplaceTempView(name);
    spark.sql("SELECT count(*) FROM " + name).first();
  }

  /** The probkit bytes a library structure writes. */
  static byte[] bytes(Sketches.Encodable w) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      w.writeTo(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }
}
