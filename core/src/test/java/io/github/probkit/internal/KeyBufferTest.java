package io.github.probkit.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.filter.BloomFilter;
import io.github.probkit.frequency.CountMinSketch;
import io.github.probkit.hash.HashStrategy;
import io.github.probkit.hash.KeyEncoder;
import io.github.probkit.testing.Binomial;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** Key encoding is re-entrant, and a huge key does not stay in a thread's buffer. */
class KeyBufferTest {
  record User(String name, String email) {}

  /** An encoder that hashes a field with probkit while the key is being built. */
  private static final KeyEncoder<User> HASHING_ENCODER =
      (u, sink) -> sink.putString(u.name()).putLong(HashStrategy.xxh3().hash64(u.email()));

  private static User user(String prefix, int i) {
    return new User(prefix + i, prefix + i + "@example.com");
  }

  /**
   * Before: the nested hash reset the thread's buffer, and 1,000 of 1,000 absent users were
   * present.
   */
  @Test
  void anEncoderMayHashWithProbkit() {
    BloomFilter f = BloomFilter.create(1000, 0.01);
    for (int i = 0; i < 1000; i++) {
      f.add(user("added-", i), HASHING_ENCODER);
    }
    int present = 0;
    for (int i = 0; i < 1000; i++) {
      assertThat(f.mightContain(user("added-", i), HASHING_ENCODER)).isTrue();
      present += f.mightContain(user("absent-", i), HASHING_ENCODER) ? 1 : 0;
    }
    // At most the rate of the filter's own fill, but for a one-in-a-billion binomial excess.
    assertThat((long) present).isLessThanOrEqualTo(Binomial.upper(1000, f.expectedFpp(), 1 - 1e-9));
    CountMinSketch c = CountMinSketch.withDimensions(1 << 12, 4);
    c.add(user("a", 1), HASHING_ENCODER, 5);
    assertThat(c.estimate(user("a", 1), HASHING_ENCODER)).isEqualTo(5);
    assertThat(c.estimate(user("a", 2), HASHING_ENCODER)).isZero();
  }

  @Test
  void aNestedKeyLeavesTheOuterKeysBytesIntact() {
    KeyBuffer outer = KeyBuffer.utf8("outer");
    try {
      KeyBuffer inner = KeyBuffer.utf8("a different, longer inner key");
      assertThat(inner).isNotSameAs(outer);
      inner.release();
      assertThat(Arrays.copyOf(outer.bytes(), outer.length())).isEqualTo("outer".getBytes());
    } finally {
      outer.release();
    }
    assertThat(KeyBuffer.ownTaken()).isFalse();
    assertThat(KeyBuffer.acquire()).as("the thread's own buffer again").isSameAs(outer);
    outer.release();
  }

  @Test
  void aHugeKeyIsNotKeptByTheThread() {
    char[] big = new char[8 << 20];
    Arrays.fill(big, 'x');
    long h = HashStrategy.xxh3().hash64(new String(big));
    assertThat(h).isEqualTo(HashStrategy.xxh3().hash64(new String(big).getBytes()));
    assertThat(KeyBuffer.ownCapacity()).isLessThanOrEqualTo(KeyBuffer.KEEP);
  }

  @Test
  void anEncoderThatThrowsGivesTheBufferBack() {
    KeyEncoder<String> failing =
        (s, sink) -> {
          sink.putString(s);
          throw new IllegalStateException("encoder failed");
        };
    assertThatThrownBy(() -> HashStrategy.xxh3().hash64("k", failing)).hasMessage("encoder failed");
    assertThat(KeyBuffer.ownTaken()).isFalse();
  }

  /**
   * A String's key is its UTF-8 bytes whatever its chars: ASCII (copied as it is), Latin-1 beyond
   * ASCII, chars above 0xFF whose low byte is ASCII (U+0141 ends in 0x41, 'A': a copy of low bytes
   * would silently give "Abc"), surrogate pairs and unpaired surrogates, at lengths around the
   * buffer's first size; the same through a CharSequence that is not a String.
   */
  @Test
  void aStringsKeyIsItsUtf8Bytes() {
    String[] samples = {
      "",
      "a",
      "user:000000000000042",
      "caf\u00e9",
      "\u00ff\u0080",
      "\u0141bc",
      "x\u4e16\u754c",
      "\ud83d\ude00 smile",
      "lone \ud800 high",
      "lone \udc00 low",
      "\u0100".repeat(70),
      "a".repeat(63),
      "a".repeat(64),
      "b".repeat(65) + "\u0101",
      "z".repeat(1000)
    };
    for (String s : samples) {
      byte[] expected = s.getBytes(StandardCharsets.UTF_8);
      for (CharSequence cs : new CharSequence[] {s, new StringBuilder(s)}) {
        KeyBuffer b = KeyBuffer.utf8(cs);
        try {
          assertThat(Arrays.copyOf(b.bytes(), b.length()))
              .as("%s (%s)", s, cs.getClass().getSimpleName())
              .isEqualTo(expected);
        } finally {
          b.release();
        }
      }
      // After other bytes in the same buffer.
      KeyBuffer b = KeyBuffer.acquire();
      try {
        b.putLong(7).putString(s);
        assertThat(Arrays.copyOfRange(b.bytes(), 8, b.length())).isEqualTo(expected);
      } finally {
        b.release();
      }
      assertThat(HashStrategy.xxh3().hash64(s)).isEqualTo(HashStrategy.xxh3().hash64(expected));
    }
  }
}
