package io.github.probkit.hash;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * XXH3-64 of 9 to 128 bytes, written from the XXH3 specification (xxHash's doc/xxhash_spec.md: the
 * 9-to-16 and 17-to-128-byte inputs, which key the default secret with the seed directly).
 * Bit-identical to hash4j's {@code hashBytesToLong}; it exists so that a String key copied into the
 * thread's buffer is hashed with its length classes inlined into the caller, not through the {@code
 * Hasher64} interface and hash4j's dispatch on the length.
 */
final class Xxh3Medium {
  /** The lengths hashed here. */
  static final int MIN = 9;

  static final int MAX = 128;

  private static final VarHandle LONG_LE =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private static final long PRIME64_1 = 0x9E3779B185EBCA87L;
  private static final long PRIME_MX1 = 0x165667919E3779F9L;

  // XXH3's default secret (its first 128 bytes) as little-endian words: S[i] is bytes 8i..8i+7.
  private static final long S0 = 0xBE4BA423396CFEB8L;
  private static final long S1 = 0x1CAD21F72C81017CL;
  private static final long S2 = 0xDB979083E96DD4DEL;
  private static final long S3 = 0x1F67B3B7A4A44072L;
  private static final long S4 = 0x78E5C0CC4EE679CBL;
  private static final long S5 = 0x2172FFCC7DD05A82L;
  private static final long S6 = 0x8E2443F7744608B8L;
  private static final long S7 = 0x4C263A81E69035E0L;
  private static final long S8 = 0xCB00C391BB52283CL;
  private static final long S9 = 0xA32E531B8B65D088L;
  private static final long S10 = 0x4EF90DA297486471L;
  private static final long S11 = 0xD8ACDEA946EF1938L;
  private static final long S12 = 0x3F349CE33F76FAA8L;
  private static final long S13 = 0x1D4F0BC7C7BBDCF9L;
  private static final long S14 = 0x3159B4CD4BE0518AL;
  private static final long S15 = 0x647378D9C97E9FC8L;

  private Xxh3Medium() {}

  /**
   * XXH3-64 with {@code seed} of {@code len} bytes of {@code b} from {@code off}, len in [9, 128].
   */
  static long hash64(byte[] b, int off, int len, long seed) {
    if (len <= 16) {
      return hash9To16(word(b, off), word(b, off + len - 8), len, seed);
    }
    int end = off + len;
    if (len <= 32) {
      return hash17To32(
          word(b, off), word(b, off + 8), word(b, end - 16), word(b, end - 8), len, seed);
    }
    long acc = len * PRIME64_1;
    if (len > 64) {
      if (len > 96) {
        acc += mix16(b, off + 48, S12, S13, seed);
        acc += mix16(b, end - 64, S14, S15, seed);
      }
      acc += mix16(b, off + 32, S8, S9, seed);
      acc += mix16(b, end - 48, S10, S11, seed);
    }
    acc += mix16(b, off + 16, S4, S5, seed);
    acc += mix16(b, end - 32, S6, S7, seed);
    acc += mix16(b, off, S0, S1, seed);
    acc += mix16(b, end - 16, S2, S3, seed);
    return avalanche(acc);
  }

  /** The 9-to-16-byte class: {@code first} and {@code last} are the input's first and last 8. */
  static long hash9To16(long first, long last, int len, long seed) {
    long lo = first ^ ((S3 ^ S4) + seed);
    long hi = last ^ ((S5 ^ S6) - seed);
    return avalanche(len + Long.reverseBytes(lo) + hi + fold(lo, hi));
  }

  /** The 17-to-32-byte class, of the input's words at 0, 8, len - 16 and len - 8. */
  static long hash17To32(long w0, long w1, long w2, long w3, int len, long seed) {
    long acc = len * PRIME64_1;
    acc += fold(w0 ^ (S0 + seed), w1 ^ (S1 - seed));
    acc += fold(w2 ^ (S2 + seed), w3 ^ (S3 - seed));
    return avalanche(acc);
  }

  private static long mix16(byte[] b, int at, long secretLo, long secretHi, long seed) {
    return fold(word(b, at) ^ (secretLo + seed), word(b, at + 8) ^ (secretHi - seed));
  }

  /** The 128-bit product of a and b, unsigned, its halves XORed. */
  private static long fold(long a, long b) {
    long high = Math.multiplyHigh(a, b) + ((a >> 63) & b) + ((b >> 63) & a);
    return a * b ^ high;
  }

  private static long avalanche(long h) {
    h ^= h >>> 37;
    h *= PRIME_MX1;
    return h ^ (h >>> 32);
  }

  private static long word(byte[] b, int at) {
    return (long) LONG_LE.get(b, at);
  }
}
