package io.github.probkit.hash;

/**
 * Receives the bytes of a key from a {@link KeyEncoder}. Multi-byte values are little-endian and
 * strings are UTF-8, so an object encoded here hashes like the same bytes given directly.
 */
public interface KeySink {
  KeySink putByte(byte b);

  KeySink putBytes(byte[] bytes, int off, int len);

  default KeySink putBytes(byte[] bytes) {
    return putBytes(bytes, 0, bytes.length);
  }

  KeySink putInt(int value);

  KeySink putLong(long value);

  /** Appends the UTF-8 bytes of {@code s}, without a length or terminator. */
  KeySink putString(CharSequence s);
}
