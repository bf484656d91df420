package io.github.probkit.internal;

import java.util.Objects;

/**
 * What the batch operations of the filters share. A batch is cut into chunks of {@link #CHUNK}
 * keys, each done in passes: hash every key, touch the memory every key needs (plain loads, all
 * independent, so the processor keeps many cache misses in flight at once), then test or set each
 * key, now from the cache. One key at a time, a query out of the cache costs a whole memory latency
 * (about 170 ns here) because little else fits in the processor's window behind it; a pass of bare
 * loads keeps some 20 in flight. Not public API.
 */
public final class Batch {
  /** Keys per chunk: their cache lines (up to 7 each) stay in the L1 or L2 cache until tested. */
  public static final int CHUNK = 256;

  /**
   * Where the touching passes leave the sum of what they loaded, so that the JIT cannot drop the
   * loads as unused. Written once per chunk, from any thread; its value means nothing.
   */
  @SuppressWarnings("unused")
  private static long sink;

  private Batch() {}

  /** Keeps the loads that produced {@code touched}. */
  public static void consume(long touched) {
    sink = touched;
  }

  /** Checks a range {@code [from, to)} of an array of {@code length} and an output of {@code outLength}. */
  public static void checkRange(int from, int to, int length, int outLength) {
    Objects.checkFromToIndex(from, to, length);
    if (outLength < to) {
      throw new IllegalArgumentException(
          "the results array has " + outLength + " elements, the keys need " + to);
    }
  }

  /** Checks {@code count} keys given as slices {@code buf[offsets[i], offsets[i] + lengths[i])}. */
  public static void checkSlices(byte[] buf, int[] offsets, int[] lengths, int count) {
    Objects.requireNonNull(buf, "buf");
    if (count < 0 || count > offsets.length || count > lengths.length) {
      throw new IllegalArgumentException("count must be in [0, " + Math.min(offsets.length, lengths.length)
          + "] for " + offsets.length + " offsets and " + lengths.length + " lengths, was " + count);
    }
    for (int i = 0; i < count; i++) {
      Objects.checkFromIndexSize(offsets[i], lengths[i], buf.length);
    }
  }

  /** A scratch array for the hashes of one chunk of a batch of {@code n} keys. */
  public static long[] hashes(int n) {
    return new long[Math.min(CHUNK, n)];
  }
}
