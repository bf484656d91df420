package io.github.probkit.cli.lab;

import io.github.probkit.cli.lab.Lab.Scaled;
import io.github.probkit.filter.BloomFilter;
import io.github.probkit.filter.CountingBloomFilter;
import io.github.probkit.filter.CuckooFilter;

/**
 * deletion: counting Bloom and cuckoo filters under add/remove churn: no false negatives, a steady
 * false-positive rate, and their memory against the plain filter.
 */
final class DeletionExperiment extends Experiment {
  private static final double FPP = 0.01;
  private static final int ROUNDS = 10;

  /** The share of the live keys replaced in each round. */
  private static final double CHURN = 0.1;

  private static final Scaled<Integer> KEYS = new Scaled<>(10_000, 100_000, 1_000_000);
  private static final Scaled<Long> QUERIES = new Scaled<>(100_000L, 500_000L, 2_000_000L);

  DeletionExperiment() {
    super("deletion", "Counting and cuckoo filters under add/remove churn");
  }

  @Override
  public String description(Lab lab) {
    int n = KEYS.in(lab);
    return "A counting Bloom filter, a cuckoo filter and a plain Bloom filter, each created for n = "
        + Unit.COUNT.format(n)
        + " keys at 1 %, are filled with n keys; then in each of "
        + ROUNDS
        + " rounds the oldest "
        + Math.round(100 * CHURN)
        + " % of the live keys are removed and as many"
        + " new keys added. The plain filter cannot remove, so it only adds. After every round all live"
        + " keys are queried (a deletable filter must never lose one), and "
        + Unit.COUNT.format(QUERIES.in(lab))
        + " never-added keys and every removed key measure the false-positive rate. Theory: a counting"
        + " filter answers exactly as a Bloom filter of its live keys, (1 - e^(-kn/m))^k; a cuckoo filter"
        + " at load a with f-bit fingerprints gives 1 - (1 - 1/(2^f - 1))^(8a); the plain filter's rate"
        + " climbs with every key ever added. The seeds: a counting filter can delete \"at about four"
        + " times the memory\".";
  }

  @Override
  public void run(Lab lab, Section out) throws Exception {
    int n = KEYS.in(lab);
    long q = QUERIES.in(lab);
    int churn = (int) Math.round(CHURN * n);
    CountingBloomFilter counting = CountingBloomFilter.create(n, FPP);
    CuckooFilter cuckoo = CuckooFilter.create(n, FPP);
    BloomFilter plain = BloomFilter.create(n, FPP);
    long failedAdds = 0;
    for (long key = lab.key(0); key < lab.key(n); key++) {
      counting.add(key);
      failedAdds += cuckoo.add(key) ? 0 : 1;
      plain.add(key);
    }
    Table t =
        Table.of(
            "False-positive rate under churn: each round removes the oldest "
                + Unit.COUNT.format(churn)
                + " keys and adds "
                + Unit.COUNT.format(churn)
                + " new ones; "
                + Unit.COUNT.format(q)
                + " never-added keys queried per round",
            "round",
            Unit.INTEGER,
            "keys ever added",
            Unit.COUNT,
            "counting",
            Unit.PERCENT,
            "theory",
            Unit.PERCENT,
            "cuckoo",
            Unit.PERCENT,
            "theory",
            Unit.PERCENT,
            "cuckoo load",
            Unit.PERCENT,
            "plain (no removal)",
            Unit.PERCENT,
            "theory",
            Unit.PERCENT,
            "false negatives",
            Unit.COUNT);
    double[] x = new double[ROUNDS + 1];
    double[][] measured = new double[3][ROUNDS + 1];
    double[][] theory = new double[3][ROUNDS + 1];
    long falseNegatives = 0;
    long absentFrom = lab.key(Measure.ABSENT);
    // The shape the requested n and FPP prescribe (seed 001's formulas), not the filter's own.
    long m = Theory.bloomBits(n, FPP);
    int k = Theory.bloomHashes(m, n);
    int fingerprintBits = Theory.cuckooFingerprintBits(FPP);
    double[] last = new double[6];
    for (int round = 0; round <= ROUNDS; round++) {
      if (round > 0) {
        long oldest = lab.key((long) (round - 1) * churn);
        long next = lab.key(n + (long) (round - 1) * churn);
        for (long i = 0; i < churn; i++) {
          counting.remove(oldest + i);
          cuckoo.remove(oldest + i);
          counting.add(next + i);
          failedAdds += cuckoo.add(next + i) ? 0 : 1;
          plain.add(next + i);
        }
      }
      long live = (long) round * churn;
      long missed =
          (n - Measure.positives(counting, lab.key(live), n))
              + (n - Measure.positives(cuckoo, lab.key(live), n));
      falseNegatives += missed;
      long ever = n + live;
      long fc = Measure.positives(counting, absentFrom, q);
      long fk = Measure.positives(cuckoo, absentFrom, q);
      long fp = Measure.positives(plain, absentFrom, q);
      absentFrom += q;
      double tc = Theory.bloomRate(m, n, k);
      double tk =
          Theory.cuckooRate(fingerprintBits, (double) cuckoo.size() / (4 * cuckoo.bucketCount()));
      double tp = Theory.bloomRate(m, ever, k);
      t.row(
          round,
          ever,
          (double) fc / q,
          tc,
          (double) fk / q,
          tk,
          cuckoo.load(),
          (double) fp / q,
          tp,
          missed);
      x[round] = round;
      measured[0][round] = (double) fc / q;
      measured[1][round] = (double) fk / q;
      measured[2][round] = (double) fp / q;
      theory[0][round] = tc;
      theory[1][round] = tk;
      theory[2][round] = tp;
      last = new double[] {fc, tc, fk, tk, fp, tp};
    }
    out.table(t);
    out.checkExact(
        "false negatives of the counting and cuckoo filters, all live keys after every round",
        Unit.COUNT,
        falseNegatives,
        0,
        "a removed key's cells are its own");
    out.checkExact(
        "cuckoo adds refused (table full)", Unit.COUNT, failedAdds, 0, "load stays at 90 %");
    String why = Stats.BINOMIAL + " of " + Unit.COUNT.format(q) + " queries";
    double[] a = Stats.filterFpr(q, last[1], m, n, k);
    out.checkInterval(
        "counting filter FPR after " + ROUNDS + " rounds",
        Unit.PERCENT,
        last[0] / q,
        last[1],
        a[0],
        a[1],
        why + " + fill");
    double[] c = Stats.binomial(q, last[3]);
    out.checkInterval(
        "cuckoo filter FPR after " + ROUNDS + " rounds",
        Unit.PERCENT,
        last[2] / q,
        last[3],
        c[0] / q,
        c[1] / q,
        why);
    long ever = n + (long) ROUNDS * churn;
    double[] p = Stats.filterFpr(q, last[5], m, ever, k);
    out.checkInterval(
        "plain filter FPR after "
            + ROUNDS
            + " rounds ("
            + Unit.COUNT.format(ever)
            + " keys, never removed)",
        Unit.PERCENT,
        last[4] / q,
        last[5],
        p[0],
        p[1],
        why + " + fill");

    // Removed keys must answer like keys never added.
    long removed = (long) ROUNDS * churn;
    long rc = Measure.positives(counting, lab.key(0), removed);
    long rk = Measure.positives(cuckoo, lab.key(0), removed);
    a = Stats.filterFpr(removed, last[1], m, n, k);
    out.checkInterval(
        "counting filter: removed keys reported present",
        Unit.PERCENT,
        (double) rc / removed,
        last[1],
        a[0],
        a[1],
        Stats.BINOMIAL + " of " + Unit.COUNT.format(removed) + " removed keys + fill");
    c = Stats.binomial(removed, last[3]);
    out.checkInterval(
        "cuckoo filter: removed keys reported present",
        Unit.PERCENT,
        (double) rk / removed,
        last[3],
        c[0] / removed,
        c[1] / removed,
        Stats.BINOMIAL + " of " + Unit.COUNT.format(removed) + " removed keys");

    Table mem =
        Table.of(
            "Memory for " + Unit.COUNT.format(n) + " keys at 1 %",
            "filter",
            Unit.TEXT,
            "bytes",
            Unit.BYTES,
            "bits/key",
            Unit.NUMBER,
            "against the plain filter",
            Unit.TIMES,
            "can remove",
            Unit.TEXT);
    mem.row("plain Bloom", plain.byteSize(), 8.0 * plain.byteSize() / n, 1.0, "no");
    mem.row(
        "counting Bloom (4-bit counters)",
        counting.byteSize(),
        8.0 * counting.byteSize() / n,
        (double) counting.byteSize() / plain.byteSize(),
        "yes");
    mem.row(
        "cuckoo (" + cuckoo.fingerprintBits() + "-bit fingerprints, 90 % load)",
        cuckoo.byteSize(),
        8.0 * cuckoo.byteSize() / n,
        (double) cuckoo.byteSize() / plain.byteSize(),
        "yes");
    out.table(mem);
    double ratio = (double) counting.byteSize() / plain.byteSize();
    out.checkStated(
        "counting filter memory against the plain one (seed 000: about four times)",
        Unit.TIMES,
        ratio,
        ratio,
        ratio,
        4,
        Stats.halfUnit(4, 1),
        "4x");

    out.chart(
        Chart.xy(
                "deletion-fpr",
                "False-positive rate under churn ("
                    + Math.round(100 * CHURN)
                    + " % of the keys replaced per round)",
                "round",
                "false-positive rate")
            .logY()
            .points("counting Bloom, measured", x, measured[0], null, null)
            .dashed("counting Bloom, theory", x, theory[0])
            .points("cuckoo, measured", x, measured[1], null, null)
            .dashed("cuckoo, theory", x, theory[1])
            .points("plain Bloom (cannot remove), measured", x, measured[2], null, null)
            .dashed("plain Bloom, theory", x, theory[2]));
  }
}
