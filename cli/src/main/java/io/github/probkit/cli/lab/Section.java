package io.github.probkit.cli.lab;

import io.github.probkit.cli.output.Json;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * The results of one experiment as it runs: notes, tables, charts and checks, printed on the
 * console as they come and kept, in order, for the report.
 */
final class Section {
  final Experiment experiment;
  final String description;

  /** Notes (String), tables, chart file names (ChartFile) and checks, in the order they came. */
  final List<Object> blocks = new ArrayList<>();

  final List<Check> checks = new ArrayList<>();
  double seconds;
  final Lab lab;
  private final PrintWriter out;

  /** A chart written to the output directory. */
  static final class ChartFile {
    final String file;
    final String title;

    ChartFile(String file, String title) {
      this.file = file;
      this.title = title;
    }
  }

  Section(Experiment experiment, Lab lab, PrintWriter out) {
    this.experiment = experiment;
    this.lab = lab;
    this.out = out;
    this.description = experiment.description(lab);
  }

  String name() {
    return experiment.name();
  }

  void note(String text) {
    blocks.add(text);
    out.println(text);
    out.flush();
  }

  /**
   * Prints a table. In the report it goes before the checks printed just before it, which judge its
   * rows as they were measured.
   */
  void table(Table t) {
    int at = blocks.size();
    while (at > 0 && blocks.get(at - 1) instanceof Check) {
      at--;
    }
    blocks.add(at, t);
    out.println();
    out.print(t.text());
    out.println();
    out.flush();
  }

  void chart(Chart c) throws IOException {
    String file = c.write(lab.out).getFileName().toString();
    blocks.add(new ChartFile(file, c.title));
    out.println("chart: " + lab.out.resolve(file));
    out.flush();
  }

  private void add(Check c) {
    blocks.add(c);
    checks.add(c);
    out.println(c.line());
    out.flush();
  }

  /** Passes when {@code lo <= measured <= hi}, an acceptance interval around {@code theory}. */
  boolean checkInterval(
      String claim, Unit u, double measured, double theory, double lo, double hi, String why) {
    return record(
        claim,
        u,
        measured,
        theory,
        "[" + u.format(lo) + ", " + u.format(hi) + "] (" + why + ")",
        measured >= lo && measured <= hi);
  }

  /**
   * A seed's figure stated to some precision against a measurement with its own uncertainty: passes
   * when the measured interval [mlo, mhi] meets the values that round to the stated figure, [stated
   * - half, stated + half].
   */
  boolean checkStated(
      String claim,
      Unit u,
      double measured,
      double mlo,
      double mhi,
      double stated,
      double half,
      String statedText) {
    boolean pass = mhi >= stated - half && mlo <= stated + half;
    String measuredText =
        u.format(measured)
            + (mlo == mhi && mlo == measured
                ? ""
                : " ("
                    + Stats.pct(Stats.CONFIDENCE)
                    + " interval ["
                    + u.format(mlo)
                    + ", "
                    + u.format(mhi)
                    + "])");
    add(
        new Check(
            name(),
            claim,
            measured,
            stated,
            measuredText,
            statedText,
            "["
                + u.format(stated - half)
                + ", "
                + u.format(stated + half)
                + "] (the seed's precision)",
            pass));
    return pass;
  }

  /** A one-sided bound: passes when {@code measured <= bound} (or {@code >=} when not atMost). */
  boolean checkBound(
      String claim,
      Unit u,
      double measured,
      double theory,
      double bound,
      boolean atMost,
      String why) {
    return record(
        claim,
        u,
        measured,
        theory,
        (atMost ? "<= " : ">= ") + u.format(bound) + " (" + why + ")",
        atMost ? measured <= bound : measured >= bound);
  }

  /** An exact fact: the measured value must equal the expected one. */
  boolean checkExact(String claim, Unit u, double measured, double expected, String why) {
    return record(
        claim,
        u,
        measured,
        expected,
        "exactly " + u.format(expected) + " (" + why + ")",
        measured == expected);
  }

  /** Records the check of {@code measured} against {@code theory}, both in unit {@code u}. */
  private boolean record(
      String claim, Unit u, double measured, double theory, String accepted, boolean pass) {
    add(
        new Check(
            name(), claim, measured, theory, u.format(measured), u.format(theory), accepted, pass));
    return pass;
  }

  /** The checks that passed. */
  int passes() {
    return checks.size() - failures();
  }

  int failures() {
    int f = 0;
    for (Check c : checks) {
      f += c.pass ? 0 : 1;
    }
    return f;
  }

  Json json() {
    List<Object> notes = new ArrayList<>();
    List<Object> tables = new ArrayList<>();
    List<Object> charts = new ArrayList<>();
    List<Object> checkJson = new ArrayList<>();
    for (Object b : blocks) {
      if (b instanceof String) {
        notes.add(b);
      } else if (b instanceof Table) {
        tables.add(((Table) b).json());
      } else if (b instanceof ChartFile) {
        charts.add(((ChartFile) b).file);
      }
    }
    for (Check c : checks) {
      checkJson.add(c.json());
    }
    return new Json()
        .put("name", name())
        .put("title", experiment.title())
        .put("description", description)
        .put("seconds", seconds)
        .put("passed", passes())
        .put("failed", failures())
        .put("notes", notes)
        .put("tables", tables)
        .put("charts", charts)
        .put("checks", checkJson);
  }
}
