package io.github.probkit.hash;

import java.util.Locale;

/**
 * The hash functions a structure can be built with. The id is written into every serialized
 * structure, so ids are never reused or renumbered.
 */
public enum HashAlgorithm {
  /** XXH3 64-bit (hash4j): the default; fast and of high quality on any key. */
  XXH3_64(1, "xxh3"),
  /**
   * 64-bit FNV-1a, with the seeds' double-hashing scheme: positions are {@code (h1 + i*h2) mod m}
   * computed exactly, as with unbounded integers. Slow and weak on similar keys; it exists so that
   * the walkthroughs of the specification can be reproduced bit for bit.
   */
  FNV1A_64(2, "fnv1a"),
  /**
   * Redis's HyperLogLog hash: MurmurHash64A ({@link Murmur64A}, seed 0xadc83b19 by default) with
   * its bits rearranged so that a {@code HyperLogLog} of precision 14 sets exactly the registers
   * Redis's {@code PFADD} sets. Redis takes the register from the hash's low 14 bits and the value
   * from the trailing zeros of the other 50; probkit takes the register from the top bits and the
   * value from the leading zeros of the rest. So the low 14 bits move to the top and the other 50
   * are reversed below them. A uniform hash like any other at every precision and for every
   * structure, but equal to Redis's registers only at precision 14.
   */
  REDIS_MURMUR64A(3, "redis"),
  /**
   * XXH64 ({@link Xxh64}), seed 0 by default: the hash of Parquet's split-block Bloom filters,
   * which {@code SplitBlockBloomFilter} always uses, so that its bits are those parquet-java
   * writes.
   */
  XXH64(4, "xxh64"),
  /**
   * Apache DataSketches' HLL hash: MurmurHash3 x64 128 (seed 9001, the low 32 bits of the
   * strategy's seed) with its halves arranged for one lgK (bits 32..39 of the seed) so that a
   * {@code HyperLogLog} of precision lgK sets exactly the registers a DataSketches {@code
   * HllSketch} of that lgK sets. DataSketches takes the slot from the low lgK bits of the first
   * half and the value from the leading zeros of the second; so those lgK bits go to the top and
   * the second half, shifted right by lgK, below them. A uniform hash at every precision, equal to
   * DataSketches' registers only at precision lgK.
   */
  DATASKETCHES_MURMUR3(5, "datasketches"),
  /**
   * Guava's {@code BloomFilter} hashing, strategy {@code MURMUR128_MITZ_64} (Guava's default):
   * MurmurHash3 x64 128 (seed 0) of the key's bytes, whose halves are the two hashes of a Bloom
   * filter that probes bits {@code ((h1 + i*h2) & Long.MAX_VALUE) mod m}, i in [0, k), as Guava
   * does. A {@code BloomFilter} of 64n bits with it holds a Guava filter's bits and answers as it
   * does, for the keys Guava's {@code stringFunnel(UTF_8)}, {@code longFunnel()} and {@code
   * byteArrayFunnel()} give it (which are the bytes probkit hashes). The seed is always 0.
   */
  GUAVA_MURMUR3_128(6, "guava"),
  /**
   * Guava's older strategy {@code MURMUR128_MITZ_32}: the low 64 bits of the same MurmurHash3 as
   * two ints a, b; probe i in [1, k] is bit {@code c mod m} for {@code c = a + i*b} (32-bit),
   * complemented when negative. The seed is always 0.
   */
  GUAVA_MURMUR3_128_MITZ_32(7, "guava32"),
  /**
   * Spark's sketch {@code BloomFilter} hashing: Spark's Murmur3_x86_32 ({@link SparkMurmur3}), h1
   * with seed 0 and h2 with seed h1; probe i in [1, k] is bit {@code c mod m} for {@code c = h1 +
   * i*h2} (32-bit), complemented when negative. A {@code BloomFilter} of 64n bits with it holds a
   * Spark filter's bits and answers as it does (strings as UTF-8, byte arrays, integral values as
   * longs). The seed is always 0.
   */
  SPARK_MURMUR3_32(8, "spark");

  private final int id;
  private final String label;

  HashAlgorithm(int id, String label) {
    this.id = id;
    this.label = label;
  }

  /** The byte that identifies this algorithm in the binary format. */
  public int id() {
    return id;
  }

  /**
   * The short lower-case name used by the command line and in JSON ({@code xxh3}, {@code fnv1a}).
   */
  public String label() {
    return label;
  }

  /**
   * Whether a Bloom filter of this hash probes Guava's or Spark's positions ({@link
   * HashStrategy#foreignProbes()}).
   */
  public boolean foreignProbes() {
    return this == GUAVA_MURMUR3_128
        || this == GUAVA_MURMUR3_128_MITZ_32
        || this == SPARK_MURMUR3_32;
  }

  /** Returns the algorithm with the given format id, or null when there is none. */
  public static HashAlgorithm byId(int id) {
    for (HashAlgorithm a : values()) {
      if (a.id == id) {
        return a;
      }
    }
    return null;
  }

  /** Returns the algorithm with the given label, case-insensitively. */
  public static HashAlgorithm byLabel(String label) {
    for (HashAlgorithm a : values()) {
      if (a.label.equals(label.toLowerCase(Locale.ROOT))) {
        return a;
      }
    }
    throw new IllegalArgumentException("hash must be one of xxh3, fnv1a, was '" + label + "'");
  }
}
