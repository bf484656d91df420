package io.github.probkit.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * An array of bits addressed by long, backed by a long[] so it can exceed 2^31 bits. Reading is a
 * plain load. Each write comes in two forms: an atomic one, safe from many threads at once (a
 * compare-and-exchange on the word, only when the word lacks the bits), and a plain one for a
 * single writer. Not public API.
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
    return orWord(words, (int) (index >>> 6), 1L << index);
  }

  /** Sets the bit with a plain store (one writer at a time); returns whether it was clear. */
  public boolean setPlain(long index) {
    int w = (int) (index >>> 6);
    long mask = 1L << index;
    long old = words[w];
    words[w] = old | mask;
    return (old & mask) == 0;
  }

  /**
   * ORs {@code mask} into {@code words[w]} atomically; returns whether any bit changed. A plain
   * read first: in a filling filter many bits are set already, and then no atomic operation is
   * needed. One compare-and-exchange otherwise (a fetch-OR would be a loop of them on x86),
   * repeated only when another thread changed the word in between.
   */
  public static boolean orWord(long[] words, int w, long mask) {
    long cur = words[w];
    while ((cur & mask) != mask) {
      long seen = (long) WORDS.compareAndExchange(words, w, cur, cur | mask);
      if (seen == cur) {
        return true;
      }
      cur = seen;
    }
    return false;
  }

  /** The number of set bits (a scan of every word). */
  public long cardinality() {
    long c = 0;
    for (long w : words) {
      c += Long.bitCount(w);
    }
    return c;
  }

  /** ORs {@code other} in, word by word: atomically when {@code atomic}, else with plain stores. */
  public void or(LongBitArray other, boolean atomic) {
    long[] theirs = other.words;
    if (!atomic) {
      for (int i = 0; i < words.length; i++) {
        words[i] |= theirs[i];
      }
      return;
    }
    for (int i = 0; i < words.length; i++) {
      if ((words[i] | theirs[i]) != words[i]) {
        WORDS.getAndBitwiseOr(words, i, theirs[i]);
      }
    }
  }

  /**
   * ANDs {@code other} in, word by word: atomically when {@code atomic}, else with plain stores.
   */
  public void and(LongBitArray other, boolean atomic) {
    long[] theirs = other.words;
    if (!atomic) {
      for (int i = 0; i < words.length; i++) {
        words[i] &= theirs[i];
      }
      return;
    }
    for (int i = 0; i < words.length; i++) {
      if ((words[i] & theirs[i]) != words[i]) {
        WORDS.getAndBitwiseAnd(words, i, theirs[i]);
      }
    }
  }

  public LongBitArray copy() {
    return new LongBitArray(bitSize, words.clone());
  }
}
