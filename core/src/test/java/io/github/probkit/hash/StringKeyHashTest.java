package io.github.probkit.hash;

import static org.assertj.core.api.Assertions.assertThat;

import com.dynatrace.hash4j.hashing.Hashing;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The hash of a String against hash4j's XXH3-64 (and FNV-1a) over the String's UTF-8 bytes, for
 * every length 0..300 (every XXH3 length class, short, medium and long) and every char class: the
 * ASCII fast path must notice any char that is not ASCII, wherever it is.
 */
class StringKeyHashTest {
  private static final long[] SEEDS = {0L, 42L, -1L, 0x8000000000000000L, 0x6a09e667f3bcc908L};

  /** A char of {@code kind}: 0 ASCII, 1 Latin-1 0x80-0xFF, 2 BMP from 0x100, 3 surrogate half. */
  private static char randomChar(SplittableRandom r, int kind) {
    switch (kind) {
      case 0:
        return (char) r.nextInt(0x80);
      case 1:
        return (char) (0x80 + r.nextInt(0x80));
      case 2:
        return (char) (0x100 + r.nextInt(0xD800 - 0x100));
      default:
        return (char) (0xD800 + r.nextInt(0x800));
    }
  }

  private static void assertMatchesReference(String s) {
    byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
    for (long seed : SEEDS) {
      long expected = Hashing.xxh3_64(seed).hashBytesToLong(utf8);
      assertThat(HashStrategy.xxh3(seed).hash64(s))
          .as("seed %x, string of %d chars %s", seed, s.length(), s.chars().boxed().toList())
          .isEqualTo(expected);
      // The same chars as a non-String CharSequence take the buffered path: the same hash.
      assertThat(HashStrategy.xxh3(seed).hash64(new StringBuilder(s))).isEqualTo(expected);
    }
    assertThat(HashStrategy.fnv1a().hash64(s))
        .isEqualTo(Fnv1a.hash64(utf8, 0, utf8.length, Fnv1a.OFFSET_BASIS));
  }

  @Test
  void randomStringsOfEveryLength() {
    // Half all ASCII (the fast path), half mostly of one class with others mixed in.
    SplittableRandom r = new SplittableRandom(0x3c6ef372fe94f82bL);
    for (int len = 0; len <= 300; len++) {
      for (int t = 0; t < 40; t++) {
        boolean ascii = t < 20;
        int mostly = r.nextInt(4);
        StringBuilder sb = new StringBuilder(len);
        for (int i = 0; i < len; i++) {
          int kind = ascii ? 0 : r.nextInt(8) == 0 ? r.nextInt(4) : mostly;
          sb.append(randomChar(r, kind));
        }
        assertMatchesReference(sb.toString());
      }
    }
  }

  @Test
  void oneNonAsciiCharAtEveryPositionOfEveryLength() {
    // One char of each class at each position, the rest ASCII.
    SplittableRandom r = new SplittableRandom(0xa54ff53a5f1d36f1L);
    for (int len = 1; len <= 260; len++) {
      char[] chars = new char[len];
      for (int i = 0; i < len; i++) {
        chars[i] = randomChar(r, 0);
      }
      for (int pos = 0; pos < len; pos++) {
        for (int kind = 1; kind <= 3; kind++) {
          char saved = chars[pos];
          chars[pos] = randomChar(r, kind);
          assertMatchesReference(new String(chars));
          chars[pos] = saved;
        }
      }
    }
  }

  @Test
  void charsThatOnlyDifferInTheirHighByte() {
    // 0x141 and 0x41 share their low byte, and the fast path's copy keeps only the low byte: the
    // test after it must still send these to the UTF-8 encoder.
    for (char c : new char[] {0x141, 0x1c1, 0x8041, 0xff41, 0x100, 0xff00, 0xd841, 0xdc41}) {
      for (int len = 1; len <= 40; len++) {
        char[] chars =
            "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH".substring(0, len).toCharArray();
        for (int pos = 0; pos < len; pos++) {
          char saved = chars[pos];
          chars[pos] = c;
          assertMatchesReference(new String(chars));
          chars[pos] = saved;
        }
      }
    }
  }

  @Test
  void bytesAtEveryOffsetAndLengthMatchHash4j() {
    // The byte-array path of XXH3 (its 9-to-128-byte classes written in probkit) against hash4j,
    // the key placed at offsets that misalign its words, with bytes around it that must not count.
    SplittableRandom r = new SplittableRandom(0x510e527fade682d1L);
    byte[] buf = new byte[300 + 16];
    for (int len = 0; len <= 300; len++) {
      for (int off = 0; off < 16; off += 3) {
        r.nextBytes(buf);
        for (long seed : SEEDS) {
          long expected = Hashing.xxh3_64(seed).hashBytesToLong(buf, off, len);
          assertThat(HashStrategy.xxh3(seed).hash64(buf, off, len))
              .as("seed %x, %d bytes at %d", seed, len, off)
              .isEqualTo(expected);
        }
      }
    }
  }

  @Test
  void dictionaryWordsAndTheirJoinsOfEveryLength() throws IOException {
    // Real keys: every word (256 of them not ASCII), and joins of consecutive words cut to every
    // length up to 40, so that each length class, and both ways of finding the word at n - 16,
    // take real text with its non-ASCII letters wherever they fall.
    Path dict = Path.of("/usr/share/dict/words");
    Assumptions.assumeTrue(Files.isReadable(dict), "no /usr/share/dict/words");
    List<String> words = Files.readAllLines(dict, StandardCharsets.UTF_8);
    for (int i = 0; i < words.size(); i++) {
      String w = words.get(i);
      assertMatchesReference(w);
      String joined =
          w + ":" + words.get((i + 1) % words.size()) + "/" + words.get((i + 7) % words.size());
      int len = 9 + i % 32;
      assertMatchesReference(joined.length() > len ? joined.substring(0, len) : joined);
    }
  }

  @Test
  void surrogatePairsAndUnpairedSurrogatesAtEveryPosition() {
    // A pair is one 4-byte UTF-8 sequence; a lone or reversed half is what String.getBytes makes
    // of it ('?'), which the hash of the String must keep matching.
    String[] inserts = {
      "\uD83D\uDE00", "\uD83D", "\uDE00", "\uDE00\uD83D", "\uD800\uDBFF", "\u00E9\uD83D\uDE00"
    };
    String base = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEF";
    for (String insert : inserts) {
      for (int len = 0; len <= 40; len++) {
        for (int pos = 0; pos <= len; pos++) {
          String s = base.substring(0, pos) + insert + base.substring(pos, len);
          assertMatchesReference(s);
          // The same chars cut at every length, so a String may end with half a pair.
          assertMatchesReference(s.substring(0, Math.max(0, s.length() - 1)));
        }
      }
    }
  }

  @Test
  void theEmptyStringIsTheReferenceVector() {
    // XXH3_64bits("") with seed 0, from the xxHash reference implementation.
    assertThat(HashStrategy.xxh3().hash64("")).isEqualTo(0x2D06800538D394C2L);
  }
}
