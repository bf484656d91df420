package io.github.probkit.spark;

import java.util.Locale;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.NumericType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The constant arguments of a function (sizes, rates, type names), read when the query is analysed;
 * a bad one is an IllegalArgumentException naming the function, the argument and its value.
 */
final class Params {
  private Params() {}

  static double number(String function, String name, Expression e) {
    Object v = constant(function, name, e, true);
    if (v instanceof Decimal) {
      return ((Decimal) v).toDouble();
    }
    return ((Number) v).doubleValue();
  }

  static long integer(String function, String name, Expression e) {
    double d = number(function, name, e);
    if (d != Math.rint(d) || Math.abs(d) > 0x1p62) {
      throw fail(function, "%s must be a whole number, was %s", name, String.valueOf(d));
    }
    return (long) d;
  }

  static String text(String function, String name, Expression e) {
    return ((UTF8String) constant(function, name, e, false)).toString();
  }

  private static Object constant(String function, String name, Expression e, boolean numeric) {
    boolean typeOk =
        numeric ? e.dataType() instanceof NumericType : e.dataType() instanceof StringType;
    if (!typeOk) {
      throw fail(
          function,
          "%s must be a %s, was of type %s",
          name,
          numeric ? "number" : "string",
          e.dataType().sql());
    }
    if (!e.foldable()) {
      throw fail(function, "%s must be a constant, was %s", name, e.sql());
    }
    Object v = e.eval(null);
    if (v == null) {
      throw fail(function, "%s must not be null", name);
    }
    return v;
  }

  static IllegalArgumentException fail(String function, String format, Object... args) {
    return new IllegalArgumentException(function + ": " + String.format(Locale.ROOT, format, args));
  }
}
