package io.github.probkit.frequency;

import io.github.probkit.hash.HashStrategy;
import io.github.probkit.hash.KeyEncoder;
import io.github.probkit.internal.KeyBuffer;
import io.github.probkit.io.StructureType;
import java.io.IOException;
import java.io.OutputStream;
import java.util.stream.Stream;

/**
 * A sketch that counts how often each item occurs in a stream, in memory that does not grow with
 * the number of distinct items; estimates are never below the true count.
 *
 * <p>Items are bytes, as everywhere in probkit: a CharSequence is its UTF-8 bytes, a long its 8
 * little-endian bytes, an object the bytes its {@link KeyEncoder} writes. Counts are non-negative;
 * adding {@code count} occurrences at once is the same as adding the item {@code count} times.
 */
public interface FrequencySketch {

  /**
   * Adds {@code count} (at least 0) occurrences of the item of {@code len} bytes of {@code item}
   * from {@code off}.
   */
  void add(byte[] item, int off, int len, long count);

  /** Adds one occurrence of the item of {@code len} bytes of {@code item} from {@code off}. */
  default void add(byte[] item, int off, int len) {
    add(item, off, len, 1);
  }

  default void add(byte[] item) {
    add(item, 0, item.length, 1);
  }

  default void add(byte[] item, long count) {
    add(item, 0, item.length, count);
  }

  /** Adds one occurrence of the UTF-8 bytes of {@code item}. */
  default void add(CharSequence item) {
    add(item, 1);
  }

  default void add(CharSequence item, long count) {
    addBuffered(KeyBuffer.utf8(item), count);
  }

  /** Adds one occurrence of the 8 little-endian bytes of {@code item}. */
  default void add(long item) {
    add(item, 1L);
  }

  default void add(long item, long count) {
    addBuffered(KeyBuffer.ofLong(item), count);
  }

  /** Adds one occurrence of the bytes {@code encoder} writes for {@code item}. */
  default <T> void add(T item, KeyEncoder<? super T> encoder) {
    add(item, encoder, 1);
  }

  default <T> void add(T item, KeyEncoder<? super T> encoder, long count) {
    addBuffered(KeyBuffer.encode(item, encoder), count);
  }

  /** Adds one occurrence of every item (their UTF-8 bytes). */
  default void addAll(Iterable<? extends CharSequence> items) {
    for (CharSequence item : items) {
      add(item, 1);
    }
  }

  /** Adds one occurrence of every item (their 8 little-endian bytes). */
  default void addAll(long[] items) {
    for (long item : items) {
      add(item, 1);
    }
  }

  /** Adds one occurrence of every item of the stream, in its order. */
  default void addAll(Stream<? extends CharSequence> items) {
    items.forEachOrdered(item -> add(item, 1));
  }

  /**
   * The estimated count of the item of {@code len} bytes of {@code item} from {@code off}: never
   * below the true count.
   */
  long estimate(byte[] item, int off, int len);

  default long estimate(byte[] item) {
    return estimate(item, 0, item.length);
  }

  /** The estimated count of the UTF-8 bytes of {@code item}. */
  default long estimate(CharSequence item) {
    return estimateBuffered(KeyBuffer.utf8(item));
  }

  /** The estimated count of the 8 little-endian bytes of {@code item}. */
  default long estimate(long item) {
    return estimateBuffered(KeyBuffer.ofLong(item));
  }

  /** The estimated count of the bytes {@code encoder} writes for {@code item}. */
  default <T> long estimate(T item, KeyEncoder<? super T> encoder) {
    return estimateBuffered(KeyBuffer.encode(item, encoder));
  }

  /** N, the sum of all counts added. */
  long totalCount();

  /** The memory the sketch's arrays take, in bytes (object headers excluded). */
  long byteSize();

  /** The hash algorithm and seed this sketch was built with. */
  HashStrategy hashStrategy();

  /** The structure type written in the serialized form. */
  StructureType type();

  /** Whether {@link #merge} would accept {@code other}. */
  boolean isCompatible(FrequencySketch other);

  /**
   * Adds the counts of {@code other} to this sketch, which then estimates both streams together.
   * Throws IllegalArgumentException, naming the difference, when {@code other} is not {@link
   * #isCompatible compatible}.
   */
  FrequencySketch merge(FrequencySketch other);

  /** An independent copy. */
  FrequencySketch copy();

  /** Writes the sketch in the probkit container format (docs/FORMAT.md); the stream stays open. */
  void writeTo(OutputStream out) throws IOException;

  private void addBuffered(KeyBuffer b, long count) {
    try {
      add(b.bytes(), 0, b.length(), count);
    } finally {
      b.release();
    }
  }

  private long estimateBuffered(KeyBuffer b) {
    try {
      return estimate(b.bytes(), 0, b.length());
    } finally {
      b.release();
    }
  }
}
