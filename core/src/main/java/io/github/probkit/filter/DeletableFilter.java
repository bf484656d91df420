package io.github.probkit.filter;

import io.github.probkit.hash.KeyEncoder;
import io.github.probkit.internal.KeyBuffer;

/**
 * A filter that keys can be removed from. Remove only keys that were added: removing a key that was
 * never added can remove another key's evidence and so create a false negative. Implementations
 * refuse (return {@code false}) where they can tell that the key cannot be present.
 *
 * <p>Each add is recorded, so a key added twice takes two removals, and a key added more often than
 * removed is never reported absent: use {@link #add} for keys that will be removed. {@link #count}
 * says how many times a key appears to be stored. {@link #addIfAbsent} stores a key only when it
 * reads absent, and so gives up that promise (see there).
 */
public interface DeletableFilter extends MutableFilter {

  /** Removes one occurrence of the key; returns whether it was found and removed. */
  boolean remove(byte[] key, int off, int len);

  default boolean remove(byte[] key) {
    return remove(key, 0, key.length);
  }

  /** Removes one occurrence of the UTF-8 bytes of {@code key}. */
  default boolean remove(CharSequence key) {
    return removeBuffered(KeyBuffer.utf8(key));
  }

  /** Removes one occurrence of the 8 little-endian bytes of {@code key}. */
  default boolean remove(long key) {
    return removeBuffered(KeyBuffer.ofLong(key));
  }

  /** Removes one occurrence of the bytes {@code encoder} writes for {@code key}. */
  default <T> boolean remove(T key, KeyEncoder<? super T> encoder) {
    return removeBuffered(KeyBuffer.encode(key, encoder));
  }

  /**
   * How many times the key appears to be stored: at least the number of times it was added and not
   * removed (unless absent keys were removed), more when other keys share its cells; 0 means
   * certainly absent. Each implementation states its largest value.
   */
  int count(byte[] key, int off, int len);

  default int count(byte[] key) {
    return count(key, 0, key.length);
  }

  /** The count of the UTF-8 bytes of {@code key}. */
  default int count(CharSequence key) {
    return countBuffered(KeyBuffer.utf8(key));
  }

  /** The count of the 8 little-endian bytes of {@code key}. */
  default int count(long key) {
    return countBuffered(KeyBuffer.ofLong(key));
  }

  /** The count of the bytes {@code encoder} writes for {@code key}. */
  default <T> int count(T key, KeyEncoder<? super T> encoder) {
    return countBuffered(KeyBuffer.encode(key, encoder));
  }

  /**
   * Adds the key only when it is not already (probably) present, as RedisBloom's {@code CF.ADDNX}.
   * Once keys are removed, this can cause false negatives: a key that is a false positive when it
   * comes is not stored, and removing the keys it collides with makes it read absent.
   *
   * <p>The filter then holds a set, not a multiset, so that input with repeated keys takes one slot
   * (cuckoo) or one count (counting Bloom) per distinct key, and one {@link #remove} removes it.
   * Returns whether the key was stored. {@code false} means it was probably present already, or a
   * cuckoo filter had no room for it; {@link #mightContain} then tells which, since a refused add
   * leaves the filter unchanged. The keys at risk are about a fraction fpp of the distinct keys.
   */
  default boolean addIfAbsent(byte[] key, int off, int len) {
    return !mightContain(key, off, len) && add(key, off, len);
  }

  default boolean addIfAbsent(byte[] key) {
    return addIfAbsent(key, 0, key.length);
  }

  /** {@link #addIfAbsent(byte[], int, int)} of the UTF-8 bytes of {@code key}. */
  default boolean addIfAbsent(CharSequence key) {
    return addIfAbsentBuffered(KeyBuffer.utf8(key));
  }

  /** {@link #addIfAbsent(byte[], int, int)} of the 8 little-endian bytes of {@code key}. */
  default boolean addIfAbsent(long key) {
    return addIfAbsentBuffered(KeyBuffer.ofLong(key));
  }

  /** {@link #addIfAbsent(byte[], int, int)} of the bytes {@code encoder} writes for {@code key}. */
  default <T> boolean addIfAbsent(T key, KeyEncoder<? super T> encoder) {
    return addIfAbsentBuffered(KeyBuffer.encode(key, encoder));
  }

  @Override
  DeletableFilter copy();

  /** {@link #remove(byte[], int, int)} of the bytes in {@code b}, which it then gives back. */
  private boolean removeBuffered(KeyBuffer b) {
    try {
      return remove(b.bytes(), 0, b.length());
    } finally {
      b.release();
    }
  }

  /** {@link #count(byte[], int, int)} of the bytes in {@code b}, which it then gives back. */
  private int countBuffered(KeyBuffer b) {
    try {
      return count(b.bytes(), 0, b.length());
    } finally {
      b.release();
    }
  }

  /** {@link #addIfAbsent(byte[], int, int)} of the bytes in {@code b}, which it then gives back. */
  private boolean addIfAbsentBuffered(KeyBuffer b) {
    try {
      return addIfAbsent(b.bytes(), 0, b.length());
    } finally {
      b.release();
    }
  }
}
