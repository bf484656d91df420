package io.github.probkit.spark;

import static io.github.probkit.spark.ProbkitFunctions.bloomAgg;
import static io.github.probkit.spark.ProbkitFunctions.cmsAgg;
import static io.github.probkit.spark.ProbkitFunctions.estimate;
import static io.github.probkit.spark.ProbkitFunctions.hllAgg;
import static io.github.probkit.spark.ProbkitFunctions.ullAgg;
import static org.apache.spark.sql.functions.approx_count_distinct;
import static org.apache.spark.sql.functions.col;

import io.github.probkit.cardinality.HyperLogLog;
import io.github.probkit.filter.MembershipFilter;
import io.github.probkit.frequency.CountMinSketch;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.expressions.Aggregator;
import org.apache.spark.sql.functions;

/**
 * Spark's own sketches against probkit's on the same cached DataFrame of "user:" + (id mod n/2),
 * local[2]; every time is the second of five runs and the best of them, printed as markdown for
 * docs/SPARK.md. Run with {@code spark/side-by-side [rows]} (default 10^7); {@code
 * spark/side-by-side 10000000 interleaved} runs the contestants in turn, six rounds, for their
 * median time.
 */
public final class SideBySide {
  private static final double ACD_RSD =
      0.0087; // approx_count_distinct's precision 14: 2^14 six-bit registers
  private static final int ABSENT = 1_000_000;

  private SideBySide() {}

  public static void main(String[] args) {
    long rows = args.length > 0 ? Long.parseLong(args[0]) : 10_000_000L;
    long distinct = rows / 2;
    SparkSession spark =
        SparkSession.builder()
            .master("local[2]")
            .appName("probkit-side-by-side")
            .config("spark.ui.enabled", "false")
            .config("spark.driver.host", "127.0.0.1")
            .getOrCreate();
    spark.sparkContext().setLogLevel("ERROR");
    ProbkitFunctions.register(spark);
    Dataset<Row> df = keys(spark, rows, 0).cache();
    df.count();
    if (args.length > 1 && args[1].equals("interleaved")) {
      interleaved(df, distinct);
      spark.stop();
      return;
    }
    System.out.printf(
        Locale.ROOT,
        "%,d rows, %,d distinct; load average at start %s%n%n",
        rows,
        distinct,
        load());

    System.out.println("| distinct count | memory | time | estimate | error |");
    System.out.println("|---|---:|---:|---:|---:|");
    cardinality(
        "approx_count_distinct(k, " + ACD_RSD + ")",
        "13,112 B",
        distinct,
        () -> df.agg(approx_count_distinct(col("k"), ACD_RSD)).first().getLong(0));
    cardinality(
        "probkit_hll_agg(k, 14)",
        "12,288 B",
        distinct,
        () -> df.agg(estimate(hllAgg(col("k"), 14))).first().getLong(0));
    cardinality(
        "probkit_ull_agg(k, 13)",
        "8,192 B",
        distinct,
        () -> df.agg(estimate(ullAgg(col("k"), 13))).first().getLong(0));
    cardinality(
        "probkit_ull_agg(k, 14)",
        "16,384 B",
        distinct,
        () -> df.agg(estimate(ullAgg(col("k"), 14))).first().getLong(0));

    System.out.println();
    System.out.println(
        "| filter, "
            + distinct
            + " keys at 1 % | bits | bits/key | time | FPR on 10^6 absent keys |");
    System.out.println("|---|---:|---:|---:|---:|");
    {
      double[] t = twice(() -> df.stat().bloomFilter("k", distinct, 0.01));
      org.apache.spark.util.sketch.BloomFilter f = df.stat().bloomFilter("k", distinct, 0.01);
      int fp = 0;
      for (int i = 0; i < ABSENT; i++) {
        fp += f.mightContainString("absent:" + i) ? 1 : 0;
      }
      filterRow("df.stat().bloomFilter(k, n, 0.01)", f.bitSize(), distinct, t, fp);
    }
    for (String type : new String[] {"bloom", "blocked", "binary-fuse8"}) {
      double fpp = type.startsWith("binary-fuse") ? 0.004 : 0.01;
      double[] t = twice(() -> sketch(df.agg(bloomAgg(col("k"), distinct, fpp, type))));
      MembershipFilter f =
          (MembershipFilter) Sketches.read(sketch(df.agg(bloomAgg(col("k"), distinct, fpp, type))));
      int fp = 0;
      for (int i = 0; i < ABSENT; i++) {
        fp += f.mightContain("absent:" + i) ? 1 : 0;
      }
      filterRow(
          "probkit_bloom_agg(k, n, " + fpp + ", '" + type + "')", f.bitSize(), distinct, t, fp);
    }

    System.out.println();
    System.out.println(
        "| count-min, every key seen twice | counters | time | mean over-estimate of 10^5 keys | 99th pct | max | absent keys: mean |");
    System.out.println("|---|---:|---:|---:|---:|---:|---:|");
    {
      double[] t = twice(() -> df.stat().countMinSketch("k", 0.001, 0.99, 42));
      org.apache.spark.util.sketch.CountMinSketch c =
          df.stat().countMinSketch("k", 0.001, 0.99, 42);
      cmsRow(
          "df.stat().countMinSketch(k, 0.001, 0.99)",
          (long) c.width() * c.depth(),
          t,
          i -> c.estimateCount("user:" + i),
          i -> c.estimateCount("absent:" + i),
          rows);
    }
    {
      double[] t = twice(() -> sketch(df.agg(cmsAgg(col("k"), 0.001, 0.01))));
      CountMinSketch c =
          (CountMinSketch) Sketches.read(sketch(df.agg(cmsAgg(col("k"), 0.001, 0.01))));
      cmsRow(
          "probkit_cms_agg(k, 0.001, 0.01)",
          (long) c.width() * c.depth(),
          t,
          i -> c.estimate("user:" + i),
          i -> c.estimate("absent:" + i),
          rows);
    }

    System.out.println();
    System.out.println("| HyperLogLog p = 14, buffer strategy | rows | time |");
    System.out.println("|---|---:|---:|");
    System.out.printf(
        Locale.ROOT,
        "| Catalyst TypedImperativeAggregate, the sketch as buffer (probkit_hll_agg) | %,d | %s |%n",
        rows,
        seconds(twice(() -> sketch(df.agg(hllAgg(col("k"), 14))))));
    try {
      System.out.printf(
          Locale.ROOT,
          "| typed Aggregator<String, HyperLogLog, byte[]>, Kryo buffer (functions.udaf) | %,d | %s |%n",
          rows,
          seconds(
              twice(
                  () ->
                      df.agg(functions.udaf(new KryoBuffer(), Encoders.STRING()).apply(col("k")))
                          .first())));
    } catch (Exception e) { // SparkException, thrown undeclared by Scala
      System.out.printf(
          Locale.ROOT,
          "| typed Aggregator<String, HyperLogLog, byte[]>, Kryo buffer (functions.udaf) | %,d | fails: %s |%n",
          rows,
          e.getMessage().lines().findFirst().orElse("").replace('|', '/'));
    }
    System.out.printf(
        Locale.ROOT,
        "| typed Aggregator<String, HllBean, byte[]>, bean buffer holding the sketch (functions.udaf) | %,d | %s |%n",
        rows,
        seconds(
            twice(
                () ->
                    df.agg(functions.udaf(new BeanBuffer(), Encoders.STRING()).apply(col("k")))
                        .first())));
    long few = Math.min(rows, 200_000);
    Dataset<Row> small = df.limit((int) few).cache();
    small.count();
    System.out.printf(
        Locale.ROOT,
        "| Aggregator<String, byte[], byte[]>, the sketch's bytes as buffer | %,d | %s |%n",
        few,
        seconds(
            twice(
                () ->
                    small
                        .agg(functions.udaf(new BytesBuffer(), Encoders.STRING()).apply(col("k")))
                        .first())));
    System.out.printf(
        Locale.ROOT,
        "| probkit_hll_agg on the same rows | %,d | %s |%n",
        few,
        seconds(twice(() -> sketch(small.agg(hllAgg(col("k"), 14))))));

    System.out.println();
    System.out.println(
        "Error of the distinct counts over 8 disjoint key sets of the same shape (not cached):");
    System.out.println();
    System.out.println("| estimator | memory | mean error | RMS error | theory (RSE) |");
    System.out.println("|---|---:|---:|---:|---:|");
    double[][] err = new double[4][8];
    for (int s = 0; s < 8; s++) {
      Row r =
          keys(spark, rows, s + 1)
              .agg(
                  approx_count_distinct(col("k"), ACD_RSD),
                  estimate(hllAgg(col("k"), 14)),
                  estimate(ullAgg(col("k"), 13)),
                  estimate(ullAgg(col("k"), 14)))
              .first();
      for (int j = 0; j < 4; j++) {
        err[j][s] = (double) r.getLong(j) / distinct - 1;
      }
    }
    String[][] names = {
      {"approx_count_distinct (HLL++, p = 14)", "13,112 B", "1.04/128 = 0.81 %"},
      {"probkit_hll_agg(k, 14)", "12,288 B", "1.04/128 = 0.81 %"},
      {"probkit_ull_agg(k, 13)", "8,192 B", "0.761/90.5 = 0.84 %"},
      {"probkit_ull_agg(k, 14)", "16,384 B", "0.761/128 = 0.59 %"}
    };
    for (int j = 0; j < 4; j++) {
      double mean = Arrays.stream(err[j]).average().orElse(0);
      double rms = Math.sqrt(Arrays.stream(err[j]).map(e -> e * e).average().orElse(0));
      System.out.printf(
          Locale.ROOT,
          "| %s | %s | %+.3f %% | %.3f %% | %s |%n",
          names[j][0],
          names[j][1],
          100 * mean,
          100 * rms,
          names[j][2]);
    }
    System.out.printf(Locale.ROOT, "%nload average at end %s%n", load());
    spark.stop();
  }

  /**
   * Six rounds, each running every contestant once in turn, so that a burst of load from other
   * processes falls on all of them; the median and the fastest round of each.
   */
  private static void interleaved(Dataset<Row> df, long distinct) {
    Map<String, Supplier<?>> runs = new LinkedHashMap<>();
    runs.put("count(k): the scan alone", () -> df.agg(functions.count(col("k"))).first());
    runs.put(
        "df.stat().countMinSketch(k, 0.001, 0.99)",
        () -> df.stat().countMinSketch("k", 0.001, 0.99, 42));
    runs.put(
        "probkit_cms_agg(k, 0.001, 0.01)", () -> df.agg(cmsAgg(col("k"), 0.001, 0.01)).first());
    runs.put(
        "approx_count_distinct(k, " + ACD_RSD + ")",
        () -> df.agg(approx_count_distinct(col("k"), ACD_RSD)).first());
    runs.put("probkit_hll_agg(k, 14)", () -> df.agg(hllAgg(col("k"), 14)).first());
    runs.put("df.stat().bloomFilter(k, n, 0.01)", () -> df.stat().bloomFilter("k", distinct, 0.01));
    runs.put(
        "probkit_bloom_agg(k, n, 0.01)", () -> df.agg(bloomAgg(col("k"), distinct, 0.01)).first());
    runs.put(
        "probkit_bloom_agg(k, n, 0.01, 'blocked')",
        () -> df.agg(bloomAgg(col("k"), distinct, 0.01, "blocked")).first());
    Map<String, double[]> times = new LinkedHashMap<>();
    runs.keySet().forEach(k -> times.put(k, new double[6]));
    for (int round = 0; round < 6; round++) {
      for (Map.Entry<String, Supplier<?>> e : runs.entrySet()) {
        long start = System.nanoTime();
        e.getValue().get();
        times.get(e.getKey())[round] = (System.nanoTime() - start) / 1e9;
      }
    }
    System.out.println("| interleaved, 6 rounds | median | fastest |");
    System.out.println("|---|---:|---:|");
    times.forEach(
        (name, t) -> {
          double[] sorted = t.clone();
          Arrays.sort(sorted);
          System.out.printf(
              Locale.ROOT,
              "| %s | %.2f s | %.2f s |%n",
              name,
              (sorted[2] + sorted[3]) / 2,
              sorted[0]);
        });
    System.out.printf(Locale.ROOT, "%nload average at end %s%n", load());
  }

  private static Dataset<Row> keys(SparkSession spark, long rows, int set) {
    return spark
        .range(rows)
        .selectExpr(
            String.format(
                Locale.ROOT, "concat('user:', id %% %d + %d) AS k", rows / 2, set * rows));
  }

  private static byte[] sketch(Dataset<Row> aggregated) {
    return AggregateTest.sketch(aggregated.first(), 0);
  }

  private static void cardinality(String name, String memory, long distinct, Supplier<Long> run) {
    long[] estimate = new long[1];
    double[] t = twice(() -> estimate[0] = run.get());
    System.out.printf(
        Locale.ROOT,
        "| %s | %s | %s | %,d | %+.3f %% |%n",
        name,
        memory,
        seconds(t),
        estimate[0],
        100.0 * estimate[0] / distinct - 100);
  }

  private static void filterRow(String name, long bits, long keys, double[] t, int fp) {
    System.out.printf(
        Locale.ROOT,
        "| %s | %,d | %.2f | %s | %.3f %% |%n",
        name,
        bits,
        (double) bits / keys,
        seconds(t),
        100.0 * fp / ABSENT);
  }

  private static void cmsRow(
      String name,
      long counters,
      double[] t,
      java.util.function.IntToLongFunction present,
      java.util.function.IntToLongFunction absent,
      long rows) {
    long seen = rows / (rows / 2); // each key appears this often
    long[] over = new long[100_000];
    double absentSum = 0;
    for (int i = 0; i < over.length; i++) {
      over[i] = present.applyAsLong(i) - seen;
      absentSum += absent.applyAsLong(i);
    }
    Arrays.sort(over);
    System.out.printf(
        Locale.ROOT,
        "| %s | %,d | %s | %.0f | %d | %d | %.0f |%n",
        name,
        counters,
        seconds(t),
        Arrays.stream(over).average().orElse(0),
        over[over.length * 99 / 100],
        over[over.length - 1],
        absentSum / over.length);
  }

  /** Runs five times; returns the times in seconds. */
  private static double[] twice(Supplier<?> run) {
    double[] t = new double[5];
    for (int i = 0; i < t.length; i++) {
      long start = System.nanoTime();
      run.get();
      t[i] = (System.nanoTime() - start) / 1e9;
    }
    return t;
  }

  private static String seconds(double[] t) {
    // The second run, as BENCHMARKING.md asks, and the fastest of five: the least disturbed by the
    // other processes of a shared machine.
    return String.format(
        Locale.ROOT, "%.2f s (best %.2f s)", t[1], Arrays.stream(t).min().orElse(0));
  }

  private static String load() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).trim();
    } catch (IOException e) {
      return "unknown";
    }
  }

  /** The public-API alternative: a typed Aggregator whose buffer Spark serializes with Kryo. */
  static final class KryoBuffer extends Aggregator<String, HyperLogLog, byte[]> {
    private static final long serialVersionUID = 1L;

    @Override
    public HyperLogLog zero() {
      return HyperLogLog.create(14);
    }

    @Override
    public HyperLogLog reduce(HyperLogLog b, String key) {
      if (key != null) {
        b.add(key);
      }
      return b;
    }

    @Override
    public HyperLogLog merge(HyperLogLog a, HyperLogLog b) {
      return a.merge(b);
    }

    @Override
    public byte[] finish(HyperLogLog b) {
      return TestSpark.bytes(b::writeTo);
    }

    @Override
    public Encoder<HyperLogLog> bufferEncoder() {
      return Encoders.kryo(HyperLogLog.class);
    }

    @Override
    public Encoder<byte[]> outputEncoder() {
      return Encoders.BINARY();
    }
  }

  /**
   * The sketch in a Java bean, which Spark's bean encoder turns into its bytes between the phases.
   */
  public static final class HllBean implements java.io.Serializable {
    private static final long serialVersionUID = 1L;
    private transient HyperLogLog hll = HyperLogLog.create(14);

    public byte[] getSketch() {
      return TestSpark.bytes(hll::writeTo);
    }

    public void setSketch(byte[] sketch) {
      try {
        hll = HyperLogLog.readFrom(new ByteArrayInputStream(sketch));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  static final class BeanBuffer extends Aggregator<String, HllBean, byte[]> {
    private static final long serialVersionUID = 1L;

    @Override
    public HllBean zero() {
      return new HllBean();
    }

    @Override
    public HllBean reduce(HllBean b, String key) {
      if (key != null) {
        b.hll.add(key);
      }
      return b;
    }

    @Override
    public HllBean merge(HllBean a, HllBean b) {
      a.hll.merge(b.hll);
      return a;
    }

    @Override
    public byte[] finish(HllBean b) {
      return b.getSketch();
    }

    @Override
    public Encoder<HllBean> bufferEncoder() {
      return Encoders.bean(HllBean.class);
    }

    @Override
    public Encoder<byte[]> outputEncoder() {
      return Encoders.BINARY();
    }
  }

  /** A buffer of bytes: every row reads the sketch, adds its key and writes it back. */
  static final class BytesBuffer extends Aggregator<String, byte[], byte[]> {
    private static final long serialVersionUID = 1L;

    private static HyperLogLog read(byte[] b) {
      try {
        return HyperLogLog.readFrom(new ByteArrayInputStream(b));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public byte[] zero() {
      return TestSpark.bytes(HyperLogLog.create(14)::writeTo);
    }

    @Override
    public byte[] reduce(byte[] b, String key) {
      if (key == null) {
        return b;
      }
      HyperLogLog h = read(b);
      h.add(key);
      return TestSpark.bytes(h::writeTo);
    }

    @Override
    public byte[] merge(byte[] a, byte[] b) {
      return TestSpark.bytes(read(a).merge(read(b))::writeTo);
    }

    @Override
    public byte[] finish(byte[] b) {
      return b;
    }

    @Override
    public Encoder<byte[]> bufferEncoder() {
      return Encoders.BINARY();
    }

    @Override
    public Encoder<byte[]> outputEncoder() {
      return Encoders.BINARY();
    }
  }
}
