package io.github.probkit.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.Concurrency;
import io.github.probkit.hash.HashStrategy;
import io.github.probkit.io.SketchFormatException;
import io.github.probkit.testing.Binomial;
import io.github.probkit.testing.Bytes;
import io.github.probkit.testing.Corruption;
import io.github.probkit.testing.Threads;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The window filter's promises, measured: no false negative inside the window over streams of many
 * windows (by count, and by time at a varying rate with late events), the rate of never-added keys
 * and of keys older than window + slack within the binomial bound of p, and the slack itself.
 */
class AgePartitionedBloomFilterTest {
  private static final double CONFIDENCE = 0.999;

  /** The layout every filter of this test is made in; a subclass runs the contract on another. */
  AgePartitionedBloomFilter.Layout layout() {
    return AgePartitionedBloomFilter.Layout.SLICED;
  }

  AgePartitionedBloomFilter create(long window, double fpp) {
    return create(window, fpp, HashStrategy.xxh3(), Concurrency.SINGLE_WRITER);
  }

  AgePartitionedBloomFilter create(
      long window, double fpp, HashStrategy hash, Concurrency concurrency) {
    return AgePartitionedBloomFilter.create(window, fpp, hash, concurrency, layout());
  }

  AgePartitionedBloomFilter create(
      Duration window, long expectedKeys, double fpp, HashStrategy hash, Clock clock) {
    return create(window, expectedKeys, fpp, hash, clock, Concurrency.SINGLE_WRITER);
  }

  AgePartitionedBloomFilter create(
      Duration window,
      long expectedKeys,
      double fpp,
      HashStrategy hash,
      Clock clock,
      Concurrency concurrency) {
    return AgePartitionedBloomFilter.create(
        window, expectedKeys, fpp, hash, clock, concurrency, layout());
  }

  private static String key(long i) {
    return "key-" + i;
  }

  private static String absent(long i) {
    return "never-" + i;
  }

  @Test
  void sizingPicksTheSlicesOfLeastMemoryForTheRate() {
    // (k, l) as computed independently (a Python transcription of the chain); the rate is at least
    // the paper's own recurrence, whose linear young fills are lower.
    assertThat(AgePartitionedBloomFilter.optimalSlices(0.01)).containsExactly(11, 44);
    assertThat(AgePartitionedBloomFilter.optimalSlices(0.001)).containsExactly(15, 60);
    for (int[] kl : new int[][] {{11, 44}, {15, 60}, {10, 7}, {5, 5}}) {
      double ours = AgePartitionedBloomFilter.falsePositiveRate(kl[0], kl[1]);
      assertThat(ours).isGreaterThanOrEqualTo(paperRate(kl[0], kl[1]));
    }
    AgePartitionedBloomFilter f = create(10_000, 0.01);
    assertThat(f.window()).isGreaterThanOrEqualTo(10_000);
    assertThat(f.slack()).isEqualTo(11 * f.generationKeys());
  }

  /** The paper's recurrence: a young slice i is (i + 1) / 2k full, an old one half. */
  private static double paperRate(int k, int l) {
    double[] fill = new double[k + l];
    for (int i = 0; i < fill.length; i++) {
      fill[i] = i < k ? (i + 1) / (2.0 * k) : 0.5;
    }
    return AgePartitionedBloomFilter.runProbability(fill, k);
  }

  /**
   * Ten windows of adds drawn from a pool three windows wide (so keys repeat): after every add, the
   * key added exactly a window ago and one at a random age inside the window are present; a
   * never-added key and a key older than window + slack are each queried once per add, and their
   * false positives stay within the binomial bound of p.
   */
  @Test
  void byCountNoFalseNegativeInsideTheWindowAndRateAtMostP() {
    int window = 10_000;
    double p = 0.01;
    AgePartitionedBloomFilter f = create(window, p);
    int w = (int) f.window();
    int forgotten = w + (int) f.slack();
    int steps = 10 * w;
    long[] stream = new long[steps];
    int[] lastAdded = new int[3 * window];
    SplittableRandom rnd = new SplittableRandom(0x5EED_0A9B_F001L);
    int misses = 0;
    int neverFp = 0;
    int oldFp = 0;
    int oldQueries = 0;
    for (int i = 0; i < steps; i++) {
      stream[i] = rnd.nextLong(3L * window);
      lastAdded[(int) stream[i]] = i;
      f.add(key(stream[i]));
      if (i >= w && !f.mightContain(key(stream[i - w]))) {
        misses++;
      }
      if (!f.mightContain(key(stream[i - rnd.nextInt(Math.min(i + 1, w))]))) {
        misses++;
      }
      neverFp += f.mightContain(absent(i)) ? 1 : 0;
      if (i > forgotten) {
        long old = stream[i - forgotten - 1];
        // Only keys that did not come back since: a repeat is inside the window again.
        if (lastAdded[(int) old] == i - forgotten - 1) {
          oldQueries++;
          oldFp += f.mightContain(key(old)) ? 1 : 0;
        }
      }
    }
    assertThat(misses).isZero();
    assertThat((long) neverFp).isLessThanOrEqualTo(Binomial.upper(steps, p, CONFIDENCE));
    assertThat(oldQueries).isGreaterThan(steps / 4);
    assertThat((long) oldFp).isLessThanOrEqualTo(Binomial.upper(oldQueries, p, CONFIDENCE));
  }

  /**
   * Distinct keys through six windows of shifts (the newest slice wraps around the h physical
   * slices many times): at checkpoints 37 adds apart (coprime to the generation, so every position
   * of the newest slice in its generation is met), every key of the window is present, each queried
   * once per checkpoint.
   */
  @Test
  void byCountEveryKeyOfTheWindowIsPresentAtEveryRotation() {
    AgePartitionedBloomFilter f = create(5_000, 0.01);
    int w = (int) f.window();
    int misses = 0;
    for (int i = 0; i < 6 * w; i++) {
      f.add(distinct(i));
      if (i % 37 == 0) {
        for (int j = Math.max(0, i - w + 1); j <= i; j++) {
          misses += f.mightContain(distinct(j)) ? 0 : 1;
        }
      }
    }
    assertThat(misses).isZero();
  }

  /**
   * By time, one distinct key a minute through six windows, queried at the latest event and at up
   * to k generations ahead of it (fewer slices then live): every key whose time is inside the
   * window ending at the query time is present.
   */
  @Test
  void byTimeEveryKeyOfTheWindowIsPresentAtAndAheadOfTheLatestEvent() {
    long minute = 60_000L;
    AgePartitionedBloomFilter f =
        create(Duration.ofHours(4), 240, 0.01, HashStrategy.xxh3(), Clock.systemUTC());
    long t0 = 1_700_000_000_000L;
    long d = f.generationMillis();
    int misses = 0;
    int queries = 0;
    for (int i = 0; i < 6 * 240; i++) {
      long t = t0 + i * minute;
      f.add(distinct(i), t);
      if (i % 7 == 0) {
        for (int ahead = 0; ahead <= f.hashCount(); ahead += 3) {
          long now = t + ahead * d;
          for (int j = 0; j <= i; j++) {
            if (now - (t0 + j * minute) < f.window()) {
              queries++;
              misses += f.mightContain(distinct(j), now) ? 0 : 1;
            }
          }
        }
      }
    }
    assertThat(queries).isGreaterThan(100_000);
    assertThat(misses).isZero();
  }

  /** Keys as a service logs them: distinct, of varying length. */
  private static String distinct(long i) {
    return "user-" + (i * 7919 % 100_003) + "/article-" + i;
  }

  /**
   * The worst moment, the end of a generation after many windows: 200,000 never-added keys, the
   * rate within the binomial bound of p, and expectedFpp (from the fill) agreeing with it.
   */
  @Test
  void rateAtTheEndOfAGenerationIsAtMostP() {
    for (double p : new double[] {0.1, 0.01}) {
      AgePartitionedBloomFilter f = create(20_000, p);
      long n = 5 * f.window() + f.slack();
      n -= n % f.generationKeys();
      for (long i = 0; i < n; i++) {
        f.add(i);
      }
      int queries = 200_000;
      int fp = 0;
      for (int i = 0; i < queries; i++) {
        fp += f.mightContain(absent(i)) ? 1 : 0;
      }
      assertThat((long) fp).as("false positives at p=%s", p).isLessThanOrEqualTo(upper(queries, p));
      assertThat(f.expectedFpp()).isLessThanOrEqualTo(p * 1.05);
    }
  }

  private static long upper(int n, double p) {
    return Binomial.upper(n, p, CONFIDENCE);
  }

  /**
   * The slack, measured: keys exactly one generation past the window are still reported present
   * about half the time (with k - 1 of their k slices left, a run needs one more chance bit, at
   * fill 1/2), so the slack is real; the rate then halves each generation and is within the bound
   * of p once the k generations of the slack are over.
   */
  @Test
  void anExpiredKeyIsForgottenWithinTheSlack() {
    int window = 4_000;
    double p = 0.01;
    AgePartitionedBloomFilter f = create(window, p);
    int g = (int) f.generationKeys();
    int k = f.hashCount();
    int w = (int) f.window();
    int steps = 40 * w;
    double[] rateByGeneration = new double[k + 2];
    int[] queries = new int[k + 2];
    for (int i = 0; i < steps; i++) {
      f.add(key(i)); // distinct keys: each leaves the window once
      if (i < w + (k + 1) * g) {
        continue;
      }
      for (int j = 1; j <= k + 1; j++) {
        // A key with w + j g adds after it: j generations past the window.
        int age = w + j * g;
        rateByGeneration[j] += f.mightContain(key(i - age)) ? 1 : 0;
        queries[j]++;
      }
    }
    StringBuilder curve = new StringBuilder();
    for (int j = 1; j <= k + 1; j++) {
      curve.append(String.format(Locale.ROOT, " %d:%.4f", j, rateByGeneration[j] / queries[j]));
    }
    System.out.println(
        "window filter: rate of expired keys by generations past the window" + curve);
    assertThat(rateByGeneration[1] / queries[1]).isBetween(0.4, 0.65);
    for (int j = 2; j <= k / 2; j++) {
      assertThat(rateByGeneration[j]).isLessThan(rateByGeneration[j - 1]);
    }
    assertThat((long) rateByGeneration[k]).isLessThanOrEqualTo(upper(queries[k], p));
    assertThat((long) rateByGeneration[k + 1]).isLessThanOrEqualTo(upper(queries[k + 1], p));
  }

  /**
   * By time: a week-long window of events at a rate swinging between 20 % and 100 % of the one
   * sized for, with arrival times jittered out of order by up to a tenth of the window. After every
   * event, every key whose event time is inside the window ending at the latest time seen is
   * present (checked on a sample of ages, the oldest included); never-added keys stay within the
   * bound of p.
   */
  @Test
  void byTimeNoFalseNegativeInsideTheWindowWithVaryingRateAndLateEvents() {
    long day = Duration.ofDays(1).toMillis();
    Duration window = Duration.ofDays(7);
    long perWindow = 50_000;
    double p = 0.01;
    AgePartitionedBloomFilter f =
        create(window, perWindow, p, HashStrategy.xxh3(), Clock.systemUTC());
    long t0 = 1_700_000_000_000L;
    long meanGap = window.toMillis() / perWindow;
    SplittableRandom rnd = new SplittableRandom(0x71AE_5EEDL);
    int events = (int) (6 * perWindow);
    long[] times = new long[events];
    long clock = t0;
    long latest = Long.MIN_VALUE;
    int misses = 0;
    int checked = 0;
    int fp = 0;
    int absentQueries = 0;
    int i = 0;
    for (; clock < t0 + 5 * window.toMillis(); i++) {
      double phase = 2 * Math.PI * (clock - t0) / (3.0 * day);
      double rate = 0.6 + 0.4 * Math.sin(phase); // 0.2 to 1.0 of the sized rate
      clock += (long) (meanGap / rate * -Math.log(1 - rnd.nextDouble()));
      times[i] = clock - rnd.nextLong(window.toMillis() / 10);
      f.add(key(i), times[i]);
      latest = Math.max(latest, times[i]);
      for (int s = 0; s < 8; s++) {
        int j = i - rnd.nextInt((int) Math.min(i + 1, perWindow));
        // Inside the window ending at the latest time: latest - t < window.
        if (latest - times[j] < window.toMillis()) {
          checked++;
          misses += f.mightContain(key(j), latest) ? 0 : 1;
        }
      }
      absentQueries++;
      fp += f.mightContain(absent(i), latest) ? 1 : 0;
    }
    assertThat(misses).isZero();
    assertThat(checked).isGreaterThan(100_000);
    assertThat((long) fp).isLessThanOrEqualTo(upper(absentQueries, p));
  }

  /**
   * A burst of three times the rate sized for: the filter forgets nothing inside the window (it
   * shifts by time, never early), and expectedFpp reports the higher rate, which the measured rate
   * of never-added keys matches within the binomial interval.
   */
  @Test
  void aBurstRaisesTheRateButForgetsNothingInsideTheWindow() {
    long hour = 3_600_000L;
    AgePartitionedBloomFilter f =
        create(Duration.ofHours(1), 10_000, 0.01, HashStrategy.xxh3(), Clock.systemUTC());
    long t0 = 100_000 * hour;
    int n = 60_000; // 30,000 an hour for two hours
    for (int i = 0; i < n; i++) {
      f.add(key(i), t0 + i * 120L);
    }
    long now = t0 + (n - 1) * 120L;
    int misses = 0;
    for (int i = 0; i < n; i++) {
      if (now - (t0 + i * 120L) < hour) {
        misses += f.mightContain(key(i), now) ? 0 : 1;
      }
    }
    assertThat(misses).isZero();
    double expected = f.expectedFpp();
    assertThat(expected).isGreaterThan(0.1);
    int queries = 20_000;
    int fp = 0;
    for (int i = 0; i < queries; i++) {
      fp += f.mightContain(absent(i), now) ? 1 : 0;
    }
    long[] interval = Binomial.interval(queries, expected, CONFIDENCE);
    assertThat((long) fp).isBetween(interval[0], interval[1]);
  }

  @Test
  void aLateEventGoesWhereItWouldHaveGoneAndOneOlderThanTheWindowIsIgnored() {
    long hour = 3_600_000L;
    AgePartitionedBloomFilter inOrder =
        create(Duration.ofHours(24), 1_000, 0.01, HashStrategy.xxh3(), Clock.systemUTC());
    AgePartitionedBloomFilter late = inOrder.copy();
    long t0 = 1_000L * hour;
    for (int i = 0; i < 100; i++) {
      inOrder.add(key(i), t0 + i * hour / 10);
    }
    for (int i = 99; i >= 0; i--) { // reverse order: all but the first are late
      late.add(key(i), t0 + i * hour / 10);
    }
    assertThat(late).isEqualTo(inOrder);
    long now = t0 + 100 * hour;
    late.advanceTo(now);
    assertThat(late.add("too-late", now - 25 * hour)).isFalse();
    assertThat(late.mightContain("too-late", now)).isFalse();
    assertThat(late.add("just-in", now - 23 * hour)).isTrue();
    assertThat(late.mightContain("just-in", now)).isTrue();
  }

  @Test
  void aQueryAheadOfTheLatestEventSeesTheWindowThenWithoutChangingAnything() {
    long hour = 3_600_000L;
    AgePartitionedBloomFilter f =
        create(Duration.ofHours(10), 1_000, 0.01, HashStrategy.xxh3(), Clock.systemUTC());
    long t = 500 * hour;
    f.add("a", t);
    AgePartitionedBloomFilter before = f.copy();
    assertThat(f.mightContain("a", t + 10 * hour - 1)).isTrue();
    long forgotten = t + f.window() + f.slack() + f.generationMillis();
    assertThat(f.mightContain("a", forgotten)).isFalse();
    assertThat(f).isEqualTo(before);
  }

  @Test
  void countBasedFilterRefusesEventTimesAndMerge() {
    AgePartitionedBloomFilter f = create(100, 0.01);
    assertThatThrownBy(() -> f.add("a", 1L)).isInstanceOf(IllegalStateException.class);
    assertThat(f.isCompatible(f.copy())).isFalse();
    assertThatThrownBy(() -> f.merge(f.copy()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("count-based windows do not merge");
  }

  /**
   * Two processes each see half of a stream in time (one of them behind by generations); the merge
   * holds every key of either inside the window and is what one filter of the whole stream is.
   */
  @Test
  void timeBasedFiltersMergeAsOneFilterOfBothStreams() {
    long minute = 60_000L;
    AgePartitionedBloomFilter a =
        create(Duration.ofMinutes(60), 5_000, 0.01, HashStrategy.xxh3(), Clock.systemUTC());
    AgePartitionedBloomFilter b = a.copy();
    AgePartitionedBloomFilter whole = a.copy();
    long t0 = 10_000 * minute;
    for (int i = 0; i < 20_000; i++) {
      long t = t0 + i * minute / 100;
      (i % 2 == 0 ? a : b).add(key(i), t);
      whole.add(key(i), t);
    }
    AgePartitionedBloomFilter bBehind = b.copy();
    a.add("late-only-in-a", t0 + 20_000 * minute / 100 + 30 * minute);
    whole.add("late-only-in-a", t0 + 20_000 * minute / 100 + 30 * minute);
    bBehind.merge(a);
    assertThat(bBehind).isEqualTo(whole);
    long now = t0 + 20_000 * minute / 100 + 30 * minute;
    for (int i = 0; i < 20_000; i++) {
      long t = t0 + i * minute / 100;
      if (now - t < 60 * minute) {
        assertThat(bBehind.mightContain(key(i), now)).as("key %d", i).isTrue();
      }
    }
    AgePartitionedBloomFilter other =
        create(Duration.ofMinutes(30), 5_000, 0.01, HashStrategy.xxh3(), Clock.systemUTC());
    assertThatThrownBy(() -> a.merge(other)).hasMessageContaining("different shapes");
  }

  @Test
  void writesAndReadsBackBothKindsThroughTheFiltersReader() throws IOException {
    AgePartitionedBloomFilter byCount = create(1_000, 0.01);
    for (int i = 0; i < 3_500; i++) {
      byCount.add(key(i));
    }
    AgePartitionedBloomFilter byTime =
        create(Duration.ofHours(1), 1_000, 0.01, HashStrategy.xxh3(), Clock.systemUTC());
    AgePartitionedBloomFilter empty = byTime.copy();
    for (int i = 0; i < 3_500; i++) {
      byTime.add(key(i), 1_000_000_000L + i * 3_000L);
    }
    for (AgePartitionedBloomFilter f : new AgePartitionedBloomFilter[] {byCount, byTime, empty}) {
      byte[] bytes = bytes(f);
      MembershipFilter back = Filters.readFrom(new ByteArrayInputStream(bytes));
      assertThat(back).isEqualTo(f);
      assertThat(bytes(back)).isEqualTo(bytes);
    }
    AgePartitionedBloomFilter back =
        AgePartitionedBloomFilter.readFrom(new ByteArrayInputStream(bytes(byCount)));
    for (int i = 3_500 - (int) back.window(); i < 3_500; i++) {
      assertThat(back.mightContain(key(i))).isTrue();
    }
    // The reader goes on adding exactly as the writer would have.
    AgePartitionedBloomFilter continued = byCount.copy();
    for (int i = 3_500; i < 4_000; i++) {
      continued.add(key(i));
      back.add(key(i));
    }
    assertThat(back).isEqualTo(continued);
  }

  @Test
  void corruptParametersAreRefusedByName() throws IOException {
    byte[] b = bytes(create(1_000, 0.01));
    // Parameters start at byte 28: k (u32) first.
    b[28] = 0;
    b[29] = 0;
    assertThatThrownBy(() -> AgePartitionedBloomFilter.readFrom(new ByteArrayInputStream(b)))
        .isInstanceOf(SketchFormatException.class)
        .hasMessageContaining("'k' is 0");
  }

  /**
   * Memory per key in the window at the same p: the paper's (k + l) k / (l ln 2) within the
   * rounding of slices to 64 bits, and below two standard Bloom filters rotated every window (each
   * sized for the window at p/2, as a query asks both).
   */
  @Test
  void memoryPerWindowKeyIsThePapersAndBelowARotatingPair() {
    for (double p : new double[] {0.1, 0.01, 0.001}) {
      long window = 1_000_000;
      AgePartitionedBloomFilter f = create(window, p);
      int k = f.hashCount();
      int l = f.survivingGenerations();
      double ours = (double) f.bitSize() / window;
      double paper = (double) (k + l) * k / (l * Math.log(2));
      double pair = 2.0 * BloomFilter.optimalBits(window, p / 2) / window;
      System.out.printf(
          Locale.ROOT,
          "window filter %s p=%s k=%d l=%d: %.2f bits per window key (paper formula %.2f, rotating"
              + " pair %.2f, one Bloom filter %.2f)%n",
          f.layout(),
          p,
          k,
          l,
          ours,
          paper,
          pair,
          (double) BloomFilter.optimalBits(window, p) / window);
      if (f.layout() == AgePartitionedBloomFilter.Layout.SLICED) {
        assertThat(ours).isBetween(paper, paper * 1.001 + 64.0 * (k + l) / window);
      }
      if (p <= 0.01) { // at 10 % the pair is smaller: 12.5 against 12.7 bits
        assertThat(ours).isLessThan(pair);
      }
    }
  }

  static byte[] bytes(MembershipFilter f) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    f.writeTo(out);
    return out.toByteArray();
  }

  /**
   * The Javadoc's claim: queries alone may run from many threads, each giving the serial answers.
   */
  @Test
  void concurrentQueriesGiveTheSerialAnswers() throws Exception {
    int window = 20_000;
    AgePartitionedBloomFilter f = create(window, 0.01);
    for (long key = 0; key < 3L * window; key++) {
      f.add(key);
    }
    int probes = 50_000;
    boolean[] serial = new boolean[probes];
    for (int i = 0; i < probes; i++) {
      serial[i] = f.mightContain(1_000_000L + i);
    }
    Threads.run(
        Threads.COUNT,
        t -> {
          for (long key = 2L * window; key < 3L * window; key++) {
            if (!f.mightContain(key)) {
              throw new AssertionError(key + " added within the window reads absent");
            }
          }
          for (int i = 0; i < probes; i++) {
            if (f.mightContain(1_000_000L + i) != serial[i]) {
              throw new AssertionError("thread " + t + " answered differently for " + i);
            }
          }
        });
  }

  /**
   * Concurrent adds by count race with the shifts they cause (a window of 2,000 adds shifts every
   * 46): each thread adds its own keys and at once asks for the one just added and for one of its
   * earlier keys that fewer than the window's adds can have followed. Every add first takes a
   * number from a shared counter; an add that starts after key x's returned took a later number
   * than x's, unless its thread took it before and was delayed (one per other thread). So if the
   * counter reads c' after a query that misses x, numbered c, at most c' - c + 7 adds followed x. A
   * single key missing fails. With the adds of the single-writer mode (plain stores, the shift
   * unguarded), keys go missing.
   */
  @Test
  void concurrentAddsByCountLoseNoKeyInsideTheWindow() throws Exception {
    int window = 2_000;
    int perThread = 60_000;
    AgePartitionedBloomFilter f = create(window, 0.01, HashStrategy.xxh3(), Concurrency.CONCURRENT);
    AtomicLong order = new AtomicLong();
    Threads.run(
        Threads.COUNT,
        t -> {
          long[] taken = new long[perThread];
          SplittableRandom rnd = new SplittableRandom(0x5EED_0000L + t);
          for (int i = 0; i < perThread; i++) {
            long key = ((long) t << 40) | i;
            taken[i] = order.incrementAndGet();
            f.add(key);
            int[] asked = {i, i - rnd.nextInt(Math.min(i, window) + 1)};
            for (int j : asked) {
              boolean present = f.mightContain(((long) t << 40) | j);
              // Read after the query: a query answers as of its end (shifts may run during it).
              long now = order.get();
              if (!present && now - taken[j] + Threads.COUNT <= window) {
                throw new AssertionError(
                    "key "
                        + j
                        + " of thread "
                        + t
                        + " absent, "
                        + (now - taken[j])
                        + " adds after");
              }
            }
          }
        });
  }

  /**
   * Concurrent adds by time, with late events (up to half the window) and threads whose clocks
   * disagree by up to a generation, lose no key inside the window: a key of event time a must be
   * present while the latest event time any thread has added (raised before each add) is less than
   * a window after a. A single key missing fails.
   */
  @Test
  void concurrentAddsByTimeLoseNoKeyInsideTheWindow() throws Exception {
    AgePartitionedBloomFilter f =
        create(
            Duration.ofSeconds(60),
            3_000,
            0.01,
            HashStrategy.xxh3(),
            Clock.systemUTC(),
            Concurrency.CONCURRENT);
    long t0 = 1_700_000_000_000L;
    long d = f.generationMillis();
    long window = f.window();
    AtomicLong tick = new AtomicLong();
    AtomicLong latest = new AtomicLong(Long.MIN_VALUE);
    int perThread = 40_000;
    Threads.run(
        Threads.COUNT,
        t -> {
          long[] at = new long[perThread];
          SplittableRandom rnd = new SplittableRandom(0x71DE_0000L + t);
          for (int i = 0; i < perThread; i++) {
            // 50 adds a second in all, the rate the filter is sized for.
            long now = t0 + 20L * tick.incrementAndGet() + rnd.nextLong(d);
            at[i] = now - (rnd.nextInt(10) == 0 ? rnd.nextLong(window / 2) : 0);
            latest.accumulateAndGet(at[i], Math::max);
            f.add(((long) t << 40) | i, at[i]);
            int j = i - rnd.nextInt(Math.min(i, 4_000) + 1);
            boolean present = f.mightContain(((long) t << 40) | j, now);
            if (!present && Math.max(latest.get(), now) - at[j] < window) {
              throw new AssertionError(
                  "key " + j + " of thread " + t + " absent, " + (now - at[j]) + " ms after it");
            }
          }
        });
  }

  /**
   * add answers whether a bit changed: a new key in a nearly empty filter sets bits, the same key
   * again in the same generation sets none; an event older than the window changes nothing. By
   * count and by time, in both modes and both layouts, long, String and byte keys.
   */
  @Test
  void addAnswersWhetherItSetABit() {
    long hour = 3_600_000L;
    long t0 = 500L * hour;
    for (AgePartitionedBloomFilter.Layout layout : AgePartitionedBloomFilter.Layout.values()) {
      for (Concurrency c : Concurrency.values()) {
        AgePartitionedBloomFilter byCount =
            AgePartitionedBloomFilter.create(100_000, 0.01, HashStrategy.xxh3(), c, layout);
        AgePartitionedBloomFilter byTime =
            AgePartitionedBloomFilter.create(
                Duration.ofHours(10),
                100_000,
                0.01,
                HashStrategy.xxh3(),
                Clock.systemUTC(),
                c,
                layout);
        for (int i = 0; i < 300; i++) {
          String what = layout + " " + c + " key " + i;
          byte[] b = ("b-" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8);
          switch (i % 3) {
            case 0 -> {
              assertThat(byCount.add((long) i)).as(what).isTrue();
              assertThat(byCount.add((long) i)).as(what).isFalse();
              assertThat(byTime.add((long) i, t0 + i)).as(what).isTrue();
              assertThat(byTime.add((long) i, t0 + i)).as(what).isFalse();
            }
            case 1 -> {
              assertThat(byCount.add(key(i))).as(what).isTrue();
              assertThat(byCount.add(key(i))).as(what).isFalse();
              assertThat(byTime.add(key(i), t0 + i)).as(what).isTrue();
              assertThat(byTime.add(key(i), t0 + i)).as(what).isFalse();
            }
            default -> {
              assertThat(byCount.add(b, 0, b.length)).as(what).isTrue();
              assertThat(byCount.add(b, 0, b.length)).as(what).isFalse();
              assertThat(byTime.add(b, 0, b.length, t0 + i)).as(what).isTrue();
              assertThat(byTime.add(b, 0, b.length, t0 + i)).as(what).isFalse();
            }
          }
          assertThat(byCount.mightContain(key(i)) || i % 3 != 1).as(what).isTrue();
        }
        // An event older than the window (10 generations of an hour) sets nothing.
        long old = t0 - 11 * hour;
        assertThat(byTime.add(key(1_000_000), old)).isFalse();
        assertThat(byTime.add(2_000_000L, old)).isFalse();
        assertThat(byTime.mightContain(key(1_000_000), t0)).isFalse();
        assertThat(byTime.mightContain(2_000_000L, t0)).isFalse();
        assertThat(byCount.concurrency()).isEqualTo(c);
        assertThat(byCount.layout()).isEqualTo(layout);
      }
    }
  }

  private static AgePartitionedBloomFilter readBytes(byte[] b) throws IOException {
    return AgePartitionedBloomFilter.readFrom(new ByteArrayInputStream(b));
  }

  private static void refused(byte[] b, String field, Object value) {
    assertThatThrownBy(() -> readBytes(b))
        .as("%s = %s", field, value)
        .isInstanceOf(SketchFormatException.class)
        .hasMessageContaining("'" + field + "' is " + value);
  }

  /** A field at its limit passes its own check (the file then fails on what it implies). */
  private static void notRefusedFor(byte[] b, String field) {
    try {
      readBytes(b);
    } catch (IOException e) {
      assertThat(e).as(field).hasMessageNotContaining("'" + field + "'");
    }
  }

  /**
   * Every parameter and payload field of the reader, refused by name just past its limits and
   * passing its own check at them. Parameters from byte 28: k (u32), l (u32), generationKeys,
   * sliceBits, generationMillis, window (u64), fpp (f64); payload from byte 76: generation, adds.
   */
  @Test
  void everyFieldIsCheckedAtItsLimits() throws IOException {
    AgePartitionedBloomFilter f = create(1_000, 0.01);
    for (int i = 0; i < 1_500; i++) {
      f.add(key(i));
    }
    byte[] b = bytes(f);
    int k = 28;
    int l = 32;
    int g = 36;
    int m = 44;
    int d = 52;
    int window = 60;
    int fpp = 68;
    int gen = 76;
    int adds = 84;
    long genKeys = f.generationKeys();
    refused(Bytes.putInt(b, k, 0), "k", 0);
    refused(Bytes.putInt(b, k, AgePartitionedBloomFilter.MAX_K + 1), "k", 65);
    notRefusedFor(Bytes.putInt(b, k, 1), "k");
    notRefusedFor(Bytes.putInt(b, k, AgePartitionedBloomFilter.MAX_K), "k");
    refused(Bytes.putInt(b, l, 0), "l", 0);
    refused(Bytes.putInt(b, l, AgePartitionedBloomFilter.MAX_L + 1), "l", 257);
    notRefusedFor(Bytes.putInt(b, l, 1), "l");
    notRefusedFor(Bytes.putInt(b, l, AgePartitionedBloomFilter.MAX_L), "l");
    refused(Bytes.putLong(b, g, 0), "generationKeys", 0);
    notRefusedFor(Bytes.putLong(b, g, 1), "generationKeys");
    refused(Bytes.putLong(b, m, 0), "sliceBits", 0);
    refused(Bytes.putLong(b, m, 96), "sliceBits", 96);
    refused(Bytes.putLong(b, m, 1L << 40), "sliceBits", 1L << 40);
    notRefusedFor(Bytes.putLong(b, m, 64), "sliceBits");
    int h = f.sliceCount();
    long largest = 64L * ((Integer.MAX_VALUE - 8) / h);
    notRefusedFor(Bytes.putLong(b, m, largest), "sliceBits");
    refused(Bytes.putLong(b, m, largest + 64), "sliceBits", largest + 64);
    refused(Bytes.putLong(b, d, -1), "generationMillis", -1);
    refused(Bytes.putLong(b, window, 0), "window", 0);
    notRefusedFor(Bytes.putLong(b, window, 1), "window");
    assertThat(readBytes(Bytes.putLong(b, window, 1)).requestedWindow()).isEqualTo(1);
    refused(Bytes.putDouble(b, fpp, 0), "fpp", 0.0);
    refused(Bytes.putDouble(b, fpp, 1), "fpp", 1.0);
    refused(Bytes.putLong(b, gen, -1), "generation", -1);
    notRefusedFor(Bytes.putLong(b, gen, 0), "generation");
    refused(Bytes.putLong(b, adds, -1), "adds of slice 0", -1);
    refused(
        Bytes.putLong(b, adds + 8 * (h - 1), genKeys + 1), "adds of slice " + (h - 1), genKeys + 1);
    // A full generation is what a count-based filter holds just before it shifts.
    AgePartitionedBloomFilter full = readBytes(Bytes.putLong(b, adds, genKeys));
    assertThat(bytes(full)).isEqualTo(Bytes.putLong(b, adds, genKeys));
    // A time-based filter's generation may be negative (before its first event, and before 1970).
    AgePartitionedBloomFilter byTime =
        create(Duration.ofHours(1), 1_000, 0.01, HashStrategy.xxh3(), Clock.systemUTC());
    byte[] t = bytes(byTime);
    assertThat(readBytes(t)).isEqualTo(byTime);
    byTime.add("before 1970", -5 * 3_600_000L);
    assertThat(readBytes(bytes(byTime)).mightContain("before 1970", -5 * 3_600_000L)).isTrue();
    // Its adds may exceed generationKeys: a generation by time holds what arrived in it.
    for (int i = 0; i < 3 * byTime.generationKeys(); i++) {
      byTime.add(key(i), -5 * 3_600_000L);
    }
    AgePartitionedBloomFilter crowded = readBytes(bytes(byTime));
    assertThat(crowded).isEqualTo(byTime);
    Corruption.assertTruncationsAndBitFlipsRefused(
        bytes(create(100, 0.1)), 0x6e2b9d04c7a1f358L, AgePartitionedBloomFilterTest::readBytes);
  }

  /**
   * The same operations in both modes leave the same filter: advancing (later, earlier, far ahead),
   * adds at, behind and beyond the window's edge, and merges of a filter behind into one ahead
   * (which keeps only its slices still in the window) and of one ahead into one behind.
   */
  @Test
  void bothModesAgreeOnAdvancingLateEventsAndMerges() {
    long hour = 3_600_000L;
    long t0 = 1_000L * hour;
    AgePartitionedBloomFilter[] f = new AgePartitionedBloomFilter[2];
    for (Concurrency c : Concurrency.values()) {
      AgePartitionedBloomFilter x =
          create(Duration.ofHours(8), 10_000, 0.01, HashStrategy.xxh3(), Clock.systemUTC(), c);
      int l = x.survivingGenerations();
      long gen = x.generationMillis();
      for (int i = 0; i < 3_000; i++) {
        x.add(key(i), t0 + i * (4 * hour) / 3_000);
      }
      long latest = t0 + 4 * hour;
      x.advanceTo(latest);
      x.advanceTo(t0); // earlier: nothing changes
      long newestStart = Math.floorDiv(latest, gen) * gen;
      // Exactly l generations behind the newest is inside the window, one more is not.
      assertThat(x.add("at the edge", newestStart - l * gen)).as("%s", c).isTrue();
      assertThat(x.add("beyond the edge", newestStart - (l + 1) * gen)).as("%s", c).isFalse();
      // Never-added keys are absent but for the rate (1 %): fewer than 120 of 6,000.
      int present = 0;
      for (int i = 0; i < 2_000; i++) {
        present += x.mightContain(absent(i)) ? 1 : 0;
        present += x.mightContain(-1L - i) ? 1 : 0;
        present += x.mightContain(-1L - i, latest) ? 1 : 0;
      }
      assertThat(present).as("%s: never-added keys present", c).isLessThan(120);
      f[c.ordinal()] = x;
    }
    assertThat(f[0]).isEqualTo(f[1]);

    // A query far ahead sees only the slices that would be left: exactly k of them live.
    AgePartitionedBloomFilter one = f[0];
    int k = one.hashCount();
    int l = one.survivingGenerations();
    long gen = one.generationMillis();
    long g = one.generation();
    one.add(7L, g * gen);
    long withKLive = (g + l) * gen; // the newest slice's key is in the k oldest live ones
    assertThat(one.mightContain(7L, withKLive)).isTrue();
    assertThat(one.mightContain(7L, withKLive + gen)).isFalse();
    assertThat(one.generation()).isEqualTo(g);

    // Merges: one behind into one ahead and the reverse, each as a filter of both streams.
    for (Concurrency c : Concurrency.values()) {
      AgePartitionedBloomFilter ahead =
          create(Duration.ofHours(8), 2_000, 0.01, HashStrategy.xxh3(), Clock.systemUTC(), c);
      AgePartitionedBloomFilter behind = ahead.copy();
      AgePartitionedBloomFilter whole = ahead.copy();
      for (int i = 0; i < 4_000; i++) {
        long t = t0 + i * (12 * hour) / 4_000;
        AgePartitionedBloomFilter to = i % 2 == 0 || t > t0 + 5 * hour ? ahead : behind;
        to.add(key(i), t);
        whole.add(key(i), t);
      }
      AgePartitionedBloomFilter forward = behind.copy();
      assertThat(ahead.copy().merge(behind)).isEqualTo(whole);
      AgePartitionedBloomFilter merged = ahead.copy();
      assertThat(merged.merge(behind)).isSameAs(merged);
      assertThat(forward.merge(ahead)).isEqualTo(whole);
      // A filter entirely behind the window adds nothing.
      AgePartitionedBloomFilter old = ahead.copy();
      old.advanceTo(t0 - 100 * hour);
      AgePartitionedBloomFilter stale =
          create(Duration.ofHours(8), 2_000, 0.01, HashStrategy.xxh3(), Clock.systemUTC(), c);
      stale.add("stale", t0 - 50 * hour);
      assertThat(ahead.copy().merge(stale)).isEqualTo(ahead);
      assertThat(
              whole
                  .copy()
                  .merge(
                      create(
                          Duration.ofHours(8),
                          2_000,
                          0.01,
                          HashStrategy.xxh3(),
                          Clock.systemUTC(),
                          c)))
          .isEqualTo(whole);
    }
  }

  /** Bad arguments are refused by name; a count-based filter takes no event time. */
  @Test
  void badArgumentsAndTimesOnACountBasedFilterAreRefused() {
    assertThatThrownBy(() -> create(0, 0.01))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("was 0");
    assertThat(create(1, 0.01).window()).isGreaterThanOrEqualTo(1);
    assertThatThrownBy(
            () -> create(Duration.ZERO, 100, 0.01, HashStrategy.xxh3(), Clock.systemUTC()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("PT0S");
    assertThat(
            create(Duration.ofMillis(1), 1, 0.01, HashStrategy.xxh3(), Clock.systemUTC())
                .timeBased())
        .isTrue();
    assertThatThrownBy(
            () -> create(Duration.ofHours(1), 0, 0.01, HashStrategy.xxh3(), Clock.systemUTC()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("was 0");
    assertThatThrownBy(() -> create(Long.MAX_VALUE / 2, 0.01))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> create(1L << 33, 0.01))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("too many for");
    // About 8 GB of slices: within the array limit, refused by the heap (not an OutOfMemoryError).
    if (Runtime.getRuntime().maxMemory() < (8L << 30)) {
      assertThatThrownBy(() -> create(3L << 30, 0.01))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("maximum heap");
    }
    AgePartitionedBloomFilter byCount = create(1_000, 0.01);
    assertThat(byCount.timeBased()).isFalse();
    assertThatThrownBy(() -> byCount.add("k", 5L)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> byCount.add(5L, 5L)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> byCount.mightContain("k", 5L))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> byCount.advanceTo(5L)).isInstanceOf(IllegalStateException.class);
    AgePartitionedBloomFilter concurrent =
        create(1_000, 0.01, HashStrategy.xxh3(), Concurrency.CONCURRENT);
    assertThatThrownBy(() -> concurrent.advanceTo(5L)).isInstanceOf(IllegalStateException.class);
    AgePartitionedBloomFilter other = create(1_000, 0.01);
    other.add("one more");
    assertThat(byCount).isNotEqualTo(other);
    byCount.add("one more");
    assertThat(byCount).isEqualTo(other);
  }
}
