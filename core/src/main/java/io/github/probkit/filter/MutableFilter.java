package io.github.probkit.filter;

import io.github.probkit.hash.KeyEncoder;
import io.github.probkit.internal.BatchPasses;
import io.github.probkit.internal.KeyBuffer;
import java.util.Objects;
import java.util.stream.Stream;

/** A filter that keys can be added to after it is built. */
public interface MutableFilter extends MembershipFilter {

  /**
   * Adds the key of {@code len} bytes of {@code key} from {@code off}. Returns whether the filter
   * changed: {@code false} means the key was probably present already (for a Bloom filter: every
   * one of its bits was set). A {@link CuckooFilter} also returns {@code false} when it has no
   * room. When the answer is not used, {@link #put(byte[], int, int)} may be faster.
   */
  boolean add(byte[] key, int off, int len);

  default boolean add(byte[] key) {
    return add(key, 0, key.length);
  }

  /** Adds the UTF-8 bytes of {@code key}. */
  default boolean add(CharSequence key) {
    return addBuffered(KeyBuffer.utf8(key));
  }

  /** Adds the 8 little-endian bytes of {@code key}. */
  default boolean add(long key) {
    return addBuffered(KeyBuffer.ofLong(key));
  }

  /** Adds the bytes {@code encoder} writes for {@code key}. */
  default <T> boolean add(T key, KeyEncoder<? super T> encoder) {
    return addBuffered(KeyBuffer.encode(key, encoder));
  }

  /**
   * Adds the key like {@link #add(byte[], int, int)} without telling whether the filter changed.
   * Use it when that answer is not needed, as when loading a filter: a filter that would have to
   * read its bits to answer (a single-writer {@link BloomFilter}) can then just set them. Filters
   * without a cheaper way add the key with {@code add}; one whose add can fail to store the key (a
   * full {@link CuckooFilter}) throws {@link IllegalStateException} rather than lose it.
   */
  default void put(byte[] key, int off, int len) {
    add(key, off, len);
  }

  /** {@link #put(byte[], int, int)} of the UTF-8 bytes of {@code key}. */
  default void put(CharSequence key) {
    KeyBuffer b = KeyBuffer.utf8(key);
    try {
      put(b.bytes(), 0, b.length());
    } finally {
      b.release();
    }
  }

  /** {@link #put(byte[], int, int)} of the 8 little-endian bytes of {@code key}. */
  default void put(long key) {
    add(key);
  }

  /**
   * Adds every key (their UTF-8 bytes); returns how many of the adds changed the filter (see {@link
   * #add(byte[], int, int)}).
   */
  default long addAll(Iterable<? extends CharSequence> keys) {
    long changed = 0;
    for (CharSequence k : keys) {
      changed += add(k) ? 1 : 0;
    }
    return changed;
  }

  /**
   * Adds every key (their 8 little-endian bytes); returns how many of the adds changed the filter.
   */
  default long addAll(long[] keys) {
    return addAll(keys, 0, keys.length);
  }

  /**
   * Adds {@code keys[from, to)}, in order; returns how many of the adds changed the filter, exactly
   * as one call per key would. Bloom and blocked Bloom filters add a batch in passes that keep the
   * cache misses of many keys in flight (see {@link #mightContainAll(long[], int, int,
   * boolean[])}).
   */
  default long addAll(long[] keys, int from, int to) {
    Objects.checkFromToIndex(from, to, keys.length);
    long changed = 0;
    for (int i = from; i < to; i++) {
      changed += add(keys[i]) ? 1 : 0;
    }
    return changed;
  }

  /**
   * Adds {@code count} keys given as slices of one buffer, key {@code i} being {@code
   * buf[offsets[i], offsets[i] + lengths[i])}, in order; returns how many of the adds changed the
   * filter.
   */
  default long addAll(byte[] buf, int[] offsets, int[] lengths, int count) {
    BatchPasses.checkSlices(buf, offsets, lengths, count);
    long changed = 0;
    for (int i = 0; i < count; i++) {
      changed += add(buf, offsets[i], lengths[i]) ? 1 : 0;
    }
    return changed;
  }

  /**
   * Adds every key of the stream, in its order; returns how many of the adds changed the filter.
   */
  default long addAll(Stream<? extends CharSequence> keys) {
    Objects.requireNonNull(keys, "keys");
    long[] changed = {0};
    keys.forEachOrdered(k -> changed[0] += add(k) ? 1 : 0);
    return changed[0];
  }

  /**
   * Adds the bytes {@code encoder} writes for every key; returns how many of the adds changed the
   * filter.
   */
  default <T> long addAll(Iterable<? extends T> keys, KeyEncoder<? super T> encoder) {
    Objects.requireNonNull(encoder, "encoder");
    long changed = 0;
    for (T k : keys) {
      changed += add(k, encoder) ? 1 : 0;
    }
    return changed;
  }

  /**
   * Adds keys given by their hashes, {@code hashes[from, to)}, in order ({@code hashes[i]} is
   * {@code hashStrategy().hash64} of the key's bytes, as for {@link #mightContainAllHashes});
   * returns how many of the adds changed the filter, exactly as adding the keys would. Throws
   * IllegalStateException when {@link #hashSuffices()} is false.
   */
  default long addAllHashes(long[] hashes, int from, int to) {
    throw new IllegalStateException(
        "a "
            + type().label()
            + " filter hashed with "
            + hashStrategy()
            + " needs the keys, not their hashes");
  }

  /** The number of distinct keys added, estimated from the filter's state. */
  long approximateCount();

  @Override
  MutableFilter copy();

  /** {@link #add(byte[], int, int)} of the bytes in {@code b}, which it then gives back. */
  private boolean addBuffered(KeyBuffer b) {
    try {
      return add(b.bytes(), 0, b.length());
    } finally {
      b.release();
    }
  }
}
