package io.github.probkit.foreign;

import io.github.probkit.io.SketchFormatException;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.util.Arrays;

/** Reading the big-endian long arrays of the Java libraries' writeTo forms. */
final class Longs {
  /** Longs read before the array grows: a corrupt length allocates no more than what arrives. */
  private static final int CHUNK = 1 << 16;

  private Longs() {}

  /**
   * Reads {@code n} longs, growing the array as they arrive; a stream that ends early is a
   * SketchFormatException naming {@code format} and how many longs came.
   */
  static long[] read(DataInputStream in, int n, String format) throws IOException {
    long[] out = new long[Math.min(n, CHUNK)];
    for (int i = 0; i < n; i++) {
      if (i == out.length) {
        out = Arrays.copyOf(out, (int) Math.min(n, 2L * out.length));
      }
      try {
        out[i] = in.readLong();
      } catch (EOFException e) {
        throw new SketchFormatException(
            format + ": the stream ends after " + i + " of " + n + " longs");
      }
    }
    return out;
  }

  /** The number of bits set in {@code words} (both libraries' cardinality of a bit array). */
  static long bitCount(long[] words) {
    long n = 0;
    for (long w : words) {
      n += Long.bitCount(w);
    }
    return n;
  }

  /**
   * Both libraries' expectedFpp: the fraction of the {@code bitSize} bits set, to the power of the
   * hash count.
   */
  static double expectedFpp(long[] words, long bitSize, int hashes) {
    return Math.pow((double) bitCount(words) / bitSize, hashes);
  }
}
