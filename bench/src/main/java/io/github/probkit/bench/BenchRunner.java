package io.github.probkit.bench;

import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * Runs the benchmark set and writes docs/BENCHMARKS.md; {@code bench/run} is its launcher.
 *
 * <pre>
 * bench/run [--quick [--large]] [--forks N] [--only REGEX] [--out FILE] [--results DIR] [--no-measure]
 * bench/run --report-only        rewrites the report from the last run's saved results (after editing bench/NOTES.md)
 * </pre>
 *
 * <p>How a figure is measured, so that a noisy minute on a shared machine cannot decide a
 * comparison:
 *
 * <ul>
 *   <li>Every figure (a benchmark method with one contestant) is measured in {@code N} forks, 3 by
 *       default, each a fresh JVM.
 *   <li>The forks run in rounds: a round runs every contestant's fork once, one after the other,
 *       within each group of contestants compared with each other in a rotated order, so that a
 *       contestant is not always first. Contestants compared with each other therefore ran minutes
 *       apart at most in every round, and a ratio is taken round by round (see Report).
 *   <li>The figure reported is the mean over forks of each fork's CPU time per operation of the
 *       benchmark thread (CpuTimeProfiler), with the 95 % interval of that mean from the spread
 *       between forks; JMH's within-fork error, which misses what changes between forks, is not
 *       used.
 * </ul>
 *
 * <p>The quick set measures the figures issue 15's goals need (Goals), with short iterations: about
 * 20 minutes on 2 loaded cores; goals at n = 10^8 only with {@code --large}. The full set runs
 * every contestant, adds n = 10^8 for the filters (forks get a 10 GB heap), the static-filter
 * builds and every sketch operation: hours; run it on a quiet machine.
 */
public final class BenchRunner {
  static final String USAGE =
      "usage: bench/run [--quick [--large]] [--forks N] [--only REGEX] [--out FILE] [--results DIR]"
          + " [--no-measure] [--report-only]";
  static final String SMALL_HEAP = "-Xms1g -Xmx1g";
  static final String LARGE_HEAP = "-Xms10g -Xmx10g";
  static final int DEFAULT_FORKS = 3;

  /** Iterations of one fork: warm-up and measured, count and seconds each. */
  record Iterations(int warmups, double warmupSeconds, int measured, double measuredSeconds)
      implements java.io.Serializable {
    static final Iterations QUICK = new Iterations(3, 0.5, 3, 0.5);
    static final Iterations FULL = new Iterations(3, 1, 5, 1);

    @Override
    public String toString() {
      return String.format(
          Locale.ROOT,
          "%d warm-up + %d measured iterations of %s s",
          warmups,
          measured,
          measuredSeconds == warmupSeconds
              ? fmt(measuredSeconds)
              : fmt(warmupSeconds) + " / " + fmt(measuredSeconds));
    }

    private static String fmt(double s) {
      return s == Math.rint(s) ? String.valueOf((long) s) : String.valueOf(s);
    }
  }

  /**
   * One contestant's fork: the methods of {@code benchmark} run with {@code param = value} (and the
   * {@code fixed} parameters), in a JVM with {@code heap}. Units of one {@code group} are compared
   * with each other and run next to each other in every round.
   */
  record Unit(
      String group,
      String benchmark,
      List<String> methods,
      String param,
      String value,
      Map<String, String> fixed,
      String heap) {
    String label() {
      String extra =
          fixed.entrySet().stream()
              .map(e -> " " + e.getKey() + "=" + e.getValue())
              .collect(Collectors.joining());
      return benchmark + "." + String.join("|", methods) + " " + param + "=" + value + extra;
    }
  }

  private BenchRunner() {}

  public static void main(String[] args) throws IOException, RunnerException {
    boolean quick = false;
    boolean large = false;
    boolean measure = true;
    boolean reportOnly = false;
    int forks = DEFAULT_FORKS;
    Pattern only = null;
    Path out = Path.of("docs/BENCHMARKS.md");
    Path results = Path.of("bench/results");
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--quick":
          quick = true;
          break;
        case "--large":
          large = true;
          break;
        case "--no-measure":
          measure = false;
          break;
        case "--report-only":
          reportOnly = true;
          break;
        case "--forks":
          forks = forks(value(args, ++i));
          break;
        case "--only":
          only = Pattern.compile(value(args, ++i));
          break;
        case "--out":
          out = Path.of(value(args, ++i));
          break;
        case "--results":
          results = Path.of(value(args, ++i));
          break;
        case "--help":
        case "-h":
          System.out.println(USAGE);
          return;
        default:
          System.err.println("unknown option " + args[i] + "; " + USAGE);
          System.exit(2);
      }
    }
    Files.createDirectories(results);
    Path saved = results.resolve("run.ser");
    if (reportOnly) {
      write(out, load(saved));
      return;
    }
    Iterations it = quick ? Iterations.QUICK : Iterations.FULL;
    List<Unit> units = new ArrayList<>();
    for (Unit u : units(quick, large)) {
      if (only == null || only.matcher(u.label()).find()) {
        units.add(u);
      }
    }
    Report.Run run = new Report.Run(quick, forks, it);
    Instant start = Instant.now();
    int done = 0;
    int total = units.size() * forks;
    for (int round = 0; round < forks; round++) {
      for (Unit u : rotated(units, round)) {
        System.out.printf(
            Locale.ROOT,
            "# probkit bench: %s round %d/%d, fork %d/%d (%s), load %s: %s%n",
            Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS),
            round + 1,
            forks,
            done + 1,
            total,
            eta(start, done, total),
            Report.loadAverage(),
            u.label());
        run.add(round, runUnit(u, it));
        done++;
        save(saved, run);
      }
    }
    if (measure && (only == null || only.matcher("measure").find())) {
      System.out.println("# probkit bench: measure (FPR, bytes, error)");
      run.measured = Measure.run(quick);
      Measure.print(run.measured, System.out);
    }
    run.finish();
    save(saved, run);
    write(out, run);
  }

  private static String value(String[] args, int i) {
    if (i >= args.length) {
      System.err.println(args[i - 1] + " needs a value; " + USAGE);
      System.exit(2);
    }
    return args[i];
  }

  private static int forks(String v) {
    try {
      int n = Integer.parseInt(v);
      if (n >= 1) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    System.err.println(
        "--forks must be a whole number of at least 1 (3 or more for an interval), was " + v);
    System.exit(2);
    return 0;
  }

  private static String eta(Instant start, int done, int total) {
    if (done == 0) {
      return "remaining time unknown";
    }
    Duration per = Duration.between(start, Instant.now()).dividedBy(done);
    return "about " + per.multipliedBy(total - done).toMinutes() + " min left";
  }

  private static void save(Path saved, Report.Run run) throws IOException {
    Path tmp = saved.resolveSibling(saved.getFileName() + ".tmp");
    try (ObjectOutputStream o = new ObjectOutputStream(Files.newOutputStream(tmp))) {
      o.writeObject(run);
    }
    Files.move(tmp, saved, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  private static void write(Path out, Report.Run run) throws IOException {
    Files.createDirectories(out.toAbsolutePath().getParent());
    Files.writeString(out, Report.markdown(run, Path.of("bench/NOTES.md")));
    System.out.println("# probkit bench: wrote " + out);
  }

  private static Report.Run load(Path saved) throws IOException {
    try (ObjectInputStream in = new ObjectInputStream(Files.newInputStream(saved))) {
      return (Report.Run) in.readObject();
    } catch (ClassNotFoundException e) {
      throw new IOException("cannot read " + saved + ": " + e, e);
    }
  }

  /** The units in round {@code round}'s order: groups in turn, each rotated by the round. */
  static List<Unit> rotated(List<Unit> units, int round) {
    Map<String, List<Unit>> groups = new LinkedHashMap<>();
    for (Unit u : units) {
      groups.computeIfAbsent(u.group(), g -> new ArrayList<>()).add(u);
    }
    List<Unit> out = new ArrayList<>();
    for (List<Unit> g : groups.values()) {
      int shift = round % g.size();
      out.addAll(g.subList(shift, g.size()));
      out.addAll(g.subList(0, shift));
    }
    return out;
  }

  static List<Unit> units(boolean quick, boolean large) {
    return quick ? quickUnits(large) : fullUnits();
  }

  /**
   * What issue 15's goals need, one unit per contestant with the methods its goals name; figures at
   * n above 10^7 (forks of a 10 GB heap and minutes of setup) only with {@code large}.
   */
  static List<Unit> quickUnits(boolean large) {
    Map<List<String>, Set<String>> methods = new LinkedHashMap<>();
    Goals.quickFigures()
        .filter(f -> large || f.n() == null || Long.parseLong(f.n()) <= 10_000_000L)
        .forEach(
            f ->
                methods
                    .computeIfAbsent(
                        List.of(f.benchmark(), f.param(), f.value(), String.valueOf(f.n())),
                        k -> new LinkedHashSet<>())
                    .add(f.method()));
    List<Unit> out = new ArrayList<>();
    methods.forEach(
        (k, m) -> {
          String benchmark = k.get(0);
          String n = k.get(3).equals("null") ? null : k.get(3);
          Map<String, String> fixed = n == null ? Map.of() : Map.of("n", n);
          out.add(
              new Unit(
                  benchmark + (n == null ? "" : " n=" + n),
                  benchmark,
                  List.copyOf(m),
                  k.get(1),
                  k.get(2),
                  fixed,
                  heap(n)));
        });
    return out;
  }

  static List<Unit> fullUnits() {
    List<String> filters = new ArrayList<>();
    List<String> dynamic = new ArrayList<>();
    List<String> built = new ArrayList<>();
    for (FilterImpls.Spec s : FilterImpls.all()) {
      filters.add(s.name());
      (s.dynamic() ? dynamic : built).add(s.name());
    }
    List<Unit> out = new ArrayList<>();
    for (String n : List.of(Goals.MILLION, Goals.HUNDRED_MILLION)) {
      group(
          out,
          "FilterQueryBenchmark",
          List.of("mightContainString", "mightContainLong"),
          "impl",
          filters,
          n);
      group(out, "FilterAddBenchmark", List.of("addString", "addLong"), "impl", dynamic, n);
      group(out, "FilterBuildBenchmark", List.of("build"), "impl", built, n);
    }
    // The long-key query goals' second protocol (Goals.Goal#cross), for their contestants.
    group(
        out,
        Goals.MIXED,
        List.of(Goals.MIXED_METHOD),
        "impl",
        java.util.stream.Stream.concat(Goals.ISSUE_15.stream(), Goals.ISSUE_8.stream())
            .map(Goals.Goal::cross)
            .filter(java.util.Objects::nonNull)
            .flatMap(g -> g.figs().stream())
            .map(Goals.Fig::value)
            .distinct()
            .toList(),
        Goals.MILLION);
    // Batches and mapped views (no peer offers either): beside one call per key, in and out of the
    // cache.
    group(
        out,
        "FilterBatchBenchmark",
        List.of("queryOneByOne", "queryBatch", "queryMapped"),
        "impl",
        List.of("probkit-blocked", "probkit-bloom", "probkit-binaryfuse8"),
        Goals.MILLION);
    group(
        out,
        "FilterBatchBenchmark",
        List.of("queryOneByOne", "queryBatch", "queryMapped", "addOneByOne", "addBatch"),
        "impl",
        List.of("probkit-blocked", "probkit-bloom"),
        Goals.HUNDRED_MILLION);
    group(
        out, "HashBenchmark", List.of("hashString", "hashLong"), "impl", HashBenchmark.NAMES, null);
    group(
        out,
        "CardinalityBenchmark",
        List.of("addLong", "addString", "estimate", "merge", "serialize"),
        "impl",
        CardinalityImpls.NAMES,
        null);
    group(
        out, "CardinalityBenchmark", List.of("addHash"), "impl", CardinalityImpls.HASH_NAMES, null);
    group(
        out,
        "FrequencyBenchmark",
        List.of(
            "countMinAddString",
            "countMinAddLong",
            "countMinEstimate",
            "countMinMerge",
            "countMinSerialize"),
        "cms",
        FrequencyImpls.COUNT_MIN,
        null);
    group(
        out,
        "FrequencyBenchmark",
        List.of("heavyHittersAdd", "heavyHittersTop10"),
        "hh",
        FrequencyImpls.HEAVY_HITTERS,
        null);
    return out;
  }

  private static void group(
      List<Unit> out,
      String benchmark,
      List<String> methods,
      String param,
      List<String> values,
      String n) {
    String group = benchmark + "." + String.join("|", methods) + (n == null ? "" : " n=" + n);
    for (String v : values) {
      out.add(
          new Unit(
              group, benchmark, methods, param, v, n == null ? Map.of() : Map.of("n", n), heap(n)));
    }
  }

  private static String heap(String n) {
    return n != null && Long.parseLong(n) > 10_000_000L ? LARGE_HEAP : SMALL_HEAP;
  }

  /** One fork of the unit's methods. */
  static Collection<RunResult> runUnit(Unit u, Iterations it) throws RunnerException {
    String methods = u.methods().stream().map(Pattern::quote).collect(Collectors.joining("|"));
    ChainedOptionsBuilder o =
        new OptionsBuilder()
            .include(
                "^"
                    + Pattern.quote(BenchRunner.class.getPackageName() + "." + u.benchmark())
                    + "\\.("
                    + methods
                    + ")$")
            .forks(1)
            .warmupIterations(it.warmups())
            .warmupTime(TimeValue.milliseconds((long) (it.warmupSeconds() * 1000)))
            .measurementIterations(it.measured())
            .measurementTime(TimeValue.milliseconds((long) (it.measuredSeconds() * 1000)))
            .addProfiler(CpuTimeProfiler.class)
            .jvmArgsAppend(("-XX:+AlwaysPreTouch " + u.heap()).split(" "))
            .verbosity(VerboseMode.NORMAL)
            .param(u.param(), u.value());
    u.fixed().forEach((k, v) -> o.param(k, v));
    boolean told = false;
    while (true) {
      try {
        return new Runner(o.build()).run();
      } catch (RunnerException e) {
        // JMH allows one run per machine at a time (/tmp/jmh.lock): wait for the other to finish
        // its
        // fork rather than measure two benchmarks against each other.
        if (!String.valueOf(e.getMessage()).contains("JMH lock")) {
          throw e;
        }
        if (!told) {
          System.out.println(
              "# probkit bench: another JMH run holds /tmp/jmh.lock; waiting for it");
          told = true;
        }
        try {
          Thread.sleep(5_000);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }
}
