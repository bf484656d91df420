package io.github.probkit.filter;

import io.github.probkit.Concurrency;
import io.github.probkit.hash.KeyEncoder;
import io.github.probkit.io.SketchFormatException;
import io.github.probkit.io.SketchReader;
import io.github.probkit.io.StructureType;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.stream.Collector;

/** Reading a filter of any type from the container format, and collecting streams into filters. */
public final class Filters {
  private Filters() {}

  /**
   * A collector of keys (their UTF-8 bytes) into a Bloom filter sized for {@code expectedKeys} at
   * {@code fpp}: {@code urls.stream().collect(Filters.toBloomFilter(1_000_000, 0.01))}.
   */
  public static Collector<CharSequence, ?, BloomFilter> toBloomFilter(
      long expectedKeys, double fpp) {
    BloomFilter.optimalBits(
        expectedKeys, fpp); // the arguments are checked now, not at the first key
    return toFilter(() -> BloomFilter.create(expectedKeys, fpp));
  }

  /** A collector of keys of type {@code T} into a Bloom filter bound to {@code encoder}. */
  public static <T> Collector<T, ?, TypedFilter<T, BloomFilter>> toBloomFilter(
      KeyEncoder<? super T> encoder, long expectedKeys, double fpp) {
    BloomFilter.optimalBits(expectedKeys, fpp);
    return toFilter(() -> BloomFilter.create(expectedKeys, fpp), encoder);
  }

  /**
   * A collector of keys (their UTF-8 bytes) into new filters from {@code factory}; a parallel
   * stream fills one per thread and merges them.
   */
  public static <F extends MergeableFilter> Collector<CharSequence, ?, F> toFilter(
      Supplier<F> factory) {
    Objects.requireNonNull(factory, "factory");
    return Collector.of(
        factory,
        MutableFilter::add,
        Filters::merged,
        Collector.Characteristics.UNORDERED,
        Collector.Characteristics.IDENTITY_FINISH);
  }

  /**
   * A collector of keys of type {@code T} into new filters from {@code factory}, bound to {@code
   * encoder}.
   */
  public static <T, F extends MergeableFilter> Collector<T, ?, TypedFilter<T, F>> toFilter(
      Supplier<F> factory, KeyEncoder<? super T> encoder) {
    Objects.requireNonNull(factory, "factory");
    Objects.requireNonNull(encoder, "encoder");
    return Collector.<T, TypedFilter<T, F>>of(
        () -> TypedFilter.of(factory.get(), encoder),
        TypedFilter::add,
        TypedFilter::merge,
        Collector.Characteristics.UNORDERED,
        Collector.Characteristics.IDENTITY_FINISH);
  }

  private static <F extends MergeableFilter> F merged(F a, F b) {
    a.merge(b);
    return a;
  }

  /**
   * The filter in {@code file}, opened the fastest way for queries: a {@link MappedFilter} (nothing
   * loaded; the checksum of each chunk a query reads is checked when first read) for the types that
   * map, else the filter read in full (checksum checked). Close it when it is a MappedFilter.
   */
  public static MembershipFilter open(Path file) throws IOException {
    StructureType type;
    try (InputStream in = Files.newInputStream(file)) {
      type = SketchReader.open(in).type();
    }
    if (MappedFilter.supports(type)) {
      return MappedFilter.open(file);
    }
    try (InputStream in = new BufferedInputStream(Files.newInputStream(file), 1 << 16)) {
      return readFrom(in);
    }
  }

  /**
   * Reads the next filter in {@code in}, whatever its type. Throws SketchFormatException when the
   * bytes are corrupt or hold a structure that is not a filter.
   */
  public static MembershipFilter readFrom(InputStream in) throws IOException {
    return readFrom(in, Concurrency.CONCURRENT);
  }

  /**
   * As {@link #readFrom(InputStream)}; a Bloom, blocked Bloom, split-block or scalable filter is
   * then written in the given mode (the other types have one mode each, which their Javadoc
   * states).
   */
  public static MembershipFilter readFrom(InputStream in, Concurrency concurrency)
      throws IOException {
    Objects.requireNonNull(concurrency, "concurrency");
    SketchReader r = SketchReader.open(in);
    switch (r.type()) {
      case BLOOM_FILTER:
        return BloomFilter.read(r, concurrency);
      case COUNTING_BLOOM_FILTER:
        return CountingBloomFilter.read(r);
      case CUCKOO_FILTER:
        return CuckooFilter.read(r);
      case SCALABLE_BLOOM_FILTER:
        return ScalableBloomFilter.read(r, concurrency);
      case BLOCKED_BLOOM_FILTER:
        return BlockedBloomFilter.read(r, concurrency);
      case BINARY_FUSE_FILTER:
        return BinaryFuseFilter.read(r);
      case SPLIT_BLOCK_BLOOM_FILTER:
        return SplitBlockBloomFilter.read(r, concurrency);
      case AGE_PARTITIONED_BLOOM_FILTER:
      case AGE_PARTITIONED_BLOCKED_FILTER:
        return AgePartitionedBloomFilter.read(r);
      default:
        throw new SketchFormatException(
            "expected a filter, found a " + r.type().label() + " structure");
    }
  }
}
