package io.github.probkit.filter;

import io.github.probkit.hash.KeyEncoder;
import io.github.probkit.internal.KeyBuffer;

/** A filter that keys can be added to after it is built. */
public interface MutableFilter extends MembershipFilter {

  /**
   * Adds the key of {@code len} bytes of {@code key} from {@code off}. Returns whether the filter
   * changed: {@code false} means the key was probably present already (for a Bloom filter: every one
   * of its bits was set).
   */
  boolean add(byte[] key, int off, int len);

  default boolean add(byte[] key) {
    return add(key, 0, key.length);
  }

  default boolean add(CharSequence key) {
    KeyBuffer b = KeyBuffer.utf8(key);
    return add(b.bytes(), 0, b.length());
  }

  default boolean add(long key) {
    KeyBuffer b = KeyBuffer.get();
    b.putLong(key);
    return add(b.bytes(), 0, b.length());
  }

  default <T> boolean add(T key, KeyEncoder<T> encoder) {
    KeyBuffer b = KeyBuffer.encode(key, encoder);
    return add(b.bytes(), 0, b.length());
  }

  /** The number of distinct keys added, estimated from the filter's state. */
  long approximateCount();
}
