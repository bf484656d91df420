package io.github.probkit.io;

import io.github.probkit.hash.HashAlgorithm;

/**
 * Every kind of structure the binary format can hold. The id is the type byte of the container; ids
 * are never reused or renumbered, so files written today keep reading.
 */
public enum StructureType {
  BLOOM_FILTER(1, "bloom"),
  COUNTING_BLOOM_FILTER(2, "counting"),
  CUCKOO_FILTER(3, "cuckoo"),
  SCALABLE_BLOOM_FILTER(4, "scalable"),
  BLOCKED_BLOOM_FILTER(5, "blocked"),
  BINARY_FUSE_FILTER(6, "binary-fuse"),
  SPLIT_BLOCK_BLOOM_FILTER(7, "split-block"),
  COUNT_MIN_SKETCH(16, "count-min"),
  HEAVY_HITTERS(17, "heavy-hitters"),
  HYPER_LOG_LOG(32, "hyperloglog"),
  ULTRA_LOG_LOG(33, "ultraloglog"),
  // Windowed structures from 48 on, apart from the families' ranges that other types extend.
  AGE_PARTITIONED_BLOOM_FILTER(48, "window"),
  WINDOWED_CARDINALITY(49, "window-cardinality"),
  WINDOWED_COUNT_MIN(50, "window-count-min"),
  /**
   * The window filter of type 48 with each key's slices in one block (a layout, not a new type).
   */
  AGE_PARTITIONED_BLOCKED_FILTER(51, "window-blocked"),
  WINDOWED_HEAVY_HITTERS(52, "window-heavy-hitters");

  private final int id;
  private final String label;

  StructureType(int id, String label) {
    this.id = id;
    this.label = label;
  }

  public int id() {
    return id;
  }

  /** The short name used in messages, JSON and on the command line. */
  public String label() {
    return label;
  }

  /**
   * Whether a structure of this type answers as it promises with {@code algorithm}, the one rule
   * the library's constructors apply too (internal.Preconditions.checkAccepted): Guava's and
   * Spark's hashes place a Bloom filter's probes where their libraries do, and are refused
   * elsewhere but in the blocked and binary fuse filters, which mix a key's one 64-bit hash
   * (Spark's has 32 bits). Readers refuse a header that pairs them otherwise, which no probkit
   * writer makes.
   */
  public boolean accepts(HashAlgorithm algorithm) {
    if (!algorithm.foreignProbes() || this == BLOOM_FILTER) {
      return true;
    }
    return algorithm != HashAlgorithm.SPARK_MURMUR3_32
        && (this == BLOCKED_BLOOM_FILTER || this == BINARY_FUSE_FILTER);
  }

  /** The type with this id, or null. */
  public static StructureType byId(int id) {
    for (StructureType t : values()) {
      if (t.id == id) {
        return t;
      }
    }
    return null;
  }
}
