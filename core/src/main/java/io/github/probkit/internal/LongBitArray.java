package io.github.probkit.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * An array of bits addressed by long, backed by a long[] so it can exceed 2^31 bits. Setting is
 * lock-free and thread-safe (an atomic OR on the word); reading is a plain load. Not public API.
 */
public final class LongBitArray {
  private static final VarHandle WORDS = MethodHandles.arrayElementVarHandle(long[].class);
  /** The largest long[] every JVM allocates, in bits. */
  public static final long MAX_BITS = (long) (Integer.MAX_VALUE - 8) * Long.SIZE;

  private final long[] words;
  private final long bitSize;

  public LongBitArray(long bitSize) {
    this(bitSize, new long[wordsFor(bitSize)]);
  }

  /** Wraps {@code words}, which must hold {@link #wordsFor}{@code (bitSize)} longs. */
  public LongBitArray(long bitSize, long[] words) {
    if (words.length != wordsFor(bitSize)) {
      throw new IllegalArgumentException(words.length + " words for " + bitSize + " bits");
    }
    this.bitSize = bitSize;
    this.words = words;
  }

  public static int wordsFor(long bits) {
    if (bits < 0 || bits > MAX_BITS) {
      throw new IllegalArgumentException("bit count must be in [0, " + MAX_BITS + "], was " + bits);
    }
    return (int) ((bits + 63) >>> 6);
  }

  public long bitSize() {
    return bitSize;
  }

  /** The backing words: bit {@code i} is bit {@code i % 64} of word {@code i / 64}. */
  public long[] words() {
    return words;
  }

  public boolean get(long index) {
    // A long shift uses only the low 6 bits of its count, so index needs no masking.
    return (words[(int) (index >>> 6)] & (1L << index)) != 0;
  }

  /** Sets the bit; returns whether it was clear. Safe to call from many threads at once. */
  public boolean set(long index) {
    int w = (int) (index >>> 6);
    long mask = 1L << index;
    // A plain read first: most sets in a filled filter hit a bit already set, and skip the atomic op.
    if ((words[w] & mask) != 0) {
      return false;
    }
    return ((long) WORDS.getAndBitwiseOr(words, w, mask) & mask) == 0;
  }

  /** ORs {@code mask} into word {@code w} atomically; returns whether any bit changed. */
  public boolean orWord(int w, long mask) {
    if ((words[w] & mask) == mask) {
      return false;
    }
    return ((long) WORDS.getAndBitwiseOr(words, w, mask) & mask) != mask;
  }

  /** The number of set bits (a scan of every word). */
  public long cardinality() {
    long c = 0;
    for (long w : words) {
      c += Long.bitCount(w);
    }
    return c;
  }

  public void or(LongBitArray other) {
    for (int i = 0; i < words.length; i++) {
      WORDS.getAndBitwiseOr(words, i, other.words[i]);
    }
  }

  public void and(LongBitArray other) {
    for (int i = 0; i < words.length; i++) {
      WORDS.getAndBitwiseAnd(words, i, other.words[i]);
    }
  }

  public LongBitArray copy() {
    return new LongBitArray(bitSize, words.clone());
  }
}
