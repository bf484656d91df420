package io.github.probkit.hash;

/**
 * Spark's Murmur3_x86_32 (org.apache.spark.util.sketch): MurmurHash3 x86 32 over little-endian
 * 4-byte words, except that each byte after the last whole word is mixed as a block of its own
 * (sign-extended) instead of MurmurHash3's one tail block. Spark's sketches hash with it; its
 * answers depend on that quirk.
 */
public final class SparkMurmur3 {
  private static final int C1 = 0xcc9e2d51;
  private static final int C2 = 0x1b873593;

  private SparkMurmur3() {}

  public static int hashBytes(byte[] key, int seed) {
    return hashBytes(key, 0, key.length, seed);
  }

  /** Spark's hash of the {@code len} bytes of {@code key} from {@code off}. */
  public static int hashBytes(byte[] key, int off, int len, int seed) {
    int end = off + len;
    int aligned = end - len % 4;
    int h = seed;
    for (int i = off; i < aligned; i += 4) {
      int word =
          (key[i] & 0xFF)
              | (key[i + 1] & 0xFF) << 8
              | (key[i + 2] & 0xFF) << 16
              | (key[i + 3] & 0xFF) << 24;
      h = mixH1(h, mixK1(word));
    }
    for (int i = aligned; i < end; i++) {
      h = mixH1(h, mixK1(key[i]));
    }
    return fmix(h, len);
  }

  /** Spark's hash of a long: its two halves, low first, as two blocks. */
  public static int hashLong(long key, int seed) {
    int h = mixH1(seed, mixK1((int) key));
    h = mixH1(h, mixK1((int) (key >>> 32)));
    return fmix(h, 8);
  }

  private static int mixK1(int k) {
    return Integer.rotateLeft(k * C1, 15) * C2;
  }

  private static int mixH1(int h, int k) {
    return Integer.rotateLeft(h ^ k, 13) * 5 + 0xe6546b64;
  }

  private static int fmix(int h, int length) {
    h ^= length;
    h ^= h >>> 16;
    h *= 0x85ebca6b;
    h ^= h >>> 13;
    h *= 0xc2b2ae35;
    return h ^ (h >>> 16);
  }
}
