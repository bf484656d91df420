package io.github.probkit.filter;

import io.github.probkit.io.SketchFormatException;
import io.github.probkit.io.SketchReader;
import java.io.IOException;
import java.io.InputStream;

/** Reading a filter of any type from the container format. */
public final class Filters {
  private Filters() {}

  /**
   * Reads the next filter in {@code in}, whatever its type. Throws SketchFormatException when the
   * bytes are corrupt or hold a structure that is not a filter.
   */
  public static MembershipFilter readFrom(InputStream in) throws IOException {
    SketchReader r = SketchReader.open(in);
    switch (r.type()) {
      case BLOOM_FILTER:
        return BloomFilter.read(r);
      case COUNTING_BLOOM_FILTER:
        return CountingBloomFilter.read(r);
      case CUCKOO_FILTER:
        return CuckooFilter.read(r);
      case SCALABLE_BLOOM_FILTER:
        return ScalableBloomFilter.read(r);
      case BLOCKED_BLOOM_FILTER:
        return BlockedBloomFilter.read(r);
      case BINARY_FUSE_FILTER:
        return BinaryFuseFilter.read(r);
      default:
        throw new SketchFormatException(
            "expected a filter, found a " + r.type().label() + " structure");
    }
  }
}
