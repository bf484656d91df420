package io.github.probkit.foreign;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnel;
import com.google.common.hash.Funnels;
import io.github.probkit.io.SketchFormatException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;

/**
 * GuavaBloomFilter against Guava itself (test scope): for each of Guava's Funnels, a million
 * present and a million absent keys get Guava's answers, and the bytes written are Guava's, both
 * ways.
 */
class GuavaBloomFilterTest {
  private static final int N = ComparisonSize.KEYS;

  private static byte[] bytesOf(BloomFilter<?> f) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    f.writeTo(out);
    return out.toByteArray();
  }

  private static byte[] bytesOf(GuavaBloomFilter f) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    f.writeTo(out);
    return out.toByteArray();
  }

  private static GuavaBloomFilter read(byte[] b) throws IOException {
    return GuavaBloomFilter.readFrom(new ByteArrayInputStream(b));
  }

  /** Puts N keys in a Guava filter and in probkit's; compares bytes and 2N answers. */
  private static <T> void agreesWithGuava(
      Funnel<? super T> funnel,
      IntFunction<T> present,
      IntFunction<T> absent,
      java.util.function.BiConsumer<GuavaBloomFilter, T> put,
      java.util.function.BiPredicate<GuavaBloomFilter, T> query)
      throws IOException {
    BloomFilter<T> guava = BloomFilter.create(funnel, N, 0.01);
    GuavaBloomFilter probkit = GuavaBloomFilter.create(N, 0.01);
    for (int i = 0; i < N; i++) {
      guava.put(present.apply(i));
      put.accept(probkit, present.apply(i));
    }
    byte[] guavaBytes = bytesOf(guava);
    assertThat(bytesOf(probkit)).isEqualTo(guavaBytes);

    GuavaBloomFilter fromGuava = read(guavaBytes);
    BloomFilter<T> backInGuava =
        BloomFilter.readFrom(new ByteArrayInputStream(bytesOf(fromGuava)), funnel);
    assertThat(backInGuava).isEqualTo(guava);
    int falsePositives = 0;
    for (int i = 0; i < N; i++) {
      assertThat(query.test(fromGuava, present.apply(i))).as("present key %d", i).isTrue();
      T a = absent.apply(i);
      boolean answer = query.test(fromGuava, a);
      if (answer != guava.mightContain(a)) {
        throw new AssertionError("absent key " + i + ": probkit " + answer + ", Guava not");
      }
      falsePositives += answer ? 1 : 0;
    }
    // Guava's own rate at 1 %: the comparison saw both answers many times.
    assertThat(falsePositives).isBetween(N / 200, N / 50);
  }

  @Test
  void utf8StringsAnswerAsGuava() throws IOException {
    agreesWithGuava(
        Funnels.stringFunnel(StandardCharsets.UTF_8),
        i -> (i % 3 == 0 ? "ключ-" : "key:") + i + (i % 7 == 0 ? "€𝄞" : ""),
        i -> "absent:" + i,
        GuavaBloomFilter::put,
        GuavaBloomFilter::mightContain);
  }

  @Test
  void unencodedCharsAnswerAsGuava() throws IOException {
    agreesWithGuava(
        Funnels.unencodedCharsFunnel(),
        i -> "chars-" + i + (i % 5 == 0 ? "ü" : ""),
        i -> "not-" + i,
        GuavaBloomFilter::putUnencodedChars,
        GuavaBloomFilter::mightContainUnencodedChars);
  }

  @Test
  void longsAnswerAsGuava() throws IOException {
    long seed = 0x6a09e667f3bcc908L;
    agreesWithGuava(
        Funnels.longFunnel(),
        i -> i * seed,
        i -> -1 - i * seed,
        (f, k) -> f.put((long) k),
        (f, k) -> f.mightContain((long) k));
  }

  @Test
  void byteArraysAnswerAsGuava() throws IOException {
    agreesWithGuava(
        Funnels.byteArrayFunnel(),
        i -> bytes(1, 0xb5e8_1f2a_0000_0000L + i),
        i -> bytes(2, 0x7777_0000_0000_0000L + i),
        GuavaBloomFilter::put,
        GuavaBloomFilter::mightContain);
  }

  /**
   * {@code tag}, then 4 to 40 pseudo-random bytes, so that MurmurHash3's blocks and tails are all
   * covered and present and absent keys differ.
   */
  private static byte[] bytes(int tag, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    byte[] b = new byte[5 + r.nextInt(37)];
    r.nextBytes(b);
    b[0] = (byte) tag;
    return b;
  }

  @Test
  void theOlderMitz32StrategyAnswersAsGuava() throws IOException {
    // Guava creates only MURMUR128_MITZ_64 filters; its readFrom makes a MITZ_32 one from bytes.
    byte[] empty = bytesOf(BloomFilter.create(Funnels.longFunnel(), 50_000, 0.02));
    empty[0] = 0;
    BloomFilter<Long> guava =
        BloomFilter.readFrom(new ByteArrayInputStream(empty), Funnels.longFunnel());
    GuavaBloomFilter probkit = read(empty);
    assertThat(probkit.strategy()).isEqualTo(GuavaBloomFilter.Strategy.MURMUR128_MITZ_32);
    for (long i = 0; i < 50_000; i++) {
      guava.put(i * 31);
      probkit.put(i * 31);
    }
    assertThat(bytesOf(probkit)).isEqualTo(bytesOf(guava));
    for (long i = 0; i < 200_000; i++) {
      assertThat(probkit.mightContain(i)).as("key %d", i).isEqualTo(guava.mightContain(i));
    }
  }

  @Test
  void putAllIsGuavasPutAll() throws IOException {
    BloomFilter<CharSequence> a =
        BloomFilter.create(Funnels.stringFunnel(StandardCharsets.UTF_8), 10_000);
    BloomFilter<CharSequence> b =
        BloomFilter.create(Funnels.stringFunnel(StandardCharsets.UTF_8), 10_000);
    for (int i = 0; i < 8_000; i++) {
      a.put("a" + i);
      b.put("b" + i);
    }
    GuavaBloomFilter merged = read(bytesOf(a)).putAll(read(bytesOf(b)));
    a.putAll(b);
    assertThat(bytesOf(merged)).isEqualTo(bytesOf(a));
    assertThatThrownBy(() -> merged.putAll(GuavaBloomFilter.create(10, 0.5)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("cannot combine a Guava filter of MURMUR128_MITZ_64, 1 hashes");
  }

  @Test
  void refusesWhatItCannotReadInOneLine() {
    assertRefused(
        new byte[] {2, 7, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0},
        "guava BloomFilter: strategy ordinal 2 is not one probkit reads"
            + " (0 MURMUR128_MITZ_32, 1 MURMUR128_MITZ_64)");
    assertRefused(
        new byte[] {-1, 7, 0, 0, 0, 1},
        "guava BloomFilter: strategy ordinal -1 is not one probkit"
            + " reads (0 MURMUR128_MITZ_32, 1 MURMUR128_MITZ_64)");
    assertRefused(
        new byte[] {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0},
        "guava BloomFilter: number of hash functions is 0");
    assertRefused(
        new byte[] {1, 7, 0, 0, 0, 0},
        "guava BloomFilter: bit array length is 0 longs, must be > 0");
    assertRefused(
        new byte[] {1, 7, 0}, "guava BloomFilter: the stream ends within the 6-byte header");
    // A corrupt length: refused when the stream ends, not by allocating 16 GiB first.
    assertRefused(
        new byte[] {1, 7, 0x7f, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0},
        "guava BloomFilter: the stream ends after 1 of 2147483647 longs");
  }

  private static void assertRefused(byte[] bytes, String message) {
    assertThatThrownBy(() -> read(bytes))
        .isInstanceOf(SketchFormatException.class)
        .hasMessage(message);
  }

  /**
   * Every put says, as Guava's does, whether it changed a bit (each key put twice, so both answers
   * occur), in both strategies; the rate, the copy and equality follow the bits.
   */
  @Test
  void putsAnswerAsGuavasAndFiltersDescribeThemselves() throws IOException {
    byte[] mitz32 = bytesOf(BloomFilter.create(Funnels.longFunnel(), 2_000, 0.03));
    mitz32[0] = 0;
    for (byte[] empty : new byte[][] {bytesOf(GuavaBloomFilter.create(2_000, 0.03)), mitz32}) {
      BloomFilter<CharSequence> strings =
          BloomFilter.readFrom(
              new ByteArrayInputStream(empty), Funnels.stringFunnel(StandardCharsets.UTF_8));
      BloomFilter<CharSequence> chars =
          BloomFilter.readFrom(new ByteArrayInputStream(empty), Funnels.unencodedCharsFunnel());
      BloomFilter<Long> longs =
          BloomFilter.readFrom(new ByteArrayInputStream(empty), Funnels.longFunnel());
      BloomFilter<byte[]> arrays =
          BloomFilter.readFrom(new ByteArrayInputStream(empty), Funnels.byteArrayFunnel());
      GuavaBloomFilter[] probkit = {read(empty), read(empty), read(empty), read(empty)};
      GuavaBloomFilter untouched = probkit[0].copy();
      for (int i = 0; i < 3_000; i++) {
        String s = "k" + (i % 1_500);
        assertThat(probkit[0].put(s)).as("string %d", i).isEqualTo(strings.put(s));
        assertThat(probkit[1].putUnencodedChars(s)).as("chars %d", i).isEqualTo(chars.put(s));
        assertThat(probkit[2].put((long) (i % 1_500))).isEqualTo(longs.put((long) (i % 1_500)));
        byte[] b = bytes(3, i % 1_500);
        assertThat(probkit[3].put(b)).as("bytes %d", i).isEqualTo(arrays.put(b));
      }
      assertThat(bytesOf(probkit[0])).isEqualTo(bytesOf(strings));
      assertThat(probkit[0].expectedFpp()).isEqualTo(strings.expectedFpp());
      long setBits = 0;
      byte[] b = bytesOf(strings);
      for (int i = 6; i < b.length; i++) {
        setBits += Integer.bitCount(b[i] & 0xff);
      }
      assertThat(probkit[0].bitCount()).isEqualTo(setBits);
      assertThat(probkit[0].bitSize()).isEqualTo(8L * (b.length - 6));
      assertThat(probkit[0].toString())
          .isEqualTo(
              "GuavaBloomFilter{"
                  + probkit[0].strategy()
                  + ", hashes="
                  + b[1]
                  + ", bits="
                  + probkit[0].bitSize()
                  + "}");
      assertThat(untouched.bitCount()).isZero();
      assertThat(untouched).isNotEqualTo(probkit[0]).isNotEqualTo("a filter");
      assertThat(probkit[0].copy()).isEqualTo(probkit[0]).hasSameHashCodeAs(probkit[0]);
      assertThat(read(bytesOf(strings))).isEqualTo(probkit[0]).hasSameHashCodeAs(probkit[0]);
      // The same bits under another hash count or strategy: another filter.
      byte[] other = bytesOf(strings);
      other[1]++;
      assertThat(read(other)).isNotEqualTo(probkit[0]);
      other[1]--;
      other[0] ^= 1;
      assertThat(read(other)).isNotEqualTo(probkit[0]);
    }
  }

  @Test
  void sizingIsGuavasAndBadArgumentsAreRefused() throws IOException {
    for (long n : new long[] {0, 1, 10, 1_000, 123_457}) {
      for (double fpp : new double[] {0.5, 0.03, 1e-6, 1e-30}) {
        assertThat(bytesOf(GuavaBloomFilter.create(n, fpp)))
            .as("%d at %s", n, fpp)
            .isEqualTo(bytesOf(BloomFilter.create(Funnels.longFunnel(), n, fpp)));
      }
    }
    assertThatThrownBy(() -> GuavaBloomFilter.create(-1, 0.03))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("expectedInsertions must be >= 0, was -1");
    for (double fpp : new double[] {0, 1}) {
      assertThatThrownBy(() -> GuavaBloomFilter.create(10, fpp))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("fpp must be in (0, 1), was ");
    }
    assertThatThrownBy(() -> GuavaBloomFilter.create(Long.MAX_VALUE / 64, 0.5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageEndingWith("more than Guava allows");
  }
}
