package io.github.probkit.cli.lab;

import io.github.probkit.cli.lab.Lab.Scaled;
import io.github.probkit.frequency.HeavyHitters;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.commons.math3.distribution.ZipfDistribution;
import org.apache.commons.math3.random.Well19937c;

/** heavy-hitters: precision and recall of the top k against exact counts, against memory. */
final class HeavyHittersExperiment extends Experiment {
  private static final double[] SKEWS = {0.8, 1.0, 1.2, 1.5};
  private static final int K = 10;
  private static final int[] CAPACITIES = {10, 20, 50, 100, 200, 500, 1000, 2000};

  /** The heavy-hitter threshold: terms above PHI N. */
  private static final double PHI = 0.001;

  private static final Scaled<Integer> LENGTH = new Scaled<>(50_000, 500_000, 2_000_000);
  private static final Scaled<Integer> UNIVERSE = new Scaled<>(20_000, 100_000, 1_000_000);

  HeavyHittersExperiment() {
    super(
        "heavy-hitters", "Top-k precision and recall of Space-Saving heavy hitters against memory");
  }

  @Override
  public String description(Lab lab) {
    return "Zipfian streams of N = "
        + Unit.COUNT.format(LENGTH.in(lab))
        + " search terms (\"term-\" + rank) over "
        + Unit.COUNT.format(UNIVERSE.in(lab))
        + " terms, at exponents 0.8 to 1.5. A HeavyHitters summary"
        + " (Space-Saving) of capacity c lists its top "
        + K
        + " (its precision, the share truly among the top "
        + K
        + " with ties, equals its recall), and the terms it counts above 0.1 % of N, against the terms"
        + " truly above 0.1 % (precision and recall; with c >= 1/0.001 the recall must be 1). Judged: Space-Saving's guarantees, which need no luck: every term counted more than N/c"
        + " times is monitored; every monitored term's true count lies in [count - error, count]; every"
        + " entry marked certain is truly in the top "
        + K
        + "; and when the "
        + K
        + "th true count exceeds"
        + " the next by more than N/c, the listed top "
        + K
        + " is exact.";
  }

  @Override
  public void run(Lab lab, Section out) throws Exception {
    int n = LENGTH.in(lab);
    int u = UNIVERSE.in(lab);
    String[] terms = new String[u + 1];
    for (int i = 1; i <= u; i++) {
      terms[i] = "term-" + i;
    }
    Table t =
        Table.of(
            "Top " + K + " of Zipfian streams, N = " + Unit.COUNT.format(n),
            "exponent",
            Unit.TEXT,
            "capacity",
            Unit.COUNT,
            "bytes",
            Unit.BYTES,
            "N / c",
            Unit.COUNT,
            "top-" + K + " precision",
            Unit.PERCENT,
            "certain",
            Unit.INTEGER,
            "exact by the bound",
            Unit.TEXT,
            "terms > 0.1 % N",
            Unit.INTEGER,
            "precision",
            Unit.PERCENT,
            "recall",
            Unit.PERCENT);
    long missedAboveThreshold = 0;
    long missedHeavy = 0;
    long outOfBounds = 0;
    long wrongCertain = 0;
    long boundBroken = 0;
    long guaranteedWrong = 0;
    int guaranteed = 0;
    double[][] precision = new double[SKEWS.length][CAPACITIES.length];
    double[] memory = new double[CAPACITIES.length];
    for (int si = 0; si < SKEWS.length; si++) {
      ZipfDistribution zipf =
          new ZipfDistribution(new Well19937c(lab.random(0x4ea7 + si)), u, SKEWS[si]);
      int[] stream = new int[n];
      int[] counts = new int[u + 1];
      for (int i = 0; i < n; i++) {
        stream[i] = zipf.sample();
        counts[stream[i]]++;
      }
      int[] sorted = counts.clone();
      Arrays.sort(sorted);
      int tk = sorted[sorted.length - K];
      int tk1 = sorted[sorted.length - K - 1];
      Set<String> trueTop = new HashSet<>();
      for (int i = 1; i <= u; i++) {
        if (counts[i] >= tk) {
          trueTop.add(terms[i]);
        }
      }
      for (int ci = 0; ci < CAPACITIES.length; ci++) {
        int c = CAPACITIES[ci];
        HeavyHitters hh = HeavyHitters.withCapacity(c);
        for (int item : stream) {
          hh.add(terms[item]);
        }
        double maxError = (double) n / c;
        boundBroken += hh.maxError() > maxError ? 1 : 0;
        Set<String> monitored = new HashSet<>();
        for (HeavyHitters.Entry e : hh.entries()) {
          String term = e.itemAsString();
          monitored.add(term);
          int truth = counts[Integer.parseInt(term.substring(5))];
          outOfBounds += truth < e.lowerBound() || truth > e.count() ? 1 : 0;
        }
        for (int i = 1; i <= u; i++) {
          if (counts[i] > maxError && !monitored.contains(terms[i])) {
            missedHeavy++;
          }
        }
        List<HeavyHitters.Entry> top = hh.top(K);
        int hits = 0;
        int certain = 0;
        for (HeavyHitters.Entry e : top) {
          String term = e.itemAsString();
          boolean inTop = trueTop.contains(term);
          hits += inTop ? 1 : 0;
          if (e.isCertain()) {
            certain++;
            wrongCertain += inTop ? 0 : 1;
          }
        }
        double p = top.isEmpty() ? 0 : (double) hits / top.size();
        // the phi heavy hitters: reported when counted above PHI N
        double threshold = PHI * n;
        int reported = 0;
        int correct = 0;
        for (HeavyHitters.Entry e : hh.entries()) {
          if (e.count() > threshold) {
            reported++;
            correct += counts[Integer.parseInt(e.itemAsString().substring(5))] > threshold ? 1 : 0;
          }
        }
        int heavy = 0;
        for (int i = 1; i <= u; i++) {
          heavy += counts[i] > threshold ? 1 : 0;
        }
        double hp = reported == 0 ? 1 : (double) correct / reported;
        double hr = heavy == 0 ? 1 : (double) correct / heavy;
        if (c >= 1 / PHI) {
          missedAboveThreshold += heavy - correct;
        }
        boolean sure = tk - tk1 > maxError;
        if (sure) {
          guaranteed++;
          guaranteedWrong += hits == K ? 0 : 1;
        }
        t.row(
            String.valueOf(SKEWS[si]),
            c,
            hh.byteSize(),
            maxError,
            p,
            certain,
            sure ? "yes" : "no",
            heavy,
            hp,
            hr);
        precision[si][ci] = p;
        memory[ci] = memory[ci] == 0 ? hh.byteSize() : memory[ci];
      }
    }
    out.table(t);
    out.checkExact(
        "terms counted more than N/c times but not monitored",
        Unit.COUNT,
        missedHeavy,
        0,
        "Space-Saving keeps every such term");
    out.checkExact(
        "terms above 0.1 % of N not reported, capacity >= 1,000",
        Unit.COUNT, missedAboveThreshold, 0, "recall 1 when N/c <= 0.001 N");
    out.checkExact(
        "monitored terms whose true count is outside [count - error, count]",
        Unit.COUNT,
        outOfBounds,
        0,
        "Space-Saving's error bounds");
    out.checkExact(
        "summaries whose maxError() exceeds N/c", Unit.COUNT, boundBroken, 0, "the N/c bound");
    out.checkExact(
        "entries marked certain that are not in the true top " + K,
        Unit.COUNT,
        wrongCertain,
        0,
        "certain means the lower bound beats every other term");
    out.checkExact(
        "wrong top "
            + K
            + " where the gap guarantees it ("
            + guaranteed
            + " of "
            + SKEWS.length * CAPACITIES.length
            + " summaries)",
        Unit.COUNT,
        guaranteedWrong,
        0,
        "t_k - t_(k+1) > N/c makes the top k exact");

    double[] x = new double[CAPACITIES.length];
    for (int i = 0; i < x.length; i++) {
      x[i] = CAPACITIES[i];
    }
    Chart chart =
        Chart.xy(
                "heavy-hitters-precision",
                "Heavy hitters: precision of the top " + K + " against capacity",
                "capacity c (monitored terms)",
                "precision of the top " + K)
            .logX()
            .joinPoints();
    for (int si = 0; si < SKEWS.length; si++) {
      chart.points("Zipf exponent " + SKEWS[si], x, precision[si], null, null);
    }
    out.chart(chart);
    out.note(
        "Memory of a summary grows with its capacity: "
            + Unit.BYTES.format(memory[0])
            + " at c = "
            + CAPACITIES[0]
            + ", "
            + Unit.BYTES.format(memory[memory.length - 1])
            + " at c = "
            + CAPACITIES[CAPACITIES.length - 1]
            + " (terms of about 10 bytes).");
  }
}
