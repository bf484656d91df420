package io.github.probkit.bench;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/**
 * The benchmarks' keys, a pure function of an index so that 10^8 keys need not be held in memory.
 *
 * <p>Key {@code i} is {@code "user:"} followed by 15 decimal digits (20 ASCII bytes), or, for long
 * keys, a bijective mix of {@code i}. A filter of n keys holds the indices {@code [0, n)}; indices
 * from {@code n} on are absent. Both maps are injective, so no absent key equals a present one and
 * no two keys are equal (static filters such as xor filters fail to build on duplicates).
 *
 * <p>Pools of keys are allocated in the order they are used, so iterating over them streams through
 * memory instead of chasing pointers to Strings scattered over the heap.
 */
public final class Keys {
  private static final long SEED = 0x5be0cd19137e2179L;
  private static final long DIGITS = 1_000_000_000_000_000L;
  // An affine bijection of Z/10^15 (the multiplier is prime to 10); A * i cannot overflow below
  // 2^28.
  private static final long A = 31_415_926_537L;
  private static final long B = 271_828_182_845_904L;

  /** The largest index a String key is defined for. */
  public static final long MAX_STRING_INDEX = (1L << 28) - 1;

  private static final byte[] PREFIX = "user:".getBytes(StandardCharsets.US_ASCII);

  private Keys() {}

  /** The long key of index {@code i}: the SplitMix64 finalizer, a bijection on longs. */
  public static long longKey(long i) {
    long z = i + SEED;
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }

  /** The String key of index {@code i}: {@code "user:"} and 15 digits. */
  public static String stringKey(long i) {
    byte[] b = new byte[20];
    System.arraycopy(PREFIX, 0, b, 0, 5);
    if (i < 0 || i > MAX_STRING_INDEX) {
      throw new IllegalArgumentException("string key index must be in [0, 2^28), was " + i);
    }
    long v = (A * i + B) % DIGITS;
    for (int p = 19; p >= 5; p--) {
      b[p] = (byte) ('0' + v % 10);
      v /= 10;
    }
    return new String(b, StandardCharsets.ISO_8859_1);
  }

  /** Keys {@code [from, from + count)} as Strings. */
  public static String[] strings(long from, int count) {
    String[] out = new String[count];
    for (int i = 0; i < count; i++) {
      out[i] = stringKey(from + i);
    }
    return out;
  }

  /** Keys {@code [from, from + count)} as longs. */
  public static long[] longs(long from, int count) {
    long[] out = new long[count];
    for (int i = 0; i < count; i++) {
      out[i] = longKey(from + i);
    }
    return out;
  }

  /**
   * {@code count} query indices for a set of {@code n} keys, in a seeded random order: even
   * positions of a shuffled half/half mix are present keys (uniform in {@code [0, n)}), the others
   * absent (uniform in {@code [n, 2n)}).
   */
  public static long[] queryIndices(long n, int count, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    long[] out = new long[count];
    for (int i = 0; i < count; i++) {
      long j = r.nextLong(n);
      out[i] = (i & 1) == 0 ? j : n + j;
    }
    // Fisher-Yates, so present and absent do not alternate in a pattern a branch predictor learns.
    for (int i = count - 1; i > 0; i--) {
      int k = r.nextInt(i + 1);
      long t = out[i];
      out[i] = out[k];
      out[k] = t;
    }
    return out;
  }

  /** Whether a query index is of a present key. */
  public static boolean present(long index, long n) {
    return index < n;
  }

  public static String[] stringsAt(long[] indices) {
    String[] out = new String[indices.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = stringKey(indices[i]);
    }
    return out;
  }

  public static long[] longsAt(long[] indices) {
    long[] out = new long[indices.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = longKey(indices[i]);
    }
    return out;
  }

  /**
   * {@code count} indices drawn from a Zipf law of exponent {@code s} over {@code [0, universe)}
   * (rank 0 the most frequent), by inverting the cumulative distribution with a binary search.
   */
  public static long[] zipfIndices(int universe, double s, int count, long seed) {
    double[] cdf = new double[universe];
    double sum = 0;
    for (int k = 0; k < universe; k++) {
      sum += Math.pow(k + 1, -s);
      cdf[k] = sum;
    }
    SplittableRandom r = new SplittableRandom(seed);
    long[] out = new long[count];
    for (int i = 0; i < count; i++) {
      double u = r.nextDouble() * sum;
      int lo = 0;
      int hi = universe - 1;
      while (lo < hi) {
        int mid = (lo + hi) >>> 1;
        if (cdf[mid] < u) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      out[i] = lo;
    }
    return out;
  }

  /**
   * {@code n} distinct 32-byte lines of letters with one XXH3-64 hash (seed 0), made from XXH3's
   * published default secret alone: with bytes 0-7 and 16-23 equal to its first and third words,
   * both multiplications of the 17-to-32-byte path are by zero and bytes 8-15 and 24-31 are free.
   * The keys a flood of a table placed by that hash would use.
   */
  public static byte[][] xxh3Collisions(int n, long seed) {
    byte[][] out = randomLetters(n, 32, seed);
    for (int i = 0; i < n; i++) {
      ByteBuffer b = ByteBuffer.wrap(out[i]).order(ByteOrder.LITTLE_ENDIAN);
      b.putLong(0, 0xbe4ba423396cfeb8L).putLong(16, 0xdb979083e96dd4deL);
      // Distinct: i in base 26 in bytes 8-15.
      for (int j = 0, v = i; j < 8; j++, v /= 26) {
        out[i][8 + j] = (byte) ('a' + v % 26);
      }
    }
    return out;
  }

  /** {@code n} random strings of {@code length} lowercase letters, as bytes. */
  public static byte[][] randomLetters(int n, int length, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    byte[][] out = new byte[n][length];
    for (byte[] k : out) {
      for (int j = 0; j < length; j++) {
        k[j] = (byte) ('a' + r.nextInt(26));
      }
    }
    return out;
  }
}
