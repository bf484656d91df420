package io.github.probkit.cli.lab;

import java.util.Locale;

/** How the lab prints a measured or theoretical value. */
enum Unit {
  /** A probability printed as a percentage with four significant digits: 0.008194 -> "0.8194 %". */
  PERCENT,
  /** A plain number with four significant digits. */
  NUMBER,
  /** A whole count with thousands separators. */
  COUNT,
  /** A small whole number (k, bits per key) without separators. */
  INTEGER,
  /** Bytes in decimal units, as the seeds write them (1.2 MB is 1.2 million bytes). */
  BYTES,
  /** A ratio: "122.0x". */
  TIMES,
  /** Bits per key. */
  BITS,
  /** Text cells only. */
  TEXT;

  String format(double v) {
    if (Double.isNaN(v)) {
      return "-";
    }
    if (Double.isInfinite(v)) {
      return v > 0 ? "inf" : "-inf";
    }
    switch (this) {
      case PERCENT:
        return sig(100 * v) + " %";
      case COUNT:
        return String.format(Locale.ROOT, "%,d", Math.round(v));
      case INTEGER:
        return v == Math.rint(v) ? Long.toString((long) v) : sig(v);
      case BYTES:
        return bytes(v);
      case TIMES:
        return sig(v) + "x";
      case BITS:
        return sig(v) + " bits/key";
      case NUMBER:
      default:
        return sig(v);
    }
  }

  /** Four significant digits without an exponent for the ranges the lab prints. */
  static String sig(double v) {
    if (v == 0) {
      return "0";
    }
    double a = Math.abs(v);
    if (a >= 1e7 || a < 1e-5) {
      return String.format(Locale.ROOT, "%.3e", v);
    }
    int digits = Math.max(0, 3 - (int) Math.floor(Math.log10(a)));
    return String.format(Locale.ROOT, "%." + digits + "f", v);
  }

  private static String bytes(double b) {
    String[] units = {"B", "kB", "MB", "GB", "TB", "PB"};
    int u = 0;
    while (Math.abs(b) >= 1000 && u < units.length - 1) {
      b /= 1000;
      u++;
    }
    return u == 0 ? String.format(Locale.ROOT, "%.0f B", b) : sig(b) + " " + units[u];
  }
}
