package io.github.probkit.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
  record Fig(String benchmark, String method, String param, String value, String n) {}

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

    /**
     * The same comparison under FastFilter's protocol (MixedQueryBenchmark), or null. A long-key
     * query at n = 10^6 against a peer is judged under both: FilterQueryBenchmark's shuffled mix
     * makes an early-exit query mispredict on every other key, FastFilter's blocks of present then
     * absent keys let it predict nearly every branch, and the two have given opposite verdicts on
     * one pair of filters (issue 31). A goal that holds in one only is not met.
     */
    Goal cross() {
      if (peer == null
          || !mine.benchmark().equals("FilterQueryBenchmark")
          || !mine.method().equals("mightContainLong")
          || !peer.method().equals("mightContainLong")
          || !MILLION.equals(mine.n())) {
        return null;
      }
      return new Goal(
          operation,
          new Fig(MIXED, MIXED_METHOD, mine.param(), mine.value(), mine.n()),
          new Fig(MIXED, MIXED_METHOD, peer.param(), peer.value(), peer.n()),
          maxNs,
          minRatio,
          zeroAlloc,
          note);
    }

    /** The figures of both protocols, where the goal has two. */
    List<Fig> allFigs() {
      Goal c = cross();
      if (c == null) {
        return figs();
      }
      List<Fig> out = new ArrayList<>(figs());
      out.addAll(c.figs());
      return out;
    }
  }

  /** The benchmark and method of the second protocol of long-key query goals (Goal.cross). */
  static final String MIXED = "MixedQueryBenchmark";

  static final String MIXED_METHOD = "loop";

  /*
   * The tables below hold one goal a line, its cells split by '|':
   *
   *   operation | figure | peer | n | max ns | min ratio | zero alloc | note
   *
   * A figure is "kind method contestant", the kind naming the benchmark and its contestant
   * parameter (KINDS); the peer is "contestant" or "method contestant", of the same kind and n as
   * the figure. n is the keys parameter, "-" where the benchmark has none, "n" where the table is
   * read once for each n. A number may be a quotient "a/b": a ratio goal is the issue's quiet-run
   * peer time over the goal's time (see Goal), "-" is none (NaN). A note "-" is none.
   *
   * They are tables, not constructor calls, so that a goal is one line to read and to add, and
   * every row goes through one reading of it.
   */

  /** kind: benchmark class and the name of its contestant parameter. */
  private static final Map<String, String[]> KINDS =
      Map.of(
          "query", new String[] {"FilterQueryBenchmark", "impl"},
          "add", new String[] {"FilterAddBenchmark", "impl"},
          "batch", new String[] {"FilterBatchBenchmark", "impl"},
          "cardinality", new String[] {"CardinalityBenchmark", "impl"},
          "countMin", new String[] {"FrequencyBenchmark", "cms"},
          "heavyHitters", new String[] {"FrequencyBenchmark", "hh"},
          "hash", new String[] {"HashBenchmark", "impl"});

  /**
   * Issue 15's table, row by row; the issue's quiet-run peer figures give the ratio goals. The
   * serialize goal is ULL's 2^14 one-byte registers at 2 GB/s (10^9 bytes per second), in ns.
   */
  static final List<Goal> ISSUE_15 =
      goals(
          """
          Bloom query, String | query mightContainString probkit-bloom | guava-bloom | 1000000 | 25 | 100.8/25 | yes | -
          blocked query, String | query mightContainString probkit-blocked | guava-bloom | 1000000 | 18 | 100.8/18 | yes | no blocked peer takes a String; Guava (standard Bloom) is the yardstick
          Bloom add, String | add addString probkit-bloom-sw | guava-bloom | 1000000 | 35 | 164.8/35 | yes | single-writer mode, as the peers (not thread-safe)
          blocked add, String | add addString probkit-blocked-sw | guava-bloom | 1000000 | 25 | 164.8/25 | yes | single-writer mode, as the peers (not thread-safe); Guava (standard Bloom) as the yardstick
          Bloom query, long | query mightContainLong probkit-bloom | fastfilter-bloom | 1000000 | 16 | 17.9/16 | yes | -
          Bloom add, long | add addLong probkit-bloom-sw | fastfilter-bloom | 1000000 | 14 | 15.5/14 | yes | single-writer mode, as the peers (not thread-safe)
          Bloom add, long: concurrent (the default) against single-writer | add addLong probkit-bloom | probkit-bloom-sw | 1000000 | - | 1/1.5 | yes | concurrent within 1.5× of single-writer: ratio ≥ 0.67
          blocked query, long | query mightContainLong probkit-blocked | fastfilter-blocked | 1000000 | 10 | 11.3/10 | yes | equal bits per key (9.9 and 10.0); FPR 0.99 % and 1.29 %
          blocked add, long | add addLong probkit-blocked-sw | fastfilter-blocked | 1000000 | 6 | 6.1/6 | yes | single-writer mode, as the peers (not thread-safe); equal bits per key
          blocked add, long: concurrent (the default) against single-writer | add addLong probkit-blocked | probkit-blocked-sw | 1000000 | - | 1/1.5 | yes | concurrent within 1.5× of single-writer: ratio ≥ 0.67
          blocked batch query, long, n = 10^8 (mightContainAll) | batch queryBatch probkit-blocked | queryOneByOne probkit-blocked | 100000000 | 20 | - | yes | beside it: one mightContain call per key on the same filter (only with --large)
          blocked query of a mapped file, long | batch queryMapped probkit-blocked | queryOneByOne probkit-blocked | 1000000 | - | - | yes | MappedFilter over the file, beside the filter read into the heap
          binary fuse 8 query, long | query mightContainLong probkit-binaryfuse8 | fastfilter-xorfuse8 | 1000000 | 5 | 8.3/5 | yes | FastFilter 1.0.2 has no BinaryFuse8; XorFuse8 at equal FPR (0.39 %)
          counting Bloom query, long | query mightContainLong probkit-counting | fastfilter-counting | 1000000 | - | 1 | yes | at least at FastFilter's counting figures; 4-bit counters in both
          counting Bloom add, long | add addLong probkit-counting | fastfilter-counting | 1000000 | - | 1 | yes | at least at FastFilter's counting figures; neither is thread-safe
          cuckoo query, long | query mightContainLong probkit-cuckoo8 | fastfilter-cuckoo8 | 1000000 | 20 | 21/20 | yes | 8-bit fingerprints at FastFilter's load 0.95: equal bits per key and FPR
          cuckoo add, long | add addLong probkit-cuckoo8 | fastfilter-cuckoo8 | 1000000 | 30 | 34/30 | yes | equal bits per key
          String key to hash, 20 chars | hash hashString probkit-xxh3 | hash4j-xxh3-utf8 | - | 8 | - | yes | same bytes as before; hash4j over getBytes(UTF_8) allocates
          count-min add, String, single-writer | countMin countMinAddString probkit-cms-single | spark-cms | - | 20 | 1 | yes | beat Spark (whose sketch is not thread-safe)
          count-min add, String, concurrent (the default) | countMin countMinAddString probkit-cms | spark-cms | - | 20 | 1 | yes | beat Spark
          count-min add, String, concurrent (the default) | countMin countMinAddString probkit-cms | streamlib-cms | - | 20 | 1 | yes | beat stream-lib
          count-min estimate, String | countMin countMinEstimate probkit-cms | spark-cms | - | 20 | 1 | yes | beat Spark
          count-min estimate, String | countMin countMinEstimate probkit-cms | streamlib-cms | - | 20 | 1 | yes | beat stream-lib
          count-min add, String: concurrent against single-writer | countMin countMinAddString probkit-cms | probkit-cms-single | - | - | 1/1.5 | yes | concurrent within 1.5× of single-writer: ratio ≥ 0.67
          HyperLogLog add of a hash | cardinality addHash probkit-hll | hash4j-ull | - | 2.5 | 2.5/2.5 | yes | -
          UltraLogLog add of a hash | cardinality addHash probkit-ull | hash4j-ull | - | 2.5 | 2.5/2.5 | yes | -
          HyperLogLog estimate after merge | cardinality estimate probkit-hll | datasketches-hll8 | - | 1000 | - | yes | -
          UltraLogLog estimate after merge | cardinality estimate probkit-ull | hash4j-ull | - | 1000 | - | yes | -
          UltraLogLog serialize (16 KB) ≥ 2 GB/s | cardinality serialize probkit-ull | hash4j-ull | - | 16384/2 | - | no | hash4j's figure is a copy of its registers, no container
          heavy hitters add | heavyHitters heavyHittersAdd probkit-heavyhitters | datasketches-frequent | - | 38 | 38/38 | yes | -
          heavy hitters top(10) | heavyHitters heavyHittersTop10 probkit-heavyhitters | streamlib-spacesaving | - | 5000 | - | no | -
          """,
          null, "");

  /** Issue 8's goals, kept as the earlier yardstick: ratios only. */
  static final List<Goal> ISSUE_8 = issue8();

  private static List<Goal> issue8() {
    List<Goal> out = new ArrayList<>();
    for (String n : List.of(MILLION, HUNDRED_MILLION)) {
      out.addAll(
          goals(
              """
              standard Bloom add ≥ 2× Guava | add addString probkit-bloom | guava-bloom | n | - | 2 | no | -
              standard Bloom query ≥ 2× Guava | query mightContainString probkit-bloom | guava-bloom | n | - | 2 | no | -
              blocked Bloom query ≥ 5× Guava | query mightContainString probkit-blocked | guava-bloom | n | - | 5 | no | -
              blocked Bloom query ≥ FastFilter BlockedBloom (long keys) | query mightContainLong probkit-blocked | fastfilter-blocked | n | - | 1 | no | -
              binary fuse query ≥ FastFilter XorFuse8 (long keys) | query mightContainLong probkit-binaryfuse8 | fastfilter-xorfuse8 | n | - | 1 | no | -
              """,
              n,
              " (n = " + Report.pow10(n) + ")"));
    }
    out.addAll(
        goals(
            """
            count-min add ≥ 2× stream-lib | countMin countMinAddString probkit-cms | streamlib-cms | - | - | 2 | no | -
            HyperLogLog add ≥ hash4j HyperLogLog (long keys) | cardinality addLong probkit-hll | hash4j-hll | - | - | 1 | no | -
            HyperLogLog add ≥ DataSketches HLL_8 (long keys) | cardinality addLong probkit-hll | datasketches-hll8 | - | - | 1 | no | -
            """,
            null,
            ""));
    return List.copyOf(out);
  }

  /**
   * Reads a table of goals (the form above); {@code n} stands for the cell "n", {@code suffix} ends
   * every operation.
   */
  static List<Goal> goals(String table, String n, String suffix) {
    List<Goal> out = new ArrayList<>();
    for (String line : table.strip().split("\n")) {
      String[] c = line.split("\\|", -1);
      if (c.length != 8) {
        throw new IllegalArgumentException("a goal has 8 cells, not " + c.length + ": " + line);
      }
      for (int i = 0; i < c.length; i++) {
        c[i] = c[i].strip();
      }
      String[] mine = c[1].split(" ");
      String[] peer = c[2].split(" ");
      String[] kind = KINDS.get(mine[0]);
      if (mine.length != 3 || kind == null || peer.length > 2) {
        throw new IllegalArgumentException("not a figure and its peer: " + line);
      }
      String at = c[3].equals("-") ? null : c[3].equals("n") ? n : c[3];
      out.add(
          new Goal(
              c[0] + suffix,
              new Fig(kind[0], mine[1], kind[1], mine[2], at),
              new Fig(
                  kind[0],
                  peer.length == 2 ? peer[0] : mine[1],
                  kind[1],
                  peer[peer.length - 1],
                  at),
              number(c[4]),
              number(c[5]),
              yesNo(c[6], line),
              c[7].equals("-") ? null : c[7]));
    }
    return List.copyOf(out);
  }

  private static double number(String cell) {
    if (cell.equals("-")) {
      return Double.NaN;
    }
    int slash = cell.indexOf('/');
    return slash < 0
        ? Double.parseDouble(cell)
        : Double.parseDouble(cell.substring(0, slash))
            / Double.parseDouble(cell.substring(slash + 1));
  }

  private static boolean yesNo(String cell, String line) {
    if (!cell.equals("yes") && !cell.equals("no")) {
      throw new IllegalArgumentException("zero alloc is yes or no, not " + cell + ": " + line);
    }
    return cell.equals("yes");
  }

  /**
   * Every figure issue 15's goals need, under both protocols where a goal has two: what {@code
   * bench/run --quick} measures.
   */
  static Stream<Fig> quickFigures() {
    return ISSUE_15.stream().flatMap(g -> g.allFigs().stream());
  }
}
