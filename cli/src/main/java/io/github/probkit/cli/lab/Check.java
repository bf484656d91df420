package io.github.probkit.cli.lab;

import io.github.probkit.cli.output.Json;

/**
 * One claim judged: the measured value, what theory (or a seed) says, the tolerance, and the
 * verdict.
 */
final class Check {
  final String experiment;
  final String claim;
  final double measured;
  final double theory;
  final String measuredText;
  final String theoryText;
  final String tolerance;
  final boolean pass;

  Check(
      String experiment,
      String claim,
      double measured,
      double theory,
      String measuredText,
      String theoryText,
      String tolerance,
      boolean pass) {
    this.experiment = experiment;
    this.claim = claim;
    this.measured = measured;
    this.theory = theory;
    this.measuredText = measuredText;
    this.theoryText = theoryText;
    this.tolerance = tolerance;
    this.pass = pass;
  }

  String verdict() {
    return pass ? "pass" : "FAIL";
  }

  /** The line printed on the console: verdict, experiment, claim, measured, theory, tolerance. */
  String line() {
    return verdict()
        + "  "
        + experiment
        + ": "
        + claim
        + ": measured "
        + measuredText
        + "; theory "
        + theoryText
        + "; accept "
        + tolerance;
  }

  Json json() {
    return new Json()
        .put("claim", claim)
        .put("pass", pass)
        .put("measured", measured)
        .put("theory", theory)
        .put("measuredText", measuredText)
        .put("theoryText", theoryText)
        .put("tolerance", tolerance);
  }
}
