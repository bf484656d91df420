package io.github.probkit.filter;

import io.github.probkit.hash.HashStrategy;
import io.github.probkit.hash.KeyEncoder;
import io.github.probkit.internal.BatchPasses;
import io.github.probkit.internal.KeyBuffer;
import io.github.probkit.io.StructureType;
import java.io.IOException;
import java.io.OutputStream;

/**
 * A set-membership filter: "definitely absent" ({@code false}) or "probably present" ({@code
 * true}). A key that was added is always reported present; an absent key is reported present with a
 * small probability, the false-positive rate.
 *
 * <p>Keys are bytes: a CharSequence is its UTF-8 bytes, a long its 8 little-endian bytes, and an
 * object the bytes its {@link KeyEncoder} writes. The same key therefore gets the same answer
 * whichever way it is passed. An encoder may itself hash with probkit (key encoding is re-entrant);
 * to keep one encoder with a filter, so that no call can pass another, use {@link TypedFilter}.
 */
public interface MembershipFilter {

  /** Whether the key of {@code len} bytes of {@code key} from {@code off} may be in the set. */
  boolean mightContain(byte[] key, int off, int len);

  default boolean mightContain(byte[] key) {
    return mightContain(key, 0, key.length);
  }

  /** Whether the UTF-8 bytes of {@code key} may be in the set. */
  default boolean mightContain(CharSequence key) {
    return mightContainBuffered(KeyBuffer.utf8(key));
  }

  /** Whether the 8 little-endian bytes of {@code key} may be in the set. */
  default boolean mightContain(long key) {
    return mightContainBuffered(KeyBuffer.ofLong(key));
  }

  /** Whether the bytes {@code encoder} writes for {@code key} may be in the set. */
  default <T> boolean mightContain(T key, KeyEncoder<? super T> encoder) {
    return mightContainBuffered(KeyBuffer.encode(key, encoder));
  }

  /**
   * {@link #mightContain(long)} of {@code keys[from, to)}, answered into {@code present[from, to)};
   * returns how many are present. The answers are exactly those of one call per key. Bloom, blocked
   * Bloom and binary fuse filters answer a batch in passes that keep the cache misses of many keys
   * in flight at once, several times faster than one call per key when the filter is far larger
   * than the cache; the other filters make one call per key.
   */
  default int mightContainAll(long[] keys, int from, int to, boolean[] present) {
    BatchPasses.checkRange(from, to, keys.length, present.length);
    int found = 0;
    for (int i = from; i < to; i++) {
      present[i] = mightContain(keys[i]);
      found += present[i] ? 1 : 0;
    }
    return found;
  }

  /** {@link #mightContainAll(long[], int, int, boolean[])} of every key. */
  default int mightContainAll(long[] keys, boolean[] present) {
    return mightContainAll(keys, 0, keys.length, present);
  }

  /**
   * {@link #mightContain(byte[], int, int)} of {@code count} keys given as slices of one buffer,
   * key {@code i} being {@code buf[offsets[i], offsets[i] + lengths[i])} (lines read into a block,
   * say), answered into {@code present[0, count)}; returns how many are present. As fast as the
   * batch of longs, less the hashing.
   */
  default int mightContainAll(
      byte[] buf, int[] offsets, int[] lengths, int count, boolean[] present) {
    BatchPasses.checkSlices(buf, offsets, lengths, count);
    BatchPasses.checkRange(0, count, count, present.length);
    int found = 0;
    for (int i = 0; i < count; i++) {
      present[i] = mightContain(buf, offsets[i], lengths[i]);
      found += present[i] ? 1 : 0;
    }
    return found;
  }

  /**
   * Whether a key's {@link HashStrategy#hash64 hash} is all this filter needs of it, so that {@link
   * #mightContainAllHashes} applies: true for every filter but a Bloom or scalable filter hashed
   * with FNV-1a, whose probes need a second pass over the key.
   */
  default boolean hashSuffices() {
    return false;
  }

  /**
   * {@link #mightContainAll(long[], int, int, boolean[])} of keys given by their hashes: {@code
   * hashes[i]} is {@code hashStrategy().hash64} of the key's bytes, computed wherever suits the
   * caller (on other threads, say). The answers are exactly those of the keys. Throws
   * IllegalStateException when {@link #hashSuffices()} is false.
   */
  default int mightContainAllHashes(long[] hashes, int from, int to, boolean[] present) {
    throw new IllegalStateException(
        "a "
            + type().label()
            + " filter hashed with "
            + hashStrategy()
            + " needs the keys, not their hashes");
  }

  /**
   * The probability that a key never added is reported present, estimated from the current state.
   */
  double expectedFpp();

  /** The size of the filter's table in bits (the information a serialized filter carries). */
  long bitSize();

  /** The memory the filter's arrays take, in bytes (object headers excluded). */
  long byteSize();

  /** The hash algorithm and seed this filter was built with. */
  HashStrategy hashStrategy();

  /** The structure type written in the serialized form. */
  StructureType type();

  /** An independent filter with the same state (an immutable filter may return itself). */
  MembershipFilter copy();

  /** Writes the filter in the probkit container format (docs/FORMAT.md); the stream stays open. */
  void writeTo(OutputStream out) throws IOException;

  /**
   * {@link #mightContain(byte[], int, int)} of the bytes in {@code b}, which it then gives back.
   */
  private boolean mightContainBuffered(KeyBuffer b) {
    try {
      return mightContain(b.bytes(), 0, b.length());
    } finally {
      b.release();
    }
  }
}
