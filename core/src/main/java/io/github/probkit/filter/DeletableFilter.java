package io.github.probkit.filter;

import io.github.probkit.hash.KeyEncoder;
import io.github.probkit.internal.KeyBuffer;

/**
 * A filter that keys can be removed from. Remove only keys that were added: removing a key that was
 * never added can remove another key's evidence and so create a false negative. Implementations
 * refuse (return {@code false}) where they can tell that the key cannot be present.
 */
public interface DeletableFilter extends MutableFilter {

  /**
   * Adds the key only when it is not already (probably) present, as RedisBloom's {@code CF.ADDNX}:
   * the filter then holds a set, not a multiset, so that input with repeated keys takes one slot
   * (cuckoo) or one count (counting Bloom) per distinct key, and one {@link #remove} removes it.
   * Returns whether the key was stored. {@code false} means it was probably present already, or a
   * cuckoo filter had no room for it; {@link #mightContain} then tells which, since a refused add
   * leaves the filter unchanged.
   *
   * <p>A key never added that is a false positive is not stored; it reads present all the same, but
   * removing the key it collides with can make it read absent. That happens for about a fraction
   * fpp of the distinct keys, against the overflow that adding every repeat risks.
   */
  default boolean addIfAbsent(byte[] key, int off, int len) {
    return !mightContain(key, off, len) && add(key, off, len);
  }

  default boolean addIfAbsent(byte[] key) {
    return addIfAbsent(key, 0, key.length);
  }

  default boolean addIfAbsent(CharSequence key) {
    KeyBuffer b = KeyBuffer.utf8(key);
    return addIfAbsent(b.bytes(), 0, b.length());
  }

  default boolean addIfAbsent(long key) {
    KeyBuffer b = KeyBuffer.get();
    b.putLong(key);
    return addIfAbsent(b.bytes(), 0, b.length());
  }

  default <T> boolean addIfAbsent(T key, KeyEncoder<T> encoder) {
    KeyBuffer b = KeyBuffer.encode(key, encoder);
    return addIfAbsent(b.bytes(), 0, b.length());
  }

  /** Removes one occurrence of the key; returns whether it was found and removed. */
  boolean remove(byte[] key, int off, int len);

  default boolean remove(byte[] key) {
    return remove(key, 0, key.length);
  }

  default boolean remove(CharSequence key) {
    KeyBuffer b = KeyBuffer.utf8(key);
    return remove(b.bytes(), 0, b.length());
  }

  default boolean remove(long key) {
    KeyBuffer b = KeyBuffer.get();
    b.putLong(key);
    return remove(b.bytes(), 0, b.length());
  }

  default <T> boolean remove(T key, KeyEncoder<T> encoder) {
    KeyBuffer b = KeyBuffer.encode(key, encoder);
    return remove(b.bytes(), 0, b.length());
  }
}
