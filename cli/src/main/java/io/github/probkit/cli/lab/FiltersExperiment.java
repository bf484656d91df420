package io.github.probkit.cli.lab;

import io.github.probkit.cli.lab.Lab.Scaled;
import io.github.probkit.filter.BinaryFuseFilter;
import io.github.probkit.filter.BlockedBloomFilter;
import io.github.probkit.filter.BloomFilter;
import io.github.probkit.filter.CountingBloomFilter;
import io.github.probkit.filter.CuckooFilter;
import io.github.probkit.filter.MembershipFilter;
import io.github.probkit.filter.MutableFilter;
import io.github.probkit.filter.ScalableBloomFilter;
import java.util.ArrayList;
import java.util.List;

/**
 * filters: bits per key against the false-positive rate for every filter type, with the lower
 * bound.
 */
final class FiltersExperiment extends Experiment {
  private static final String[] TYPES = {
    "standard", "blocked", "counting", "cuckoo", "scalable", "binary fuse"
  };

  /** Slack for the blocked model's assumptions (uniform probes, Poisson loads): 1 % of the rate. */
  private static final double BLOCKED_MODEL = 0.01;

  private static final Scaled<Integer> KEYS = new Scaled<>(10_000, 100_000, 1_000_000);
  private static final Scaled<Long> QUERIES = new Scaled<>(200_000L, 1_000_000L, 5_000_000L);

  FiltersExperiment() {
    super("filters", "Bits per key against false-positive rate for every filter type");
  }

  @Override
  public String description(Lab lab) {
    return "Each filter type created for n = "
        + Unit.COUNT.format(KEYS.in(lab))
        + " keys (consecutive integers) at"
        + " target rates from 10 % down, queried with "
        + Unit.COUNT.format(QUERIES.in(lab))
        + " absent keys: its"
        + " table's bits per key (bitSize / n) against the measured rate, each judged against the theory"
        + " of its type, computed by the lab (not by the filter) from the requested n and p where the"
        + " sizing is a formula. Standard and counting Bloom: (1 - e^(-kn/m))^k with m = ceil(-n ln p /"
        + " (ln 2)^2) and k = round(m/n ln 2) (a counting filter answers as a Bloom filter of its m"
        + " counters, in 4 bits each). Blocked Bloom: the exact Poisson mixture over the loads of its"
        + " 512-bit blocks. Cuckoo: 1 - (1 - 1/(2^f - 1))^(8a) at load a, f the least with 8 / (2^f - 1)"
        + " <= p. Scalable (started at n/8 keys, growing by doubling): 1 - the product over its layers of"
        + " (1 - rate of the layer), where a layer that stored c keys took the n offered keys with"
        + " n - (integral of the rate from 0 to n) = c, since a key it already reports present is not"
        + " stored and sets no bit. Each is also judged against the requested p itself: at most p,"
        + " within the upper binomial quantile. Binary fuse: 2^-f for f-bit fingerprints. No filter can"
        + " beat log2(1/p) bits per key (Carter et al. 1978); a Bloom filter needs 1/ln 2 = 1.44 times that.";
  }

  private static double[] targets(Lab lab) {
    return lab.scale == Lab.Scale.FULL
        ? new double[] {0.1, 0.03, 0.01, 0.003, 0.001, 0.0003, 0.0001}
        : new double[] {0.1, 0.01, 0.001};
  }

  @Override
  public void run(Lab lab, Section out) throws Exception {
    int n = KEYS.in(lab);
    long q = QUERIES.in(lab);
    double[] targets = targets(lab);
    Table t =
        Table.of(
            Table.fprTitle("Bits per key and false-positive rate", n, q),
            "filter",
            Unit.TEXT,
            "target",
            Unit.PERCENT,
            "bits/key",
            Unit.NUMBER,
            "measured",
            Unit.PERCENT,
            "theory",
            Unit.PERCENT,
            "bits/key over log2(1/p)",
            Unit.NUMBER);
    List<double[]> series = new ArrayList<>();
    for (String type : TYPES) {
      List<double[]> points = new ArrayList<>();
      if (type.equals("binary fuse")) {
        long[] keys = new long[n];
        for (int i = 0; i < n; i++) {
          keys[i] = i;
        }
        for (BinaryFuseFilter.FingerprintBits bits : BinaryFuseFilter.FingerprintBits.values()) {
          BinaryFuseFilter f = BinaryFuseFilter.ofLongs(keys, bits);
          double theory = Math.pow(2, -bits.bits());
          double[] c = Stats.binomial(q, theory);
          points.add(
              measure(
                  out,
                  t,
                  type,
                  theory,
                  f,
                  n,
                  q,
                  theory,
                  c[0] / q,
                  c[1] / q,
                  Stats.BINOMIAL + " of " + Unit.COUNT.format(q) + " queries"));
        }
      } else {
        for (double target : targets) {
          points.add(measure(out, t, type, target, n, q));
        }
      }
      series.add(flatten(points));
    }
    out.table(t);

    BloomFilter onePercent = BloomFilter.create(n, 0.01);
    double ratio = (double) onePercent.bitSize() / n / (Math.log(100) / Math.log(2));
    out.checkStated(
        "standard filter at 1 %: bits per key over log2(1/p) (seed 001: m/n = 1.44 log2(1/p))",
        Unit.NUMBER, ratio, ratio, ratio, 1.44, Stats.halfUnit(1.44, 3), "1.44");

    // the theory lines down to a little below the lowest measured rate
    double lowest = 1;
    for (double[] sr : series) {
      for (int j = 1; j < sr.length; j += 4) {
        lowest = sr[j] > 0 ? Math.min(lowest, sr[j]) : lowest;
      }
    }
    int points = 0;
    while (Math.pow(2, -(1 + points * 0.25)) > lowest / 5) {
      points++;
    }
    double[] bx = new double[points];
    double[] bound = new double[points];
    double[] bloom = new double[points];
    for (int i = 0; i < points; i++) {
      bx[i] = 1 + i * 0.25;
      bound[i] = Math.pow(2, -bx[i]);
      bloom[i] = Math.exp(-bx[i] * Math.log(2) * Math.log(2));
    }
    Chart chart =
        Chart.xy(
                "filters-bits",
                "Filters: bits per key against false-positive rate",
                "bits per key (bitSize / n)",
                "false-positive rate")
            .logY();
    for (int i = 0; i < TYPES.length; i++) {
      double[] s = series.get(i);
      int k = s.length / 4;
      double[] x = new double[k];
      double[] y = new double[k];
      double[] lo = new double[k];
      double[] hi = new double[k];
      for (int j = 0; j < k; j++) {
        x[j] = s[4 * j];
        y[j] = s[4 * j + 1];
        lo[j] = s[4 * j + 2];
        hi[j] = s[4 * j + 3];
      }
      chart.points(TYPES[i], x, y, lo, hi);
    }
    chart
        .dashedOwn("Bloom optimum e^(-(m/n)(ln 2)^2)", bx, bloom)
        .line("lower bound 2^(-bits/key)", bx, bound);
    out.chart(chart);
  }

  private static double[] flatten(List<double[]> points) {
    double[] out = new double[4 * points.size()];
    for (int i = 0; i < points.size(); i++) {
      System.arraycopy(points.get(i), 0, out, 4 * i, 4);
    }
    return out;
  }

  /** Builds one filter of {@code type} for {@code target}, measures it and judges it. */
  private static double[] measure(Section out, Table t, String type, double target, int n, long q) {
    String why = Stats.BINOMIAL + " of " + Unit.COUNT.format(q) + " queries";
    double[] point;
    switch (type) {
      case "standard":
      case "counting":
        {
          long m = Theory.bloomBits(n, target);
          int k = Theory.bloomHashes(m, n);
          MembershipFilter f =
              type.equals("standard")
                  ? BloomFilter.create(n, target)
                  : CountingBloomFilter.create(n, target);
          Measure.addRange((MutableFilter) f, out.lab.key(0), n);
          double theory = Theory.bloomRate(m, n, k);
          double[] a = Stats.filterFpr(q, theory, m, n, k);
          point = measure(out, t, type, target, f, n, q, theory, a[0], a[1], why + " + fill");
          break;
        }
      case "blocked":
        {
          BlockedBloomFilter f = BlockedBloomFilter.create(n, target);
          Measure.addRange(f, out.lab.key(0), n);
          double[] b = Theory.blocked(f.blockCount(), n, f.hashCount());
          double[] c = Stats.binomial(q, b[0]);
          double spread = Stats.Z * b[1] + BLOCKED_MODEL * b[0];
          point =
              measure(
                  out,
                  t,
                  type,
                  target,
                  f,
                  n,
                  q,
                  b[0],
                  Math.max(0, c[0] / q - spread),
                  c[1] / q + spread,
                  why + " + block loads + 1 % model");
          break;
        }
      case "cuckoo":
        {
          CuckooFilter f = CuckooFilter.create(n, target);
          Measure.addRange(f, out.lab.key(0), n);
          double theory =
              Theory.cuckooRate(Theory.cuckooFingerprintBits(target), n / (4.0 * f.bucketCount()));
          double[] c = Stats.binomial(q, theory);
          point = measure(out, t, type, target, f, n, q, theory, c[0] / q, c[1] / q, why);
          break;
        }
      case "scalable":
        {
          ScalableBloomFilter f = ScalableBloomFilter.create(Math.max(1, n / 8), target);
          Measure.addRange(f, out.lab.key(0), n);
          double none = 1;
          double variance = 0;
          for (ScalableBloomFilter.LayerInfo l : f.layers()) {
            // A layer stores only keys no layer reports present: it fills as if it took more.
            long offered = Math.round(Theory.offeredKeys(l.bits(), l.keys(), l.hashes()));
            double p = Theory.storedOnlyRate(l.bits(), l.keys(), l.hashes());
            none *= 1 - p;
            double sd = Stats.fillSd(p, l.bits(), offered, l.hashes());
            variance += sd * sd;
          }
          double theory = 1 - none;
          double[] c = Stats.binomial(q, theory);
          double spread = Stats.Z * Math.sqrt(variance);
          point =
              measure(
                  out,
                  t,
                  type,
                  target,
                  f,
                  n,
                  q,
                  theory,
                  Math.max(0, c[0] / q - spread),
                  c[1] / q + spread,
                  why + " + fill (" + f.layerCount() + " layers)");
          break;
        }
      default:
        throw new IllegalStateException("no filter type " + type);
    }
    out.checkBound(
        type + " filter for " + Unit.PERCENT.format(target) + ": at most the requested rate",
        Unit.PERCENT,
        point[1],
        target,
        Stats.binomialUpper(q, target) / q,
        true,
        "the requested rate's upper "
            + Stats.pct(1 - (1 - Stats.CONFIDENCE) / 2)
            + " binomial quantile");
    return point;
  }

  /** Records, judges and returns {bits/key, measured, interval low, interval high}. */
  private static double[] measure(
      Section out,
      Table t,
      String type,
      double target,
      MembershipFilter f,
      int n,
      long q,
      double theory,
      double lo,
      double hi,
      String why) {
    long fp = Measure.positives(f, out.lab.key(Measure.ABSENT), q);
    double rate = (double) fp / q;
    double bits = (double) f.bitSize() / n;
    t.row(
        type,
        target,
        bits,
        rate,
        theory,
        rate > 0 ? bits / (Math.log(1 / rate) / Math.log(2)) : Double.NaN);
    out.checkInterval(
        type + " filter for " + Unit.PERCENT.format(target) + " (" + Unit.sig(bits) + " bits/key)",
        Unit.PERCENT,
        rate,
        theory,
        lo,
        hi,
        why);
    double[] ci = Stats.wilson(fp, q);
    return new double[] {bits, rate, ci[0], ci[1]};
  }
}
