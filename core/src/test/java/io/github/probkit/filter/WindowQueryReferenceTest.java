package io.github.probkit.filter;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.Concurrency;
import io.github.probkit.hash.HashStrategy;
import java.lang.reflect.Field;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The window filter's query against the rule as docs/FORMAT.md states it, evaluated here the plain
 * way (one age after another, counting the run): over random slice states of every density, random
 * generations (so runs wrap from physical slice 0 to h - 1), queries ahead of the latest event (so
 * the live ages stop short of h and a run may straddle their end), and keys with a planted run of k
 * - 1, k or k + 1 ages at a random place. A wrong shift, mask or wrap in the fast query turns some
 * answer around.
 */
class WindowQueryReferenceTest {
  private static final long GENERATION_MILLIS = 1000;

  /** Layouts, modes and rates of the time-based filter; h = 75 slices at 0.001 BLOCKED. */
  static Stream<Arguments> timeBased() {
    return Stream.of(
        Arguments.of(0.01, AgePartitionedBloomFilter.Layout.SLICED, Concurrency.SINGLE_WRITER),
        Arguments.of(0.01, AgePartitionedBloomFilter.Layout.BLOCKED, Concurrency.SINGLE_WRITER),
        Arguments.of(0.01, AgePartitionedBloomFilter.Layout.BLOCKED, Concurrency.CONCURRENT),
        Arguments.of(0.001, AgePartitionedBloomFilter.Layout.SLICED, Concurrency.CONCURRENT),
        // h = 75 slices: more than one word of mask
        Arguments.of(0.001, AgePartitionedBloomFilter.Layout.BLOCKED, Concurrency.SINGLE_WRITER));
  }

  /** {@link #timeBased()} and the high rate, whose few slices make runs and wraps frequent. */
  static Stream<Arguments> timeBasedAndHighRate() {
    return Stream.concat(
        timeBased(),
        Stream.of(
            Arguments.of(0.2, AgePartitionedBloomFilter.Layout.SLICED, Concurrency.SINGLE_WRITER),
            Arguments.of(
                0.2, AgePartitionedBloomFilter.Layout.BLOCKED, Concurrency.SINGLE_WRITER)));
  }

  /**
   * A time-based filter of {@code l} generations of {@link #GENERATION_MILLIS} each (l from the
   * rate), so that a test can name times by generation.
   */
  private static AgePartitionedBloomFilter timeBased(
      double fpp, AgePartitionedBloomFilter.Layout layout, Concurrency concurrency) {
    int l = AgePartitionedBloomFilter.optimalSlices(fpp)[1];
    return AgePartitionedBloomFilter.create(
        Duration.ofMillis(l * GENERATION_MILLIS),
        64L * l,
        fpp,
        HashStrategy.xxh3(),
        Clock.systemUTC(),
        concurrency,
        layout);
  }

  @ParameterizedTest
  @MethodSource("timeBasedAndHighRate")
  void queryFollowsTheRule(
      double fpp, AgePartitionedBloomFilter.Layout layout, Concurrency concurrency)
      throws ReflectiveOperationException {
    SplittableRandom random = new SplittableRandom(Double.doubleToLongBits(fpp) ^ layout.ordinal());
    int[] answers = new int[2];
    AgePartitionedBloomFilter f = timeBased(fpp, layout, concurrency);
    assertThat(f.generationMillis()).isEqualTo(GENERATION_MILLIS);
    long generation = random.nextLong(1L << 40);
    long[] words = words(f);
    for (int trial = 0; trial < 200; trial++) {
      generation += 1 + random.nextInt(3 * f.sliceCount());
      f.advanceTo(generation * GENERATION_MILLIS + random.nextLong(GENERATION_MILLIS));
      // A bit set with probability 1/2, 3/4, 7/8, ...: from mostly absent keys to mostly present.
      int density = 1 + random.nextInt(6);
      for (int i = 0; i < words.length; i++) {
        long w = -1;
        for (int j = 0; j < density; j++) {
          w &= random.nextLong();
        }
        words[i] = ~w;
      }
      for (int q = 0; q < 500; q++) {
        long key = random.nextLong();
        if (random.nextBoolean()) {
          int length = f.hashCount() - 1 + random.nextInt(3);
          int from = random.nextInt(f.sliceCount() - length + 1);
          for (int age = from; age < from + length; age++) {
            setBit(f, words, key, age);
          }
        }
        // Mostly at the latest event (all h ages live), else up to h generations later.
        int ahead = random.nextInt(3) == 0 ? random.nextInt(f.sliceCount() + 2) : 0;
        long time = (generation + ahead) * GENERATION_MILLIS + random.nextLong(GENERATION_MILLIS);
        boolean expected = reference(f, words, key, Math.max(0, f.sliceCount() - ahead));
        assertThat(f.mightContain(key, time))
            .as("key %d, generation %d, %d ahead, density %d", key, generation, ahead, density)
            .isEqualTo(expected);
        answers[expected ? 1 : 0]++;
      }
    }
    // Both answers were asked often: the comparison saw runs and their absence.
    assertThat(answers[0]).isGreaterThan(10_000);
    assertThat(answers[1]).isGreaterThan(10_000);
  }

  @ParameterizedTest
  @CsvSource({"0.01, SLICED", "0.01, BLOCKED", "0.001, BLOCKED"})
  void countBasedQueryFollowsTheRule(double fpp, AgePartitionedBloomFilter.Layout layout)
      throws ReflectiveOperationException {
    SplittableRandom random = new SplittableRandom(17);
    AgePartitionedBloomFilter f =
        AgePartitionedBloomFilter.create(
            1000, fpp, HashStrategy.xxh3(), Concurrency.SINGLE_WRITER, layout);
    long[] words = words(f);
    for (int trial = 0; trial < 50; trial++) {
      // Some generations on: the newest slice anywhere in the ring.
      long adds = random.nextLong(2 * f.sliceCount() * f.generationKeys());
      for (long i = 0; i < adds; i++) {
        f.add(random.nextLong());
      }
      for (int q = 0; q < 500; q++) {
        long key = random.nextLong();
        int from = random.nextInt(f.sliceCount() - f.hashCount() + 1);
        for (int age = from; age < from + f.hashCount() - 1; age++) {
          setBit(f, words, key, age);
        }
        // A run of k - 1: present only if one of its two neighbours holds the bit.
        assertThat(f.mightContain(key)).isEqualTo(reference(f, words, key, f.sliceCount()));
        setBit(f, words, key, from == 0 ? from + f.hashCount() - 1 : from - 1);
        assertThat(f.mightContain(key)).isTrue();
        assertThat(reference(f, words, key, f.sliceCount())).isTrue();
      }
    }
  }

  @ParameterizedTest
  @MethodSource("timeBased")
  void addSetsExactlyTheKeysBits(
      double fpp, AgePartitionedBloomFilter.Layout layout, Concurrency concurrency)
      throws ReflectiveOperationException {
    int l = AgePartitionedBloomFilter.optimalSlices(fpp)[1];
    SplittableRandom random = new SplittableRandom(29);
    AgePartitionedBloomFilter f = timeBased(fpp, layout, concurrency);
    long generation = random.nextLong(1L << 40);
    long[] words = words(f);
    for (int trial = 0; trial < 3000; trial++) {
      generation += random.nextInt(3);
      f.advanceTo(generation * GENERATION_MILLIS);
      Arrays.fill(words, 0);
      long key = random.nextLong();
      // A late event (lag > 0) goes to the slices it would have gone to in order.
      int lag = random.nextInt(l + 1);
      assertThat(f.add(key, (generation - lag) * GENERATION_MILLIS)).isTrue();
      long[] expected = new long[words.length];
      for (int age = lag; age < lag + f.hashCount(); age++) {
        setBit(f, expected, key, age);
      }
      assertThat(words)
          .as("key %d at lag %d, generation %d", key, lag, generation)
          .isEqualTo(expected);
      assertThat(f.mightContain(key, generation * GENERATION_MILLIS)).isTrue();
    }
  }

  /** Whether ages {@code [0, live)} hold a run of k with the key's bit, one age after another. */
  private static boolean reference(AgePartitionedBloomFilter f, long[] words, long key, int live) {
    int run = 0;
    for (int age = 0; age < live; age++) {
      int[] at = bit(f, key, age);
      run = (words[at[0]] >>> at[1] & 1) != 0 ? run + 1 : 0;
      if (run == f.hashCount()) {
        return true;
      }
    }
    return false;
  }

  private static void setBit(AgePartitionedBloomFilter f, long[] words, long key, int age) {
    int[] at = bit(f, key, age);
    words[at[0]] |= 1L << at[1];
  }

  /** The word and bit of the key in the slice of this age, from docs/FORMAT.md. */
  private static int[] bit(AgePartitionedBloomFilter f, long key, int age) {
    HashStrategy hash = f.hashStrategy();
    long h1 = hash.hash64(key);
    long h2 = hash.secondHash(key, h1);
    int h = f.sliceCount();
    long m = f.sliceBits();
    int s = (int) Math.floorMod(f.generation() - age, (long) h);
    if (f.layout() == AgePartitionedBloomFilter.Layout.BLOCKED) {
      long block = unsignedMultiplyHigh(h1, m / 64);
      return new int[] {(int) (block * h + s), (int) ((h2 * multiplier(s)) >>> 58)};
    }
    long p = unsignedMultiplyHigh(h1 + s * h2, m);
    return new int[] {(int) (s * (m / 64) + p / 64), (int) (p % 64)};
  }

  /** {@code floor(x m / 2^64)}, x unsigned. */
  private static long unsignedMultiplyHigh(long x, long m) {
    return Math.multiplyHigh(x, m) + (x < 0 ? m : 0);
  }

  /** {@code M_s}: SplitMix64's finalizer of {@code (s + 1) * 0x9E3779B97F4A7C15}, made odd. */
  private static long multiplier(int s) {
    long z = (s + 1) * 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return (z ^ (z >>> 31)) | 1;
  }

  private static long[] words(AgePartitionedBloomFilter f) throws ReflectiveOperationException {
    Field field = AgePartitionedBloomFilter.class.getDeclaredField("words");
    field.setAccessible(true);
    return (long[]) field.get(f);
  }
}
