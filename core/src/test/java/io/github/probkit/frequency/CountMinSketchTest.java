package io.github.probkit.frequency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.Concurrency;
import io.github.probkit.GoldenFiles;
import io.github.probkit.filter.BloomFilter;
import io.github.probkit.hash.HashAlgorithm;
import io.github.probkit.hash.HashStrategy;
import io.github.probkit.hash.KeySink;
import io.github.probkit.io.SketchFormatException;
import io.github.probkit.testing.Binomial;
import io.github.probkit.testing.Bytes;
import io.github.probkit.testing.Corruption;
import io.github.probkit.testing.Keys;
import io.github.probkit.testing.Threads;
import io.github.probkit.testing.Zipf;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.apache.commons.math3.distribution.BinomialDistribution;
import org.junit.jupiter.api.Test;

class CountMinSketchTest {
  // Offsets of the parameters in the container: width, depth, update rule, total; then the payload.
  private static final int WIDTH = Bytes.PARAMS;
  private static final int DEPTH = WIDTH + 4;
  private static final int RULE = DEPTH + 4;
  private static final int TOTAL = RULE + 1;
  private static final int PAYLOAD = TOTAL + 8;

  static byte[] bytes(CountMinSketch s) throws IOException {
    return GoldenFiles.bytes(s::writeTo);
  }

  static CountMinSketch read(byte[] b) throws IOException {
    return CountMinSketch.readFrom(new ByteArrayInputStream(b));
  }

  // ---- sizing

  @Test
  void sizingFollowsTheSeedsFormulas() {
    CountMinSketch s = CountMinSketch.create(0.001, 0.01);
    assertThat(s.width()).isEqualTo(2719);
    assertThat(s.depth()).isEqualTo(5);
    assertThat(s.byteSize()).isEqualTo(8L * 5 * 2719);
    assertThat(s.epsilon()).isLessThanOrEqualTo(0.001);
    assertThat(s.delta()).isLessThanOrEqualTo(0.01);
    assertThat(s.hashStrategy()).isEqualTo(HashStrategy.xxh3());
    // ceil(e / 0.01) = ceil(271.83) and ceil(ln 1000) = ceil(6.91).
    CountMinSketch t = CountMinSketch.create(0.01, 0.001);
    assertThat(t.width()).isEqualTo(272);
    assertThat(t.depth()).isEqualTo(7);
    // Loose requests still give at least one row.
    assertThat(CountMinSketch.depthFor(0.9)).isEqualTo(1);
    assertThat(CountMinSketch.widthFor(0.99, 0.5)).isEqualTo(3);
  }

  /**
   * The limits themselves are accepted and one past them refused; epsilon() and delta() are the
   * guarantee of the dimensions, exactly (not merely at most what was asked).
   */
  @Test
  void dimensionsAtTheirLimits() {
    assertThat(CountMinSketch.withDimensions(1, 1).width()).isEqualTo(1);
    assertThat(CountMinSketch.withDimensions(1, CountMinSketch.MAX_DEPTH).depth()).isEqualTo(64);
    assertThat(CountMinSketch.withDimensions(1, 2, HashStrategy.fnv1a()).depth()).isEqualTo(2);
    // The widest sketch the counter limit allows at depth 1 is sized, not refused (nor allocated).
    double widest = Math.E / CountMinSketch.MAX_COUNTERS * (1 + 1e-12);
    assertThat(CountMinSketch.widthFor(widest, 0.5)).isEqualTo((int) CountMinSketch.MAX_COUNTERS);
    // 10^9 counters a row fit one row but not five.
    assertThatThrownBy(() -> CountMinSketch.widthFor(Math.E / 1e9, 0.01))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("5 rows of 1000000000 counters");
    // Representable, but 16 GB: refused before allocating, naming the heap.
    assertThatThrownBy(() -> CountMinSketch.withDimensions(100_000_000, 20))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("heap");
    CountMinSketch s = CountMinSketch.withDimensions(2719, 5);
    assertThat(s.epsilon()).isEqualTo(Math.E / 2719);
    assertThat(s.delta()).isEqualTo(Math.exp(-5));
    assertThat(s.toString())
        .isEqualTo("CountMinSketch{width=2719, depth=5, update=standard, hash=xxh3(seed=0x0)}");
    assertThat(s)
        .isNotEqualTo("CountMinSketch")
        .isNotEqualTo(CountMinSketch.withDimensions(2719, 4))
        .isEqualTo(CountMinSketch.withDimensions(2719, 5));
    s.add("x");
    assertThat(s).isNotEqualTo(CountMinSketch.withDimensions(2719, 5));
    for (Runnable negative :
        List.<Runnable>of(
            () -> s.add(7L, -1),
            () -> s.add(new byte[1], -1),
            () -> s.add("x", -1),
            () -> s.add(new byte[3], 0, 2, -1),
            () -> s.add(7, (Integer k, KeySink sink) -> sink.putInt(k), -1))) {
      assertThatThrownBy(negative::run)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("count must be non-negative, was -1");
    }
    assertThat(s.totalCount()).isEqualTo(1);
    s.add(new byte[] {1, 2, 3}, 1, 2);
    assertThat(s.estimate(new byte[] {2, 3})).isEqualTo(1);
  }

  @Test
  void badArgumentsAreRefusedWithTheValueAndRange() {
    for (double bad : new double[] {0, 1, 1.5, -0.1, Double.NaN}) {
      assertThatThrownBy(() -> CountMinSketch.create(bad, 0.01))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("epsilon must be in (0, 1), was " + bad);
      assertThatThrownBy(() -> CountMinSketch.create(0.01, bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("delta must be in (0, 1), was " + bad);
    }
    assertThatThrownBy(() -> CountMinSketch.create(1e-12, 0.01))
        .hasMessageContaining("more than the maximum");
    assertThatThrownBy(() -> CountMinSketch.create(0.01, 1e-40))
        .hasMessageContaining("delta must be at least e^-64");
    assertThatThrownBy(() -> CountMinSketch.withDimensions(0, 3))
        .hasMessage("width must be positive, was 0");
    assertThatThrownBy(() -> CountMinSketch.withDimensions(8, 0))
        .hasMessage("depth must be in [1, 64], was 0");
    assertThatThrownBy(() -> CountMinSketch.withDimensions(8, 65))
        .hasMessage("depth must be in [1, 64], was 65");
    assertThatThrownBy(() -> CountMinSketch.withDimensions(Integer.MAX_VALUE, 2))
        .hasMessageContaining("width * depth must be at most");
    assertThatThrownBy(() -> CountMinSketch.withDimensions(8, 3, HashStrategy.fnv1a()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("depth 1 or 2 only")
        .hasMessageContaining("was depth 3");
    assertThatThrownBy(() -> CountMinSketch.create(0.001, 0.01, HashStrategy.fnv1a()))
        .hasMessageContaining("was depth 5");
    CountMinSketch s = CountMinSketch.withDimensions(8, 2);
    assertThatThrownBy(() -> s.add("x", -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("count must be non-negative, was -1");
    assertThatThrownBy(() -> s.counter(2, 0)).hasMessage("row must be in [0, 2), was 2");
    assertThatThrownBy(() -> s.counter(0, 8)).hasMessage("column must be in [0, 8), was 8");
  }

  // ---- seed 000

  @Test
  void reproducesTheSeedWalkthrough() {
    CountMinSketch s = FrequencyGoldenFiles.seedSketch();
    assertThat(row(s, 0)).containsExactly(5, 2, 1, 4, 0, 0, 0, 0);
    assertThat(row(s, 1)).containsExactly(0, 0, 4, 5, 0, 0, 2, 1);
    assertThat(s.estimate("cricket")).isEqualTo(5);
    assertThat(s.estimate("rain")).isEqualTo(4);
    assertThat(s.estimate("train")).isEqualTo(2);
    assertThat(s.estimate("exam")).isEqualTo(1);
    assertThat(s.estimate("gold")).isEqualTo(4);
    assertThat(s.estimate("chess")).isZero();
    assertThat(s.totalCount()).isEqualTo(12);
  }

  /**
   * Seed 000's stream plus one "kiran", worked by hand from the FNV-1a columns (cricket 0|3, rain
   * 3|2, train 1|6, exam 2|7, gold 3|2, kiran 2|5): kiran shares row 0's counter 2 with exam but
   * has row 1's counter 5 to itself, so both have counters 2 and 1 and the estimate must take the
   * smaller. (In the seed's own stream every item's two counters happen to be equal.)
   */
  @Test
  void theEstimateIsTheSmallestCounterWhenTheRowsDisagree() {
    CountMinSketch s = FrequencyGoldenFiles.seedSketch();
    s.add("kiran");
    assertThat(row(s, 0)).containsExactly(5, 2, 2, 4, 0, 0, 0, 0);
    assertThat(row(s, 1)).containsExactly(0, 0, 4, 5, 0, 1, 2, 1);
    assertThat(s.columns("kiran")).containsExactly(2, 5);
    assertThat(s.columns("exam")).containsExactly(2, 7);
    assertThat(s.estimate("kiran")).isEqualTo(1);
    assertThat(s.estimate("exam")).isEqualTo(1);
    assertThat(s.estimate("chess")).as("absent: counters 0 and 0 (columns 7|4)").isZero();
    assertThat(s.totalCount()).isEqualTo(13);
  }

  @Test
  void fnvRowsAreTheSpecificationsPerRowHashes() {
    // Row r uses fnv1a64(term, SEEDS[r]) mod w, computed here independently of the sketch.
    long[] seeds = {0xCBF29CE484222325L, 0x84222325CBF29CE4L};
    CountMinSketch s = CountMinSketch.withDimensions(1000, 2, HashStrategy.fnv1a());
    for (String term : List.of("cricket", "rain", "grüße", "", "a much longer search term")) {
      byte[] b = term.getBytes(StandardCharsets.UTF_8);
      int[] expected = new int[2];
      for (int r = 0; r < 2; r++) {
        long h = seeds[r];
        for (byte x : b) {
          h ^= x & 0xFF;
          h *= 0x100000001B3L;
        }
        expected[r] = (int) Long.remainderUnsigned(h, 1000);
      }
      assertThat(s.columns(term)).as(term).containsExactly(expected);
    }
  }

  @Test
  void staticColumnsAreTheCountersAnAddRaises() {
    for (String item : List.of("cricket", "grüße", "", "item-42")) {
      CountMinSketch s = CountMinSketch.withDimensions(997, 6);
      s.add(item, 5);
      byte[] b = item.getBytes(StandardCharsets.UTF_8);
      int[] columns = new int[6];
      CountMinSketch.columns(HashStrategy.xxh3(), 997, 6, b, 0, b.length, columns);
      for (int r = 0; r < 6; r++) {
        assertThat(s.counter(r, columns[r])).as("%s row %d", item, r).isEqualTo(5);
        assertThat(Arrays.stream(row(s, r)).sum()).isEqualTo(5);
      }
      assertThat(s.columns(item)).containsExactly(columns);
    }
  }

  private static long[] row(CountMinSketch s, int r) {
    long[] out = new long[s.width()];
    for (int c = 0; c < s.width(); c++) {
      out[c] = s.counter(r, c);
    }
    return out;
  }

  // ---- the guarantees

  @Test
  void neverBelowTheTrueCountUnderRandomOperations() {
    SplittableRandom r = new SplittableRandom(0xc0ffee01L);
    for (int round = 0; round < 40; round++) {
      boolean conservative = round % 2 == 1;
      HashStrategy hash = round % 5 == 4 ? HashStrategy.fnv1a() : HashStrategy.xxh3(r.nextLong());
      int width = 1 + r.nextInt(200);
      int depth = hash.algorithm() == HashAlgorithm.FNV1A_64 ? 1 + r.nextInt(2) : 1 + r.nextInt(8);
      CountMinSketch s = make(width, depth, hash, conservative);
      CountMinSketch standard = make(width, depth, hash, false);
      Map<Long, Long> exact = new HashMap<>();
      long total = 0;
      int items = 1 + r.nextInt(2000);
      for (int op = 0; op < 5000; op++) {
        long item = r.nextInt(items);
        long count = r.nextInt(10) == 0 ? r.nextInt(1000) : 1;
        switch (r.nextInt(4)) {
          case 0:
            s.add(item, count);
            standard.add(item, count);
            break;
          case 1:
            s.add("k" + item, count);
            standard.add("k" + item, count);
            item = ~item;
            break;
          default:
            if (count == 1 && r.nextBoolean()) {
              s.add(item);
              standard.add(item);
            } else {
              byte[] b = Keys.littleEndian(item);
              s.add(b, count);
              standard.add(b, count);
            }
        }
        exact.merge(item, count, Long::sum);
        total += count;
      }
      assertThat(s.totalCount()).isEqualTo(total);
      for (Map.Entry<Long, Long> e : exact.entrySet()) {
        long est = e.getKey() < 0 ? s.estimate("k" + ~e.getKey()) : s.estimate(e.getKey());
        long std =
            e.getKey() < 0 ? standard.estimate("k" + ~e.getKey()) : standard.estimate(e.getKey());
        assertThat(est)
            .as("round %d item %d", round, e.getKey())
            .isGreaterThanOrEqualTo(e.getValue());
        // Conservative update never estimates above the standard rule on the same stream.
        assertThat(est).isLessThanOrEqualTo(std);
      }
    }
  }

  private static CountMinSketch make(
      int width, int depth, HashStrategy hash, boolean conservative) {
    CountMinSketch s = CountMinSketch.withDimensions(width, depth, hash);
    return conservative ? s.withConservativeUpdate() : s;
  }

  /**
   * The seeds' claim: the fraction of items whose estimate exceeds the truth by more than epsilon*N
   * stays at or below delta. Measured over every distinct item and over as many absent items, on a
   * Zipfian and a uniform stream, for both update rules; the count must stay within the binomial
   * bound for delta.
   */
  @Test
  void overestimatesBeyondEpsilonNAreNoMoreFrequentThanDelta() {
    double epsilon = 0.005;
    double delta = 0.01;
    int n = 200_000;
    for (double s : new double[] {1.1, 0.0}) {
      for (boolean conservative : new boolean[] {false, true}) {
        int[] stream = new Zipf(20_000, s, 0x21bf0001L).stream(n);
        CountMinSketch cms = CountMinSketch.create(epsilon, delta);
        if (conservative) {
          cms = cms.withConservativeUpdate();
        }
        Map<Integer, Long> exact = new HashMap<>();
        for (int item : stream) {
          cms.add(item);
          exact.merge(item, 1L, Long::sum);
        }
        double bound = epsilon * n;
        int over = 0;
        for (Map.Entry<Integer, Long> e : exact.entrySet()) {
          if (cms.estimate(e.getKey()) - e.getValue() > bound) {
            over++;
          }
        }
        for (int absent = 0; absent < exact.size(); absent++) {
          if (cms.estimate(1_000_000 + absent) > bound) {
            over++;
          }
        }
        int trials = 2 * exact.size();
        assertThat((long) over)
            .as(
                "zipf s=%s conservative=%s: %d of %d items over epsilon*N",
                s, conservative, over, trials)
            .isLessThanOrEqualTo(Binomial.upper(trials, delta, 0.999));
      }
    }
  }

  /**
   * A sharper check that the rows hash independently: for n distinct items added once, an absent
   * item's counter in one row holds Binomial(n, 1/w) others, so with independent rows its estimate
   * exceeds t with probability P(Binomial > t)^d. Rows that shared a hash would give P(...)^1.
   */
  @Test
  void rowsAreIndependent() {
    int w = 272;
    int d = 5;
    int n = 2000;
    int t = 7;
    int sketches = 400;
    int probesPerSketch = 25;
    double pRow = 1 - new BinomialDistribution(null, n, 1.0 / w).cumulativeProbability(t);
    double p = Math.pow(pRow, d);
    SplittableRandom r = new SplittableRandom(0x1d3e0001L);
    int over = 0;
    for (int k = 0; k < sketches; k++) {
      CountMinSketch s = CountMinSketch.withDimensions(w, d, HashStrategy.xxh3(r.nextLong()));
      long base = r.nextLong();
      for (int i = 0; i < n; i++) {
        s.add(base + i);
      }
      for (int i = 0; i < probesPerSketch; i++) {
        if (s.estimate(base - 1 - i) > t) {
          over++;
        }
      }
    }
    int trials = sketches * probesPerSketch;
    long[] interval = Binomial.interval(trials, p, 0.9999);
    assertThat((long) over)
        .as("estimates above %d of %d probes (expected %.1f)", t, trials, p * trials)
        .isBetween(interval[0], interval[1]);
  }

  /**
   * The exceedance of epsilon N, predicted exactly rather than bounded. Each of 10,000 sketches (5
   * rows of 64, hashing seeded apart) counts 20 heavy items 1,000 times each and 500 light items
   * once: N = 20,500 and epsilon N = e/64 N = 871. Light items weigh 500 in all, so an absent
   * item's counter passes epsilon N exactly when a heavy item shares it, with probability q = 1 -
   * (63/64)^20 = 0.270 per row; with independent rows its estimate does so with probability q^5 =
   * 0.14 %. Markov's bound (delta = e^-5 = 0.67 %) only caps that; a sketch reading 4 rows (0.53
   * %), 2 rows (7.3 %) or returning the total (100 %) fails the two-sided interval here.
   */
  @Test
  void exceedanceOfEpsilonNIsTheExactPrediction() {
    int w = 64;
    int d = 5;
    int heavy = 20;
    long heavyCount = 1_000;
    int light = 500;
    int sketches = 10_000;
    long n = heavy * heavyCount + light;
    double epsilonN = Math.E / w * n;
    assertThat(heavyCount).isGreaterThan((long) epsilonN);
    assertThat((long) light).isLessThan((long) epsilonN);
    double q = 1 - Math.pow(1 - 1.0 / w, heavy);
    SplittableRandom r = new SplittableRandom(0x510e527fade682d1L);
    int over = 0;
    for (int k = 0; k < sketches; k++) {
      CountMinSketch s = CountMinSketch.withDimensions(w, d, HashStrategy.xxh3(r.nextLong()));
      for (int i = 0; i < heavy; i++) {
        s.add("heavy-" + i, heavyCount);
      }
      for (int i = 0; i < light; i++) {
        s.add(i);
      }
      over += s.estimate("absent") > epsilonN ? 1 : 0;
    }
    long[] accept = Binomial.interval(sketches, Math.pow(q, d), 0.9999);
    for (int rows : new int[] {d - 1, 2}) {
      assertThat(Math.pow(q, rows) * sketches)
          .as("reading %d rows is outside", rows)
          .isGreaterThan(accept[1]);
    }
    assertThat((long) over)
        .as(
            "sketches whose absent item exceeds epsilon N (predicted %.1f of %d)",
            Math.pow(q, d) * sketches, sketches)
        .isBetween(accept[0], accept[1]);
  }

  /**
   * Row independence seen directly: of N items, the pairs sharing their counter in every one of the
   * d rows number Binomial(N(N-1)/2, w^-d) when rows hash independently. At w = 8, d = 5 and N =
   * 3,000 that is 137 expected; rows derived from one another (double hashing without the mix)
   * share all counters once they share two, about N^2/2 w^-2 = 70,000 pairs.
   */
  @Test
  void pairsSharingEveryCounterAreBinomial() {
    int w = 8;
    int d = 5;
    int items = 3_000;
    CountMinSketch s = CountMinSketch.withDimensions(w, d);
    Map<Integer, Integer> byColumns = new HashMap<>();
    for (int i = 0; i < items; i++) {
      int code = 0;
      for (int c : s.columns("item-" + i)) {
        code = code * w + c;
      }
      byColumns.merge(code, 1, Integer::sum);
    }
    long pairs = 0;
    for (int c : byColumns.values()) {
      pairs += (long) c * (c - 1) / 2;
    }
    long trials = (long) items * (items - 1) / 2;
    double p = Math.pow(w, -d);
    long[] accept = Binomial.interval((int) trials, p, 0.9999);
    assertThat(Math.pow(w, -(d - 1)) * trials)
        .as("one row fewer is outside")
        .isGreaterThan(accept[1]);
    assertThat(pairs)
        .as("pairs sharing all %d counters (expected %.1f)", d, p * trials)
        .isBetween(accept[0], accept[1]);
  }

  @Test
  void conservativeUpdateLowersOverestimatesOnASkewedStream() {
    int[] stream = new Zipf(5_000, 1.0, 0x5a5a0001L).stream(100_000);
    CountMinSketch standard = CountMinSketch.withDimensions(200, 4);
    CountMinSketch conservative = standard.withConservativeUpdate();
    Map<Integer, Long> exact = new HashMap<>();
    for (int item : stream) {
      standard.add(item);
      conservative.add(item);
      exact.merge(item, 1L, Long::sum);
    }
    long errStandard = 0;
    long errConservative = 0;
    for (Map.Entry<Integer, Long> e : exact.entrySet()) {
      errStandard += standard.estimate(e.getKey()) - e.getValue();
      errConservative += conservative.estimate(e.getKey()) - e.getValue();
    }
    assertThat(conservative.totalCount()).isEqualTo(standard.totalCount()).isEqualTo(100_000);
    // Per item it is never worse (a theorem, checked in the property test); on a loaded sketch of a
    // skewed stream it must also do strictly better in total (measured: 55 % of the standard
    // total).
    assertThat(errConservative).isLessThan(errStandard);
  }

  // ---- keys

  @Test
  void stringBytesLongAndEncodedKeysAgree() {
    for (HashStrategy h : List.of(HashStrategy.xxh3(), HashStrategy.fnv1a())) {
      CountMinSketch s = CountMinSketch.withDimensions(1 << 16, 2, h);
      byte[] utf8 = "grüße, 世界".getBytes(StandardCharsets.UTF_8);
      s.add(utf8, 3);
      s.add(0x1234_5678_9abc_def0L, 5);
      assertThat(s.estimate("grüße, 世界")).isEqualTo(3);
      assertThat(s.estimate(utf8, 0, utf8.length)).isEqualTo(3);
      assertThat(s.estimate(Keys.littleEndian(0x1234_5678_9abc_def0L))).isEqualTo(5);
      assertThat(s.estimate(0x1234_5678_9abc_def0L)).isEqualTo(5);
      assertThat(s.estimate(7, (Integer k, KeySink sink) -> sink.putBytes(utf8))).isEqualTo(3);
      s.add(7, (Integer k, KeySink sink) -> sink.putLong(0x1234_5678_9abc_def0L), 2);
      assertThat(s.estimate(0x1234_5678_9abc_def0L)).isEqualTo(7);
    }
  }

  /**
   * A single-writer sketch hashes a String key it adds in a buffer of its own; the sketch must come
   * out byte for byte as the one built from the keys' UTF-8 bytes, whose path does not use that
   * buffer, and no key may read below its count. Keys of every length class (the 8-char boundary,
   * the buffer's 64, beyond), Latin-1 chars (high bit set in the copied byte) and chars above 0xFF
   * whose low byte is ASCII ("\u0141" would pass for "A" if only the copied bytes were tested).
   */
  @Test
  void singleWriterStringAddsCountTheKeysUtf8Bytes() throws IOException {
    List<String> keys = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    Path dict = Path.of("/usr/share/dict/words");
    if (Files.isReadable(dict)) {
      for (String w : Files.readAllLines(dict, StandardCharsets.UTF_8)) {
        if (keys.size() < 40_000 && seen.add(w)) {
          keys.add(w);
        }
      }
    }
    String[] parts = {"user:", "caf\u00e9 ", "\u0141\u00f3d\u017a/", "x", "\ud83d\ude00-"};
    SplittableRandom r = new SplittableRandom(0x6a09e667f3bcc908L);
    for (int i = 0; keys.size() < 60_000; i++) {
      StringBuilder b = new StringBuilder(parts[i % parts.length]).append(i);
      int pad = r.nextInt(90);
      for (int j = 0; j < pad; j++) {
        b.append((char) ('a' + r.nextInt(26)));
      }
      if (seen.add(b.toString())) {
        keys.add(b.toString());
      }
    }
    for (HashStrategy h :
        List.of(
            HashStrategy.xxh3(),
            HashStrategy.xxh3(0x5be0cd19137e2179L),
            HashStrategy.of(HashAlgorithm.XXH64, 0),
            HashStrategy.of(HashAlgorithm.REDIS_MURMUR64A, 0x1234))) {
      for (CountMinSketch.UpdateRule rule : CountMinSketch.UpdateRule.values()) {
        for (int depth : new int[] {5, 3}) {
          CountMinSketch fromStrings =
              CountMinSketch.withDimensions(1 << 16, depth, h, rule, Concurrency.SINGLE_WRITER);
          CountMinSketch fromBytes =
              CountMinSketch.withDimensions(1 << 16, depth, h, rule, Concurrency.SINGLE_WRITER);
          for (int i = 0; i < keys.size(); i++) {
            fromStrings.add(keys.get(i), 1 + i % 3);
            fromBytes.add(keys.get(i).getBytes(StandardCharsets.UTF_8), 1 + i % 3);
          }
          String label = h + " " + rule + " depth " + depth;
          assertThat(Arrays.mismatch(bytes(fromStrings), bytes(fromBytes)))
              .as(label + ": the first byte where the sketches differ")
              .isEqualTo(-1);
          for (int i = 0; i < keys.size(); i++) {
            byte[] utf8 = keys.get(i).getBytes(StandardCharsets.UTF_8);
            if (fromStrings.estimate(utf8, 0, utf8.length) < 1 + i % 3) {
              throw new AssertionError(label + ": below its count: " + keys.get(i));
            }
          }
        }
      }
    }
  }

  // ---- saturation

  @Test
  void countersSaturateInsteadOfWrapping() {
    for (boolean conservative : new boolean[] {false, true}) {
      CountMinSketch s = make(16, 3, HashStrategy.xxh3(), conservative);
      s.add("big", Long.MAX_VALUE - 1);
      s.add("big", 5);
      assertThat(s.estimate("big")).isEqualTo(Long.MAX_VALUE);
      assertThat(s.totalCount()).isEqualTo(Long.MAX_VALUE);
      s.add("small", 1);
      assertThat(s.estimate("small")).isPositive();
      CountMinSketch t = s.copy();
      s.merge(t);
      assertThat(s.estimate("big")).isEqualTo(Long.MAX_VALUE);
      assertThat(s.totalCount()).isEqualTo(Long.MAX_VALUE);
      for (int r = 0; r < 3; r++) {
        assertThat(Arrays.stream(row(s, r)).min().getAsLong()).isNotNegative();
      }
    }
  }

  // ---- merging

  @Test
  void mergeEqualsTheSketchOfTheConcatenatedStream() {
    int[] stream = new Zipf(3_000, 1.0, 0x3e7e0001L).stream(30_000);
    CountMinSketch whole = CountMinSketch.withDimensions(500, 4);
    CountMinSketch a = CountMinSketch.withDimensions(500, 4);
    CountMinSketch b = CountMinSketch.withDimensions(500, 4);
    for (int i = 0; i < stream.length; i++) {
      whole.add(stream[i]);
      (i % 3 == 0 ? a : b).add(stream[i]);
    }
    assertThat(a.merge(b)).isEqualTo(whole);
    assertThat(a.totalCount()).isEqualTo(30_000);
    // Merging with itself is the stream twice over.
    CountMinSketch twice = whole.copy().merge(whole);
    assertThat(twice.totalCount()).isEqualTo(60_000);
    assertThat(twice.estimate(stream[0])).isEqualTo(2 * whole.estimate(stream[0]));
  }

  @Test
  void conservativeMergeStaysAnUpperBound() {
    int[] stream = new Zipf(3_000, 1.0, 0x3e7e0002L).stream(30_000);
    CountMinSketch a = CountMinSketch.withDimensions(300, 3).withConservativeUpdate();
    CountMinSketch b = CountMinSketch.withDimensions(300, 3).withConservativeUpdate();
    Map<Integer, Long> exact = new HashMap<>();
    for (int i = 0; i < stream.length; i++) {
      (i % 2 == 0 ? a : b).add(stream[i]);
      exact.merge(stream[i], 1L, Long::sum);
    }
    a.merge(b);
    assertThat(a.totalCount()).isEqualTo(30_000);
    exact.forEach((item, count) -> assertThat(a.estimate(item)).isGreaterThanOrEqualTo(count));
  }

  @Test
  void mergeRefusesIncompatibleSketchesNamingBothValues() {
    CountMinSketch s = CountMinSketch.withDimensions(100, 3);
    assertThatThrownBy(() -> s.merge(CountMinSketch.withDimensions(101, 3)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("cannot merge count-min sketches of different dimensions: 3 x 100 and 3 x 101");
    assertThatThrownBy(() -> s.merge(CountMinSketch.withDimensions(100, 3, HashStrategy.xxh3(7))))
        .hasMessage(
            "cannot merge count-min sketches with different hashing: xxh3(seed=0x0) and xxh3(seed=0x7)");
    assertThatThrownBy(() -> s.merge(s.withConservativeUpdate()))
        .hasMessage(
            "cannot merge count-min sketches with different update rules: standard and conservative");
    assertThat(s.isCompatible(CountMinSketch.withDimensions(100, 3))).isTrue();
    assertThat(s.isCompatible(CountMinSketch.withDimensions(100, 2))).isFalse();
  }

  // ---- concurrency

  @Test
  void concurrentAddsLoseNoCount() throws Exception {
    int perThread = 100_000;
    long n = (long) Threads.COUNT * perThread;
    for (boolean conservative : new boolean[] {false, true}) {
      CountMinSketch s = make(64, 4, HashStrategy.xxh3(), conservative);
      // Every thread adds items 0..9 in turn, so threads collide on the same counters.
      Threads.run(
          Threads.COUNT,
          t -> {
            for (int i = 0; i < perThread; i++) {
              s.add(i % 10);
            }
          });
      assertThat(s.totalCount()).isEqualTo(n);
      for (int item = 0; item < 10; item++) {
        assertThat(s.estimate(item)).isGreaterThanOrEqualTo(n / 10);
      }
      if (!conservative) {
        // Addition commutes: any interleaving of atomic adds ends in the serial sketch.
        assertThat(s).isEqualTo(serial(n));
      }
    }
  }

  /** The standard 64 x 4 sketch of items 0..9 added in turn, n adds in all. */
  private static CountMinSketch serial(long n) {
    CountMinSketch s = make(64, 4, HashStrategy.xxh3(), false);
    for (long i = 0; i < n; i++) {
      s.add(i % 10);
    }
    return s;
  }

  @Test
  void concurrentMergesAndAddsLoseNoCount() throws Exception {
    int perThread = 50_000;
    long n = (long) Threads.COUNT * perThread;
    for (boolean conservative : new boolean[] {false, true}) {
      CountMinSketch shared = make(64, 4, HashStrategy.xxh3(), conservative);
      // Half the threads add to the shared sketch, half count in a sketch of their own and merge
      // it in every 1,000 items.
      Threads.run(
          Threads.COUNT,
          t -> {
            if (t % 2 == 0) {
              for (int i = 0; i < perThread; i++) {
                shared.add(i % 10);
              }
              return;
            }
            for (int round = 0; round < perThread / 1000; round++) {
              CountMinSketch local = make(64, 4, HashStrategy.xxh3(), conservative);
              for (int i = 0; i < 1000; i++) {
                local.add(i % 10);
              }
              shared.merge(local);
            }
          });
      assertThat(shared.totalCount()).isEqualTo(n);
      for (int item = 0; item < 10; item++) {
        assertThat(shared.estimate(item)).isGreaterThanOrEqualTo(n / 10);
      }
      if (!conservative) {
        assertThat(shared).isEqualTo(serial(n));
      }
    }
  }

  @Test
  void writeToDuringConcurrentAddsWritesAValidSketch() throws Exception {
    for (boolean conservative : new boolean[] {false, true}) {
      CountMinSketch shared = make(64, 4, HashStrategy.xxh3(), conservative);
      long[] lastTotal = {0};
      Threads.run(
          Threads.COUNT,
          t -> {
            if (t > 0) {
              for (int i = 0; i < 20_000; i++) {
                shared.add(i % 10);
              }
              return;
            }
            for (int round = 0; round < 30; round++) {
              ByteArrayOutputStream out = new ByteArrayOutputStream();
              shared.writeTo(out);
              // The reader checks the total against the counters: a torn snapshot would not read.
              CountMinSketch copy =
                  CountMinSketch.readFrom(new ByteArrayInputStream(out.toByteArray()));
              assertThat(copy.totalCount()).isGreaterThanOrEqualTo(lastTotal[0]);
              lastTotal[0] = copy.totalCount();
            }
          });
      assertThat(shared.totalCount()).isEqualTo((Threads.COUNT - 1) * 20_000L);
    }
  }

  // ---- serialization

  @Test
  void roundTripKeepsBytesAndEstimates() throws IOException {
    for (boolean conservative : new boolean[] {false, true}) {
      CountMinSketch s = make(300, 4, HashStrategy.xxh3(0x99L), conservative);
      int[] stream = new Zipf(1_000, 1.0, 0x40170001L).stream(10_000);
      for (int item : stream) {
        s.add(item);
      }
      byte[] b = bytes(s);
      assertThat(b).hasSize(PAYLOAD + 8 * 300 * 4 + 4);
      CountMinSketch t = read(b);
      assertThat(t).isEqualTo(s);
      assertThat(t.isConservative()).isEqualTo(conservative);
      assertThat(t.hashStrategy()).isEqualTo(HashStrategy.xxh3(0x99L));
      assertThat(t.totalCount()).isEqualTo(10_000);
      assertThat(bytes(t)).isEqualTo(b);
      for (int i = 0; i < 1_000; i++) {
        assertThat(t.estimate(i)).isEqualTo(s.estimate(i));
      }
    }
  }

  @Test
  void goldenSeedSketchReads() throws IOException {
    byte[] b = golden("count-min-v1.bin");
    CountMinSketch s = read(b);
    // Facts from seed 000, not from the code that wrote the file.
    assertThat(s.width()).isEqualTo(8);
    assertThat(s.depth()).isEqualTo(2);
    assertThat(s.hashStrategy()).isEqualTo(HashStrategy.fnv1a());
    assertThat(s.isConservative()).isFalse();
    assertThat(s.totalCount()).isEqualTo(12);
    assertThat(row(s, 0)).containsExactly(5, 2, 1, 4, 0, 0, 0, 0);
    assertThat(row(s, 1)).containsExactly(0, 0, 4, 5, 0, 0, 2, 1);
    assertThat(s.estimate("gold")).isEqualTo(4);
    assertThat(bytes(s)).isEqualTo(b);
  }

  @Test
  void goldenXxh3SketchesRead() throws IOException {
    for (boolean conservative : new boolean[] {false, true}) {
      byte[] b = golden(conservative ? "count-min-conservative-v1.bin" : "count-min-xxh3-v1.bin");
      CountMinSketch s = read(b);
      assertThat(s.width()).isEqualTo(64);
      assertThat(s.depth()).isEqualTo(3);
      assertThat(s.hashStrategy()).isEqualTo(HashStrategy.xxh3());
      assertThat(s.isConservative()).isEqualTo(conservative);
      // "item-i" was added i + 1 times: 5050 in all.
      assertThat(s.totalCount()).isEqualTo(5050);
      for (int i = 0; i < 100; i++) {
        assertThat(s.estimate("item-" + i)).isGreaterThanOrEqualTo(i + 1).isLessThanOrEqualTo(5050);
      }
      assertThat(bytes(s)).isEqualTo(b);
    }
  }

  static byte[] golden(String name) throws IOException {
    return GoldenFiles.golden(name);
  }

  @Test
  void truncatedOrFlippedBytesAreRefused() throws IOException {
    CountMinSketch s = CountMinSketch.withDimensions(20, 3);
    for (int i = 0; i < 100; i++) {
      s.add(i);
    }
    Corruption.assertTruncationsAndBitFlipsRefused(bytes(s), 0xf1100001L, CountMinSketchTest::read);
  }

  @Test
  void invalidFieldsAreRefusedEvenWithAValidChecksum() throws IOException {
    byte[] b = bytes(FrequencyGoldenFiles.seedSketch());
    assertRefused(Bytes.putInt(b, WIDTH, 0), "count-min field 'width' is 0, must be positive");
    assertRefused(Bytes.putInt(b, DEPTH, 65), "count-min field 'depth' is 65, must be in [1, 64]");
    assertRefused(
        Bytes.putInt(b, DEPTH, 3),
        "count-min field 'depth' is 3, must be 1 or 2 with the fnv1a hash");
    assertRefused(
        Bytes.putInt(b, WIDTH, 1 << 30),
        "count-min field 'width * depth' is 2147483648, must be at most 2147483639");
    assertRefused(
        Bytes.putByte(b, RULE, 2),
        "count-min field 'update rule' is 2, must be 0 (standard) or 1 (conservative)");
    assertRefused(
        Bytes.putLong(b, TOTAL, -1), "count-min field 'total count' is -1, must be non-negative");
    assertRefused(Bytes.putLong(b, TOTAL, 13), "count-min row 0 sums to 12, the total count is 13");
    assertRefused(
        Bytes.putLong(b, PAYLOAD + 8 * 9, -4),
        "count-min counter 9 is -4, must be in [0, total count 12]");
    // A width the payload does not have: the declared payload length no longer matches.
    assertRefused(
        Bytes.putInt(b, WIDTH, 9),
        "count-min payload length is 128 bytes, its parameters imply 144");
    // Conservative counters cannot exceed the total.
    byte[] c = Bytes.putByte(b, RULE, 1);
    assertThat(read(c).isConservative()).isTrue();
    assertRefused(
        Bytes.putLong(c, PAYLOAD, 13), "count-min counter 0 is 13, must be in [0, total count 12]");
  }

  @Test
  void aFileOfAnotherTypeIsRefused() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    BloomFilter.withBits(64, 2).writeTo(out);
    assertRefused(out.toByteArray(), "expected a count-min structure, found a bloom structure");
    assertRefused(
        Files.readAllBytes(java.nio.file.Path.of("pom.xml")),
        "not a probkit file (bad magic 0x3c3f786d)");
  }

  private static void assertRefused(byte[] b, String message) {
    assertThatThrownBy(() -> read(b)).isInstanceOf(SketchFormatException.class).hasMessage(message);
  }
}
