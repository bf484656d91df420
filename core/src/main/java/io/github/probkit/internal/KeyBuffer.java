package io.github.probkit.internal;

import io.github.probkit.hash.KeyEncoder;
import io.github.probkit.hash.KeySink;
import java.nio.charset.StandardCharsets;

/**
 * A per-thread scratch buffer that turns String, long and encoded keys into bytes without
 * allocating per key. The bytes are valid until the same thread encodes the next key. Not public
 * API.
 */
public final class KeyBuffer implements KeySink {
  private static final ThreadLocal<KeyBuffer> LOCAL = ThreadLocal.withInitial(KeyBuffer::new);

  private byte[] buf = new byte[64];
  private int len;

  private KeyBuffer() {}

  /** This thread's buffer, emptied. */
  public static KeyBuffer get() {
    KeyBuffer b = LOCAL.get();
    b.len = 0;
    return b;
  }

  /** This thread's buffer holding the UTF-8 bytes of {@code s}. */
  public static KeyBuffer utf8(CharSequence s) {
    KeyBuffer b = get();
    b.putString(s);
    return b;
  }

  /** This thread's buffer holding the bytes {@code encoder} writes for {@code key}. */
  public static <T> KeyBuffer encode(T key, KeyEncoder<T> encoder) {
    KeyBuffer b = get();
    encoder.encode(key, b);
    return b;
  }

  public byte[] bytes() {
    return buf;
  }

  public int length() {
    return len;
  }

  private void ensure(int extra) {
    if (len + extra > buf.length) {
      long want = Math.max((long) buf.length * 2, (long) len + extra);
      Preconditions.checkArgument(want <= Integer.MAX_VALUE - 8, "key longer than 2 GiB");
      buf = java.util.Arrays.copyOf(buf, (int) want);
    }
  }

  @Override
  public KeySink putByte(byte b) {
    ensure(1);
    buf[len++] = b;
    return this;
  }

  @Override
  public KeySink putBytes(byte[] bytes, int off, int n) {
    ensure(n);
    System.arraycopy(bytes, off, buf, len, n);
    len += n;
    return this;
  }

  @Override
  public KeySink putInt(int v) {
    ensure(4);
    for (int i = 0; i < 4; i++) {
      buf[len++] = (byte) (v >>> (8 * i));
    }
    return this;
  }

  @Override
  public KeySink putLong(long v) {
    ensure(8);
    for (int i = 0; i < 8; i++) {
      buf[len++] = (byte) (v >>> (8 * i));
    }
    return this;
  }

  @Override
  public KeySink putString(CharSequence s) {
    int n = s.length();
    ensure(n);
    byte[] b = buf;
    int at = len;
    int seen = 0;
    // Copy every char's low byte and OR the chars together: a loop without an early exit, which the
    // JIT compiles tightly. Only an all-ASCII string is its own UTF-8; anything else is encoded by
    // the JDK, which also turns unpaired surrogates into '?' exactly as String.getBytes does.
    if (s instanceof String) {
      String str = (String) s;
      for (int i = 0; i < n; i++) {
        char c = str.charAt(i);
        seen |= c;
        b[at + i] = (byte) c;
      }
    } else {
      for (int i = 0; i < n; i++) {
        char c = s.charAt(i);
        seen |= c;
        b[at + i] = (byte) c;
      }
    }
    if (seen < 0x80) {
      len = at + n;
      return this;
    }
    byte[] utf8 = s.toString().getBytes(StandardCharsets.UTF_8);
    return putBytes(utf8, 0, utf8.length);
  }
}
