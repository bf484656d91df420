package io.github.probkit.cardinality;

import io.github.probkit.hash.HashStrategy;
import io.github.probkit.hash.KeyEncoder;
import io.github.probkit.internal.KeyBuffer;
import io.github.probkit.io.StructureType;
import java.io.IOException;
import java.io.OutputStream;
import java.util.OptionalDouble;

/**
 * A sketch that estimates the number of distinct keys added to it, in memory fixed by its
 * precision whatever that number is. Adding a key twice changes nothing.
 *
 * <p>Keys are bytes, as everywhere in probkit: a CharSequence is its UTF-8 bytes, a long its 8
 * little-endian bytes, an object the bytes its {@link KeyEncoder} writes. Each key is hashed once
 * by the sketch's {@link HashStrategy}; {@link #addHash} takes a 64-bit hash computed elsewhere,
 * which must be uniformly distributed (the output of a good hash function, not a raw key).
 *
 * <p>Two estimates are offered. {@link #estimate()} reads the registers and is always available,
 * also after merging. {@link #martingaleEstimate()} is accumulated while keys are added and is
 * more accurate, but only for a sketch that has seen its keys one by one: a merge ends it.
 *
 * <p>Thread safety: the implementations are not thread-safe; fill one sketch per thread and merge.
 */
public interface CardinalitySketch {

  /** Adds the key of {@code len} bytes of {@code key} from {@code off}; returns whether the sketch changed. */
  boolean add(byte[] key, int off, int len);

  default boolean add(byte[] key) {
    return add(key, 0, key.length);
  }

  /** Adds the UTF-8 bytes of {@code key}. */
  default boolean add(CharSequence key) {
    KeyBuffer b = KeyBuffer.utf8(key);
    return add(b.bytes(), 0, b.length());
  }

  /** Adds the 8 little-endian bytes of {@code key}. */
  default boolean add(long key) {
    return addHash(hashStrategy().hash64(key));
  }

  default <T> boolean add(T key, KeyEncoder<T> encoder) {
    KeyBuffer b = KeyBuffer.encode(key, encoder);
    return add(b.bytes(), 0, b.length());
  }

  /** Adds a key by its 64-bit hash, which must be uniformly distributed; returns whether the sketch changed. */
  boolean addHash(long hash);

  /** The estimated number of distinct keys, from the registers alone. */
  double estimate();

  /**
   * The martingale (historic inverse probability) estimate, present while the sketch has only had
   * keys added to it, and empty once it has absorbed another non-empty sketch by a merge.
   */
  OptionalDouble martingaleEstimate();

  /** The estimate most accurate for this sketch: the martingale one when present, else {@link #estimate()}. */
  default double bestEstimate() {
    OptionalDouble m = martingaleEstimate();
    return m.isPresent() ? m.getAsDouble() : estimate();
  }

  /**
   * The relative standard error of {@link #estimate()} at large counts; at small counts the error
   * is smaller.
   */
  double relativeStandardError();

  /** The relative standard error of {@link #martingaleEstimate()} at large counts. */
  double martingaleRelativeStandardError();

  /** The relative standard error of {@link #bestEstimate()}. */
  default double bestRelativeStandardError() {
    return martingaleEstimate().isPresent() ? martingaleRelativeStandardError() : relativeStandardError();
  }

  /** The precision p: the sketch has 2^p registers. */
  int precision();

  /** Whether no key has been added. */
  boolean isEmpty();

  /** The memory the sketch's arrays take now, in bytes (object headers excluded). */
  long byteSize();

  /** A copy at the lower {@code precision}, with exactly the registers of a sketch built at it. */
  CardinalitySketch downsize(int precision);

  CardinalitySketch copy();

  /** The hash algorithm and seed this sketch was built with. */
  HashStrategy hashStrategy();

  /** The structure type written in the serialized form. */
  StructureType type();

  /** Writes the sketch in the probkit container format (docs/FORMAT.md); the stream stays open. */
  void writeTo(OutputStream out) throws IOException;
}
