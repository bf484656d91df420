package io.github.probkit.spark;

/** A function's SQL name and the arguments it takes, for registration and the arity check. */
final class Signature {
  final String sqlName;
  final String arguments;
  private final int minArgs;
  private final int maxArgs;

  Signature(String sqlName, int minArgs, int maxArgs, String arguments) {
    this.sqlName = sqlName;
    this.minArgs = minArgs;
    this.maxArgs = maxArgs;
    this.arguments = arguments;
  }

  /** An IllegalArgumentException unless {@code n} arguments are allowed. */
  void checkArity(int n) {
    if (n < minArgs || n > maxArgs) {
      throw Params.fail(
          sqlName, "takes (%s), was given %d argument%s", arguments, n, n == 1 ? "" : "s");
    }
  }
}
