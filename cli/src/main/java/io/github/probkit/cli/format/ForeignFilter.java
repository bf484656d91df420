package io.github.probkit.cli.format;

import io.github.probkit.cli.output.Json;
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

  /** The key's bytes as an array of their own, for libraries that take whole arrays only. */
  static byte[] keyBytes(byte[] key, int off, int len) {
    return off == 0 && len == key.length ? key : Arrays.copyOfRange(key, off, off + len);
  }
}
