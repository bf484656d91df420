package io.github.probkit.filter;

import static io.github.probkit.internal.Preconditions.checkArgument;

import io.github.probkit.hash.KeyEncoder;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * A filter bound to its key type, as Guava binds a {@code Funnel} to a {@code BloomFilter<T>}: keys
 * go in and are queried as {@code T}, encoded by the one {@link KeyEncoder} given at creation, so
 * no call can query with an encoder other than the one the keys were added with (which would
 * silently answer "absent" for keys that are present).
 *
 * <pre>
 *   static final KeyEncoder&lt;User&gt; USER = (u, sink) -&gt; sink.putLong(u.id()).putString(u.email());
 *   TypedFilter&lt;User, BloomFilter&gt; seen = TypedFilter.of(BloomFilter.create(1_000_000, 0.01), USER);
 *   seen.add(user);
 *   seen.mightContain(user);
 * </pre>
 *
 * <p>Two typed filters merge only when their encoders are equal ({@link Object#equals}): a lambda
 * or a class that does not define equals is equal only to itself, so keep one encoder instance per
 * key type, as a constant. The encoder is not serialized; {@link #readFrom} takes it again.
 *
 * <p>Thread safety: that of the filter.
 *
 * @param <T> the key type
 * @param <F> the filter's type
 */
public final class TypedFilter<T, F extends MutableFilter> {
  private final F filter;
  private final KeyEncoder<? super T> encoder;

  private TypedFilter(F filter, KeyEncoder<? super T> encoder) {
    this.filter = filter;
    this.encoder = encoder;
  }

  /** A view of {@code filter} whose keys are the bytes {@code encoder} writes. */
  public static <T, F extends MutableFilter> TypedFilter<T, F> of(
      F filter, KeyEncoder<? super T> encoder) {
    return new TypedFilter<>(
        Objects.requireNonNull(filter, "filter"), Objects.requireNonNull(encoder, "encoder"));
  }

  /**
   * Reads a filter of any mutable type written by {@link #writeTo}, binding it to {@code encoder}.
   */
  public static <T> TypedFilter<T, MutableFilter> readFrom(
      InputStream in, KeyEncoder<? super T> encoder) throws IOException {
    MembershipFilter f = Filters.readFrom(in);
    checkArgument(
        f instanceof MutableFilter,
        "a %s filter takes no keys after it is built",
        f.type().label());
    return of((MutableFilter) f, encoder);
  }

  /**
   * Adds the key; returns whether the filter changed (see {@link MutableFilter#add(byte[], int,
   * int)}).
   */
  public boolean add(T key) {
    return filter.add(key, encoder);
  }

  /** Adds every key; returns how many of the adds changed the filter. */
  public long addAll(Iterable<? extends T> keys) {
    return filter.addAll(keys, encoder);
  }

  /**
   * Adds every key of the stream, in its order; returns how many of the adds changed the filter.
   */
  public long addAll(Stream<? extends T> keys) {
    long[] changed = {0};
    keys.forEachOrdered(k -> changed[0] += add(k) ? 1 : 0);
    return changed[0];
  }

  /** Whether the key may be in the set. */
  public boolean mightContain(T key) {
    return filter.mightContain(key, encoder);
  }

  /** The filter itself, for what takes no key (size, rate, serialization). */
  public F filter() {
    return filter;
  }

  public KeyEncoder<? super T> encoder() {
    return encoder;
  }

  /** Whether {@link #merge} would accept {@code other}: equal encoders, and filters that merge. */
  public boolean isCompatible(TypedFilter<?, ?> other) {
    return other != null
        && encoder.equals(other.encoder)
        && filter instanceof MergeableFilter
        && ((MergeableFilter) filter).isCompatible(other.filter);
  }

  /**
   * Adds the keys of {@code other} to this filter. Throws IllegalArgumentException when the
   * encoders differ, when this filter's type does not merge (a scalable filter), or when the
   * filters differ in type, shape or hashing.
   */
  public TypedFilter<T, F> merge(TypedFilter<? extends T, ?> other) {
    Objects.requireNonNull(other, "other");
    checkArgument(
        encoder.equals(other.encoder),
        "cannot merge filters of different key encoders: %s and %s",
        encoder,
        other.encoder);
    checkArgument(
        filter instanceof MergeableFilter,
        "cannot merge: a %s filter does not merge",
        filter.type().label());
    ((MergeableFilter) filter).merge(other.filter);
    return this;
  }

  /** An independent copy of the filter, bound to the same encoder. */
  @SuppressWarnings("unchecked") // every filter's copy() returns its own class
  public TypedFilter<T, F> copy() {
    return new TypedFilter<>((F) filter.copy(), encoder);
  }

  /** Writes the filter (the encoder is not written). */
  public void writeTo(OutputStream out) throws IOException {
    filter.writeTo(out);
  }

  @Override
  public String toString() {
    return "TypedFilter{" + filter + ", encoder=" + encoder + "}";
  }
}
