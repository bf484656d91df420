package io.github.probkit.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The goals docs/BENCHMARKS.md judges, as data: issue 15's table (performance) and issue 8's. Each
 * names the figures it compares; {@code bench/run --quick} measures exactly the figures of issue
 * 15's goals, the full run every contestant.
 *
 * <p>To add a goal, add a row here (and, when its figure is new, the benchmark method or contestant
 * it names): the runner schedules it and the report judges it.
 */
final class Goals {
  private Goals() {}

  static final String MILLION = "1000000";
  static final String HUNDRED_MILLION = "100000000";

  /**
   * One figure: a benchmark method run with one contestant, the value of parameter {@code param},
   * at {@code n} keys where the benchmark has that parameter (else null).
   */
  record Fig(String benchmark, String method, String param, String value, String n) {
    static Fig filterQuery(String method, String impl, String n) {
      return new Fig("FilterQueryBenchmark", method, "impl", impl, n);
    }

    static Fig filterAdd(String method, String impl, String n) {
      return new Fig("FilterAddBenchmark", method, "impl", impl, n);
    }

    static Fig filterBatch(String method, String impl, String n) {
      return new Fig("FilterBatchBenchmark", method, "impl", impl, n);
    }

    static Fig cardinality(String method, String impl) {
      return new Fig("CardinalityBenchmark", method, "impl", impl, null);
    }

    static Fig countMin(String method, String impl) {
      return new Fig("FrequencyBenchmark", method, "cms", impl, null);
    }

    static Fig heavyHitters(String method, String impl) {
      return new Fig("FrequencyBenchmark", method, "hh", impl, null);
    }

    static Fig hash(String method, String impl) {
      return new Fig("HashBenchmark", method, "impl", impl, null);
    }
  }

  /**
   * A goal on probkit's figure {@code mine}: its time at most {@code maxNs} (NaN: no such goal),
   * and {@code peer}'s time divided by it at least {@code minRatio} (NaN: none; {@code peer} may
   * still be shown beside it, or be null). {@code zeroAlloc}: it must allocate nothing per
   * operation.
   *
   * <p>Where the issue sets a time and names a peer measured in the same quiet run, {@code
   * minRatio} is that peer's time there divided by the goal: the same goal stated as a ratio, which
   * a loaded machine moves far less than an absolute time, since both contestants slow down
   * together.
   */
  record Goal(
      String operation,
      Fig mine,
      Fig peer,
      double maxNs,
      double minRatio,
      boolean zeroAlloc,
      String note) {
    Goal {
      if (!Double.isNaN(minRatio) && peer == null) {
        throw new IllegalArgumentException(operation + ": a ratio goal needs a peer");
      }
    }

    List<Fig> figs() {
      return peer == null ? List.of(mine) : List.of(mine, peer);
    }
  }

  private static final double NONE = Double.NaN;

  /** The issue's peer figure over its goal: the goal as a ratio to the peer (see {@link Goal}). */
  private static double ratio(double peerNs, double goalNs) {
    return peerNs / goalNs;
  }

  /** ULL's 2^14 registers of one byte, serialized at 2 GB/s (10^9 bytes per second), in ns. */
  static final double ULL_SERIALIZE_NS = 16_384 / 2.0;

  /** Issue 15's table, row by row; the issue's quiet-run peer figures give the ratio goals. */
  static final List<Goal> ISSUE_15 =
      List.of(
          new Goal(
              "Bloom query, String",
              Fig.filterQuery("mightContainString", "probkit-bloom", MILLION),
              Fig.filterQuery("mightContainString", "guava-bloom", MILLION),
              25,
              ratio(100.8, 25),
              true,
              null),
          new Goal(
              "blocked query, String",
              Fig.filterQuery("mightContainString", "probkit-blocked", MILLION),
              Fig.filterQuery("mightContainString", "guava-bloom", MILLION),
              18,
              ratio(100.8, 18),
              true,
              "no blocked peer takes a String; Guava (standard Bloom) is the yardstick"),
          new Goal(
              "Bloom add, String",
              Fig.filterAdd("addString", "probkit-bloom-sw", MILLION),
              Fig.filterAdd("addString", "guava-bloom", MILLION),
              35,
              ratio(164.8, 35),
              true,
              "single-writer mode, as the peers (not thread-safe)"),
          new Goal(
              "blocked add, String",
              Fig.filterAdd("addString", "probkit-blocked-sw", MILLION),
              Fig.filterAdd("addString", "guava-bloom", MILLION),
              25,
              ratio(164.8, 25),
              true,
              "single-writer mode, as the peers (not thread-safe); Guava (standard Bloom) as the yardstick"),
          new Goal(
              "Bloom query, long",
              Fig.filterQuery("mightContainLong", "probkit-bloom", MILLION),
              Fig.filterQuery("mightContainLong", "fastfilter-bloom", MILLION),
              16,
              ratio(17.9, 16),
              true,
              null),
          new Goal(
              "Bloom add, long",
              Fig.filterAdd("addLong", "probkit-bloom-sw", MILLION),
              Fig.filterAdd("addLong", "fastfilter-bloom", MILLION),
              14,
              ratio(15.5, 14),
              true,
              "single-writer mode, as the peers (not thread-safe)"),
          new Goal(
              "Bloom add, long: concurrent (the default) against single-writer",
              Fig.filterAdd("addLong", "probkit-bloom", MILLION),
              Fig.filterAdd("addLong", "probkit-bloom-sw", MILLION),
              NONE,
              1 / 1.5,
              true,
              "concurrent within 1.5× of single-writer: ratio ≥ 0.67"),
          new Goal(
              "blocked query, long",
              Fig.filterQuery("mightContainLong", "probkit-blocked", MILLION),
              Fig.filterQuery("mightContainLong", "fastfilter-blocked", MILLION),
              10,
              ratio(11.3, 10),
              true,
              "equal bits per key (9.9 and 10.0); FPR 0.99 % and 1.29 %"),
          new Goal(
              "blocked add, long",
              Fig.filterAdd("addLong", "probkit-blocked-sw", MILLION),
              Fig.filterAdd("addLong", "fastfilter-blocked", MILLION),
              6,
              ratio(6.1, 6),
              true,
              "single-writer mode, as the peers (not thread-safe); equal bits per key"),
          new Goal(
              "blocked add, long: concurrent (the default) against single-writer",
              Fig.filterAdd("addLong", "probkit-blocked", MILLION),
              Fig.filterAdd("addLong", "probkit-blocked-sw", MILLION),
              NONE,
              1 / 1.5,
              true,
              "concurrent within 1.5× of single-writer: ratio ≥ 0.67"),
          new Goal(
              "blocked batch query, long, n = 10^8 (mightContainAll)",
              Fig.filterBatch("queryBatch", "probkit-blocked", HUNDRED_MILLION),
              Fig.filterBatch("queryOneByOne", "probkit-blocked", HUNDRED_MILLION),
              20,
              NONE,
              true,
              "beside it: one mightContain call per key on the same filter (only with --large)"),
          new Goal(
              "blocked query of a mapped file, long",
              Fig.filterBatch("queryMapped", "probkit-blocked", MILLION),
              Fig.filterBatch("queryOneByOne", "probkit-blocked", MILLION),
              NONE,
              NONE,
              true,
              "MappedFilter over the file, beside the filter read into the heap"),
          new Goal(
              "binary fuse 8 query, long",
              Fig.filterQuery("mightContainLong", "probkit-binaryfuse8", MILLION),
              Fig.filterQuery("mightContainLong", "fastfilter-xorfuse8", MILLION),
              5,
              ratio(8.3, 5),
              true,
              "FastFilter 1.0.2 has no BinaryFuse8; XorFuse8 at equal FPR (0.39 %)"),
          new Goal(
              "counting Bloom query, long",
              Fig.filterQuery("mightContainLong", "probkit-counting", MILLION),
              Fig.filterQuery("mightContainLong", "fastfilter-counting", MILLION),
              NONE,
              1,
              true,
              "at least at FastFilter's counting figures; 4-bit counters in both"),
          new Goal(
              "counting Bloom add, long",
              Fig.filterAdd("addLong", "probkit-counting", MILLION),
              Fig.filterAdd("addLong", "fastfilter-counting", MILLION),
              NONE,
              1,
              true,
              "at least at FastFilter's counting figures; neither is thread-safe"),
          new Goal(
              "cuckoo query, long",
              Fig.filterQuery("mightContainLong", "probkit-cuckoo8", MILLION),
              Fig.filterQuery("mightContainLong", "fastfilter-cuckoo8", MILLION),
              20,
              ratio(21, 20),
              true,
              "8-bit fingerprints at FastFilter's load 0.95: equal bits per key and FPR"),
          new Goal(
              "cuckoo add, long",
              Fig.filterAdd("addLong", "probkit-cuckoo8", MILLION),
              Fig.filterAdd("addLong", "fastfilter-cuckoo8", MILLION),
              30,
              ratio(34, 30),
              true,
              "equal bits per key"),
          new Goal(
              "String key to hash, 20 chars",
              Fig.hash("hashString", "probkit-xxh3"),
              Fig.hash("hashString", "hash4j-xxh3-utf8"),
              8,
              NONE,
              true,
              "same bytes as before; hash4j over getBytes(UTF_8) allocates"),
          new Goal(
              "count-min add, String, single-writer",
              Fig.countMin("countMinAddString", "probkit-cms-single"),
              Fig.countMin("countMinAddString", "spark-cms"),
              20,
              1,
              true,
              "beat Spark (whose sketch is not thread-safe)"),
          new Goal(
              "count-min add, String, concurrent (the default)",
              Fig.countMin("countMinAddString", "probkit-cms"),
              Fig.countMin("countMinAddString", "spark-cms"),
              20,
              1,
              true,
              "beat Spark"),
          new Goal(
              "count-min add, String, concurrent (the default)",
              Fig.countMin("countMinAddString", "probkit-cms"),
              Fig.countMin("countMinAddString", "streamlib-cms"),
              20,
              1,
              true,
              "beat stream-lib"),
          new Goal(
              "count-min estimate, String",
              Fig.countMin("countMinEstimate", "probkit-cms"),
              Fig.countMin("countMinEstimate", "spark-cms"),
              20,
              1,
              true,
              "beat Spark"),
          new Goal(
              "count-min estimate, String",
              Fig.countMin("countMinEstimate", "probkit-cms"),
              Fig.countMin("countMinEstimate", "streamlib-cms"),
              20,
              1,
              true,
              "beat stream-lib"),
          new Goal(
              "count-min add, String: concurrent against single-writer",
              Fig.countMin("countMinAddString", "probkit-cms"),
              Fig.countMin("countMinAddString", "probkit-cms-single"),
              NONE,
              1 / 1.5,
              true,
              "concurrent within 1.5× of single-writer: ratio ≥ 0.67"),
          new Goal(
              "HyperLogLog add of a hash",
              Fig.cardinality("addHash", "probkit-hll"),
              Fig.cardinality("addHash", "hash4j-ull"),
              2.5,
              ratio(2.5, 2.5),
              true,
              null),
          new Goal(
              "UltraLogLog add of a hash",
              Fig.cardinality("addHash", "probkit-ull"),
              Fig.cardinality("addHash", "hash4j-ull"),
              2.5,
              ratio(2.5, 2.5),
              true,
              null),
          new Goal(
              "HyperLogLog estimate after merge",
              Fig.cardinality("estimate", "probkit-hll"),
              Fig.cardinality("estimate", "datasketches-hll8"),
              1000,
              NONE,
              true,
              null),
          new Goal(
              "UltraLogLog estimate after merge",
              Fig.cardinality("estimate", "probkit-ull"),
              Fig.cardinality("estimate", "hash4j-ull"),
              1000,
              NONE,
              true,
              null),
          new Goal(
              "UltraLogLog serialize (16 KB) ≥ 2 GB/s",
              Fig.cardinality("serialize", "probkit-ull"),
              Fig.cardinality("serialize", "hash4j-ull"),
              ULL_SERIALIZE_NS,
              NONE,
              false,
              "hash4j's figure is a copy of its registers, no container"),
          new Goal(
              "heavy hitters add",
              Fig.heavyHitters("heavyHittersAdd", "probkit-heavyhitters"),
              Fig.heavyHitters("heavyHittersAdd", "datasketches-frequent"),
              38,
              ratio(38, 38),
              true,
              null),
          new Goal(
              "heavy hitters top(10)",
              Fig.heavyHitters("heavyHittersTop10", "probkit-heavyhitters"),
              Fig.heavyHitters("heavyHittersTop10", "streamlib-spacesaving"),
              5000,
              NONE,
              false,
              null));

  /** Issue 8's goals, kept as the earlier yardstick: ratios only. */
  static final List<Goal> ISSUE_8 = issue8();

  private static List<Goal> issue8() {
    List<Goal> out = new ArrayList<>();
    for (String n : List.of(MILLION, HUNDRED_MILLION)) {
      String at = " (n = " + Report.pow10(n) + ")";
      out.add(
          new Goal(
              "standard Bloom add ≥ 2× Guava" + at,
              Fig.filterAdd("addString", "probkit-bloom", n),
              Fig.filterAdd("addString", "guava-bloom", n),
              NONE,
              2,
              false,
              null));
      out.add(
          new Goal(
              "standard Bloom query ≥ 2× Guava" + at,
              Fig.filterQuery("mightContainString", "probkit-bloom", n),
              Fig.filterQuery("mightContainString", "guava-bloom", n),
              NONE,
              2,
              false,
              null));
      out.add(
          new Goal(
              "blocked Bloom query ≥ 5× Guava" + at,
              Fig.filterQuery("mightContainString", "probkit-blocked", n),
              Fig.filterQuery("mightContainString", "guava-bloom", n),
              NONE,
              5,
              false,
              null));
      out.add(
          new Goal(
              "blocked Bloom query ≥ FastFilter BlockedBloom (long keys)" + at,
              Fig.filterQuery("mightContainLong", "probkit-blocked", n),
              Fig.filterQuery("mightContainLong", "fastfilter-blocked", n),
              NONE,
              1,
              false,
              null));
      out.add(
          new Goal(
              "binary fuse query ≥ FastFilter XorFuse8 (long keys)" + at,
              Fig.filterQuery("mightContainLong", "probkit-binaryfuse8", n),
              Fig.filterQuery("mightContainLong", "fastfilter-xorfuse8", n),
              NONE,
              1,
              false,
              null));
    }
    out.add(
        new Goal(
            "count-min add ≥ 2× stream-lib",
            Fig.countMin("countMinAddString", "probkit-cms"),
            Fig.countMin("countMinAddString", "streamlib-cms"),
            NONE,
            2,
            false,
            null));
    out.add(
        new Goal(
            "HyperLogLog add ≥ hash4j HyperLogLog (long keys)",
            Fig.cardinality("addLong", "probkit-hll"),
            Fig.cardinality("addLong", "hash4j-hll"),
            NONE,
            1,
            false,
            null));
    out.add(
        new Goal(
            "HyperLogLog add ≥ DataSketches HLL_8 (long keys)",
            Fig.cardinality("addLong", "probkit-hll"),
            Fig.cardinality("addLong", "datasketches-hll8"),
            NONE,
            1,
            false,
            null));
    return List.copyOf(out);
  }

  /** Every figure issue 15's goals need: what {@code bench/run --quick} measures. */
  static Stream<Fig> quickFigures() {
    return ISSUE_15.stream().flatMap(g -> g.figs().stream());
  }
}
