package io.github.probkit.hash;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.internal.KeyBuffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class HashStrategyTest {

  @Test
  void fnv1aMatchesPublishedVectors() {
    // Test vectors from the FNV reference (Fowler, Noll, Vo).
    assertThat(fnv("")).isEqualTo(0xcbf29ce484222325L);
    assertThat(fnv("a")).isEqualTo(0xaf63dc4c8601ec8cL);
    assertThat(fnv("foobar")).isEqualTo(0x85944171f73967e8L);
  }

  private static long fnv(String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    return Fnv1a.hash64(b, 0, b.length, Fnv1a.OFFSET_BASIS);
  }

  @Test
  void xxh3MatchesTheReferenceOnTheEmptyInput() {
    // XXH3_64bits("") with seed 0, from the xxHash reference implementation.
    assertThat(HashStrategy.xxh3().hash64(new byte[0])).isEqualTo(0x2D06800538D394C2L);
  }

  @Test
  void secondFnvSeedIsTheFirstWithHalvesSwapped() {
    assertThat(Long.rotateLeft(Fnv1a.OFFSET_BASIS, 32)).isEqualTo(Fnv1a.SECOND_SEED);
  }

  @Test
  void aLongKeyHashesAsItsLittleEndianBytes() {
    SplittableRandom r = new SplittableRandom(0x9e3779b97f4a7c15L);
    for (HashStrategy h :
        new HashStrategy[] {HashStrategy.xxh3(), HashStrategy.xxh3(42), HashStrategy.fnv1a()}) {
      for (int i = 0; i < 1000; i++) {
        long k = r.nextLong();
        byte[] le = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(k).array();
        long h1 = h.hash64(le);
        assertThat(h.hash64(k)).isEqualTo(h1);
        assertThat(h.secondHash(k, h1)).isEqualTo(h.secondHash(le, 0, 8, h1));
      }
    }
  }

  @Test
  void theDefaultHashOfALongIsHash4jsXxh3AtTheEdges() {
    // HashStrategy computes XXH3 of a long itself for seed 0; the random keys above check it too.
    com.dynatrace.hash4j.hashing.Hasher64 reference =
        com.dynatrace.hash4j.hashing.Hashing.xxh3_64();
    for (long k :
        new long[] {
          0, 1, -1, Long.MIN_VALUE, Long.MAX_VALUE, 1L << 31, 1L << 32, 0xFFFFFFFFL, -1L << 32
        }) {
      assertThat(HashStrategy.xxh3().hash64(k)).isEqualTo(reference.hashLongToLong(k));
    }
  }

  @Test
  void aStringHashesAsItsUtf8Bytes() {
    SplittableRandom r = new SplittableRandom(0x1f2e3d4c5b6a7988L);
    for (int i = 0; i < 2000; i++) {
      StringBuilder sb = new StringBuilder();
      int len = r.nextInt(40);
      for (int j = 0; j < len; j++) {
        // Mostly ASCII, some Latin, CJK, and surrogate halves (paired or not).
        int kind = r.nextInt(10);
        sb.append(
            (char)
                (kind < 6
                    ? r.nextInt(0x80)
                    : kind < 8
                        ? 0x80 + r.nextInt(0x700)
                        : kind < 9 ? 0x4e00 + r.nextInt(0x5000) : 0xd800 + r.nextInt(0x800)));
      }
      String s = sb.toString();
      byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
      KeyBuffer b = KeyBuffer.utf8(s);
      assertThat(java.util.Arrays.copyOf(b.bytes(), b.length())).isEqualTo(utf8);
      b.release();
      assertThat(HashStrategy.xxh3().hash64(s)).isEqualTo(HashStrategy.xxh3().hash64(utf8));
    }
  }

  @Test
  void encodedObjectsHashAsTheirBytes() {
    KeyEncoder<int[]> enc =
        (a, sink) -> {
          for (int v : a) {
            sink.putInt(v);
          }
        };
    byte[] expected =
        ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putInt(7).putInt(-1).array();
    assertThat(HashStrategy.xxh3().hash64(new int[] {7, -1}, enc))
        .isEqualTo(HashStrategy.xxh3().hash64(expected));
  }

  @Test
  void identityIsAlgorithmAndSeed() {
    assertThat(HashStrategy.xxh3()).isEqualTo(HashStrategy.xxh3(0));
    assertThat(HashStrategy.xxh3(1)).isNotEqualTo(HashStrategy.xxh3(2));
    assertThat(HashStrategy.fnv1a()).isNotEqualTo(HashStrategy.xxh3(Fnv1a.OFFSET_BASIS));
    assertThat(HashStrategy.of(HashAlgorithm.FNV1A_64, Fnv1a.OFFSET_BASIS))
        .isEqualTo(HashStrategy.fnv1a());
    assertThat(HashStrategy.fnv1a().toString()).isEqualTo("fnv1a(seed=0xcbf29ce484222325)");
  }

  @Test
  void seedsChangeTheHash() {
    assertThat(HashStrategy.xxh3(1).hash64("key")).isNotEqualTo(HashStrategy.xxh3(2).hash64("key"));
  }
}
