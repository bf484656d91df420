package io.github.probkit.cli.lab;

/**
 * One experiment of {@code probkit lab}: it measures probkit's own structures, reports tables and
 * charts through its {@link Section}, and judges each measured value with a pass/FAIL check. Every
 * random source is seeded with a fixed constant, so a run is reproducible.
 */
interface Experiment {
  /** The name on the command line: {@code probkit lab NAME}. */
  String name();

  /** One line: what is measured. */
  String title();

  /** A paragraph for the report: the setup and the seed claims it checks. */
  String description(Lab lab);

  void run(Lab lab, Section out) throws Exception;
}
