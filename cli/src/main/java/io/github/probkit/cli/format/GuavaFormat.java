package io.github.probkit.cli.format;

import io.github.probkit.cli.output.CliException;
import io.github.probkit.cli.output.Json;
import io.github.probkit.filter.BloomFilter;
import io.github.probkit.foreign.GuavaBloomFilter;
import io.github.probkit.io.SketchFormatException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * Guava's {@code BloomFilter.writeTo} form ({@link GuavaBloomFilter}). It starts with a strategy
 * ordinal and a hash count, no mark of its own: a file is read as Guava's only when {@code --format
 * guava} names it. It has no checksum either: answers come from unverified bits.
 */
public final class GuavaFormat implements Format {
  public static final GuavaFormat INSTANCE = new GuavaFormat();

  private GuavaFormat() {}

  @Override
  public ForeignCounts counts(InputStream in) throws SketchFormatException {
    throw Format.holdsNo(this, "count-min sketch");
  }

  @Override
  public String name() {
    return "guava";
  }

  @Override
  public boolean hasMagic() {
    return false;
  }

  @Override
  public boolean recognizes(byte[] head) {
    return false;
  }

  /** A Guava filter is read as the probkit Bloom filter of its bits and probes (hash guava). */
  @Override
  @SuppressWarnings("unchecked")
  public <T> T read(InputStream in, Kind<T> kind) throws IOException {
    if (kind != Kind.FILTER) {
      throw new SketchFormatException("guava: holds Bloom filters only");
    }
    return (T) GuavaBloomFilter.readFrom(in).toProbkit();
  }

  /** Only a Bloom filter of Guava's hashing, such as {@link #read} gives, has Guava's answers. */
  @Override
  public void write(Object structure, OutputStream out) throws IOException {
    if (!(structure instanceof BloomFilter)) {
      throw new CliException(
          "guava: holds Bloom filters of Guava's hashing, not a "
              + Format.typeOf(structure)
              + " structure");
    }
    GuavaBloomFilter g;
    try {
      g = GuavaBloomFilter.fromProbkit((BloomFilter) structure);
    } catch (IllegalArgumentException e) {
      throw new CliException("guava: " + e.getMessage(), e);
    }
    g.writeTo(out);
  }

  @Override
  public ForeignFilter filter(InputStream in) throws IOException {
    GuavaBloomFilter g = GuavaBloomFilter.readFrom(in);
    return new ForeignFilter() {
      @Override
      public boolean mightContain(byte[] key, int off, int len) {
        return g.mightContain(ForeignFilter.keyBytes(key, off, len));
      }

      @Override
      public boolean mightContain(long key) {
        return g.mightContain(key);
      }

      @Override
      public Json describe() {
        return new Json()
            .put("format", "guava")
            .put("strategy", g.strategy().name())
            .put("hashes", g.hashCount())
            .put("bits", g.bitSize())
            .put("bitsSet", g.bitCount())
            .put("expectedFpp", g.expectedFpp())
            .put("checksum", "none in the format");
      }
    };
  }
}
