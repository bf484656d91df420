package io.github.probkit.cli.lab;

import io.github.probkit.cli.lab.Lab.Scaled;
import io.github.probkit.frequency.CountMinSketch;
import io.github.probkit.hash.HashStrategy;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.apache.commons.math3.distribution.ZipfDistribution;
import org.apache.commons.math3.random.Well19937c;

/**
 * cms-error: the count-min sketch's error against its guarantee (never below the true count; above
 * it by more than epsilon N with probability at most delta), plain and with conservative update.
 */
final class CmsErrorExperiment extends Experiment {
  private static final double ZIPF_EXPONENT = 1.1;
  private static final long ABSENT_ITEMS = 100_000;

  private static final Scaled<Integer> SKETCHES = new Scaled<>(2_000, 10_000, 50_000);
  private static final Scaled<Integer> LENGTH = new Scaled<>(200_000, 1_000_000, 5_000_000);
  private static final Scaled<Integer> UNIVERSE = new Scaled<>(20_000, 100_000, 500_000);

  CmsErrorExperiment() {
    super("cms-error", "Count-min sketch error against epsilon N and delta");
  }

  @Override
  public String description(Lab lab) {
    return "Streams of N = "
        + Unit.COUNT.format(LENGTH.in(lab))
        + " items: Zipfian (exponent "
        + ZIPF_EXPONENT
        + ") and uniform over "
        + Unit.COUNT.format(UNIVERSE.in(lab))
        + " items. For each (epsilon, delta), a"
        + " sketch of w = ceil(e / epsilon) by d = ceil(ln(1 / delta)) counters, plain and with conservative"
        + " update, counts the stream; every item seen, and "
        + Unit.COUNT.format(ABSENT_ITEMS)
        + " never seen, is estimated and compared with its exact count. The seeds: no estimate falls"
        + " below the true count, and each exceeds it by more than epsilon N with probability at most"
        + " delta, whatever the number of distinct items (epsilon = 0.001, delta = 0.01: 5 rows of 2,719"
        + " counters). The dimensions are checked against ceil(e / epsilon) and the least d with e^-d <="
        + " delta, and the fraction above epsilon N is judged against the upper binomial quantile of delta"
        + " over the items estimated, both with the epsilon and delta requested (not those the sketch"
        + " reports). Conservative update never estimates above the plain sketch built with the same"
        + " hashing. Since delta only bounds the share, a last stream is built so that the share is known"
        + " exactly: "
        + Unit.COUNT.format(SKETCHES.in(lab))
        + " sketches of "
        + EXACT_ROWS
        + " rows of "
        + EXACT_WIDTH
        + " (hashing seeded apart) each count "
        + HEAVY
        + " heavy items "
        + HEAVY_COUNT
        + " times and "
        + LIGHT
        + " light items once; an absent item's estimate passes epsilon N exactly"
        + " when every row puts a heavy item in its counter, with probability q^d for q = 1 - (1 - 1/w)^"
        + HEAVY
        + " (a sketch that reads fewer rows, or rows that are not independent, does worse).";
  }

  private static final int EXACT_WIDTH = 64;
  private static final int EXACT_ROWS = 5;
  private static final int HEAVY = 20;
  private static final long HEAVY_COUNT = 1_000;
  private static final int LIGHT = 500;

  private static double[][] configs(Lab lab) {
    return lab.scale == Lab.Scale.TINY
        ? new double[][] {{0.01, 0.01}, {0.001, 0.01}}
        : new double[][] {{0.01, 0.01}, {0.001, 0.1}, {0.001, 0.01}, {0.0001, 0.01}};
  }

  /** Errors (estimate - truth) of one sketch over the items seen, then the absent ones. */
  private static long[] errors(CountMinSketch s, int[] counts) {
    int seen = 0;
    for (int c : counts) {
      seen += c > 0 ? 1 : 0;
    }
    long[] e = new long[seen + (int) ABSENT_ITEMS];
    int i = 0;
    for (int item = 0; item < counts.length; item++) {
      if (counts[item] > 0) {
        e[i++] = s.estimate(item) - counts[item];
      }
    }
    for (long a = 0; a < ABSENT_ITEMS; a++) {
      e[i++] = s.estimate(Measure.ABSENT + a);
    }
    return e;
  }

  @Override
  public void run(Lab lab, Section out) throws Exception {
    int n = LENGTH.in(lab);
    int u = UNIVERSE.in(lab);
    int[][] streams = new int[2][n];
    ZipfDistribution zipf =
        new ZipfDistribution(new Well19937c(lab.random(0xc0ffee11)), u, ZIPF_EXPONENT);
    SplittableRandom uniform = new SplittableRandom(lab.random(0x0c15e11aL));
    int[][] counts = new int[2][u];
    for (int i = 0; i < n; i++) {
      streams[0][i] = zipf.sample() - 1;
      streams[1][i] = uniform.nextInt(u);
      counts[0][streams[0][i]]++;
      counts[1][streams[1][i]]++;
    }
    String[] streamNames = {"Zipf " + ZIPF_EXPONENT, "uniform"};

    CountMinSketch seed = CountMinSketch.create(0.001, 0.01);
    out.checkExact(
        "width for epsilon = 0.001 (seed 000: 2,719 counters)",
        Unit.COUNT,
        seed.width(),
        2719,
        "ceil(e / 0.001)");
    out.checkExact(
        "depth for delta = 0.01 (seed 000: 5 rows)", Unit.INTEGER, seed.depth(), 5, "ceil(ln 100)");

    Table t =
        Table.of(
            "Error of the estimates (estimate - true count) over every item seen and "
                + Unit.COUNT.format(ABSENT_ITEMS)
                + " never seen, N = "
                + Unit.COUNT.format(n),
            "epsilon",
            Unit.NUMBER,
            "delta",
            Unit.NUMBER,
            "w x d",
            Unit.TEXT,
            "bytes",
            Unit.BYTES,
            "stream",
            Unit.TEXT,
            "update",
            Unit.TEXT,
            "mean error",
            Unit.NUMBER,
            "99th pct",
            Unit.COUNT,
            "max",
            Unit.COUNT,
            "epsilon N",
            Unit.COUNT,
            "share above epsilon N",
            Unit.PERCENT);
    long below = 0;
    long aboveEstimates = 0;
    long comparisons = 0;
    long[][] chartErrors = new long[4][];
    double chartEpsilonN = 0;
    for (double[] config : configs(lab)) {
      for (int st = 0; st < 2; st++) {
        CountMinSketch plain = CountMinSketch.create(config[0], config[1]);
        CountMinSketch conservative =
            CountMinSketch.create(
                config[0], config[1], HashStrategy.xxh3(), CountMinSketch.UpdateRule.CONSERVATIVE);
        if (st == 0) {
          out.checkExact(
              "width for epsilon " + Unit.sig(config[0]),
              Unit.COUNT,
              plain.width(),
              Theory.countMinWidth(config[0]),
              "ceil(e / epsilon)");
          out.checkExact(
              "depth for delta " + Unit.sig(config[1]),
              Unit.INTEGER,
              plain.depth(),
              Theory.countMinDepth(config[1]),
              "the least d with e^-d <= delta");
        }
        for (int item : streams[st]) {
          plain.add(item);
          conservative.add(item);
        }
        long[] ep = errors(plain, counts[st]);
        long[] ec = errors(conservative, counts[st]);
        // the guarantee asked for: epsilon and delta as requested, not as the sketch reports them
        double epsilonN = config[0] * n;
        for (int i = 0; i < ep.length; i++) {
          below += (ep[i] < 0 ? 1 : 0) + (ec[i] < 0 ? 1 : 0);
          aboveEstimates += ec[i] > ep[i] ? 1 : 0;
        }
        comparisons += ep.length;
        String dims = plain.width() + " x " + plain.depth();
        for (int rule = 0; rule < 2; rule++) {
          long[] e = rule == 0 ? ep : ec;
          long over = 0;
          double sum = 0;
          for (long x : e) {
            over += x > epsilonN ? 1 : 0;
            sum += x;
          }
          long[] sorted = e.clone();
          Arrays.sort(sorted);
          t.row(
              config[0],
              config[1],
              dims,
              plain.byteSize(),
              streamNames[st],
              rule == 0 ? "plain" : "conservative",
              sum / e.length,
              sorted[(int) Math.min(e.length - 1, Math.floor(0.99 * e.length))],
              sorted[e.length - 1],
              epsilonN,
              (double) over / e.length);
          if (rule == 0) {
            double bound = Stats.binomialUpper(e.length, config[1]);
            out.checkBound(
                "share of estimates above epsilon N, epsilon "
                    + Unit.sig(config[0])
                    + ", delta "
                    + Unit.sig(config[1])
                    + ", "
                    + streamNames[st],
                Unit.PERCENT,
                (double) over / e.length,
                config[1],
                bound / e.length,
                true,
                "the upper "
                    + Stats.pct(1 - (1 - Stats.CONFIDENCE) / 2)
                    + " binomial quantile of the requested delta over "
                    + Unit.COUNT.format(e.length)
                    + " items");
          }
          if (config[0] == 0.001 && config[1] == 0.01) {
            chartErrors[2 * st + rule] = sorted;
            chartEpsilonN = epsilonN;
          }
        }
      }
    }
    out.table(t);
    out.checkExact(
        "estimates below the true count, every sketch and item",
        Unit.COUNT,
        below,
        0,
        "a counter holds all of its item's arrivals");
    out.checkExact(
        "conservative estimates above the plain ones (same hashing), over "
            + Unit.COUNT.format(comparisons)
            + " items",
        Unit.COUNT,
        aboveEstimates,
        0,
        "conservative update only raises counters less");

    Chart chart =
        Chart.xy(
                "cms-error-ccdf",
                "Count-min sketch, epsilon = 0.001, delta = 0.01: share of"
                    + " estimates with error above x",
                "error / (epsilon N)",
                "share of items")
            .logY()
            .verticalMarker(1, "epsilon N");
    String[] labels = {
      "Zipf, plain", "Zipf, conservative", "uniform, plain", "uniform, conservative"
    };
    for (int c = 0; c < 4; c++) {
      long[] sorted = chartErrors[c];
      double[] x = new double[41];
      double[] y = new double[x.length];
      for (int i = 0; i < x.length; i++) {
        x[i] = i * 0.05;
        long threshold = (long) Math.floor(x[i] * chartEpsilonN);
        int first = upperBound(sorted, threshold);
        y[i] = (double) (sorted.length - first) / sorted.length;
      }
      chart.line(labels[c], x, y);
    }
    double[] dx = {0, 2};
    chart.dashedOwn("delta = 0.01", dx, new double[] {0.01, 0.01});
    out.chart(chart);
    exactExceedance(lab, out);
  }

  /**
   * The exceedance of epsilon N where it is known exactly (see the description): heavy items weigh
   * more than epsilon N each and the light ones less than it together, so a counter passes epsilon
   * N exactly when it holds a heavy item; one absent item is asked of each of many independent
   * sketches, so the count is Binomial(sketches, q^d).
   */
  private static void exactExceedance(Lab lab, Section out) {
    int sketches = SKETCHES.in(lab);
    long n = HEAVY * HEAVY_COUNT + LIGHT;
    double epsilonN = Math.E / EXACT_WIDTH * n;
    double q = 1 - Math.pow(1 - 1.0 / EXACT_WIDTH, HEAVY);
    double p = Math.pow(q, EXACT_ROWS);
    SplittableRandom seeds = new SplittableRandom(lab.random(0x510e527fade682d1L));
    long over = 0;
    for (int k = 0; k < sketches; k++) {
      CountMinSketch s =
          CountMinSketch.withDimensions(
              EXACT_WIDTH, EXACT_ROWS, HashStrategy.xxh3(seeds.nextLong()));
      for (int i = 0; i < HEAVY; i++) {
        s.add("heavy-" + i, HEAVY_COUNT);
      }
      for (int i = 0; i < LIGHT; i++) {
        s.add(i);
      }
      over += s.estimate(Measure.ABSENT) > epsilonN ? 1 : 0;
    }
    double[] accept = Stats.binomial(sketches, p);
    out.checkInterval(
        "absent items above epsilon N = "
            + Unit.COUNT.format(epsilonN)
            + ", one per sketch of "
            + EXACT_WIDTH
            + " x "
            + EXACT_ROWS
            + " (q^d, q = "
            + Unit.sig(q)
            + ")",
        Unit.PERCENT,
        (double) over / sketches,
        p,
        accept[0] / sketches,
        accept[1] / sketches,
        Stats.BINOMIAL + " of " + Unit.COUNT.format(sketches) + " sketches");
  }

  /** The index of the first element greater than {@code v} in a sorted array. */
  private static int upperBound(long[] sorted, long v) {
    int lo = 0;
    int hi = sorted.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (sorted[mid] <= v) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }
}
