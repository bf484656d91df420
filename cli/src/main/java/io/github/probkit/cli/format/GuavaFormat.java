package io.github.probkit.cli.format;

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
    throw notA(Kind.COUNT_MIN);
  }

  /** Guava writes Bloom filters only: the refusal of any other family's command. */
  private static SketchFormatException notA(Kind<?> kind) {
    return new SketchFormatException(
        "guava: Guava's writeTo form holds a Bloom filter, not "
            + kind.description()
            + ": filter import --format guava converts it, filter query --file-format guava reads"
            + " it as it is");
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
      throw notA(kind);
    }
    return (T) GuavaBloomFilter.readFrom(in).toProbkit();
  }

  /** Only a Bloom filter of Guava's hashing, such as {@link #read} gives, has Guava's answers. */
  @Override
  public void write(Object structure, OutputStream out) throws IOException {
    Format.fromBloom(this, structure, "Guava", GuavaBloomFilter::fromProbkit).writeTo(out);
  }

  @Override
  public ForeignFilter filter(InputStream in) throws IOException {
    GuavaBloomFilter g = GuavaBloomFilter.readFrom(in);
    return ForeignFilter.of(
        g::mightContain,
        g::mightContain,
        () ->
            ForeignFilter.describeBloom(
                "guava",
                "strategy",
                g.strategy().name(),
                g.hashCount(),
                g.bitSize(),
                g.bitCount(),
                g.expectedFpp()));
  }
}
