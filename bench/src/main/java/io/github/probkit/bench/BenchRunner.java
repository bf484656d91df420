package io.github.probkit.bench;

import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs the benchmark set and writes docs/BENCHMARKS.md; {@code bench/run} is its launcher.
 *
 * <pre>
 * bench/run [--quick] [--only REGEX] [--out FILE] [--no-measure]
 * bench/run --report-only        rewrites the report from the last run's saved results (after editing bench/NOTES.md)
 * </pre>
 *
 * The quick set runs every contestant at n = 10^6 with 2 warm-up iterations of 1 s and 5 measured
 * ones of 0.6 s (filter adds with String keys only, add and nothing else for the sketches); the full set adds n = 10^8 for the filters (forks get a 10 GB heap), static-filter
 * builds, and the sketches' estimate, merge and serialize, with 3 + 5 iterations of 1 s.
 */
public final class BenchRunner {
  static final String USAGE = "usage: bench/run [--quick] [--only REGEX] [--out FILE] [--results DIR]"
      + " [--no-measure] [--report-only]";
  static final String SMALL_HEAP = "-Xms2g -Xmx2g";
  static final String LARGE_HEAP = "-Xms10g -Xmx10g";

  /** One JMH invocation: benchmarks matching {@code include}, with these parameter values. */
  record Job(String label, String include, Map<String, List<String>> params, String heap) {}

  private BenchRunner() {}

  public static void main(String[] args) throws IOException, RunnerException {
    boolean quick = false;
    boolean measure = true;
    boolean reportOnly = false;
    Pattern only = null;
    Path out = Path.of("docs/BENCHMARKS.md");
    Path results = Path.of("bench/results");
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--quick": quick = true; break;
        case "--no-measure": measure = false; break;
        case "--report-only": reportOnly = true; break;
        case "--only": only = Pattern.compile(args[++i]); break;
        case "--out": out = Path.of(args[++i]); break;
        case "--results": results = Path.of(args[++i]); break;
        case "--help": case "-h":
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
    Report.Run run = new Report.Run(quick);
    for (Job job : jobs(quick)) {
      if (only != null && !only.matcher(job.label()).find()) {
        continue;
      }
      System.out.println("# probkit bench: " + job.label());
      run.add(runJob(job, quick, results));
    }
    if (measure && (only == null || only.matcher("measure").find())) {
      System.out.println("# probkit bench: measure (FPR, bytes, error)");
      run.measured = Measure.run(quick);
      Measure.print(run.measured, System.out);
    }
    run.finish();
    try (ObjectOutputStream o = new ObjectOutputStream(Files.newOutputStream(saved))) {
      o.writeObject(run);
    }
    write(out, run);
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

  static List<Job> jobs(boolean quick) {
    List<String> filters = new ArrayList<>();
    List<String> dynamic = new ArrayList<>();
    List<String> built = new ArrayList<>();
    for (FilterImpls.Spec s : FilterImpls.all()) {
      filters.add(s.name());
      (s.dynamic() ? dynamic : built).add(s.name());
    }
    List<Job> jobs = new ArrayList<>();
    List<String> sizes = quick ? List.of("1000000") : List.of("1000000", "100000000");
    for (String n : sizes) {
      String heap = n.equals("1000000") ? SMALL_HEAP : LARGE_HEAP;
      jobs.add(new Job("filter-query n=" + n, "FilterQueryBenchmark\\.mightContain(String|Long)$",
          params("impl", filters, "n", List.of(n)), heap));
      // The quick set adds String keys only (long-key adds are the full set's), to stay under 10 minutes.
      jobs.add(new Job("filter-add n=" + n, quick ? "FilterAddBenchmark\\.addString$" : "FilterAddBenchmark\\.add(String|Long)$",
          params("impl", dynamic, "n", List.of(n)), heap));
      if (!quick && !built.isEmpty()) {
        jobs.add(new Job("filter-build n=" + n, "FilterBuildBenchmark\\.build$",
            params("impl", built, "n", List.of(n)), heap));
      }
    }
    // Batches and mapped views (no peer offers either): beside one call per key, in and out of the cache.
    jobs.add(new Job("filter-batch n=1000000", "FilterBatchBenchmark\\.(query(OneByOne|Batch|Mapped))$",
        Map.of("n", List.of("1000000")), SMALL_HEAP));
    if (!quick) {
      jobs.add(new Job("filter-batch n=100000000", "FilterBatchBenchmark\\.",
          Map.of("n", List.of("100000000"), "impl", List.of("probkit-blocked", "probkit-bloom")), LARGE_HEAP));
    }
    jobs.add(new Job("hash", "HashBenchmark\\.", Map.of(), SMALL_HEAP));
    jobs.add(new Job("cardinality",
        quick ? "CardinalityBenchmark\\.addLong$" : "CardinalityBenchmark\\.",
        params("impl", CardinalityImpls.NAMES), SMALL_HEAP));
    jobs.add(new Job("frequency",
        quick ? "FrequencyBenchmark\\.(countMinAddString|heavyHittersAdd)$" : "FrequencyBenchmark\\.",
        params("cms", FrequencyImpls.COUNT_MIN, "hh", FrequencyImpls.HEAVY_HITTERS), SMALL_HEAP));
    return jobs;
  }

  private static Map<String, List<String>> params(Object... kv) {
    Map<String, List<String>> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      @SuppressWarnings("unchecked")
      List<String> v = (List<String>) kv[i + 1];
      m.put((String) kv[i], v);
    }
    return m;
  }

  static List<RunResult> runJob(Job job, boolean quick, Path results) throws RunnerException {
    String file = job.label().replaceAll("[^A-Za-z0-9]+", "-") + ".json";
    ChainedOptionsBuilder o = new OptionsBuilder()
        .include(BenchRunner.class.getPackageName() + "\\." + job.include())
        .forks(1)
        .warmupIterations(quick ? 2 : 3)
        // Five short measured iterations rather than three long ones: JMH's 99.9 % error uses
        // Student's t, whose factor is 31.6 for 3 samples and 8.6 for 5.
        .measurementIterations(5)
        .measurementTime(quick ? TimeValue.milliseconds(600) : TimeValue.seconds(1))
        .addProfiler(GCProfiler.class)
        .addProfiler(CpuTimeProfiler.class)
        .jvmArgsAppend(("-XX:+AlwaysPreTouch " + job.heap()).split(" "))
        .resultFormat(ResultFormatType.JSON)
        .result(results.resolve(file).toString());
    job.params().forEach((k, v) -> o.param(k, v.toArray(new String[0])));
    return new ArrayList<>(new Runner(o.build()).run());
  }
}
