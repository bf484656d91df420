package io.github.probkit.bench;

import java.io.PrintStream;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.openjdk.jol.info.GraphLayout;

/**
 * What JMH does not measure: each filter's false-positive rate and memory per key, each sketch's
 * error and size. Counts, not timings, so the figures do not depend on the machine's load.
 *
 * <pre>
 * java -cp bench/target/benchmarks.jar io.github.probkit.bench.Measure [--quick]
 * </pre>
 *
 * Memory is the retained heap size of the structure (JOL's walk of its object graph, headers
 * included), so libraries are charged for what they really hold, whatever their own size methods
 * report.
 */
public final class Measure {
  /** Keys per filter, absent keys queried per filter. */
  static final int FILTER_KEYS = 1_000_000;

  static final int ABSENT_QUERIES = 2_000_000;

  /** One filter's false-positive rate and memory. */
  public record FilterRow(
      String impl,
      String family,
      boolean strings,
      long n,
      long falsePositives,
      long queries,
      long bytes)
      implements Serializable {
    public double fpr() {
      return (double) falsePositives / queries;
    }

    public double bytesPerKey() {
      return (double) bytes / n;
    }
  }

  /** One distinct-count sketch's relative error over {@code trials} sketches of {@code n} keys. */
  public record CardinalityRow(
      String impl, int n, int trials, double bias, double rmse, int serializedBytes, long bytes)
      implements Serializable {}

  /** One count-min sketch's overestimates on the Zipf stream of {@link FrequencyBenchmark}. */
  public record CountMinRow(
      String impl,
      long streamLength,
      double meanError,
      long maxError,
      double shareAboveEpsilonN,
      int serializedBytes,
      long bytes)
      implements Serializable {}

  /** One heavy-hitters summary's recall of the true top 10 and top 100. */
  public record HeavyHittersRow(
      String impl, double recall10, double recall100, int serializedBytes, long bytes)
      implements Serializable {}

  public record Results(
      List<FilterRow> filters,
      List<CardinalityRow> cardinality,
      List<CountMinRow> countMin,
      List<HeavyHittersRow> heavyHitters)
      implements Serializable {}

  private Measure() {}

  public static void main(String[] args) {
    boolean quick = Arrays.asList(args).contains("--quick");
    print(run(quick), System.out);
  }

  /**
   * Measures every contestant, or with {@code quick} those issue 15's goals compare (Goals), with
   * fewer distinct-count trials.
   */
  public static Results run(boolean quick) {
    Set<String> goal = new HashSet<>();
    Goals.quickFigures().forEach(f -> goal.add(f.value()));
    Predicate<String> wanted = impl -> !quick || goal.contains(impl);
    List<FilterRow> filters = new ArrayList<>();
    for (FilterImpls.Spec s : FilterImpls.all()) {
      if (wanted.test(s.name())) {
        filters.add(filter(s, FILTER_KEYS, 0.01, true));
        filters.add(filter(s, FILTER_KEYS, 0.01, false));
      }
    }
    List<CardinalityRow> card = new ArrayList<>();
    for (String impl : CardinalityImpls.NAMES) {
      if (wanted.test(impl)) {
        card.add(cardinality(impl, 1_000_000, quick ? 20 : 200));
      }
    }
    long[] stream =
        Keys.zipfIndices(
            FrequencyBenchmark.UNIVERSE,
            FrequencyBenchmark.ZIPF,
            FrequencyBenchmark.KEYS,
            0x9b05688c2b3e6c1fL);
    List<CountMinRow> cms = new ArrayList<>();
    for (String impl : FrequencyImpls.COUNT_MIN) {
      if (wanted.test(impl)) {
        cms.add(countMin(impl, stream));
      }
    }
    List<HeavyHittersRow> hh = new ArrayList<>();
    for (String impl : FrequencyImpls.HEAVY_HITTERS) {
      if (wanted.test(impl)) {
        hh.add(heavyHitters(impl, stream));
      }
    }
    return new Results(filters, card, cms, hh);
  }

  static long retained(Object root) {
    return GraphLayout.parseInstance(root).totalSize();
  }

  static FilterRow filter(FilterImpls.Spec s, int n, double fpp, boolean strings) {
    FilterContestant f = FilterImpls.filled(s.name(), n, fpp, strings);
    long fp = 0;
    // Absent keys are the indices from n on (Keys guarantees they differ from every present key).
    for (long i = n; i < n + ABSENT_QUERIES; i++) {
      if (strings ? f.mightContain(Keys.stringKey(i)) : f.mightContain(Keys.longKey(i))) {
        fp++;
      }
    }
    return new FilterRow(s.name(), s.family(), strings, n, fp, ABSENT_QUERIES, retained(f.root()));
  }

  static CardinalityRow cardinality(String impl, int n, int trials) {
    double sum = 0;
    double sumSq = 0;
    CardinalityImpls.Sketch last = null;
    SplittableRandom r = new SplittableRandom(0x3c6ef372fe94f82bL);
    for (int t = 0; t < trials; t++) {
      CardinalityImpls.Sketch s = CardinalityImpls.create(impl);
      // Random 64-bit keys: distinct with probability 1 - 10^-7 per trial.
      for (int i = 0; i < n; i++) {
        s.add(r.nextLong());
      }
      double e = s.estimate() / n - 1;
      sum += e;
      sumSq += e * e;
      last = s;
    }
    return new CardinalityRow(
        impl,
        n,
        trials,
        sum / trials,
        Math.sqrt(sumSq / trials),
        last.serialize().length,
        retained(last.root()));
  }

  /** Gives {@code add} the stream's keys in order; returns each key's exact count. */
  private static int[] feed(long[] stream, Consumer<String> add) {
    int[] exact = new int[FrequencyBenchmark.UNIVERSE];
    for (long i : stream) {
      add.accept(Keys.stringKey(i));
      exact[(int) i]++;
    }
    return exact;
  }

  static CountMinRow countMin(String impl, long[] stream) {
    FrequencyImpls.CountMin s = FrequencyImpls.countMin(impl);
    int[] exact = feed(stream, s::add);
    double epsN = Math.E / FrequencyImpls.WIDTH * stream.length;
    long sumErr = 0;
    long maxErr = 0;
    long above = 0;
    for (int k = 0; k < exact.length; k++) {
      long err = s.estimate(Keys.stringKey(k)) - exact[k];
      if (err < 0) {
        throw new IllegalStateException(impl + " underestimates key " + k);
      }
      sumErr += err;
      maxErr = Math.max(maxErr, err);
      if (err > epsN) {
        above++;
      }
    }
    return new CountMinRow(
        impl,
        stream.length,
        (double) sumErr / exact.length,
        maxErr,
        (double) above / exact.length,
        s.serialize().length,
        retained(s.root()));
  }

  static HeavyHittersRow heavyHitters(String impl, long[] stream) {
    FrequencyImpls.HeavyHittersContestant s = FrequencyImpls.heavyHitters(impl);
    int[] exact = feed(stream, s::add);
    Integer[] order = new Integer[exact.length];
    Arrays.setAll(order, i -> i);
    Arrays.sort(order, Comparator.comparingInt((Integer i) -> exact[i]).reversed());
    return new HeavyHittersRow(
        impl,
        recall(s, order, exact, 10),
        recall(s, order, exact, 100),
        s.serialize().length,
        retained(s.root()));
  }

  /**
   * The share of the summary's top k that belong to the true top k; a key tied in count with the
   * true k-th is as right as any other, so every key at least as frequent as the k-th counts.
   */
  private static double recall(
      FrequencyImpls.HeavyHittersContestant s, Integer[] order, int[] exact, int k) {
    int kth = exact[order[k - 1]];
    Set<String> truth = new HashSet<>();
    for (int i = 0; i < order.length && exact[order[i]] >= kth; i++) {
      truth.add(Keys.stringKey(order[i]));
    }
    int hits = 0;
    for (String key : s.top(k)) {
      if (truth.contains(key)) {
        hits++;
      }
    }
    return (double) hits / k;
  }

  static void print(Results r, PrintStream out) {
    for (FilterRow f : r.filters()) {
      out.printf(
          Locale.ROOT,
          "%-22s %-6s n=%d fpr=%.4f%% bytes/key=%.3f%n",
          f.impl(),
          f.strings() ? "String" : "long",
          f.n(),
          100 * f.fpr(),
          f.bytesPerKey());
    }
    for (CardinalityRow c : r.cardinality()) {
      out.printf(
          Locale.ROOT,
          "%-22s n=%d trials=%d bias=%.3f%% rmse=%.3f%% serialized=%d retained=%d%n",
          c.impl(),
          c.n(),
          c.trials(),
          100 * c.bias(),
          100 * c.rmse(),
          c.serializedBytes(),
          c.bytes());
    }
    for (CountMinRow c : r.countMin()) {
      out.printf(
          Locale.ROOT,
          "%-22s N=%d meanErr=%.2f maxErr=%d above-epsN=%.4f%% serialized=%d retained=%d%n",
          c.impl(),
          c.streamLength(),
          c.meanError(),
          c.maxError(),
          100 * c.shareAboveEpsilonN(),
          c.serializedBytes(),
          c.bytes());
    }
    for (HeavyHittersRow h : r.heavyHitters()) {
      out.printf(
          Locale.ROOT,
          "%-22s recall@10=%.2f recall@100=%.2f serialized=%d retained=%d%n",
          h.impl(),
          h.recall10(),
          h.recall100(),
          h.serializedBytes(),
          h.bytes());
    }
  }
}
