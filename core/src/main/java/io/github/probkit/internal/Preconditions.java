package io.github.probkit.internal;

import io.github.probkit.hash.HashAlgorithm;
import io.github.probkit.hash.HashStrategy;
import io.github.probkit.io.StructureType;
import java.util.Locale;

/** Argument checks whose messages give the bad value and the allowed range. Not public API. */
public final class Preconditions {
  private Preconditions() {}

  /** Throws an IllegalArgumentException with a message formatted in {@link Locale#ROOT}. */
  public static void checkArgument(boolean ok, String format, Object... args) {
    if (!ok) {
      throw refusal(format, args);
    }
  }

  private static IllegalArgumentException refusal(String format, Object... args) {
    return new IllegalArgumentException(String.format(Locale.ROOT, format, args));
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
   * Refuses a hash that a structure of {@code type} does not accept, by the rule readers apply to a
   * header ({@link StructureType#accepts}), so that a constructor and a reader never disagree on
   * which structure takes Guava's or Spark's hashes. The message says why: a structure that takes
   * Guava's 64-bit hashes but not Spark's refuses its 32 bits; any other refuses both libraries'
   * hashes, which exist so that a {@code BloomFilter} holds their filters.
   */
  public static HashStrategy checkAccepted(
      HashStrategy hash, StructureType type, String structure) {
    java.util.Objects.requireNonNull(hash, "hash");
    HashAlgorithm algorithm = hash.algorithm();
    if (type.accepts(algorithm)) {
      return hash;
    }
    if (type.accepts(HashAlgorithm.GUAVA_MURMUR3_128)) {
      throw refusal(
          "%s cannot use the spark hash: its 32 bits would keep the false-positive rate above n /"
              + " 2^32; use xxh3 (or guava)",
          structure);
    }
    throw refusal(
        "%s cannot use the %s hash: Guava's and Spark's hashes are for Bloom filters that hold"
            + " those libraries' filters; use xxh3",
        structure, algorithm.label());
  }

  /**
   * {@link #checkAccepted} for a structure that takes no foreign hash: a scalable filter's layers
   * would probe other positions than probkit-redis's, a count-min sketch's rows would all but the
   * first share one column. Its callers (count-min, and {@link #checkUniformHash}'s) have no type
   * of the three that take one, so any such type stands for theirs.
   */
  public static HashStrategy checkNotForeign(HashStrategy hash, String structure) {
    return checkAccepted(hash, StructureType.COUNT_MIN_SKETCH, structure);
  }

  /**
   * {@link #checkAccepted} for the blocked Bloom filter, which takes a key's one 64-bit hash and
   * nothing else: Spark's is 32 bits, so its false-positive rate would never fall below n / 2^32.
   */
  public static HashStrategy checkWideHash(HashStrategy hash, String structure) {
    return checkAccepted(hash, StructureType.BLOCKED_BLOOM_FILTER, structure);
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
