package io.github.probkit.cli.lab;

import io.github.probkit.Concurrency;
import io.github.probkit.cardinality.HyperLogLog;
import io.github.probkit.cardinality.WindowedCardinality;
import io.github.probkit.cli.lab.Lab.Scaled;
import io.github.probkit.filter.AgePartitionedBloomFilter;
import io.github.probkit.filter.AgePartitionedBloomFilter.Layout;
import io.github.probkit.filter.BloomFilter;
import io.github.probkit.frequency.HeavyHitters;
import io.github.probkit.frequency.WindowedHeavyHitters;
import io.github.probkit.hash.HashStrategy;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * window: a Zipf stream with Poisson arrival times through the window filter (both layouts),
 * WindowedCardinality and WindowedHeavyHitters, every answer compared with an exact sliding window
 * over the same events.
 */
final class WindowExperiment extends Experiment {
  private static final double FPP = 0.01;
  private static final long WINDOW_MS = Duration.ofHours(1).toMillis();
  private static final int WINDOWS = 8;
  private static final double ZIPF = 1.0;
  private static final int SLICES = 12;
  private static final int TOP = 10;
  private static final int CAPACITY = 200;
  private static final int PRECISION = 12;
  private static final long T0 = 1_700_000_000_000L;

  /** The filters are sized for this many times the mean events per window (Poisson bursts). */
  private static final double HEADROOM = 1.25;

  private static final Scaled<Integer> PER_WINDOW = new Scaled<>(2_000, 20_000, 200_000);

  WindowExperiment() {
    super(
        "window",
        "Sliding windows by time: filter, distinct count and top-k against an exact window");
  }

  @Override
  public String description(Lab lab) {
    return "A stream of "
        + Unit.COUNT.format((long) WINDOWS * PER_WINDOW.in(lab))
        + " events over "
        + WINDOWS
        + " one-hour windows ("
        + Unit.COUNT.format(PER_WINDOW.in(lab))
        + " per hour on average, Poisson arrivals), keys drawn from a Zipf("
        + ZIPF
        + ") distribution over "
        + Unit.COUNT.format(universe(lab))
        + " keys, so that keys repeat at every distance. It goes through a time-based window filter"
        + " of 1 h at p = 1 % in both layouts (sliced, type 48; blocked, type 51), sized for "
        + HEADROOM
        + " times the mean keys per hour; a WindowedCardinality of HyperLogLog("
        + PRECISION
        + ") per 5-minute slice; and a WindowedHeavyHitters of capacity "
        + CAPACITY
        + " per slice. After every event the filters are asked for a key of the exact last hour"
        + " (must be present), a key never added, and a key last seen more than an hour ago (by how"
        + " long: the slack); every half hour the distinct count and the top "
        + TOP
        + " of the last hour are compared with exact ones over the same slices. The APBF paper"
        + " (Shtul, Baquero, Almeida 2020): no false negative inside the window, the rate at most p"
        + " beyond the window plus the slack of k generations, (k + l) k / (l ln 2) bits per key.";
  }

  private static int universe(Lab lab) {
    return 5 * PER_WINDOW.in(lab);
  }

  @Override
  public void run(Lab lab, Section out) throws Exception {
    int w = PER_WINDOW.in(lab);
    int n = WINDOWS * w;
    SplittableRandom rnd = new SplittableRandom(lab.random(0x57AE_11D0_0B5EL));
    long[] keys = zipf(rnd, n, universe(lab), lab);
    long[] times = new long[n];
    double meanGap = (double) WINDOW_MS / w;
    double elapsed = 0;
    for (int i = 0; i < n; i++) {
      elapsed += -meanGap * Math.log(1 - rnd.nextDouble());
      times[i] = T0 + (long) elapsed;
    }
    long expected = Math.round(HEADROOM * w);
    Layout[] layouts = Layout.values();
    AgePartitionedBloomFilter[] f = new AgePartitionedBloomFilter[layouts.length];
    for (int j = 0; j < layouts.length; j++) {
      f[j] =
          AgePartitionedBloomFilter.create(
              Duration.ofMillis(WINDOW_MS),
              expected,
              FPP,
              HashStrategy.xxh3(),
              Clock.systemUTC(),
              Concurrency.SINGLE_WRITER,
              layouts[j]);
    }
    long generation = f[0].generationMillis();
    int k = f[0].hashCount();
    Duration window = Duration.ofMillis(WINDOW_MS);
    Duration slice = Duration.ofMillis(WINDOW_MS / SLICES);
    WindowedCardinality distinct =
        WindowedCardinality.create(window, slice, HyperLogLog.create(PRECISION));
    WindowedHeavyHitters top = WindowedHeavyHitters.create(window, slice, CAPACITY);

    Map<Long, Long> lastSeen = new HashMap<>();
    long[] inWindowMisses = new long[layouts.length];
    long[] neverFp = new long[layouts.length];
    long[] oldFp = new long[layouts.length];
    long[][] slackFp = new long[layouts.length][k + 2];
    long[] slackQueries = new long[k + 2];
    long neverQueries = 0;
    long oldQueries = 0;
    long inWindowQueries = 0;
    long absent = lab.key(Measure.ABSENT);
    long slack = f[0].slack();
    int from = 0; // the oldest event of the exact last hour
    Table counts =
        Table.of(
            "The last hour every half hour: distinct keys and top " + TOP + " against exact",
            "hour",
            Unit.NUMBER,
            "events",
            Unit.COUNT,
            "exact distinct",
            Unit.COUNT,
            "estimate",
            Unit.COUNT,
            "error",
            Unit.PERCENT,
            "exact top " + TOP + " found",
            Unit.COUNT,
            "counts outside their bounds",
            Unit.COUNT);
    double worstError = 0;
    long topMissing = 0;
    long boundViolations = 0;
    int checkpoints = 0;
    long nextCheck = T0 + WINDOW_MS;
    double rse = Theory.HLL_RSE / Math.sqrt(1 << PRECISION);
    for (int i = 0; i < n; i++) {
      long now = times[i];
      long key = keys[i];
      for (AgePartitionedBloomFilter x : f) {
        x.add(key, now);
      }
      distinct.add(key, now);
      top.add(key, 1, now);
      lastSeen.put(key, now);
      while (now - times[from] >= WINDOW_MS) {
        from++;
      }
      if (now < T0 + WINDOW_MS) {
        continue;
      }
      long inside = keys[from + rnd.nextInt(i - from + 1)];
      long never = absent++;
      long older = keys[rnd.nextInt(from + 1)];
      long age = now - lastSeen.get(older);
      int bucket = -1;
      if (age >= WINDOW_MS) {
        long past = age - WINDOW_MS;
        bucket = past >= slack ? -2 : (int) (past / generation);
      }
      inWindowQueries++;
      neverQueries++;
      if (bucket == -2) {
        oldQueries++;
      } else if (bucket >= 0) {
        slackQueries[bucket]++;
      }
      for (int j = 0; j < f.length; j++) {
        inWindowMisses[j] += f[j].mightContain(inside, now) ? 0 : 1;
        neverFp[j] += f[j].mightContain(never, now) ? 1 : 0;
        if (bucket == -2) {
          oldFp[j] += f[j].mightContain(older, now) ? 1 : 0;
        } else if (bucket >= 0) {
          slackFp[j][bucket] += f[j].mightContain(older, now) ? 1 : 0;
        }
      }
      if (now >= nextCheck) {
        nextCheck += WINDOW_MS / 2;
        checkpoints++;
        // The sketches count whole slices: the exact window is every event of those slices.
        long firstSlice = Math.floorDiv(now - WINDOW_MS, slice.toMillis());
        Map<Long, Long> exact = new HashMap<>();
        int events = 0;
        for (int e = i; e >= 0 && Math.floorDiv(times[e], slice.toMillis()) >= firstSlice; e--) {
          exact.merge(keys[e], 1L, Long::sum);
          events++;
        }
        double estimate = distinct.count(window, now);
        double error = estimate / exact.size() - 1;
        worstError = Math.max(worstError, Math.abs(error));
        HeavyHitters summary = top.summaryOfLast(window, now);
        Set<Long> reported = new HashSet<>();
        long violations = 0;
        for (HeavyHitters.Entry e : summary.entries()) {
          long item = ByteBuffer.wrap(e.item()).order(ByteOrder.LITTLE_ENDIAN).getLong();
          long truth = exact.getOrDefault(item, 0L);
          if (truth > e.count() || truth < e.count() - e.error()) {
            violations++;
          }
          reported.add(item);
        }
        int found = 0;
        for (long item : exactTop(exact, TOP)) {
          if (reported.contains(item)) {
            found++;
          } else if (exact.get(item) > (long) events / CAPACITY) {
            topMissing++; // Space-Saving keeps every item above N / capacity
          }
        }
        boundViolations += violations;
        counts.row(
            (now - T0) / (double) WINDOW_MS,
            events,
            exact.size(),
            Math.round(estimate),
            error,
            found,
            violations);
      }
    }

    Table t =
        Table.of(
            "Window filter, 1 h at p = 1 %, sized for "
                + Unit.COUNT.format(expected)
                + " keys per hour: "
                + Unit.COUNT.format(inWindowQueries)
                + " queries of each kind",
            "layout",
            Unit.TEXT,
            "in-window keys absent",
            Unit.COUNT,
            "never-added FPR",
            Unit.PERCENT,
            "FPR past window + slack",
            Unit.PERCENT,
            "expected FPR from the fill, at the end",
            Unit.PERCENT,
            "bytes",
            Unit.BYTES);
    for (int j = 0; j < f.length; j++) {
      t.row(
          layouts[j].name().toLowerCase(java.util.Locale.ROOT),
          inWindowMisses[j],
          (double) neverFp[j] / neverQueries,
          oldQueries == 0 ? 0.0 : (double) oldFp[j] / oldQueries,
          f[j].expectedFpp(),
          f[j].byteSize());
    }
    out.table(t);
    for (int j = 0; j < f.length; j++) {
      String name = layouts[j].name().toLowerCase(java.util.Locale.ROOT);
      out.checkExact(
          name + " window filter: keys of the exact last hour reported absent",
          Unit.COUNT,
          inWindowMisses[j],
          0,
          "the window's promise");
      checkFalsePositives(
          out,
          name + " window filter: never-added keys reported present",
          neverFp[j],
          neverQueries);
      if (oldQueries > 0) {
        checkFalsePositives(
            out,
            name + " window filter: keys last seen more than window + slack ago reported present",
            oldFp[j],
            oldQueries);
      }
    }
    memory(out);

    Table s =
        Table.of(
            "The slack: keys last seen j generations ("
                + Unit.COUNT.format(generation / 1000)
                + " s each) past the window, reported present",
            "generations past",
            Unit.INTEGER,
            "queries",
            Unit.COUNT,
            "sliced",
            Unit.PERCENT,
            "blocked",
            Unit.PERCENT,
            "about p + 2^-(j+1)",
            Unit.PERCENT);
    List<Double> xs = new ArrayList<>();
    List<double[]> ys = new ArrayList<>();
    for (int b = 0; b < k; b++) {
      if (slackQueries[b] == 0) {
        continue;
      }
      // Each generation past the window clears one more of the key's k slices.
      double theory = Math.min(1, FPP + Math.pow(2, -(b + 1)));
      double[] rates = new double[f.length];
      for (int j = 0; j < f.length; j++) {
        rates[j] = (double) slackFp[j][b] / slackQueries[b];
      }
      s.row(b, slackQueries[b], rates[0], rates[1], theory);
      xs.add((double) b);
      ys.add(new double[] {rates[0], rates[1], theory});
    }
    out.table(s);
    out.note(
        "The slack is k = "
            + k
            + " generations ("
            + Unit.COUNT.format(slack / 60_000)
            + " min): past it every slice a key was written to has been cleared, so it is"
            + " reported present at the rate of a never-added key (checked above).");

    out.table(counts);
    out.checkBound(
        "windowed distinct count: largest relative error of " + checkpoints + " windows",
        Unit.PERCENT,
        worstError,
        rse,
        Stats.Z * rse,
        true,
        "HyperLogLog("
            + PRECISION
            + ")'s standard error times "
            + String.format(java.util.Locale.ROOT, "%.2f", Stats.Z));
    out.checkExact(
        "windowed top-k: counts outside [count - error, count] of the exact window",
        Unit.COUNT,
        boundViolations,
        0,
        "Space-Saving's bounds, slice by slice");
    out.checkExact(
        "windowed top-k: exact top " + TOP + " items above N / capacity missing from the summary",
        Unit.COUNT,
        topMissing,
        0,
        "Space-Saving keeps every item above N / m");

    double[] x = new double[xs.size()];
    double[][] y = new double[3][xs.size()];
    for (int i = 0; i < x.length; i++) {
      x[i] = xs.get(i);
      for (int j = 0; j < 3; j++) {
        y[j][i] = Math.max(ys.get(i)[j], 1e-5);
      }
    }
    double[] p = new double[x.length];
    Arrays.fill(p, FPP);
    out.chart(
        Chart.xy(
                "window-slack",
                "Keys last seen j generations past the window, reported present",
                "generations past the window",
                "reported present")
            .logY()
            .points("sliced (type 48), measured", x, y[0], null, null)
            .points("blocked (type 51), measured", x, y[1], null, null)
            .dashed("p + 2^-(j+1)", x, y[2])
            .dashed("p", x, p));
  }

  /**
   * Bits per key of a window of 10^6 keys (large enough that rounding slices to 64 bits does not
   * count): both layouts against the paper's (k + l) k / (l ln 2) and a rotating pair of Bloom
   * filters, each of the window at p / 2 since a query asks both.
   */
  /** A window filter's false positives among {@code queries}, at most the filter's rate. */
  private static void checkFalsePositives(Section out, String label, long fp, long queries) {
    out.checkBound(
        label,
        Unit.PERCENT,
        (double) fp / queries,
        FPP,
        Stats.binomialUpper(queries, FPP) / queries,
        true,
        "p, " + Stats.BINOMIAL + " of " + Unit.COUNT.format(queries) + " queries");
  }

  private static void memory(Section out) throws Exception {
    long window = 1_000_000;
    Table t =
        Table.of(
            "Memory per key of a window of " + Unit.COUNT.format(window) + " keys",
            "p",
            Unit.PERCENT,
            "k",
            Unit.INTEGER,
            "l",
            Unit.INTEGER,
            "sliced (type 48)",
            Unit.NUMBER,
            "blocked (type 51)",
            Unit.NUMBER,
            "paper (k + l) k / (l ln 2)",
            Unit.NUMBER,
            "rotating pair",
            Unit.NUMBER,
            "one Bloom filter",
            Unit.NUMBER);
    for (double p : new double[] {0.01, 0.001}) {
      double[] bits = new double[2];
      AgePartitionedBloomFilter shape = null;
      for (Layout layout : Layout.values()) {
        shape =
            AgePartitionedBloomFilter.create(
                window, p, HashStrategy.xxh3(), Concurrency.SINGLE_WRITER, layout);
        bits[layout.ordinal()] = (double) shape.bitSize() / window;
      }
      int k = shape.hashCount();
      int l = shape.survivingGenerations();
      double paper = (double) (k + l) * k / (l * Math.log(2));
      double pair = 2.0 * BloomFilter.optimalBits(window, p / 2) / window;
      t.row(
          p,
          k,
          l,
          bits[0],
          bits[1],
          paper,
          pair,
          (double) BloomFilter.optimalBits(window, p) / window);
      String at = " at p = " + Unit.PERCENT.format(p);
      out.checkBound(
          "sliced layout: bits per window key" + at + ", against the paper's",
          Unit.NUMBER,
          bits[0],
          paper,
          paper * 1.001 + 64.0 * (k + l) / window,
          true,
          "its formula, slices rounded up to 64 bits");
      for (Layout layout : Layout.values()) {
        out.checkBound(
            layout.name().toLowerCase(java.util.Locale.ROOT)
                + " layout: bits per window key"
                + at
                + ", against a rotating pair of Bloom filters",
            Unit.NUMBER,
            bits[layout.ordinal()],
            paper,
            pair,
            true,
            "two Bloom filters of the window at p / 2");
      }
    }
    out.table(t);
  }

  /** The items of the largest counts (ties by item, so the list is reproducible). */
  private static List<Long> exactTop(Map<Long, Long> exact, int n) {
    List<Map.Entry<Long, Long>> all = new ArrayList<>(exact.entrySet());
    all.sort(
        (a, b) ->
            a.getValue().equals(b.getValue())
                ? Long.compare(a.getKey(), b.getKey())
                : Long.compare(b.getValue(), a.getValue()));
    List<Long> out = new ArrayList<>();
    for (int i = 0; i < Math.min(n, all.size()); i++) {
      out.add(all.get(i).getKey());
    }
    return out;
  }

  /** {@code n} draws of Zipf(ZIPF) ranks over {@code universe} keys, by the inverse CDF. */
  private static long[] zipf(SplittableRandom rnd, int n, int universe, Lab lab) {
    double[] cdf = new double[universe];
    double sum = 0;
    for (int r = 0; r < universe; r++) {
      sum += Math.pow(r + 1, -ZIPF);
      cdf[r] = sum;
    }
    long[] out = new long[n];
    for (int i = 0; i < n; i++) {
      int r = Arrays.binarySearch(cdf, rnd.nextDouble() * sum);
      out[i] = lab.key(r < 0 ? -r - 1 : r);
    }
    return out;
  }
}
