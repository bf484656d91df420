package io.github.probkit.bench;

import java.io.IOException;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.commons.math3.distribution.TDistribution;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.util.Version;

/**
 * Turns one run's forks and measurements into docs/BENCHMARKS.md.
 *
 * <p>Statistics. A fork gives one value per figure: the mean over its measured iterations. A figure
 * is the mean of its forks' values with the 95 % confidence interval of that mean from the spread
 * between forks (Student's t with forks - 1 degrees of freedom). A ratio of two figures is taken
 * round by round, each round's two forks having run minutes apart at most, as the geometric mean of
 * the per-round ratios with the 95 % interval of the mean log-ratio: what a noisy period does to
 * both contestants cancels. Goals are judged on these intervals and on CPU time (CpuTimeProfiler).
 */
final class Report {
  private static final String GUAVA = "guava-bloom";
  static final double CONFIDENCE = 0.95;

  private Report() {}

  /** One fork's figure: wall-clock and CPU ns per operation, bytes allocated per operation. */
  record Fork(int round, double wall, double cpu, double alloc) implements Serializable {}

  /** A mean over forks with the half-width of its 95 % interval (NaN with fewer than 2 forks). */
  record Stat(double mean, double half, int n) {
    static Stat of(double[] values) {
      double[] v = Arrays.stream(values).filter(x -> !Double.isNaN(x)).toArray();
      if (v.length == 0) {
        return new Stat(Double.NaN, Double.NaN, 0);
      }
      double mean = Arrays.stream(v).average().orElseThrow();
      return new Stat(
          mean,
          v.length < 2 ? Double.NaN : t(v.length - 1) * sd(v, mean) / Math.sqrt(v.length),
          v.length);
    }

    double lo() {
      return Double.isNaN(half) ? mean : mean - half;
    }

    double hi() {
      return Double.isNaN(half) ? mean : mean + half;
    }

    boolean present() {
      return n > 0;
    }

    /** "45.5 ± 2.1", or "45.5 (1 fork)". */
    String cell() {
      if (n == 0) {
        return "—";
      }
      return n == 1 ? time(mean) + " (1 fork)" : time(mean, half);
    }
  }

  static double sd(double[] v, double mean) {
    double s = 0;
    for (double x : v) {
      s += (x - mean) * (x - mean);
    }
    return Math.sqrt(s / (v.length - 1));
  }

  /** The two-sided 95 % quantile of Student's t. */
  static double t(int degreesOfFreedom) {
    return new TDistribution(degreesOfFreedom).inverseCumulativeProbability(0.5 + CONFIDENCE / 2);
  }

  /** One figure (a benchmark method with one set of parameters) and its forks. */
  static final class Score implements Serializable {
    private static final long serialVersionUID = 1L;
    final String benchmark;
    final String method;
    final Map<String, String> params;
    final String unit;
    final List<Fork> forks = new ArrayList<>();

    Score(String benchmark, String method, Map<String, String> params, String unit) {
      this.benchmark = benchmark;
      this.method = method;
      this.params = params;
      this.unit = unit;
    }

    String param(String name) {
      return params.getOrDefault(name, "");
    }

    Stat wall() {
      return Stat.of(forks.stream().mapToDouble(Fork::wall).toArray());
    }

    /** CPU time of the benchmark thread per operation; the figure every comparison uses. */
    Stat cpu() {
      return Stat.of(forks.stream().mapToDouble(Fork::cpu).toArray());
    }

    double alloc() {
      return forks.stream()
          .mapToDouble(Fork::alloc)
          .filter(x -> !Double.isNaN(x))
          .average()
          .orElse(Double.NaN);
    }

    Optional<Fork> round(int r) {
      return forks.stream().filter(f -> f.round() == r).findFirst();
    }
  }

  /** {@code peer / mine} on CPU time, paired by round: the geometric mean and its 95 % interval. */
  record Ratio(double value, double lo, double hi, int pairs) {
    static Ratio of(Score peer, Score mine) {
      List<Double> logs = new ArrayList<>();
      for (Fork m : mine.forks) {
        peer.round(m.round())
            .ifPresent(
                p -> {
                  if (p.cpu() > 0 && m.cpu() > 0) {
                    logs.add(Math.log(p.cpu() / m.cpu()));
                  }
                });
      }
      if (logs.isEmpty()) {
        return new Ratio(Double.NaN, Double.NaN, Double.NaN, 0);
      }
      Stat s = Stat.of(logs.stream().mapToDouble(Double::doubleValue).toArray());
      return new Ratio(Math.exp(s.mean()), Math.exp(s.lo()), Math.exp(s.hi()), s.n());
    }

    boolean present() {
      return pairs > 0;
    }

    /** Judged against {@code target}: above it with 95 % confidence, below it, or not decided. */
    String verdict(double target) {
      if (!present()) {
        return "—";
      }
      String v = lo >= target ? "yes" : hi < target ? "**no**" : "undecided";
      return pairs < 2 ? v + " (1 fork)" : v;
    }

    @Override
    public String toString() {
      if (!present()) {
        return "—";
      }
      return pairs < 2
          ? factor(value) + "× (1 round)"
          : factor(value) + "× (" + factor(lo) + "–" + factor(hi) + ")";
    }
  }

  /** Everything one run produced. */
  static final class Run implements Serializable {
    private static final long serialVersionUID = 2L;
    final boolean quick;
    final int forks;
    final BenchRunner.Iterations iterations;
    final Instant start = Instant.now();
    final String loadAtStart = loadAverage();
    final List<Double> loads = new ArrayList<>();
    final List<Score> scores = new ArrayList<>();
    Measure.Results measured;
    Instant end;
    String loadAtEnd;

    Run(boolean quick, int forks, BenchRunner.Iterations iterations) {
      this.quick = quick;
      this.forks = forks;
      this.iterations = iterations;
    }

    void add(int round, Collection<RunResult> results) {
      loads.add(load1());
      for (RunResult r : results) {
        var p = r.getParams();
        Map<String, String> params = new LinkedHashMap<>();
        for (String k : p.getParamsKeys()) {
          params.put(k, p.getParam(k));
        }
        String full = p.getBenchmark();
        int dot = full.lastIndexOf('.');
        String cls = full.substring(full.lastIndexOf('.', dot - 1) + 1, dot);
        String method = full.substring(dot + 1);
        Result<?> primary = r.getPrimaryResult();
        Score s =
            scores.stream()
                .filter(
                    x ->
                        x.benchmark.equals(cls)
                            && x.method.equals(method)
                            && x.params.equals(params))
                .findFirst()
                .orElseGet(
                    () -> {
                      Score n = new Score(cls, method, params, primary.getScoreUnit());
                      scores.add(n);
                      return n;
                    });
        s.forks.add(
            new Fork(
                round,
                primary.getScore(),
                secondary(r, "cpu.time.norm"),
                secondary(r, "alloc.norm")));
      }
    }

    private static double secondary(RunResult r, String name) {
      Result<?> x = r.getSecondaryResults().get(name);
      return x == null ? Double.NaN : x.getScore();
    }

    void finish() {
      end = Instant.now();
      loadAtEnd = loadAverage();
    }

    Optional<Score> find(Goals.Fig f) {
      return find(f.benchmark(), f.method(), f.param(), f.value(), f.n());
    }

    Optional<Score> find(String benchmark, String method, String key, String value, String n) {
      return scores.stream()
          .filter(s -> s.benchmark.equals(benchmark) && s.method.equals(method))
          .filter(s -> s.param(key).equals(value) && (n == null || s.param("n").equals(n)))
          .findFirst();
    }
  }

  static String markdown(Run run, Path notes) throws IOException {
    StringBuilder md = new StringBuilder();
    md.append("# Benchmarks\n\n");
    md.append("Generated by `bench/run")
        .append(run.quick ? " --quick" : "")
        .append(
            "` (bench/src/main/java/io/github/probkit/bench/BenchRunner.java); do not edit by hand: the notes at the end come from bench/NOTES.md.\n\n");
    machine(md, run);
    md.append(
            "How to read: every time is the **CPU time of the benchmark thread** per operation (setup and ")
        .append(
            "time spent waiting for a core excluded; see CpuTimeProfiler), in ns unless marked, as the mean over ")
        .append(run.forks)
        .append(
            " forks ± the half-width of its 95 % confidence interval from the spread between forks ")
        .append(
            "(Student's t; JMH's within-fork error is not used). Wall-clock times are shown for reference only: on a ")
        .append(
            "shared machine they measure the neighbours. A ratio `peer / probkit` (above 1: probkit is faster) is ")
        .append(
            "taken round by round, each pair of forks having run minutes apart at most, as the geometric mean with ")
        .append(
            "its 95 % interval in parentheses. A goal is **met** when its whole interval is on the right side, ")
        .append(
            "**not met** when the whole interval is on the wrong side, and **undecided** otherwise. B/op is what the ")
        .append(
            "benchmark thread allocates per operation, setup excluded. String keys are `\"user:\"` + 15 digits (20 bytes) and every ")
        .append("contestant takes the String; queries are half present, half absent. ")
        .append(
            "A long-key query goal against a peer (n = 10^6) is judged under two protocols: FilterQueryBenchmark's ")
        .append(
            "(one key per call, present and absent keys shuffled) and FastFilter's (`mixed`, MixedQueryBenchmark: ")
        .append(
            "all present keys then all absent ones, the whole array per call, ns per key); it is met, or not met, only ")
        .append(
            "when both say so (`yes (both)`), and undecided with each protocol's verdict when they disagree (issue 31); ")
        .append("its note names a figure whose forks differ by 1.3× or more.\n\n");
    goals(md, run, "Goals of issue 15 (performance)", Goals.ISSUE_15, true);
    goals(md, run, "Goals of issue 8", Goals.ISSUE_8, false);
    filters(md, run);
    hashes(md, run);
    cardinality(md, run);
    frequency(md, run);
    md.append("## Notes\n\n");
    if (Files.exists(notes)) {
      md.append(Files.readString(notes, StandardCharsets.UTF_8).strip()).append('\n');
    }
    return md.toString();
  }

  private static void machine(StringBuilder md, Run run) {
    md.append("## Machine and run\n\n");
    md.append("| | |\n|---|---|\n");
    row(md, "date (UTC)", run.start.truncatedTo(ChronoUnit.SECONDS) + ", " + minutes(run) + " min");
    row(
        md,
        "CPU",
        cpuModel()
            + ", "
            + Runtime.getRuntime().availableProcessors()
            + " cores visible to the JVM");
    row(md, "memory", memTotal());
    row(
        md,
        "OS",
        System.getProperty("os.name")
            + " "
            + System.getProperty("os.version")
            + " "
            + System.getProperty("os.arch"));
    row(
        md,
        "JVM",
        System.getProperty("java.vm.name")
            + " "
            + System.getProperty("java.runtime.version")
            + " ("
            + System.getProperty("java.vm.vendor")
            + "), default GC");
    row(
        md,
        "JMH",
        Version.getPlainVersion()
            + "; "
            + run.forks
            + " forks per figure, run in "
            + run.forks
            + " rounds with the contestants interleaved; "
            + run.iterations
            + " per fork; forks run with `-XX:+AlwaysPreTouch "
            + BenchRunner.SMALL_HEAP
            + "` (n = 10^8: `"
            + BenchRunner.LARGE_HEAP
            + "`)");
    row(
        md,
        "load average (1, 5, 15 min)",
        "at start " + run.loadAtStart + ", at end " + run.loadAtEnd);
    if (!run.loads.isEmpty()) {
      double[] l = run.loads.stream().mapToDouble(Double::doubleValue).sorted().toArray();
      row(
          md,
          "1-minute load after each fork",
          String.format(
              Locale.ROOT,
              "%.1f to %.1f, median %.1f (%d forks)",
              l[0],
              l[l.length - 1],
              l[l.length / 2],
              l.length));
    }
    md.append('\n');
    md.append(
            "**The machine was shared with other busy processes during this run (see the load average; ")
        .append(
            "2 cores). CPU time removes the wait for a core but not the neighbours' use of the caches and memory: ")
        .append("absolute times are inflated, and a ratio is only as good as its interval.**\n\n");
  }

  private static long minutes(Run run) {
    return run.end == null ? 0 : Duration.between(run.start, run.end).toMinutes();
  }

  private static void row(StringBuilder md, String k, String v) {
    md.append("| ").append(k).append(" | ").append(v).append(" |\n");
  }

  // ---- goals

  private static void goals(
      StringBuilder md, Run run, String title, List<Goals.Goal> goals, boolean issue15) {
    if (goals.stream().noneMatch(g -> run.find(g.mine()).isPresent())) {
      return;
    }
    md.append("## ").append(title).append("\n\n");
    if (issue15) {
      md.append(
              "n = 10^6 unless said. A time goal is judged on probkit's CPU time; where the issue names a peer ")
          .append(
              "measured in its quiet run, the ratio goal is that peer's time there divided by the goal (the same ")
          .append("goal, stated so that a slower machine, which slows both, does not move it). ")
          .append(
              "Filters are compared at equal bits per key or equal false-positive rate, as the note says ")
          .append("(measured rates in the false-positive table below).\n\n");
    }
    md.append(
            "| operation | probkit | peer | peer / probkit | goal | time met? | ratio met? | B/op | note |\n")
        .append("|---|---:|---|---:|---|---|---|---:|---|\n");
    for (Goals.Goal g : goals) {
      Optional<Score> mine = run.find(g.mine());
      Optional<Score> peer = g.peer() == null ? Optional.empty() : run.find(g.peer());
      if (mine.isEmpty()) {
        if (issue15) {
          md.append("| ")
              .append(g.operation())
              .append(" | not measured: `")
              .append(g.mine().value())
              .append("` ")
              .append(g.mine().method())
              .append(" not in this run | | | ")
              .append(goalCell(g))
              .append(" | — | — | | |\n");
        }
        continue;
      }
      Stat m = mine.get().cpu();
      Ratio r =
          peer.map(p -> Ratio.of(p, mine.get()))
              .orElse(new Ratio(Double.NaN, Double.NaN, Double.NaN, 0));
      String timeMet = timeVerdict(g, m);
      String ratioMet =
          Double.isNaN(g.minRatio())
              ? "—"
              : peer.isEmpty() ? "peer not measured" : r.verdict(g.minRatio());
      String ratioCell = r.toString();
      Goals.Goal c = g.cross();
      if (c != null) {
        Optional<Score> cm = run.find(c.mine());
        Optional<Score> cp = run.find(c.peer());
        String tag = "mixed";
        if (cm.isEmpty() || cp.isEmpty()) {
          timeMet = bothVerdict(timeMet, "—");
          ratioMet = bothVerdict(ratioMet, "—");
          ratioCell += "; " + tag + ": not measured";
        } else {
          Ratio cr = Ratio.of(cp.get(), cm.get());
          timeMet = bothVerdict(timeMet, timeVerdict(c, cm.get().cpu()));
          ratioMet =
              bothVerdict(ratioMet, Double.isNaN(c.minRatio()) ? "—" : cr.verdict(c.minRatio()));
          ratioCell +=
              "; "
                  + tag
                  + ": "
                  + cr
                  + " ("
                  + time(cm.get().cpu().mean())
                  + " against "
                  + time(cp.get().cpu().mean())
                  + ")";
        }
      }
      double alloc = mine.get().alloc();
      String allocCell = bytes(alloc) + (g.zeroAlloc() && alloc >= 0.5 ? " (goal 0)" : "");
      md.append("| ")
          .append(g.operation())
          .append(" | ")
          .append(m.cell())
          .append(" | ")
          .append(
              g.peer() == null
                  ? "—"
                  : g.peer().value() + ": " + peer.map(p -> p.cpu().cell()).orElse("not measured"))
          .append(" | ")
          .append(ratioCell)
          .append(" | ")
          .append(goalCell(g))
          .append(" | ")
          .append(timeMet)
          .append(" | ")
          .append(ratioMet)
          .append(" | ")
          .append(allocCell)
          .append(" | ")
          .append(note(run, g))
          .append(" |\n");
    }
    md.append('\n');
  }

  private static String timeVerdict(Goals.Goal g, Stat m) {
    return Double.isNaN(g.maxNs()) || !m.present()
        ? "—"
        : m.hi() <= g.maxNs() ? "yes" : m.lo() > g.maxNs() ? "**no**" : "undecided";
  }

  /**
   * A goal judged under two protocols (Goals.Goal#cross): met only when met in both, not met when
   * not met in both; otherwise undecided, with each protocol's verdict, since a goal one protocol
   * alone meets depends on how the keys were asked (issue 31). A protocol that was not measured
   * leaves the goal at most undecided.
   */
  static String bothVerdict(String first, String mixed) {
    if (first.equals("—")) {
      return first;
    }
    String a = first.replace(" (1 fork)", "");
    String b = mixed.replace(" (1 fork)", "");
    if (a.equals(b) && (a.equals("yes") || a.equals("**no**"))) {
      return first + " (both)";
    }
    return "undecided (shuffled "
        + first
        + ", mixed "
        + (mixed.equals("—") ? "not measured" : mixed)
        + ")";
  }

  /** Forks further apart than this (slowest over fastest) are called out in a goal's note. */
  static final double SPLIT = 1.3;

  /**
   * A figure whose forks disagree by {@link #SPLIT} or more, or null. probkit-bloom's
   * FilterQueryBenchmark forks have run in two modes about 1.45× apart, steady within a fork (issue
   * 31): three forks then give a narrow interval on the side of whichever mode they drew, and only
   * more forks, or the second protocol, show it.
   */
  static String split(Goals.Fig f, Score sc) {
    double lo = sc.forks.stream().mapToDouble(Fork::cpu).min().orElse(Double.NaN);
    double hi = sc.forks.stream().mapToDouble(Fork::cpu).max().orElse(Double.NaN);
    if (sc.forks.size() < 2 || !(hi >= SPLIT * lo)) {
      return null;
    }
    return (f.benchmark().equals(Goals.MIXED) ? "mixed " : "")
        + f.value()
        + "'s forks disagree: "
        + time(lo)
        + " to "
        + time(hi)
        + " ns (more forks decide: --forks 5)";
  }

  private static String goalCell(Goals.Goal g) {
    List<String> parts = new ArrayList<>();
    if (!Double.isNaN(g.maxNs())) {
      parts.add("≤ " + time(g.maxNs()));
    }
    if (!Double.isNaN(g.minRatio())) {
      parts.add(String.format(Locale.ROOT, "≥ %.2f×", g.minRatio()));
    }
    if (g.zeroAlloc()) {
      parts.add("0 B/op");
    }
    return String.join(", ", parts);
  }

  /** The goal's note, and for filters the measured false-positive rates and bits per key. */
  private static String note(Run run, Goals.Goal g) {
    List<String> parts = new ArrayList<>();
    if (g.note() != null) {
      parts.add(g.note());
    }
    if (run.measured != null && g.mine().benchmark().startsWith("Filter")) {
      boolean strings = g.mine().method().endsWith("String");
      for (Goals.Fig f : g.figs()) {
        run.measured.filters().stream()
            .filter(r -> r.impl().equals(f.value()) && r.strings() == strings)
            .findFirst()
            .ifPresent(
                r ->
                    parts.add(
                        String.format(
                            Locale.ROOT,
                            "%s %.2f %% at %.2f bits/key",
                            f.value(),
                            100 * r.fpr(),
                            8 * r.bytesPerKey())));
      }
    }
    List<Goals.Fig> figs = new ArrayList<>(g.figs());
    if (g.cross() != null) {
      figs.addAll(g.cross().figs());
    }
    for (Goals.Fig f : figs) {
      run.find(f).map(sc -> split(f, sc)).ifPresent(parts::add);
    }
    return String.join("; ", parts);
  }

  // ---- filters

  private static Set<String> sizes(Run run) {
    Set<String> out = new LinkedHashSet<>();
    run.scores.stream()
        .filter(s -> s.benchmark.startsWith("Filter"))
        .map(s -> s.param("n"))
        .sorted(Comparator.comparingLong(Long::parseLong))
        .forEach(out::add);
    return out;
  }

  private static void filters(StringBuilder md, Run run) {
    if (sizes(run).isEmpty() && run.measured == null) {
      return;
    }
    md.append("## Filters (1 % target false-positive rate)\n\n");
    for (String n : sizes(run)) {
      filterTable(md, run, "FilterQueryBenchmark", "mightContainString", n, "Query, String keys");
      filterTable(md, run, "FilterQueryBenchmark", "mightContainLong", n, "Query, long keys");
      filterTable(md, run, "FilterAddBenchmark", "addString", n, "Add, String keys");
      filterTable(md, run, "FilterAddBenchmark", "addLong", n, "Add, long keys");
      buildTable(md, run, n);
      batchTable(md, run, n);
    }
    fprTable(md, run);
  }

  /** probkit's batches and mapped views beside one call per key (FilterBatchBenchmark). */
  private static void batchTable(StringBuilder md, Run run, String n) {
    List<String> impls =
        run.scores.stream()
            .filter(s -> s.benchmark.equals("FilterBatchBenchmark") && s.param("n").equals(n))
            .map(s -> s.param("impl"))
            .distinct()
            .toList();
    if (impls.isEmpty()) {
      return;
    }
    md.append("### Batches and mapped files, long keys, n = ")
        .append(pow10(n))
        .append("\n\n")
        .append("`mightContainAll` / `addAll` over ")
        .append(FilterBatchBenchmark.BATCH)
        .append(
            " keys per call against one call per key (adds: single-writer mode, new keys into the filled")
        .append(
            " filter); `mapped`: one call per key on a `MappedFilter` of the same file. × is the one-by-one")
        .append(" time divided by the batch's.\n\n")
        .append(
            "| filter | query one by one | query batch | × | mapped query | add one by one | add batch | × |\n")
        .append("|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (String impl : impls) {
      Optional<Score> q1 = run.find("FilterBatchBenchmark", "queryOneByOne", "impl", impl, n);
      Optional<Score> qb = run.find("FilterBatchBenchmark", "queryBatch", "impl", impl, n);
      Optional<Score> a1 = run.find("FilterBatchBenchmark", "addOneByOne", "impl", impl, n);
      Optional<Score> ab = run.find("FilterBatchBenchmark", "addBatch", "impl", impl, n);
      md.append("| ")
          .append(impl)
          .append(" | ")
          .append(cell(q1))
          .append(" | ")
          .append(cell(qb))
          .append(" | ")
          .append(q1.isPresent() && qb.isPresent() ? Ratio.of(q1.get(), qb.get()).toString() : "—")
          .append(" | ")
          .append(cell(run.find("FilterBatchBenchmark", "queryMapped", "impl", impl, n)))
          .append(" | ")
          .append(cell(a1))
          .append(" | ")
          .append(cell(ab))
          .append(" | ")
          .append(a1.isPresent() && ab.isPresent() ? Ratio.of(a1.get(), ab.get()).toString() : "—")
          .append(" |\n");
    }
    md.append('\n');
  }

  private static void filterTable(
      StringBuilder md, Run run, String bench, String method, String n, String title) {
    List<Score> rows = new ArrayList<>();
    for (Score s : run.scores) {
      if (s.benchmark.equals(bench) && s.method.equals(method) && s.param("n").equals(n)) {
        rows.add(s);
      }
    }
    if (rows.isEmpty()) {
      return;
    }
    boolean add = bench.equals("FilterAddBenchmark");
    md.append("### ").append(title).append(", n = ").append(pow10(n)).append("\n\n");
    if (add) {
      md.append("Each add is of a new key into an empty filter sized for n (")
          .append(pow10(String.valueOf(FilterAddBenchmark.BATCH)))
          .append(
              " keys per invocation). Neither the CPU time nor B/op includes making that filter (the invocation's setup).\n\n");
    }
    md.append(
        "| filter | family | CPU ns/op | wall ns/op | B/op | × Guava | × best peer |\n|---|---|---:|---:|---:|---:|---:|\n");
    Optional<Score> guava = rows.stream().filter(s -> s.param("impl").equals(GUAVA)).findFirst();
    rows.sort(
        Comparator.comparing((Score s) -> FilterImpls.spec(s.param("impl")).family())
            .thenComparingDouble(s -> s.cpu().mean()));
    for (Score s : rows) {
      FilterImpls.Spec spec = FilterImpls.spec(s.param("impl"));
      Optional<Score> best =
          rows.stream()
              .filter(o -> !FilterImpls.spec(o.param("impl")).library().equals(spec.library()))
              .filter(o -> FilterImpls.spec(o.param("impl")).family().equals(spec.family()))
              .min(Comparator.comparingDouble(o -> o.cpu().mean()));
      double alloc = s.alloc();
      String ratioBest =
          best.map(
                  b -> {
                    Ratio r = Ratio.of(b, s);
                    return r.value() < 1 && spec.probkit()
                        ? "**" + r + "** " + b.param("impl") + " faster"
                        : r.toString();
                  })
              .orElse("—");
      md.append("| ")
          .append(bold(spec))
          .append(" | ")
          .append(spec.family())
          .append(" | ")
          .append(s.cpu().cell())
          .append(" | ")
          .append(s.wall().cell())
          .append(" | ")
          .append(bytes(alloc))
          .append(" | ")
          .append(guava.map(g -> Ratio.of(g, s).toString()).orElse("—"))
          .append(" | ")
          .append(ratioBest)
          .append(" |\n");
    }
    md.append('\n');
  }

  private static void buildTable(StringBuilder md, Run run, String n) {
    List<Score> rows =
        run.scores.stream()
            .filter(s -> s.benchmark.equals("FilterBuildBenchmark") && s.param("n").equals(n))
            .sorted(Comparator.comparingDouble(s -> s.cpu().mean()))
            .toList();
    if (rows.isEmpty()) {
      return;
    }
    md.append("### Build of a static filter from n long keys, n = ")
        .append(pow10(n))
        .append("\n\n");
    md.append("| filter | CPU ns/key | B/key |\n|---|---:|---:|\n");
    double keys = Long.parseLong(n);
    for (Score s : rows) {
      // ms per build to ns per key
      Stat c = s.cpu();
      Stat perKey = new Stat(c.mean() * 1e6 / keys, c.half() * 1e6 / keys, c.n());
      md.append("| ")
          .append(bold(FilterImpls.spec(s.param("impl"))))
          .append(" | ")
          .append(perKey.cell())
          .append(" | ")
          .append(bytes(s.alloc() / keys))
          .append(" |\n");
    }
    md.append('\n');
  }

  private static void fprTable(StringBuilder md, Run run) {
    if (run.measured == null || run.measured.filters().isEmpty()) {
      return;
    }
    md.append("### False-positive rate and memory, n = ")
        .append(pow10(String.valueOf(Measure.FILTER_KEYS)))
        .append(" (target 1 %)\n\n")
        .append(String.format(Locale.ROOT, "%,d", Measure.ABSENT_QUERIES))
        .append(
            " absent keys queried per filter; memory is the retained heap of the filter object (JOL). ")
        .append(
            "FastFilter Bloom and BlockedBloom are given ceil/exact -ln p / ln² 2 bits per key; ")
        .append(
            "Cuckoo8 and the xor filters have no rate parameter (8-bit fingerprints); probkit-cuckoo8 is probkit's ")
        .append("cuckoo filter at Cuckoo8's fingerprint size and load.\n\n")
        .append(
            "| filter | family | FPR, String keys | FPR, long keys | bytes/key | bits/key |\n|---|---|---:|---:|---:|---:|\n");
    Map<String, Measure.FilterRow[]> byImpl = new LinkedHashMap<>();
    for (Measure.FilterRow f : run.measured.filters()) {
      byImpl.computeIfAbsent(f.impl(), k -> new Measure.FilterRow[2])[f.strings() ? 0 : 1] = f;
    }
    byImpl.forEach(
        (impl, pair) -> {
          FilterImpls.Spec spec = FilterImpls.spec(impl);
          Measure.FilterRow any = pair[0] != null ? pair[0] : pair[1];
          md.append("| ")
              .append(bold(spec))
              .append(" | ")
              .append(spec.family())
              .append(" | ")
              .append(pct(pair[0]))
              .append(" | ")
              .append(pct(pair[1]))
              .append(" | ")
              .append(
                  String.format(
                      Locale.ROOT, "%.3f | %.2f", any.bytesPerKey(), 8 * any.bytesPerKey()))
              .append(" |\n");
        });
    md.append('\n');
  }

  private static String pct(Measure.FilterRow f) {
    if (f == null) {
      return "—";
    }
    // The binomial standard error of the measured rate.
    double p = f.fpr();
    double se = Math.sqrt(p * (1 - p) / f.queries());
    return String.format(Locale.ROOT, "%.3f %% ± %.3f", 100 * p, 100 * se);
  }

  // ---- hashing and sketches

  private static void hashes(StringBuilder md, Run run) {
    List<String> impls = implsOf(run, "HashBenchmark", "impl");
    if (impls.isEmpty()) {
      return;
    }
    md.append(
        "## Hashing one key to 64 bits\n\n| hash | String (20 chars) | B/op | long | B/op |\n|---|---:|---:|---:|---:|\n");
    for (String impl : impls) {
      Optional<Score> s = run.find("HashBenchmark", "hashString", "impl", impl, null);
      Optional<Score> l = run.find("HashBenchmark", "hashLong", "impl", impl, null);
      md.append("| ")
          .append(impl.startsWith("probkit") ? "**" + impl + "**" : impl)
          .append(" | ")
          .append(cell(s))
          .append(" | ")
          .append(s.map(x -> bytes(x.alloc())).orElse("—"))
          .append(" | ")
          .append(cell(l))
          .append(" | ")
          .append(l.map(x -> bytes(x.alloc())).orElse("—"))
          .append(" |\n");
    }
    md.append('\n');
  }

  private static void cardinality(StringBuilder md, Run run) {
    List<String> impls = implsOf(run, "CardinalityBenchmark", "impl");
    if (impls.isEmpty()) {
      if (run.measured == null || run.measured.cardinality().isEmpty()) {
        return;
      }
      impls = CardinalityImpls.NAMES;
    }
    md.append("## Distinct counting (precision 14), sketch of 10^6 keys\n\n")
        .append(
            "add: CPU ns per new key into a sketch already in its dense state; add hash: the key's 64-bit hash given ")
        .append(
            "(probkit and hash4j only). Estimate: of a sketch that has absorbed another by a merge. Error: relative error ")
        .append(
            "of the estimate over independent sketches of 10^6 random keys. Merge: another sketch of 10^6 keys into ")
        .append(
            "this one, in place where the library can (DataSketches through a new Union). Bytes: serialized size / ")
        .append("retained heap.\n\n")
        .append(
            "| sketch | add long | add String | add hash | estimate | merge | serialize | B/op (add long) | × fastest peer (add long) | bias | RMSE | bytes (ser. / heap) |\n")
        .append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (String impl : impls) {
      Optional<Score> add = run.find("CardinalityBenchmark", "addLong", "impl", impl, null);
      Optional<Score> best = bestPeer(run, "CardinalityBenchmark", "addLong", "impl", impl);
      md.append("| ")
          .append(impl.startsWith("probkit") ? "**" + impl + "**" : impl)
          .append(" | ")
          .append(cell(add))
          .append(" | ")
          .append(cell(run.find("CardinalityBenchmark", "addString", "impl", impl, null)))
          .append(" | ")
          .append(cell(run.find("CardinalityBenchmark", "addHash", "impl", impl, null)))
          .append(" | ")
          .append(cell(run.find("CardinalityBenchmark", "estimate", "impl", impl, null)))
          .append(" | ")
          .append(cell(run.find("CardinalityBenchmark", "merge", "impl", impl, null)))
          .append(" | ")
          .append(cell(run.find("CardinalityBenchmark", "serialize", "impl", impl, null)))
          .append(" | ")
          .append(add.map(a -> bytes(a.alloc())).orElse("—"))
          .append(" | ")
          .append(
              add.isPresent() && best.isPresent()
                  ? Ratio.of(best.get(), add.get()).toString()
                  : "—")
          .append(" | ");
      Optional<Measure.CardinalityRow> m =
          run.measured == null
              ? Optional.empty()
              : run.measured.cardinality().stream().filter(c -> c.impl().equals(impl)).findFirst();
      md.append(
              m.map(
                      c ->
                          String.format(
                              Locale.ROOT,
                              "%+.2f %% | %.2f %% (%d sketches) | %d / %d",
                              100 * c.bias(),
                              100 * c.rmse(),
                              c.trials(),
                              c.serializedBytes(),
                              c.bytes()))
                  .orElse("— | — | —"))
          .append(" |\n");
    }
    md.append('\n');
  }

  private static void frequency(StringBuilder md, Run run) {
    List<String> cms = implsOf(run, "FrequencyBenchmark", "cms");
    boolean measuredCms = run.measured != null && !run.measured.countMin().isEmpty();
    if (!cms.isEmpty() || measuredCms) {
      if (cms.isEmpty()) {
        cms = FrequencyImpls.COUNT_MIN;
      }
      md.append("## Count-min (depth 5, width 2719: ε = 0.1 %, δ = 0.7 %)\n\n")
          .append(
              "A Zipf(1.1) stream of 2^20 keys over 10^6 distinct. `probkit-cms` is the default (concurrent) mode, ")
          .append(
              "`probkit-cms-single` the single-writer mode. Error: overestimate of each of the 10^6 keys' counts ")
          .append(
              "(mean, max, share above εN, which theory bounds by δ). Merge: another sketch into this one, in place ")
          .append("(stream-lib into a new sketch, its only merge).\n\n")
          .append(
              "| sketch | add String | add long | estimate | merge | serialize | B/op (add String) | × stream-lib (add String) | mean / max error | share > εN | bytes (ser. / heap) |\n")
          .append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
      for (String impl : cms) {
        Optional<Score> add =
            run.find("FrequencyBenchmark", "countMinAddString", "cms", impl, null);
        Optional<Score> sl =
            run.find("FrequencyBenchmark", "countMinAddString", "cms", "streamlib-cms", null);
        md.append("| ")
            .append(impl.startsWith("probkit") ? "**" + impl + "**" : impl)
            .append(" | ")
            .append(cell(add))
            .append(" | ")
            .append(cell(run.find("FrequencyBenchmark", "countMinAddLong", "cms", impl, null)))
            .append(" | ")
            .append(cell(run.find("FrequencyBenchmark", "countMinEstimate", "cms", impl, null)))
            .append(" | ")
            .append(cell(run.find("FrequencyBenchmark", "countMinMerge", "cms", impl, null)))
            .append(" | ")
            .append(cell(run.find("FrequencyBenchmark", "countMinSerialize", "cms", impl, null)))
            .append(" | ")
            .append(add.map(a -> bytes(a.alloc())).orElse("—"))
            .append(" | ")
            .append(
                add.isPresent() && sl.isPresent() ? Ratio.of(sl.get(), add.get()).toString() : "—")
            .append(" | ");
        Optional<Measure.CountMinRow> m =
            run.measured == null
                ? Optional.empty()
                : run.measured.countMin().stream().filter(c -> c.impl().equals(impl)).findFirst();
        md.append(
                m.map(
                        c ->
                            String.format(
                                Locale.ROOT,
                                "%.1f / %d | %.4f %% | %d / %d",
                                c.meanError(),
                                c.maxError(),
                                100 * c.shareAboveEpsilonN(),
                                c.serializedBytes(),
                                c.bytes()))
                    .orElse("— | — | —"))
            .append(" |\n");
      }
      md.append('\n');
    }
    List<String> hh = implsOf(run, "FrequencyBenchmark", "hh");
    boolean measuredHh = run.measured != null && !run.measured.heavyHitters().isEmpty();
    if (hh.isEmpty() && !measuredHh) {
      return;
    }
    if (hh.isEmpty()) {
      hh = FrequencyImpls.HEAVY_HITTERS;
    }
    md.append("## Heavy hitters (about 1,000 counters), same stream\n\n")
        .append(
            "| summary | add | top 10 | B/op (add) | recall of top 10 / top 100 | bytes (ser. / heap) |\n|---|---:|---:|---:|---:|---:|\n");
    for (String impl : hh) {
      Optional<Score> add = run.find("FrequencyBenchmark", "heavyHittersAdd", "hh", impl, null);
      md.append("| ")
          .append(impl.startsWith("probkit") ? "**" + impl + "**" : impl)
          .append(" | ")
          .append(cell(add))
          .append(" | ")
          .append(cell(run.find("FrequencyBenchmark", "heavyHittersTop10", "hh", impl, null)))
          .append(" | ")
          .append(add.map(a -> bytes(a.alloc())).orElse("—"))
          .append(" | ");
      Optional<Measure.HeavyHittersRow> m =
          run.measured == null
              ? Optional.empty()
              : run.measured.heavyHitters().stream().filter(c -> c.impl().equals(impl)).findFirst();
      md.append(
              m.map(
                      c ->
                          String.format(
                              Locale.ROOT,
                              "%.2f / %.2f | %d / %d",
                              c.recall10(),
                              c.recall100(),
                              c.serializedBytes(),
                              c.bytes()))
                  .orElse("— | —"))
          .append(" |\n");
    }
    md.append('\n');
  }

  private static Optional<Score> bestPeer(
      Run run, String bench, String method, String key, String impl) {
    String lib = impl.substring(0, impl.indexOf('-'));
    Predicate<Score> other = s -> !s.param(key).startsWith(lib + "-");
    return run.scores.stream()
        .filter(
            s -> s.benchmark.equals(bench) && s.method.equals(method) && !s.param(key).isEmpty())
        .filter(other)
        .min(Comparator.comparingDouble(s -> s.cpu().mean()));
  }

  private static List<String> implsOf(Run run, String bench, String key) {
    Set<String> out = new LinkedHashSet<>();
    run.scores.stream()
        .filter(s -> s.benchmark.equals(bench))
        .map(s -> s.param(key))
        .filter(Predicate.not(String::isEmpty))
        .forEach(out::add);
    return new ArrayList<>(out);
  }

  // ---- formatting

  private static String bold(FilterImpls.Spec s) {
    return s.probkit() ? "**" + s.name() + "**" : s.name();
  }

  /** CPU time with its interval. */
  private static String cell(Optional<Score> s) {
    return s.map(x -> x.cpu().cell()).orElse("—");
  }

  /** A time in ns, switching to µs and ms from 10^4 and 10^7 ns. */
  static String time(double ns) {
    return time(ns, Double.NaN);
  }

  /** A time and the half-width of its interval, both in the unit the time is shown in. */
  static String time(double ns, double half) {
    if (Double.isNaN(ns)) {
      return "—";
    }
    double a = Math.abs(ns);
    double scale = a >= 1e7 ? 1e6 : a >= 1e4 ? 1e3 : 1;
    String unit = a >= 1e7 ? " ms" : a >= 1e4 ? " µs" : "";
    return num(ns / scale) + (Double.isNaN(half) ? "" : " ± " + num(half / scale)) + unit;
  }

  /** A ratio: two decimals, or two significant digits below 0.1. */
  static String factor(double v) {
    return v >= 0.1 || v == 0 || Double.isNaN(v) || Double.isInfinite(v)
        ? String.format(Locale.ROOT, "%.2f", v)
        : new java.math.BigDecimal(v).round(new java.math.MathContext(2)).toPlainString();
  }

  static String num(double v) {
    if (Double.isNaN(v)) {
      return "—";
    }
    double a = Math.abs(v);
    String f = a >= 1000 ? "%,.0f" : a >= 100 ? "%.0f" : a >= 10 ? "%.1f" : "%.2f";
    return String.format(Locale.ROOT, f, v);
  }

  private static String bytes(double v) {
    if (Double.isNaN(v)) {
      return "—";
    }
    return v < 0.5 ? "0" : String.format(Locale.ROOT, "%.0f", v);
  }

  static String pow10(String n) {
    long v = Long.parseLong(n);
    int e = 0;
    long x = v;
    while (x >= 10 && x % 10 == 0) {
      x /= 10;
      e++;
    }
    return x == 1 ? "10^" + e : n;
  }

  // ---- machine

  static String cpuModel() {
    try {
      Process p = new ProcessBuilder("lscpu").redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      for (String line : out.split("\n")) {
        if (line.startsWith("Model name:")) {
          return line.substring("Model name:".length()).strip();
        }
      }
    } catch (IOException e) {
      // fall through to /proc/cpuinfo
    }
    return firstLine(Path.of("/proc/cpuinfo"), "model name", "unknown CPU");
  }

  static String memTotal() {
    String kb = firstLine(Path.of("/proc/meminfo"), "MemTotal", null);
    if (kb == null) {
      return "unknown";
    }
    long v = Long.parseLong(kb.replaceAll("[^0-9]", ""));
    return String.format(Locale.ROOT, "%.1f GiB", v / 1024.0 / 1024.0);
  }

  static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
      return f[0] + ", " + f[1] + ", " + f[2];
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }

  static double load1() {
    try {
      return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
    } catch (IOException | RuntimeException e) {
      return Double.NaN;
    }
  }

  private static String firstLine(Path file, String key, String fallback) {
    try {
      for (String line : Files.readAllLines(file)) {
        if (line.startsWith(key)) {
          return line.substring(line.indexOf(':') + 1).strip();
        }
      }
    } catch (IOException e) {
      return fallback;
    }
    return Objects.requireNonNullElse(fallback, "unknown");
  }
}
