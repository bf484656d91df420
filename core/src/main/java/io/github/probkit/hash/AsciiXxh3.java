package io.github.probkit.hash;

import com.dynatrace.hash4j.hashing.Hasher64;
import io.github.probkit.internal.KeyBuffer;

/**
 * XXH3-64 of a short String's UTF-8 bytes, read straight from its chars when all are ASCII (its
 * chars are then its bytes): no buffer, no copy. Bit-identical to hash4j's {@code hashBytesToLong}
 * over the UTF-8 bytes; written from the XXH3 specification (xxHash's doc/xxhash_spec.md, inputs of
 * 0 to 32 bytes).
 *
 * <p>Only up to {@link #MAX_CHARS} chars. Every length class reads every char at least once, so the
 * chars read, ORed together, tell whether the String is all ASCII; when it is not, its UTF-8 bytes
 * are hashed from the thread's buffer. Without a String's private bytes (which Java 17 gives only
 * to {@code --add-opens} or {@code Unsafe}) a char above 0xFF and one below share their low byte
 * once copied, so the test has to read the chars; reading them is then cheaper than copying them
 * too.
 */
final class AsciiXxh3 {
  /** The longest String hashed here. */
  static final int MAX_CHARS = 32;

  private static final long PRIME64_2 = 0xC2B2AE3D27D4EB4FL;
  private static final long PRIME64_3 = 0x165667B19E3779F9L;
  private static final long PRIME_MX2 = 0x9FB21C651E98DF25L;

  // XXH3's default secret, as the little-endian words these inputs read: bytes 0-8 (as two 32-bit
  // halves) for 1-3 bytes, 8-24 for 4-8 bytes, 56-72 for the empty input.
  private static final long SECRET_0 = 0xBE4BA423396CFEB8L;
  private static final long SECRET_8 = 0x1CAD21F72C81017CL;
  private static final long SECRET_16 = 0xDB979083E96DD4DEL;
  private static final long SECRET_56 = 0x4C263A81E69035E0L;
  private static final long SECRET_64 = 0xCB00C391BB52283CL;

  /** The bits of four 16-bit lanes that are set in a char of 0x80 or more. */
  private static final long NOT_ASCII = 0xFF80FF80FF80FF80L;

  private AsciiXxh3() {}

  /**
   * The XXH3-64 hash with {@code seed} of the UTF-8 bytes of {@code s}, of at most {@link
   * #MAX_CHARS} chars; {@code bytes} is the same hash over bytes, for a String not all ASCII.
   */
  static long hash64(String s, long seed, Hasher64 bytes) {
    // One small method per length class: the JIT inlines each into the caller only while it stays
    // under its size limit, and one method for all four was not inlined.
    int n = s.length();
    if (n > 16) {
      return hash17To32(s, n, seed, bytes);
    }
    if (n > 8) {
      return hash9To16(s, n, seed, bytes);
    }
    return n >= 4 ? hash4To8(s, n, seed, bytes) : hash0To3(s, n, seed, bytes);
  }

  private static long hash0To3(String s, int n, long seed, Hasher64 bytes) {
    if (n == 0) {
      return avalanche64(seed ^ SECRET_56 ^ SECRET_64);
    }
    int first = s.charAt(0);
    int middle = s.charAt(n >> 1);
    int last = s.charAt(n - 1);
    if ((first | middle | last) >= 0x80) {
      return buffered(s, bytes);
    }
    int combined = last | (n << 8) | (first << 16) | (middle << 24);
    long flip = ((SECRET_0 ^ (SECRET_0 >>> 32)) & 0xFFFFFFFFL) + seed;
    return avalanche64(combined ^ flip);
  }

  private static long hash4To8(String s, int n, long seed, Hasher64 bytes) {
    int f0 = s.charAt(0);
    int f1 = s.charAt(1);
    int f2 = s.charAt(2);
    int f3 = s.charAt(3);
    int l0 = s.charAt(n - 4);
    int l1 = s.charAt(n - 3);
    int l2 = s.charAt(n - 2);
    int l3 = s.charAt(n - 1);
    if ((f0 | f1 | f2 | f3 | l0 | l1 | l2 | l3) >= 0x80) {
      return buffered(s, bytes);
    }
    long first = f0 | (f1 << 8) | (f2 << 16) | (f3 << 24);
    long last = l0 | (l1 << 8) | (l2 << 16) | (l3 << 24);
    long modified = seed ^ ((long) Integer.reverseBytes((int) seed) << 32);
    return rrmxmx(((SECRET_8 ^ SECRET_16) - modified) ^ (last | (first << 32)), n);
  }

  /** XXH3's 9-to-16-byte class: the first 8 chars and the last 8, which overlap below 16. */
  private static long hash9To16(String s, int n, long seed, Hasher64 bytes) {
    long e0 = evens(s, 0);
    long o0 = odds(s, 0);
    long e1 = evens(s, n - 8);
    long o1 = odds(s, n - 8);
    if (((e0 | o0 | e1 | o1) & NOT_ASCII) != 0) {
      return buffered(s, bytes);
    }
    return Xxh3Medium.hash9To16(e0 | o0 << 8, e1 | o1 << 8, n, seed);
  }

  /**
   * XXH3's 17-to-32-byte class, whose four words are at 0, 8, n - 16 and n - 8. Below 24 chars the
   * word at n - 16 lies within the first 16 chars, so it is shifted together from the first two
   * words instead of read again (8 chars fewer to read, each a load, a shift and an OR).
   */
  private static long hash17To32(String s, int n, long seed, Hasher64 bytes) {
    long e0 = evens(s, 0);
    long o0 = odds(s, 0);
    long e1 = evens(s, 8);
    long o1 = odds(s, 8);
    long e3 = evens(s, n - 8);
    long o3 = odds(s, n - 8);
    long w2;
    long seen = e0 | o0 | e1 | o1 | e3 | o3;
    long w0 = e0 | o0 << 8;
    long w1 = e1 | o1 << 8;
    if (n < 24) {
      // Java takes a shift count mod 64: 8 to 56 here, never 0 or 64.
      int shift = (n - 16) * 8;
      w2 = w0 >>> shift | w1 << (64 - shift);
    } else {
      long e2 = evens(s, n - 16);
      long o2 = odds(s, n - 16);
      seen |= e2 | o2;
      w2 = e2 | o2 << 8;
    }
    if ((seen & NOT_ASCII) != 0) {
      return buffered(s, bytes);
    }
    return Xxh3Medium.hash17To32(w0, w1, w2, e3 | o3 << 8, n, seed);
  }

  /**
   * Chars at, at + 2, at + 4 and at + 6 in the four 16-bit lanes of a long, so that a char of 0x80
   * or more shows in {@link #NOT_ASCII} whatever its high byte; ORed with {@link #odds} shifted by
   * 8, the 8 chars' low bytes in little-endian order.
   */
  private static long evens(String s, int at) {
    return s.charAt(at)
        | (long) s.charAt(at + 2) << 16
        | (long) s.charAt(at + 4) << 32
        | (long) s.charAt(at + 6) << 48;
  }

  /** Chars at + 1, at + 3, at + 5 and at + 7, as {@link #evens}. */
  private static long odds(String s, int at) {
    return s.charAt(at + 1)
        | (long) s.charAt(at + 3) << 16
        | (long) s.charAt(at + 5) << 32
        | (long) s.charAt(at + 7) << 48;
  }

  /**
   * The final mix of XXH3's 4-to-8-byte inputs, of {@code n} bytes: {@code value} is the input's
   * first and last 4 bytes keyed by the secret and the seed.
   */
  static long rrmxmx(long value, int n) {
    value ^= Long.rotateLeft(value, 49) ^ Long.rotateLeft(value, 24);
    value *= PRIME_MX2;
    value ^= (value >>> 35) + n;
    value *= PRIME_MX2;
    return value ^ (value >>> 28);
  }

  private static long avalanche64(long h) {
    h ^= h >>> 33;
    h *= PRIME64_2;
    h ^= h >>> 29;
    h *= PRIME64_3;
    return h ^ (h >>> 32);
  }

  private static long buffered(String s, Hasher64 bytes) {
    KeyBuffer b = KeyBuffer.utf8(s);
    try {
      return bytes.hashBytesToLong(b.bytes(), 0, b.length());
    } finally {
      b.release();
    }
  }
}
