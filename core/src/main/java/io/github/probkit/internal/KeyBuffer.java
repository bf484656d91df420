package io.github.probkit.internal;

import io.github.probkit.hash.KeyEncoder;
import io.github.probkit.hash.KeySink;
import java.nio.charset.StandardCharsets;

/**
 * A scratch buffer that turns String, long and encoded keys into bytes without allocating per key.
 * Not public API. Every use takes a buffer and gives it back, with the bytes used in between:
 *
 * <pre>
 *   KeyBuffer b = KeyBuffer.utf8(key);
 *   try {
 *     return use(b.bytes(), 0, b.length());
 *   } finally {
 *     b.release();
 *   }
 * </pre>
 *
 * Each thread keeps one buffer. While it is taken, a nested use on the same thread (an encoder that
 * itself hashes a field with probkit) gets a new buffer of its own, so the outer key is never
 * overwritten. A buffer grown past {@link #KEEP} bytes for a huge key is dropped when given back,
 * so no thread keeps a huge key's memory.
 */
public final class KeyBuffer implements KeySink {
  /** The most bytes a thread's buffer keeps between keys. */
  static final int KEEP = 1 << 14;

  private static final int INITIAL = 64;
  private static final ThreadLocal<KeyBuffer> LOCAL = ThreadLocal.withInitial(KeyBuffer::new);

  private byte[] buf = new byte[INITIAL];
  private int len;
  private boolean taken;

  private KeyBuffer() {}

  /**
   * An empty buffer: this thread's own when it is free, else a new one. Give it back with {@link
   * #release}.
   */
  public static KeyBuffer acquire() {
    KeyBuffer b = LOCAL.get();
    if (b.taken) {
      return new KeyBuffer();
    }
    b.taken = true;
    b.len = 0;
    return b;
  }

  /** A buffer holding the UTF-8 bytes of {@code s}; give it back with {@link #release}. */
  public static KeyBuffer utf8(CharSequence s) {
    KeyBuffer b = acquire();
    try {
      b.putString(s);
    } catch (Throwable t) {
      b.release();
      throw t;
    }
    return b;
  }

  /**
   * A buffer holding the 8 little-endian bytes of {@code v}; give it back with {@link #release}.
   */
  public static KeyBuffer ofLong(long v) {
    KeyBuffer b = acquire();
    b.putLong(v);
    return b;
  }

  /**
   * A buffer holding the bytes {@code encoder} writes for {@code key}; give it back with {@link
   * #release}.
   */
  public static <T> KeyBuffer encode(T key, KeyEncoder<? super T> encoder) {
    KeyBuffer b = acquire();
    try {
      encoder.encode(key, b);
    } catch (Throwable t) {
      b.release();
      throw t;
    }
    return b;
  }

  /** Gives the buffer back; its bytes are not to be used afterwards. */
  public void release() {
    if (buf.length > KEEP) {
      buf = new byte[INITIAL];
    }
    taken = false;
  }

  /** Whether this thread's own buffer is taken (for tests). */
  static boolean ownTaken() {
    return LOCAL.get().taken;
  }

  /** The capacity of this thread's own buffer (for tests). */
  static int ownCapacity() {
    return LOCAL.get().buf.length;
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
    if (s instanceof String) {
      return putString((String) s);
    }
    int n = s.length();
    ensure(n);
    byte[] b = buf;
    int at = len;
    int seen = 0;
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      seen |= c;
      b[at + i] = (byte) c;
    }
    if (seen < 0x80) {
      len = at + n;
      return this;
    }
    return putUtf8(s.toString());
  }

  /**
   * An all-ASCII String is its own UTF-8. Its chars are copied first, by the JDK's own
   * String.getBytes(int, int, byte[], int) (deprecated because it drops each char's high byte,
   * which is exactly right once every char is below 0x80; an array copy for a Latin-1 String), and
   * then tested by a loop that only ORs the chars (no stores, so the JIT compiles it tightly), over
   * chars the copy has just brought into the cache; anything else is then written over.
   */
  @SuppressWarnings("deprecation")
  private KeySink putString(String s) {
    int n = s.length();
    ensure(n);
    if (!copyAscii(s, buf, len)) {
      return putUtf8(s);
    }
    len += n;
    return this;
  }

  /**
   * Copies the chars of {@code s} into {@code dst} from {@code at} as bytes and returns whether
   * they were all ASCII, that is whether {@code dst} now holds the String's UTF-8 bytes (when not,
   * the bytes written are of no use). {@code dst} must have room for {@code s.length()} bytes from
   * {@code at}. For a structure that keeps a buffer of its own (a single-writer one), where the
   * thread's buffer would cost a thread-local look-up per key.
   */
  @SuppressWarnings("deprecation")
  public static boolean copyAscii(String s, byte[] dst, int at) {
    int n = s.length();
    s.getBytes(0, n, dst, at);
    int seen = 0;
    for (int i = 0; i < n; i++) {
      seen |= s.charAt(i);
    }
    return seen < 0x80;
  }

  /**
   * Anything else is encoded by the JDK, which turns unpaired surrogates into '?' as
   * String.getBytes does.
   */
  private KeySink putUtf8(String s) {
    byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
    return putBytes(utf8, 0, utf8.length);
  }
}
