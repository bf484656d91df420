package io.github.probkit.internal;

/**
 * An array of unsigned fields of 1 to 32 bits, packed into a long[] and addressed by long, so it
 * can exceed 2^31 fields. Field {@code i} occupies bits {@code [i*width, (i+1)*width)} of the array
 * read as one little-endian bit string (bit {@code b} is bit {@code b % 64} of word {@code b /
 * 64}); a field may straddle two words unless the width divides 64. Unused bits of the last word
 * stay 0.
 *
 * <p>Not thread-safe: {@link #set} is a plain read-modify-write of one or two words. Not public
 * API.
 */
public final class PackedArray {
  public static final int MAX_WIDTH = 32;

  /** The most bits the array can hold: the largest long[] every JVM allocates. */
  public static final long MAX_BITS = LongBitArray.MAX_BITS;

  private final long[] words;
  private final long length;
  private final int width;
  private final long mask;

  public PackedArray(long length, int width) {
    this(length, width, new long[wordsFor(length, width)]);
  }

  /** Wraps {@code words}, which must hold {@link #wordsFor}{@code (length, width)} longs. */
  public PackedArray(long length, int width, long[] words) {
    if (words.length != wordsFor(length, width)) {
      throw new IllegalArgumentException(
          words.length + " words for " + length + " fields of " + width + " bits");
    }
    this.words = words;
    this.length = length;
    this.width = width;
    this.mask = (1L << width) - 1;
  }

  /** The words that {@code length} fields of {@code width} bits need. */
  public static int wordsFor(long length, int width) {
    Preconditions.checkArgument(
        width >= 1 && width <= MAX_WIDTH, "width must be in [1, %d], was %d", MAX_WIDTH, width);
    Preconditions.checkArgument(
        length >= 0 && length <= MAX_BITS / width,
        "%d fields of %d bits exceed the maximum of %d bits",
        length,
        width,
        MAX_BITS);
    return LongBitArray.wordsFor(length * width);
  }

  public long length() {
    return length;
  }

  public int width() {
    return width;
  }

  /** The backing words (see the class comment for the layout). */
  public long[] words() {
    return words;
  }

  public long get(long i) {
    long bit = i * width;
    int w = (int) (bit >>> 6);
    int shift = (int) bit & 63;
    long v = words[w] >>> shift;
    if (shift + width > 64) {
      v |= words[w + 1] << (64 - shift);
    }
    return v & mask;
  }

  /** Sets field {@code i} to the low {@code width} bits of {@code v}. */
  public void set(long i, long v) {
    v &= mask;
    long bit = i * width;
    int w = (int) (bit >>> 6);
    int shift = (int) bit & 63;
    words[w] = (words[w] & ~(mask << shift)) | (v << shift);
    if (shift + width > 64) {
      int done = 64 - shift;
      words[w + 1] = (words[w + 1] & ~(mask >>> done)) | (v >>> done);
    }
  }

  /** Whether every bit of the last word beyond the last field is 0 (a check for decoded arrays). */
  public static boolean tailIsClear(long[] words, long bits) {
    return (bits & 63) == 0 || words.length == 0 || (words[words.length - 1] >>> (bits & 63)) == 0;
  }

  public PackedArray copy() {
    return new PackedArray(length, width, words.clone());
  }
}
