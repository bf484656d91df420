package io.github.probkit.hash;

import com.dynatrace.hash4j.hashing.Hasher64;
import io.github.probkit.internal.KeyBuffer;

/**
 * XXH3-64 of a short String's UTF-8 bytes, read straight from its chars when all are ASCII (its
 * chars are then its bytes): no buffer, no copy. Bit-identical to hash4j's {@code hashBytesToLong}
 * over the UTF-8 bytes; written from the XXH3 specification (xxHash's doc/xxhash_spec.md, inputs of
 * 0 to 8 bytes).
 *
 * <p>Only up to {@link #MAX_CHARS} chars: reading a String char by char costs bounds checks and
 * shifts per char, which beats copying it into a buffer for 8 chars but not for 16 or 20
 * (docs/BENCHMARKS.md). Both length classes read every char at least once, so the chars read, ORed
 * together, tell whether the String is all ASCII; when it is not, its UTF-8 bytes are hashed.
 */
final class AsciiXxh3 {
  /** The longest String hashed here. */
  static final int MAX_CHARS = 8;

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

  private AsciiXxh3() {}

  /**
   * The XXH3-64 hash with {@code seed} of the UTF-8 bytes of {@code s}, of at most {@link
   * #MAX_CHARS} chars; {@code bytes} is the same hash over bytes, for a String not all ASCII.
   */
  static long hash64(String s, long seed, Hasher64 bytes) {
    int n = s.length();
    if (n >= 4) {
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
    if (n > 0) {
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
    return avalanche64(seed ^ SECRET_56 ^ SECRET_64);
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
