package io.github.probkit.spark;

import java.time.Duration;
import java.util.Locale;
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DayTimeIntervalType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.NullType;
import org.apache.spark.sql.types.NumericType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
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

  /**
   * A span of time: a string in the command line's forms ({@code '30s'}, {@code '15m'}, {@code
   * '1h'}, {@code '7d'}) or a day-time interval ({@code INTERVAL '1' HOUR}); at least 1 ms, whole
   * milliseconds.
   */
  static Duration duration(String function, String name, Expression e) {
    long millis = -1;
    String shown;
    if (e.dataType() instanceof DayTimeIntervalType) {
      if (!e.foldable()) {
        throw fail(function, "%s must be a constant, was %s", name, e.sql());
      }
      Object v = e.eval(null);
      if (v == null) {
        throw fail(function, "%s must not be null", name);
      }
      long micros = (Long) v;
      millis = micros % 1000 == 0 ? micros / 1000 : -1;
      shown = e.sql();
    } else {
      if (!(e.dataType() instanceof StringType)) {
        throw fail(
            function,
            "%s must be a time span ('30s', '15m', '1h', '7d' or an INTERVAL), was of type %s",
            name,
            e.dataType().sql());
      }
      shown = text(function, name, e).strip();
      int unit = shown.isEmpty() ? -1 : "smhd".indexOf(shown.charAt(shown.length() - 1));
      if (unit >= 0) {
        try {
          long n = Long.parseLong(shown.substring(0, shown.length() - 1));
          millis = n > 0 ? Math.multiplyExact(n, UNIT_MILLIS[unit]) : -1;
        } catch (ArithmeticException | NumberFormatException ignored) {
          millis = -1;
        }
      }
      shown = "'" + shown + "'";
    }
    if (millis < 1) {
      throw fail(
          function,
          "%s must be a time span of whole milliseconds above 0 ('30s', '15m', '1h', '7d' or an"
              + " INTERVAL), was %s",
          name,
          shown);
    }
    return Duration.ofMillis(millis);
  }

  private static final long[] UNIT_MILLIS = {1000, 60_000, 3_600_000, 86_400_000};

  /** Checks that {@code e} is an event time: a timestamp or timestamp_ntz. */
  static void checkTime(String function, String name, Expression e) {
    DataType t = e.dataType();
    if (!(t instanceof TimestampType || t instanceof TimestampNTZType || t instanceof NullType)) {
      throw fail(
          function,
          "%s must be a timestamp or timestamp_ntz, was of type %s (timestamp_millis(n) or"
              + " timestamp_seconds(n) makes one of a number)",
          name,
          t.sql());
    }
  }

  /** An event time's Catalyst value (microseconds since 1970-01-01) in milliseconds. */
  static long millis(Object micros) {
    return Math.floorDiv((Long) micros, 1000L);
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

  /**
   * Spark's answer to a query's analysis: a failure carrying the message of the
   * IllegalArgumentException {@code check} throws for a bad argument.
   */
  static TypeCheckResult typeCheck(Runnable check) {
    try {
      check.run();
      return TypeCheckResult.TypeCheckSuccess$.MODULE$;
    } catch (IllegalArgumentException e) {
      return new TypeCheckResult.TypeCheckFailure(e.getMessage());
    }
  }

  static IllegalArgumentException fail(String function, String format, Object... args) {
    return new IllegalArgumentException(function + ": " + String.format(Locale.ROOT, format, args));
  }
}
