package io.github.probkit.spark;

/**
 * A function's SQL name, the arguments it takes and what DESCRIBE FUNCTION EXTENDED shows, for
 * registration and the arity check.
 */
final class Signature {
  final String sqlName;
  final String arguments;

  /** What it returns, one sentence. */
  final String returns;

  /** Example queries, one a line. */
  final String[] examples;

  private final int minArgs;
  private final int maxArgs;

  Signature(
      String sqlName,
      int minArgs,
      int maxArgs,
      String arguments,
      String returns,
      String... examples) {
    this.sqlName = sqlName;
    this.minArgs = minArgs;
    this.maxArgs = maxArgs;
    this.arguments = arguments;
    this.returns = returns;
    this.examples = examples;
  }

  /** DESCRIBE FUNCTION's usage line. */
  String usage() {
    return "_FUNC_(" + arguments + ") - " + returns;
  }

  /** DESCRIBE FUNCTION EXTENDED's examples, in Spark's layout. */
  String extended() {
    StringBuilder s = new StringBuilder("\n    Examples:\n");
    for (String e : examples) {
      s.append("      > ").append(e).append(";\n");
    }
    return s.append("\n    See docs/SPARK.md of probkit for the reference.\n  ").toString();
  }

  /** An IllegalArgumentException unless {@code n} arguments are allowed. */
  void checkArity(int n) {
    if (n < minArgs || n > maxArgs) {
      throw Params.fail(
          sqlName, "takes (%s), was given %d argument%s", arguments, n, n == 1 ? "" : "s");
    }
  }
}
