package io.github.probkit.hash;

/** 64-bit FNV-1a, byte by byte, as the specification's Python walkthroughs compute it. */
public final class Fnv1a {
  /** The FNV-1a 64-bit offset basis: the seed of the first hash in the walkthroughs. */
  public static final long OFFSET_BASIS = 0xCBF29CE484222325L;

  /** The seed of the second hash in the walkthroughs: the offset basis with its halves swapped. */
  public static final long SECOND_SEED = 0x84222325CBF29CE4L;

  private static final long PRIME = 0x100000001B3L;

  private Fnv1a() {}

  /** FNV-1a of {@code len} bytes of {@code key} from {@code off}, starting from {@code seed}. */
  public static long hash64(byte[] key, int off, int len, long seed) {
    long h = seed;
    for (int i = off, end = off + len; i < end; i++) {
      h ^= key[i] & 0xFF;
      h *= PRIME;
    }
    return h;
  }

  /** FNV-1a of the 8 little-endian bytes of {@code key}, starting from {@code seed}. */
  public static long hash64(long key, long seed) {
    long h = seed;
    for (int i = 0; i < 8; i++) {
      h ^= (key >>> (8 * i)) & 0xFF;
      h *= PRIME;
    }
    return h;
  }
}
