package io.github.probkit.cli.format;

import io.github.probkit.cli.output.Json;
import io.github.probkit.filter.MembershipFilter;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A filter another library wrote (Guava's, Spark's), answering by that library's own probes: no
 * probkit filter type holds its bits with the same answers, so it is queried where it is.
 */
public interface ForeignFilter {
  /** The library's answer for a key given as bytes: a string's UTF-8 bytes, or a byte array. */
  boolean mightContain(byte[] key, int off, int len);

  /**
   * The library's answer for a key it was given as a long (Guava's longFunnel, Spark's putLong).
   */
  boolean mightContain(long key);

  /** What {@code filter info} prints. */
  Json describe();

  /**
   * A key given on the command line or in a line of input as a decimal long ({@code --long}): the
   * long a library's long funnel hashes.
   */
  static long longKey(byte[] key, int off, int len) {
    String s = new String(key, off, len, StandardCharsets.UTF_8);
    try {
      return Long.parseLong(s.strip());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--long: key '" + s + "' is not a decimal long");
    }
  }

  /**
   * A probkit filter that {@code filter import} made of a Guava or Spark filter (its hash places
   * their probes), asked as that library's: {@code --long} keys too, which only such a filter was
   * given (the command line adds keys as bytes).
   *
   * @throws IllegalArgumentException for a filter of probkit's own hashing, naming {@code file}
   */
  static ForeignFilter converted(MembershipFilter f, Object file) {
    if (!f.hashStrategy().foreignProbes()) {
      throw new IllegalArgumentException(
          "--long answers for keys a Guava or Spark filter was given as longs; "
              + file
              + " is a probkit filter, whose keys are bytes");
    }
    return new ForeignFilter() {
      @Override
      public boolean mightContain(byte[] key, int off, int len) {
        return f.mightContain(key, off, len);
      }

      @Override
      public boolean mightContain(long key) {
        return f.mightContain(key);
      }

      @Override
      public Json describe() {
        return FilterDescriptions.describe(f, false);
      }
    };
  }

  /** The key's bytes as an array of their own, for libraries that take whole arrays only. */
  static byte[] keyBytes(byte[] key, int off, int len) {
    return off == 0 && len == key.length ? key : Arrays.copyOfRange(key, off, off + len);
  }
}
