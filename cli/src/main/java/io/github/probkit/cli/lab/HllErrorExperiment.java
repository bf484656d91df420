package io.github.probkit.cli.lab;

import io.github.probkit.cardinality.CardinalitySketch;
import io.github.probkit.cardinality.HyperLogLog;
import io.github.probkit.cardinality.UltraLogLog;
import io.github.probkit.cli.lab.Lab.Scaled;
import io.github.probkit.hash.HashStrategy;
import java.util.ArrayList;
import java.util.List;
import org.apache.commons.math3.distribution.ChiSquaredDistribution;
import org.apache.commons.math3.distribution.NormalDistribution;

/** hll-error: HyperLogLog and UltraLogLog relative error against n and against precision. */
final class HllErrorExperiment extends Experiment {
  private static final int PRECISION = 14;
  private static final HashStrategy HASH = HashStrategy.xxh3();

  private static final Scaled<Integer> TRIALS = new Scaled<>(20, 40, 100);
  private static final Scaled<Long> MAX_KEYS = new Scaled<>(10_000L, 1_000_000L, 10_000_000L);
  private static final Scaled<Long> SWEEP_KEYS = new Scaled<>(10_000L, 100_000L, 1_000_000L);
  private static final Scaled<Integer> MAX_PRECISION = new Scaled<>(10, 14, 16);

  HllErrorExperiment() {
    super("hll-error", "HyperLogLog and UltraLogLog relative error against n and precision");
  }

  @Override
  public String description(Lab lab) {
    return TRIALS.in(lab)
        + " independent sketches (disjoint key sets, XXH3) of each kind at precision "
        + PRECISION
        + " (m = 16,384 registers) are filled with 1 to "
        + Unit.COUNT.format(MAX_KEYS.in(lab))
        + " distinct keys"
        + " and read at each step of 1, 2, 5 per decade: the bias and the root-mean-square of the relative"
        + " error against the theory, 1.04/sqrt(m) for HyperLogLog and 0.761/sqrt(m) for UltraLogLog. The"
        + " RMSE is judged with the chi-square interval of "
        + TRIALS.in(lab)
        + " trials, the bias with the"
        + " normal one. Then precision 4 to "
        + MAX_PRECISION.in(lab)
        + " at n = "
        + Unit.COUNT.format(SWEEP_KEYS.in(lab))
        + " keys. The seeds: \"about 12 KB with ~2 % error\" (seed 004), read as 12 KB of registers and"
        + " estimates within 2 % of the truth about 99 % of the time (2.5 standard errors).";
  }

  /** 1, 2, 5, 10, 20, 50, ... up to max. */
  private static long[] checkpoints(long max) {
    List<Long> c = new ArrayList<>();
    for (long d = 1; d <= max; d *= 10) {
      for (int m : new int[] {1, 2, 5}) {
        if (m * d <= max) {
          c.add(m * d);
        }
      }
    }
    return c.stream().mapToLong(Long::longValue).toArray();
  }

  @Override
  public void run(Lab lab, Section out) throws Exception {
    int trials = TRIALS.in(lab);
    long[] points = checkpoints(MAX_KEYS.in(lab));
    // relative errors [sketch][checkpoint][trial]
    double[][][] err = new double[2][points.length][trials];
    double[] theory = new double[2];
    long denseBytes = 0;
    for (int t = 0; t < trials; t++) {
      HyperLogLog hll = HyperLogLog.create(PRECISION);
      UltraLogLog ull = UltraLogLog.create(PRECISION);
      long base = (long) t << 40;
      int next = 0;
      for (long i = 1; i <= points[points.length - 1]; i++) {
        long h = HASH.hash64(base + i);
        hll.addHash(h);
        ull.addHash(h);
        if (i == points[next]) {
          err[0][next][t] = hll.estimate() / i - 1;
          err[1][next][t] = ull.estimate() / i - 1;
          next++;
        }
      }
      // the papers' RSE, not the sketches' own
      theory[0] = Theory.HLL_RSE / Math.sqrt(1 << PRECISION);
      theory[1] = Theory.ULL_RSE / Math.sqrt(1 << PRECISION);
      denseBytes = hll.byteSize();
    }
    String[] names = {"HyperLogLog", "UltraLogLog"};
    Table t =
        Table.of(
            "Relative error against n, precision " + PRECISION + ", " + trials + " sketches each",
            "n",
            Unit.COUNT,
            "HLL bias",
            Unit.PERCENT,
            "HLL RMSE",
            Unit.PERCENT,
            "ULL bias",
            Unit.PERCENT,
            "ULL RMSE",
            Unit.PERCENT);
    double[] x = new double[points.length];
    double[][] rmse = new double[2][points.length];
    double[][] bias = new double[2][points.length];
    for (int c = 0; c < points.length; c++) {
      x[c] = points[c];
      for (int s = 0; s < 2; s++) {
        bias[s][c] = mean(err[s][c]);
        rmse[s][c] = rms(err[s][c]);
      }
      t.row(points[c], bias[0][c], rmse[0][c], bias[1][c], rmse[1][c]);
    }
    out.table(t);
    // judged where the asymptotic error holds: n of at least 6 m
    for (int c = 0; c < points.length; c++) {
      if (points[c] < 100_000) {
        continue;
      }
      for (int s = 0; s < 2; s++) {
        judge(out, names[s] + " at n = " + Unit.COUNT.format(points[c]), err[s][c], theory[s]);
      }
    }
    out.checkStated(
        "HyperLogLog memory at precision 14 (seed 004: about 12 KB)",
        Unit.BYTES,
        denseBytes,
        denseBytes,
        denseBytes,
        12e3,
        Stats.halfUnit(12e3, 2),
        "12 KB");
    int last = points.length - 1;
    int within = 0;
    for (double e : err[0][last]) {
      within += Math.abs(e) <= 0.02 ? 1 : 0;
    }
    double expected =
        2 * new NormalDistribution(null, 0, 1).cumulativeProbability(0.02 / theory[0]) - 1;
    double[] interval = Stats.binomial(trials, expected);
    out.checkInterval(
        "HyperLogLog estimates within 2 % at n = "
            + Unit.COUNT.format(points[last])
            + " (seed 004: ~2 % error)",
        Unit.PERCENT,
        (double) within / trials,
        expected,
        interval[0] / trials,
        interval[1] / trials,
        Stats.BINOMIAL + " of " + trials + " sketches");

    // the charts in percent
    double[] band = {100 * theory[0], 100 * theory[0]};
    double[] ullBand = {100 * theory[1], 100 * theory[1]};
    double[][] rmsePct = {percent(rmse[0]), percent(rmse[1])};
    double[] ends = {1, points[last]};
    out.chart(
        Chart.xy(
                "hll-error-n",
                "Relative error against n, precision " + PRECISION + " (" + trials + " sketches)",
                "distinct keys n",
                "RMSE of the relative error (%)")
            .logX()
            .points("HyperLogLog, measured", x, rmsePct[0], null, null)
            .dashed("1.04/sqrt(m) = " + Unit.PERCENT.format(theory[0]), ends, band)
            .points("UltraLogLog, measured", x, rmsePct[1], null, null)
            .dashed("0.761/sqrt(m) = " + Unit.PERCENT.format(theory[1]), ends, ullBand)
            .joinPoints());

    // against precision
    int maxP = MAX_PRECISION.in(lab);
    long n = SWEEP_KEYS.in(lab);
    int sweepTrials = lab.pick(20, 30, 50);
    int count = maxP - 3;
    double[] px = new double[count];
    double[][] prmse = new double[2][count];
    double[][] ptheory = new double[2][count];
    Table pt =
        Table.of(
            "Relative error against precision, n = "
                + Unit.COUNT.format(n)
                + ", "
                + sweepTrials
                + " sketches each",
            "precision",
            Unit.INTEGER,
            "registers",
            Unit.COUNT,
            "HLL bytes",
            Unit.BYTES,
            "HLL RMSE",
            Unit.PERCENT,
            "1.04/sqrt(m)",
            Unit.PERCENT,
            "ULL bytes",
            Unit.BYTES,
            "ULL RMSE",
            Unit.PERCENT,
            "0.761/sqrt(m)",
            Unit.PERCENT);
    for (int p = 4; p <= maxP; p++) {
      double[][] e = new double[2][sweepTrials];
      long[] bytes = new long[2];
      for (int tr = 0; tr < sweepTrials; tr++) {
        CardinalitySketch[] sketches = {HyperLogLog.create(p), UltraLogLog.create(p)};
        long base = ((long) (1000 + p * 100 + tr)) << 40;
        for (long i = 1; i <= n; i++) {
          long h = HASH.hash64(base + i);
          sketches[0].addHash(h);
          sketches[1].addHash(h);
        }
        for (int s = 0; s < 2; s++) {
          e[s][tr] = sketches[s].estimate() / n - 1;
          ptheory[s][p - 4] = (s == 0 ? Theory.HLL_RSE : Theory.ULL_RSE) / Math.sqrt(1 << p);
          bytes[s] = sketches[s].byteSize();
        }
      }
      px[p - 4] = p;
      for (int s = 0; s < 2; s++) {
        prmse[s][p - 4] = rms(e[s]);
      }
      pt.row(
          p,
          1L << p,
          bytes[0],
          prmse[0][p - 4],
          ptheory[0][p - 4],
          bytes[1],
          prmse[1][p - 4],
          ptheory[1][p - 4]);
      for (int s = 0; s < 2; s++) {
        judgeRmse(out, names[s] + " at precision " + p, e[s], ptheory[s][p - 4]);
      }
    }
    out.table(pt);
    out.chart(
        Chart.xy(
                "hll-error-precision",
                "Relative error against precision, n = " + Unit.COUNT.format(n),
                "precision p (m = 2^p registers)",
                "RMSE of the relative error (%)")
            .logY()
            .points("HyperLogLog, measured", px, percent(prmse[0]), null, null)
            .dashed("1.04/sqrt(m)", px, percent(ptheory[0]))
            .points("UltraLogLog, measured", px, percent(prmse[1]), null, null)
            .dashed("0.761/sqrt(m)", px, percent(ptheory[1])));
  }

  private static void judge(Section out, String what, double[] e, double sigma) {
    double m = mean(e);
    double half = Stats.Z * sigma / Math.sqrt(e.length);
    out.checkInterval(
        what + ": bias",
        Unit.PERCENT,
        m,
        0,
        -half,
        half,
        Stats.pct(Stats.CONFIDENCE) + " normal interval of the mean of " + e.length);
    judgeRmse(out, what + ": RMSE", e, sigma);
  }

  /** RMSE^2 * T / sigma^2 is chi-square with T degrees of freedom for unbiased normal errors. */
  private static void judgeRmse(Section out, String what, double[] e, double sigma) {
    ChiSquaredDistribution chi = new ChiSquaredDistribution(null, e.length);
    double tail = (1 - Stats.CONFIDENCE) / 2;
    double lo = sigma * Math.sqrt(chi.inverseCumulativeProbability(tail) / e.length);
    double hi = sigma * Math.sqrt(chi.inverseCumulativeProbability(1 - tail) / e.length);
    out.checkInterval(
        what,
        Unit.PERCENT,
        rms(e),
        sigma,
        lo,
        hi,
        Stats.pct(Stats.CONFIDENCE) + " chi-square interval of " + e.length + " sketches");
  }

  private static double[] percent(double[] v) {
    double[] out = new double[v.length];
    for (int i = 0; i < v.length; i++) {
      out[i] = 100 * v[i];
    }
    return out;
  }

  private static double mean(double[] v) {
    double s = 0;
    for (double x : v) {
      s += x;
    }
    return s / v.length;
  }

  private static double rms(double[] v) {
    double s = 0;
    for (double x : v) {
      s += x * x;
    }
    return Math.sqrt(s / v.length);
  }
}
