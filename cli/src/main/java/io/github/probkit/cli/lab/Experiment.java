package io.github.probkit.cli.lab;

/**
 * One experiment of {@code probkit lab}: it measures probkit's own structures, reports tables and
 * charts through its {@link Section}, and judges each measured value with a pass/FAIL check. Every
 * random source is seeded with a fixed constant, so a run is reproducible.
 */
abstract class Experiment {
  private final String name;
  private final String title;

  /**
   * @param name the name on the command line: {@code probkit lab NAME}
   * @param title one line: what is measured
   */
  Experiment(String name, String title) {
    this.name = name;
    this.title = title;
  }

  final String name() {
    return name;
  }

  final String title() {
    return title;
  }

  /** A paragraph for the report: the setup and the seed claims it checks. */
  abstract String description(Lab lab);

  abstract void run(Lab lab, Section out) throws Exception;
}
