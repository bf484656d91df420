package submitted;

import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * A user's Spark application as {@code SparkSubmitIT} submits it: SQL only, no probkit class on its
 * compile path, the functions from {@code spark.sql.extensions} and the shaded jar of {@code
 * --jars}. Arguments: a text file of keys, a directory for the filter's bytes.
 */
public final class SqlJob {
  private SqlJob() {}

  public static void main(String[] args) throws Exception {
    SparkSession spark = SparkSession.builder().appName("probkit-submit").getOrCreate();
    spark.read().text(args[0]).toDF("w").createOrReplaceTempView("words");
    long start = System.nanoTime();
    spark.sql(
        "CACHE TABLE built AS"
            + " SELECT probkit_bloom_agg(w, 20000, 0.01) AS f, probkit_hll_agg(w) AS h FROM words");
    Row r = spark.sql("SELECT f.sketch, probkit_estimate(h), f.key_type FROM built").first();
    Files.write(Path.of(args[1], "filter.bin"), (byte[]) r.get(0));
    long absent =
        spark
            .sql(
                "SELECT count(*) FROM words CROSS JOIN built"
                    + " WHERE NOT probkit_might_contain(built.f, words.w)")
            .first()
            .getLong(0);
    long foreign =
        spark
            .sql(
                "SELECT count(*) FROM range(100000)"
                    + " WHERE probkit_might_contain((SELECT f FROM built), concat('absent:', id))")
            .first()
            .getLong(0);
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    System.out.println(
        "extensions-from="
            + Class.forName("io.github.probkit.spark.ProbkitExtensions", false, loader)
                .getProtectionDomain()
                .getCodeSource()
                .getLocation());
    System.out.printf("queries-seconds=%.1f%n", (System.nanoTime() - start) / 1e9);
    System.out.println("estimate=" + r.getLong(1));
    System.out.println("key_type=" + r.getString(2));
    System.out.println("members-absent=" + absent);
    System.out.println("absent-present=" + foreign);
    spark.stop();
  }
}
