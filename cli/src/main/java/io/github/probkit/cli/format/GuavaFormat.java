package io.github.probkit.cli.format;

import io.github.probkit.cli.output.CliException;
import io.github.probkit.cli.output.Json;
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

  /** Why no conversion to or from probkit's structures keeps the answers. */
  private static final String UNCONVERTED =
      "guava: a Guava BloomFilter answers by Guava's own probes (MurmurHash3, a masked"
          + " remainder), which no probkit filter type places; query it as it is (filter query"
          + " --file-format guava) or rebuild a probkit filter from its keys";

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

  @Override
  public <T> T read(InputStream in, Kind<T> kind) throws SketchFormatException {
    throw new SketchFormatException(UNCONVERTED);
  }

  @Override
  public void write(Object structure, OutputStream out) {
    throw new CliException(UNCONVERTED);
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
