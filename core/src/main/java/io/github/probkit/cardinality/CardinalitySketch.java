package io.github.probkit.cardinality;

import io.github.probkit.hash.HashStrategy;
import io.github.probkit.hash.KeyEncoder;
import io.github.probkit.io.StructureType;
import java.io.IOException;
import java.io.OutputStream;
import java.util.OptionalDouble;
import java.util.stream.Stream;

/**
 * A sketch that estimates the number of distinct keys added to it, in memory fixed by its precision
 * whatever that number is. Adding a key twice changes nothing.
 *
 * <p>Keys are bytes, as everywhere in probkit: a CharSequence is its UTF-8 bytes, a long its 8
 * little-endian bytes, an object the bytes its {@link KeyEncoder} writes. Each key is hashed once
 * by the sketch's {@link HashStrategy}; {@link #addHash} takes a 64-bit hash computed elsewhere,
 * which must be uniformly distributed (the output of a good hash function, not a raw key).
 *
 * <p>Two estimates are offered. {@link #estimate()} reads the registers and is always available,
 * also after merging. {@link #martingaleEstimate()} is accumulated while keys are added and is more
 * accurate, but only for a sketch that has seen its keys one by one: a merge ends it.
 *
 * <p>Thread safety: the implementations are not thread-safe; fill one sketch per thread and merge.
 */
public interface CardinalitySketch {

  /**
   * Adds the key of {@code len} bytes of {@code key} from {@code off}; returns whether the sketch
   * changed.
   */
  boolean add(byte[] key, int off, int len);

  default boolean add(byte[] key) {
    return add(key, 0, key.length);
  }

  /** Adds the UTF-8 bytes of {@code key}. */
  default boolean add(CharSequence key) {
    return addHash(hashStrategy().hash64(key));
  }

  /** Adds the 8 little-endian bytes of {@code key}. */
  default boolean add(long key) {
    return addHash(hashStrategy().hash64(key));
  }

  /** Adds the bytes {@code encoder} writes for {@code key}. */
  default <T> boolean add(T key, KeyEncoder<? super T> encoder) {
    return addHash(hashStrategy().hash64(key, encoder));
  }

  /** Adds every key (their UTF-8 bytes); returns how many of the adds changed the sketch. */
  default long addAll(Iterable<? extends CharSequence> keys) {
    long changed = 0;
    for (CharSequence k : keys) {
      changed += add(k) ? 1 : 0;
    }
    return changed;
  }

  /**
   * Adds every key (their 8 little-endian bytes); returns how many of the adds changed the sketch.
   */
  default long addAll(long[] keys) {
    long changed = 0;
    for (long k : keys) {
      changed += add(k) ? 1 : 0;
    }
    return changed;
  }

  /**
   * Adds every key of the stream, in its order; returns how many of the adds changed the sketch.
   */
  default long addAll(Stream<? extends CharSequence> keys) {
    long[] changed = {0};
    keys.forEachOrdered(k -> changed[0] += add(k) ? 1 : 0);
    return changed[0];
  }

  /**
   * Adds the bytes {@code encoder} writes for every key; returns how many of the adds changed the
   * sketch.
   */
  default <T> long addAll(Iterable<? extends T> keys, KeyEncoder<? super T> encoder) {
    long changed = 0;
    for (T k : keys) {
      changed += add(k, encoder) ? 1 : 0;
    }
    return changed;
  }

  /**
   * Adds a key by its 64-bit hash, which must be uniformly distributed; returns whether the sketch
   * changed.
   */
  boolean addHash(long hash);

  /** The estimated number of distinct keys, from the registers alone. */
  double estimate();

  /**
   * The martingale (historic inverse probability) estimate, present while the sketch has only had
   * keys added to it, and empty once it has absorbed another non-empty sketch by a merge.
   */
  OptionalDouble martingaleEstimate();

  /**
   * The estimate most accurate for this sketch: the martingale one when present, else {@link
   * #estimate()}.
   */
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
    return martingaleEstimate().isPresent()
        ? martingaleRelativeStandardError()
        : relativeStandardError();
  }

  /**
   * A lower bound on the number of distinct keys, {@code sigmas} standard errors below {@link
   * #bestEstimate()}: {@code estimate / (1 + sigmas * rse)} with rse the {@link
   * #bestRelativeStandardError()}. The true count lies at or above it with probability about 84 %,
   * 97.7 % and 99.87 % for 1, 2 and 3 sigmas (more at small counts, where the error is below the
   * asymptotic rse). 0 for an empty sketch.
   */
  default double lowerBound(double sigmas) {
    checkSigmas(sigmas);
    return bestEstimate() / (1 + sigmas * bestRelativeStandardError());
  }

  /**
   * An upper bound on the number of distinct keys, {@code sigmas} standard errors above {@link
   * #bestEstimate()}: {@code estimate / (1 - sigmas * rse)}, infinite when {@code sigmas * rse >=
   * 1}. With {@link #lowerBound} it brackets the true count with probability about 68 %, 95 % and
   * 99.7 % for 1, 2 and 3 sigmas.
   */
  default double upperBound(double sigmas) {
    checkSigmas(sigmas);
    double shrink = 1 - sigmas * bestRelativeStandardError();
    double estimate = bestEstimate();
    return estimate == 0 ? 0 : shrink > 0 ? estimate / shrink : Double.POSITIVE_INFINITY;
  }

  private static void checkSigmas(double sigmas) {
    if (!(sigmas > 0 && sigmas < Double.POSITIVE_INFINITY)) {
      throw new IllegalArgumentException("sigmas must be positive and finite, was " + sigmas);
    }
  }

  /** The precision p: the sketch has 2^p registers. */
  int precision();

  /** Whether no key has been added. */
  boolean isEmpty();

  /** The memory the sketch's arrays take now, in bytes (object headers excluded). */
  long byteSize();

  /** A copy at the lower {@code precision}, with exactly the registers of a sketch built at it. */
  CardinalitySketch downsize(int precision);

  /** An independent copy. */
  CardinalitySketch copy();

  /**
   * Whether {@link #merge} would accept {@code other}: a sketch of the same type and hashing, and
   * of this precision or a higher one.
   */
  boolean isCompatible(CardinalitySketch other);

  /**
   * Adds the keys of {@code other} to this sketch: afterwards its registers are those of a sketch
   * of this precision built from the keys of both. Throws IllegalArgumentException, naming the
   * difference, when {@code other} is not {@link #isCompatible compatible}. Ends the martingale
   * estimate unless one side is empty.
   */
  CardinalitySketch merge(CardinalitySketch other);

  /** The hash algorithm and seed this sketch was built with. */
  HashStrategy hashStrategy();

  /** The structure type written in the serialized form. */
  StructureType type();

  /** Writes the sketch in the probkit container format (docs/FORMAT.md); the stream stays open. */
  void writeTo(OutputStream out) throws IOException;
}
