package io.github.probkit.cli.input;

import java.math.BigDecimal;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.TypeConversionException;

/**
 * Numbers as people type them, for every integer and rate option: counts with underscores, an
 * exponent or a unit ({@code 20000000}, {@code 20_000_000}, {@code 2e7}, {@code 20M}, {@code 1k}: k
 * or K, M, G, T are powers of 1000) and rates as fractions or percentages ({@code 0.01}, {@code
 * 1e-2}, {@code 1%}). Picocli's own converters reject {@code 1k} and {@code 1%}, and call {@code
 * 1e30} "not an int" where it is too large.
 */
public final class Numbers {
  private Numbers() {}

  /**
   * The whole number {@code text} stands for, refused when it is not one or lies outside [min,
   * max].
   */
  public static long count(String text, long min, long max) {
    String t = text.strip().replace("_", "");
    long scale = 1;
    if (!t.isEmpty()) {
      int unit = "kMGT".indexOf(t.charAt(t.length() - 1) == 'K' ? 'k' : t.charAt(t.length() - 1));
      if (unit >= 0) {
        scale = (long) Math.pow(1000, unit + 1);
        t = t.substring(0, t.length() - 1);
      }
    }
    BigDecimal n;
    try {
      n = new BigDecimal(t).multiply(BigDecimal.valueOf(scale));
    } catch (NumberFormatException | ArithmeticException e) {
      throw new TypeConversionException(
          "'" + text + "' is not a number (write 20000000, 20_000_000, 2e7, 20M or 1k)");
    }
    if (n.compareTo(BigDecimal.valueOf(max)) > 0) {
      throw new TypeConversionException("'" + text + "' is too large (at most " + max + ")");
    }
    if (n.compareTo(BigDecimal.valueOf(min)) < 0) {
      throw new TypeConversionException("'" + text + "' is too small (at least " + min + ")");
    }
    try {
      return n.longValueExact();
    } catch (ArithmeticException e) {
      throw new TypeConversionException("'" + text + "' is not a whole number");
    }
  }

  /** A rate: a fraction ({@code 0.01}, {@code 1e-2}) or a percentage ({@code 1%}); finite. */
  public static double rate(String text) {
    String t = text.strip();
    boolean percent = t.endsWith("%");
    if (percent) {
      t = t.substring(0, t.length() - 1).strip();
    }
    double v;
    try {
      // BigDecimal: no NaN, Infinity, hexadecimal or trailing 'd' as Double.parseDouble allows.
      v = new BigDecimal(t).doubleValue();
    } catch (NumberFormatException e) {
      throw new TypeConversionException("'" + text + "' is not a number (write 0.01, 1e-2 or 1%)");
    }
    return percent ? v / 100 : v;
  }

  /**
   * {@code option}'s value as the user typed it ({@code 1e-20}, {@code 0.45%}), for messages that
   * echo it: a double prints as {@code 1.0E-20} or {@code 0.0045000000000000005}. {@code otherwise}
   * when the option was not given.
   */
  public static String typed(CommandSpec spec, String option, Object otherwise) {
    CommandLine.ParseResult r = spec.commandLine().getParseResult();
    CommandLine.Model.OptionSpec o = r == null ? null : r.matchedOption(option);
    List<String> v = o == null ? List.of() : o.stringValues();
    return v.isEmpty() ? String.valueOf(otherwise) : v.get(v.size() - 1);
  }

  public static final class Longs implements ITypeConverter<Long> {
    @Override
    public Long convert(String text) {
      return count(text, Long.MIN_VALUE, Long.MAX_VALUE);
    }
  }

  public static final class Ints implements ITypeConverter<Integer> {
    @Override
    public Integer convert(String text) {
      return (int) count(text, Integer.MIN_VALUE, Integer.MAX_VALUE);
    }
  }

  public static final class Rates implements ITypeConverter<Double> {
    @Override
    public Double convert(String text) {
      return rate(text);
    }
  }
}
