package io.github.probkit.hash;

/**
 * XXH64 of one long's 8 little-endian bytes, the value hash4j's {@code Hashing.xxh64(seed)} gives
 * those bytes: written out (the short-input path of the reference, one 8-byte lane) so that a long
 * key is hashed without a byte buffer or an interface call. Parquet hashes an INT64 value this way.
 */
public final class Xxh64 {
  private static final long P1 = 0x9E3779B185EBCA87L;
  private static final long P2 = 0xC2B2AE3D27D4EB4FL;
  private static final long P3 = 0x165667B19E3779F9L;
  private static final long P4 = 0x85EBCA77C2B2AE63L;
  private static final long P5 = 0x27D4EB2F165667C5L;

  private Xxh64() {}

  /** XXH64 with {@code seed} of the 8 little-endian bytes of {@code v}. */
  public static long hashLong(long v, long seed) {
    long h = seed + P5 + 8;
    h ^= Long.rotateLeft(v * P2, 31) * P1;
    h = Long.rotateLeft(h, 27) * P1 + P4;
    h ^= h >>> 33;
    h *= P2;
    h ^= h >>> 29;
    h *= P3;
    return h ^ (h >>> 32);
  }
}
