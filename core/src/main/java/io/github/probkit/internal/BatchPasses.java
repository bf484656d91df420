package io.github.probkit.internal;

import io.github.probkit.hash.HashStrategy;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.Objects;
import java.util.function.LongPredicate;

/**
 * What the batch operations of the filters share. A batch is cut into chunks of {@link #CHUNK}
 * keys, each done in passes: hash every key, touch the memory every key needs (plain loads, all
 * independent, so the processor keeps many cache misses in flight at once), then test or set each
 * key, now from the cache. One key at a time, a query out of the cache costs a whole memory latency
 * (about 170 ns here) because little else fits in the processor's window behind it; a pass of bare
 * loads keeps some 20 in flight. Not public API.
 */
public final class BatchPasses {
  /** Keys per chunk: their cache lines (up to 7 each) stay in the L1 or L2 cache until tested. */
  public static final int CHUNK = 256;

  /**
   * Where the touching passes leave the sum of what they loaded, so that the JIT cannot drop the
   * loads as unused. Written once per chunk, from any thread; its value means nothing.
   */
  @SuppressWarnings("unused")
  private static long sink;

  private BatchPasses() {}

  /**
   * Whether the heap starts every array of at least {@link #ALIGNED_BYTES} on a region or page
   * boundary, so that its data sits at a fixed offset from a cache line: G1 and Shenandoah do for
   * arrays over half a region (a region is at most 32 MiB unless set larger), ZGC for large
   * objects. Serial, Parallel and Epsilon place an array where the last one ended. Asked once, at
   * the first batch that relies on it: the management classes take milliseconds to load.
   */
  public static boolean largeArraysAligned() {
    return Heap.ALIGNED;
  }

  /** See {@link #largeArraysAligned}. */
  public static final long ALIGNED_BYTES = 16L << 20;

  private static final class Heap {
    static final boolean ALIGNED = detect();

    private static boolean detect() {
      try {
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
          String name = gc.getName();
          if (name.startsWith("G1 ") || name.startsWith("ZGC") || name.startsWith("Shenandoah")) {
            return true;
          }
        }
      } catch (RuntimeException | LinkageError e) {
        // No management beans (a minimal runtime): assume nothing.
      }
      return false;
    }
  }

  /** Keeps the loads that produced {@code touched}. */
  public static void consume(long touched) {
    sink = touched;
  }

  /**
   * Checks a range {@code [from, to)} of an array of {@code length} and an output of {@code
   * outLength}.
   */
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
      throw new IllegalArgumentException(
          "count must be in [0, "
              + Math.min(offsets.length, lengths.length)
              + "] for "
              + offsets.length
              + " offsets and "
              + lengths.length
              + " lengths, was "
              + count);
    }
    for (int i = 0; i < count; i++) {
      Objects.checkFromIndexSize(offsets[i], lengths[i], buf.length);
    }
  }

  /**
   * A filter's work on one chunk: keys {@code [at, at + n)} of the batch, whose hashes are {@code
   * h[0, n)}; {@code ints} has room for {@link #CHUNK} values of the op's own (block addresses).
   */
  @FunctionalInterface
  public interface ChunkOp {
    /** Returns what the chunk adds to the batch's result (keys present, or adds that changed). */
    int apply(long[] h, int[] ints, int n, int at);
  }

  /**
   * The arrays a batch works in, one pair per thread, so that a batch allocates nothing (a pair per
   * call cost 3 KiB, 0.75 bytes per key at 4,096 keys a call). A batch that finds its thread's pair
   * taken (one started inside another) gets a pair of its own.
   */
  private static final class Scratch {
    final long[] hashes = new long[CHUNK];
    final int[] ints = new int[CHUNK];
    boolean taken;
  }

  private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

  private static Scratch take() {
    Scratch s = SCRATCH.get();
    if (s.taken) {
      return new Scratch();
    }
    s.taken = true;
    return s;
  }

  /**
   * Runs {@code op} over {@code keys[from, to)} chunk by chunk, each key hashed with {@code
   * hash.hash64(long)}; returns the sum of what the chunks return.
   */
  public static long overLongs(HashStrategy hash, long[] keys, int from, int to, ChunkOp op) {
    return over(
        from,
        to,
        (h, at, n) -> {
          for (int i = 0; i < n; i++) {
            h[i] = hash.hash64(keys[at + i]);
          }
        },
        op);
  }

  /**
   * Runs {@code op} over {@code hashes[from, to)} chunk by chunk (each chunk copied, so that {@code
   * op} may rewrite it); returns the sum of what the chunks return.
   */
  public static long overHashes(long[] hashes, int from, int to, ChunkOp op) {
    return over(from, to, (h, at, n) -> System.arraycopy(hashes, at, h, 0, n), op);
  }

  /**
   * Runs {@code op} over {@code count} keys given as slices {@code buf[offsets[i], offsets[i] +
   * lengths[i])}, chunk by chunk, each hashed with {@code hash.hash64(byte[], int, int)}.
   */
  public static long overSlices(
      HashStrategy hash, byte[] buf, int[] offsets, int[] lengths, int count, ChunkOp op) {
    return over(
        0,
        count,
        (h, at, n) -> {
          for (int i = 0; i < n; i++) {
            h[i] = hash.hash64(buf, offsets[at + i], lengths[at + i]);
          }
        },
        op);
  }

  /** Writes into {@code h[0, n)} the hashes of keys {@code [at, at + n)}. */
  @FunctionalInterface
  private interface Hashes {
    void into(long[] h, int at, int n);
  }

  /** The chunks of keys {@code [from, to)}: hashed by {@code hashes}, then given to {@code op}. */
  private static long over(int from, int to, Hashes hashes, ChunkOp op) {
    Scratch s = take();
    try {
      long[] h = s.hashes;
      long sum = 0;
      for (int at = from; at < to; at += CHUNK) {
        int n = Math.min(CHUNK, to - at);
        hashes.into(h, at, n);
        sum += op.apply(h, s.ints, n, at);
      }
      return sum;
    } finally {
      s.taken = false;
    }
  }

  /**
   * Answers {@code hashes[from, to)} into {@code present[from, to)} one at a time with {@code
   * contains}; returns how many are present. For filters without a batched pass.
   */
  public static int eachHash(
      long[] hashes, int from, int to, boolean[] present, LongPredicate contains) {
    checkRange(from, to, hashes.length, present.length);
    int found = 0;
    for (int i = from; i < to; i++) {
      present[i] = contains.test(hashes[i]);
      found += present[i] ? 1 : 0;
    }
    return found;
  }

  /**
   * Adds {@code hashes[from, to)} in order with {@code add}; returns how many of the adds changed
   * the filter.
   */
  public static long eachHash(long[] hashes, int from, int to, LongPredicate add) {
    Objects.checkFromToIndex(from, to, hashes.length);
    long changed = 0;
    for (int i = from; i < to; i++) {
      changed += add.test(hashes[i]) ? 1 : 0;
    }
    return changed;
  }
}
