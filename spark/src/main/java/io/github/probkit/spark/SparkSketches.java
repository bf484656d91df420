package io.github.probkit.spark;

import io.github.probkit.cardinality.HyperLogLog;
import io.github.probkit.filter.BloomFilter;
import io.github.probkit.foreign.DataSketchesHll;
import io.github.probkit.foreign.SparkBloomFilter;
import io.github.probkit.foreign.SparkCountMinSketch;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.Locale;

/**
 * probkit_from_spark: sketches Spark made, read by core's readers of their formats
 * (io.github.probkit.foreign) and converted to probkit's where a probkit structure holds them with
 * the same answers.
 *
 * <p>A DataSketches HLL sketch (Spark 4's {@code hll_sketch_agg}) becomes the probkit HyperLogLog
 * of its registers, hashed as DataSketches hashes ({@code HashStrategy.datasketches(lgK)}): keys
 * added to it later by probkit set the registers DataSketches would. Spark's BloomFilter (what
 * {@code df.stat().bloomFilter} writes) becomes the probkit Bloom filter of its bits with Spark's
 * probes ({@code HashStrategy.spark()}): strings, binary and integral keys get Spark's answers.
 * Spark's CountMinSketch cannot: it places a long by per-row multipliers and bytes by
 * Murmur3_x86_32, probkit's count-min sketch by its own hash, so no probkit sketch of its counters
 * answers for the same keys; converting it needs the keys.
 */
final class SparkSketches {
  private SparkSketches() {}

  enum Format {
    HLL,
    BLOOM,
    COUNT_MIN
  }

  static Format format(String function, String text) {
    switch (text.toLowerCase(Locale.ROOT)) {
      case "hll":
      case "datasketches-hll":
        return Format.HLL;
      case "bloom":
        return Format.BLOOM;
      case "count-min":
        return Format.COUNT_MIN;
      default:
        throw Params.fail(
            function,
            "format must be 'hll' (hll_sketch_agg), 'bloom' or 'count-min' (Spark's sketch"
                + " writeTo bytes), was '%s'",
            text);
    }
  }

  /** The aggregates' struct of the probkit structure {@code bytes} convert to. */
  static Object convert(String function, Format format, byte[] bytes) {
    try {
      switch (format) {
        case HLL:
          DataSketchesHll d = DataSketchesHll.read(bytes);
          if (d.lgK() > HyperLogLog.MAX_PRECISION) {
            throw new IllegalArgumentException(
                String.format(
                    Locale.ROOT,
                    "%s: a DataSketches HLL sketch of lgK %d has more registers than a probkit"
                        + " HyperLogLog (precision at most %d); make it with hll_sketch_agg(key,"
                        + " %d) or less",
                    function,
                    d.lgK(),
                    HyperLogLog.MAX_PRECISION,
                    HyperLogLog.MAX_PRECISION));
          }
          HyperLogLog h = d.toHyperLogLog();
          return ProbkitAggregate.result(
              Sketches.toBytes(h::writeTo, h.byteSize() + 64), -1, -1, null);
        case BLOOM:
          BloomFilter f = SparkBloomFilter.readFrom(new ByteArrayInputStream(bytes)).toProbkit();
          return ProbkitAggregate.result(
              Sketches.toBytes(f::writeTo, f.byteSize() + 64), -1, -1, null);
        default:
          SparkCountMinSketch.readFrom(new ByteArrayInputStream(bytes));
          throw refused(function, "CountMinSketch", "count-min sketch", "probkit_cms_agg");
      }
    } catch (IOException e) {
      throw new IllegalArgumentException(function + ": " + e.getMessage(), e);
    }
  }

  private static IllegalArgumentException refused(
      String function, String spark, String probkit, String aggregate) {
    return new IllegalArgumentException(
        String.format(
            Locale.ROOT,
            "%s: Spark's %s cannot become a probkit %s: Spark places a key by per-row multipliers"
                + " and its Murmur3_x86_32 hash, probkit by its own hash, so no probkit %s of these"
                + " counters answers for the same keys; build one from the keys with %s",
            function,
            spark,
            probkit,
            probkit,
            aggregate));
  }
}
