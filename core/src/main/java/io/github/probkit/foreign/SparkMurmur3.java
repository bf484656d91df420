package io.github.probkit.foreign;

/**
 * Spark's Murmur3_x86_32 (org.apache.spark.util.sketch): MurmurHash3 x86 32 over little-endian
 * 4-byte words, except that each byte after the last whole word is mixed as a block of its own
 * (sign-extended) instead of MurmurHash3's one tail block. Spark's sketches hash with it; its
 * answers depend on that quirk.
 */
final class SparkMurmur3 {
  private static final int C1 = 0xcc9e2d51;
  private static final int C2 = 0x1b873593;

  private SparkMurmur3() {}

  static int hashBytes(byte[] key, int seed) {
    int aligned = key.length - key.length % 4;
    int h = seed;
    for (int i = 0; i < aligned; i += 4) {
      int word =
          (key[i] & 0xFF)
              | (key[i + 1] & 0xFF) << 8
              | (key[i + 2] & 0xFF) << 16
              | (key[i + 3] & 0xFF) << 24;
      h = mixH1(h, mixK1(word));
    }
    for (int i = aligned; i < key.length; i++) {
      h = mixH1(h, mixK1(key[i]));
    }
    return fmix(h, key.length);
  }

  static int hashLong(long key, int seed) {
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
