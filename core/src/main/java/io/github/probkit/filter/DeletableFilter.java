package io.github.probkit.filter;

import io.github.probkit.hash.KeyEncoder;
import io.github.probkit.internal.KeyBuffer;

/**
 * A filter that keys can be removed from. Remove only keys that were added: removing a key that was
 * never added can remove another key's evidence and so create a false negative. Implementations
 * refuse (return {@code false}) where they can tell that the key cannot be present.
 */
public interface DeletableFilter extends MutableFilter {

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
