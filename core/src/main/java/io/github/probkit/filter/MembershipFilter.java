package io.github.probkit.filter;

import io.github.probkit.hash.HashStrategy;
import io.github.probkit.hash.KeyEncoder;
import io.github.probkit.internal.KeyBuffer;
import io.github.probkit.io.StructureType;
import java.io.IOException;
import java.io.OutputStream;

/**
 * A set-membership filter: "definitely absent" ({@code false}) or "probably present"
 * ({@code true}). A key that was added is always reported present; an absent key is reported present
 * with a small probability, the false-positive rate.
 *
 * <p>Keys are bytes: a CharSequence is its UTF-8 bytes, a long its 8 little-endian bytes, and an
 * object the bytes its {@link KeyEncoder} writes. The same key therefore gets the same answer
 * whichever way it is passed.
 */
public interface MembershipFilter {

  /** Whether the key of {@code len} bytes of {@code key} from {@code off} may be in the set. */
  boolean mightContain(byte[] key, int off, int len);

  default boolean mightContain(byte[] key) {
    return mightContain(key, 0, key.length);
  }

  /** Whether the UTF-8 bytes of {@code key} may be in the set. */
  default boolean mightContain(CharSequence key) {
    KeyBuffer b = KeyBuffer.utf8(key);
    return mightContain(b.bytes(), 0, b.length());
  }

  /** Whether the 8 little-endian bytes of {@code key} may be in the set. */
  default boolean mightContain(long key) {
    KeyBuffer b = KeyBuffer.get();
    b.putLong(key);
    return mightContain(b.bytes(), 0, b.length());
  }

  default <T> boolean mightContain(T key, KeyEncoder<T> encoder) {
    KeyBuffer b = KeyBuffer.encode(key, encoder);
    return mightContain(b.bytes(), 0, b.length());
  }

  /** The probability that a key never added is reported present, estimated from the current state. */
  double expectedFpp();

  /** The size of the filter's table in bits (the information a serialized filter carries). */
  long bitSize();

  /** The memory the filter's arrays take, in bytes (object headers excluded). */
  long byteSize();

  /** The hash algorithm and seed this filter was built with. */
  HashStrategy hashStrategy();

  /** The structure type written in the serialized form. */
  StructureType type();

  /** Writes the filter in the probkit container format (docs/FORMAT.md); the stream stays open. */
  void writeTo(OutputStream out) throws IOException;
}
