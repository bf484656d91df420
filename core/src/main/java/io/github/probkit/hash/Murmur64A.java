package io.github.probkit.hash;

/**
 * MurmurHash64A (Austin Appleby's MurmurHash2, 64-bit version), reading 8-byte blocks little-endian
 * as Redis's endian-neutral copy does: the hash of Redis's HyperLogLog commands.
 */
public final class Murmur64A {
  /** The seed Redis's PFADD hashes with. */
  public static final long REDIS_SEED = 0xadc83b19L;

  private static final long M = 0xc6a4a7935bd1e995L;
  private static final int R = 47;

  private Murmur64A() {}

  /**
   * MurmurHash64A of {@code len} bytes of {@code key} from {@code off}. The seed is C's {@code
   * unsigned int}: its low 32 bits count.
   */
  public static long hash64(byte[] key, int off, int len, long seed) {
    long h = (seed & 0xFFFFFFFFL) ^ (len * M);
    int end = off + (len & ~7);
    int i = off;
    for (; i < end; i += 8) {
      long k =
          (key[i] & 0xFFL)
              | (key[i + 1] & 0xFFL) << 8
              | (key[i + 2] & 0xFFL) << 16
              | (key[i + 3] & 0xFFL) << 24
              | (key[i + 4] & 0xFFL) << 32
              | (key[i + 5] & 0xFFL) << 40
              | (key[i + 6] & 0xFFL) << 48
              | (key[i + 7] & 0xFFL) << 56;
      h = (h ^ mixBlock(k)) * M;
    }
    int tail = len & 7;
    if (tail != 0) {
      for (int j = tail - 1; j >= 0; j--) {
        h ^= (key[i + j] & 0xFFL) << (8 * j);
      }
      h *= M;
    }
    return finish(h);
  }

  /** MurmurHash64A of the 8 little-endian bytes of {@code key}. */
  public static long hash64(long key, long seed) {
    long h = (seed & 0xFFFFFFFFL) ^ (8 * M);
    return finish((h ^ mixBlock(key)) * M);
  }

  private static long mixBlock(long k) {
    k *= M;
    k ^= k >>> R;
    return k * M;
  }

  private static long finish(long h) {
    h ^= h >>> R;
    h *= M;
    return h ^ (h >>> R);
  }
}
