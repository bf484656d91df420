package io.github.probkit.cli.lab;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code probkit lab NAME... [--quick] [--big[=KEYS]] [--out DIR]}: the seeds' claims measured. */
@Command(
    name = "lab",
    mixinStandardHelpOptions = true,
    description = {
      "Measure every claim of the specification, with a pass/FAIL line each.",
      "",
      "The experiments use probkit's own structures, print tables, and write PNG charts and a report (index.html, README.md, results.json) to --out. Each measured value is judged against theory with a tolerance from its sampling distribution (99.99 %% two-sided). Runs are reproducible: --seed N gives another run on other keys, reproducible too.",
    },
    footer = {
      "",
      "Examples:",
      "  probkit lab bloom-fpr --quick",
      "  probkit lab all --out docs/lab",
      "  probkit lab sizing --big=1000000000      (a 1.2 GB crawler filter)",
      "",
      "Exit codes: 0 every claim passed, 1 runtime error, 2 usage error, 3 a claim FAILed.",
    })
public final class LabCommand implements Callable<Integer> {
  /** The exit code when at least one claim FAILed. */
  public static final int EXIT_FAIL = 3;

  /** Every experiment, in the order {@code lab all} runs them. */
  static final Map<String, Supplier<Experiment>> EXPERIMENTS = new LinkedHashMap<>();

  static {
    register(BloomFprExperiment::new);
    register(SizingExperiment::new);
    register(FiltersExperiment::new);
    register(DeletionExperiment::new);
    register(CmsErrorExperiment::new);
    register(HeavyHittersExperiment::new);
    register(HllErrorExperiment::new);
    register(LsmExperiment::new);
    register(CdnExperiment::new);
    register(WindowExperiment::new);
  }

  private static void register(Supplier<Experiment> e) {
    EXPERIMENTS.put(e.get().name(), e);
  }

  @Spec CommandSpec spec;

  @Parameters(
      paramLabel = "NAME",
      arity = "1..*",
      description = "Experiments to run, or all: ${COMPLETION-CANDIDATES}.",
      completionCandidates = Names.class)
  List<String> names = new ArrayList<>();

  @Option(names = "--quick", description = "Smaller sizes: lab all in about a minute or two.")
  boolean quick;

  @Option(
      names = "--big",
      arity = "0..1",
      fallbackValue = "100000000",
      paramLabel = "KEYS",
      description =
          "sizing: also build and measure the crawler's 1 %% filter at KEYS keys (default 10^8, about 120 MB).")
  long bigKeys;

  @Option(
      names = "--out",
      paramLabel = "DIR",
      description = "Where the charts and the report go (default: ${DEFAULT-VALUE}).")
  Path out = Path.of("docs", "lab");

  @Option(
      names = "--seed",
      paramLabel = "N",
      description =
          "Move every key range and reseed every random source (default 0: the published run)."
              + " Each seed is reproducible.")
  long seed;

  @Option(names = "--tiny", hidden = true, description = "Tiny sizes, for the unit tests.")
  boolean tiny;

  @Override
  public Integer call() throws Exception {
    System.setProperty("java.awt.headless", "true");
    if (bigKeys < 0) {
      throw new IllegalArgumentException("--big must be a positive number of keys, was " + bigKeys);
    }
    List<Experiment> selected = select();
    Lab.Scale scale = tiny ? Lab.Scale.TINY : quick ? Lab.Scale.QUICK : Lab.Scale.FULL;
    Files.createDirectories(out);
    Lab lab = new Lab(scale, bigKeys, out, seed);
    PrintWriter pw = spec.commandLine().getOut();
    List<Section> sections = new ArrayList<>();
    for (Experiment e : selected) {
      pw.println("== probkit lab " + e.name() + ": " + e.title() + " ==");
      pw.flush();
      Section s = new Section(e, lab, pw);
      long t0 = System.nanoTime();
      e.run(lab, s);
      s.seconds = (System.nanoTime() - t0) / 1e9;
      sections.add(s);
      pw.printf(
          Locale.ROOT,
          "%s: %d pass, %d FAIL in %.1f s%n%n",
          e.name(),
          s.passes(),
          s.failures(),
          s.seconds);
      pw.flush();
    }
    new Report(lab, sections, commandText()).write();
    int passed = 0;
    int failed = 0;
    for (Section s : sections) {
      passed += s.passes();
      failed += s.failures();
    }
    pw.printf(
        Locale.ROOT,
        "lab: %d pass, %d FAIL; report %s%n",
        passed,
        failed,
        out.resolve(Report.HTML));
    pw.flush();
    return failed == 0 ? 0 : EXIT_FAIL;
  }

  private List<Experiment> select() {
    List<Experiment> out = new ArrayList<>();
    for (String n : names) {
      if (n.equals("all")) {
        for (Supplier<Experiment> e : EXPERIMENTS.values()) {
          out.add(e.get());
        }
      } else if (EXPERIMENTS.containsKey(n)) {
        out.add(EXPERIMENTS.get(n).get());
      } else {
        throw new IllegalArgumentException(
            "unknown experiment '"
                + n
                + "'; choose from all, "
                + String.join(", ", EXPERIMENTS.keySet()));
      }
    }
    return out;
  }

  private String commandText() {
    StringBuilder sb = new StringBuilder("probkit lab ").append(String.join(" ", names));
    if (quick) {
      sb.append(" --quick");
    }
    if (tiny) {
      sb.append(" --tiny");
    }
    if (bigKeys > 0) {
      sb.append(" --big=").append(bigKeys);
    }
    if (seed != 0) {
      sb.append(" --seed ").append(seed);
    }
    return sb.append(" --out ").append(out).toString();
  }

  static final class Names extends ArrayList<String> {
    private static final long serialVersionUID = 1L;

    Names() {
      super(EXPERIMENTS.keySet());
    }
  }
}
