package io.github.probkit.hash;

/**
 * Turns an object into the bytes that are hashed as its key, in the spirit of Guava's Funnel. Two
 * objects that should count as the same key must write the same bytes. When several fields are
 * written, write variable-length ones with their length first so that ("ab", "c") and ("a", "bc")
 * stay distinct.
 *
 * @param <T> the key type
 */
@FunctionalInterface
public interface KeyEncoder<T> {
  void encode(T key, KeySink sink);
}
