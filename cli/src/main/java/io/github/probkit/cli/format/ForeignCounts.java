package io.github.probkit.cli.format;

import io.github.probkit.cli.output.Json;

/**
 * A count-min sketch another library wrote (Spark's), estimating by that library's own columns:
 * probkit's sketch places items elsewhere, so it is queried where it is.
 */
public interface ForeignCounts {
  /** The library's estimate for an item given as bytes: a string's UTF-8 bytes, or a byte array. */
  long estimate(byte[] item, int off, int len);

  /** The library's estimate for an item it was given as a long (Spark's addLong). */
  long estimate(long item);

  /** What {@code cms info} prints. */
  Json describe();
}
