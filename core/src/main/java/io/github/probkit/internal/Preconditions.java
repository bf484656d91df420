package io.github.probkit.internal;

import io.github.probkit.hash.HashStrategy;
import java.util.Locale;

/** Argument checks whose messages give the bad value and the allowed range. Not public API. */
public final class Preconditions {
  private Preconditions() {}

  /** Throws an IllegalArgumentException with a message formatted in {@link Locale#ROOT}. */
  public static void checkArgument(boolean ok, String format, Object... args) {
    if (!ok) {
      throw new IllegalArgumentException(String.format(Locale.ROOT, format, args));
    }
  }

  /** Checks that a probability lies strictly between 0 and 1 (NaN is refused too). */
  public static double checkOpenUnit(String name, double value) {
    checkArgument(value > 0 && value < 1, "%s must be in (0, 1), was %s", name, value);
    return value;
  }

  /**
   * Refuses a hash that {@link HashStrategy#needsMixing() needs mixing} for a structure that uses
   * the hash's bits as they are, so that it never silently loses its accuracy.
   */
  public static HashStrategy checkUniformHash(HashStrategy hash, String structure) {
    checkNotForeign(hash, structure);
    checkArgument(
        !hash.needsMixing(),
        "%s cannot use the %s hash: its bits are too regular for this structure's accuracy (fnv1a"
            + " is kept for the specification's walkthroughs, guava and spark for their Bloom"
            + " filters); use xxh3",
        structure,
        hash.algorithm().label());
    return hash;
  }

  /**
   * Refuses Guava's and Spark's hashes ({@link HashStrategy#foreignProbes()}), which exist so that
   * a {@code BloomFilter} holds those libraries' filters, for a structure that would not answer as
   * it promises with them: a scalable filter's layers would probe other positions than
   * probkit-redis's, a count-min sketch's rows would all but the first share one column.
   */
  public static HashStrategy checkNotForeign(HashStrategy hash, String structure) {
    java.util.Objects.requireNonNull(hash, "hash");
    checkArgument(
        !hash.foreignProbes(),
        "%s cannot use the %s hash: Guava's and Spark's hashes are for Bloom filters that hold"
            + " those libraries' filters; use xxh3",
        structure,
        hash.algorithm().label());
    return hash;
  }

  /**
   * Refuses Spark's hash for a structure that takes a key's one 64-bit hash ({@code hash64}) and
   * nothing else: Spark's is 32 bits, so its false-positive rate would never fall below n / 2^32
   * (36 times the rate of a 16-bit binary fuse filter of 2 million keys).
   */
  public static HashStrategy checkWideHash(HashStrategy hash, String structure) {
    java.util.Objects.requireNonNull(hash, "hash");
    checkArgument(
        hash.algorithm() != io.github.probkit.hash.HashAlgorithm.SPARK_MURMUR3_32,
        "%s cannot use the spark hash: its 32 bits would keep the false-positive rate above n /"
            + " 2^32; use xxh3 (or guava)",
        structure);
    return hash;
  }

  public static long checkPositive(String name, long value) {
    checkArgument(value > 0, "%s must be positive, was %d", name, value);
    return value;
  }

  /**
   * Refuses to allocate a structure larger than this JVM could ever hold, naming what it would
   * need, so that a mistyped size fails at once instead of with an OutOfMemoryError later.
   */
  public static void checkAllocatable(long bytes, String what) {
    long max = Runtime.getRuntime().maxMemory();
    checkArgument(
        bytes >= 0 && bytes <= max,
        "%s needs %s, more than this JVM's maximum heap of %s (raise it with -Xmx)",
        what,
        formatBytes(bytes),
        formatBytes(max));
  }

  /** 1536 -> "1.5 KiB"; used in messages and reports. */
  public static String formatBytes(long bytes) {
    if (bytes < 0) {
      return bytes + " B";
    }
    String[] units = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = bytes;
    int u = 0;
    while (v >= 1024 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    return u == 0 ? bytes + " B" : String.format(Locale.ROOT, "%.1f %s", v, units[u]);
  }
}
