package io.github.probkit.frequency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.dynatrace.hash4j.hashing.Hashing;
import io.github.probkit.GoldenFiles;
import io.github.probkit.hash.HashStrategy;
import io.github.probkit.hash.KeyEncoder;
import io.github.probkit.io.SketchFormatException;
import io.github.probkit.io.StructureType;
import io.github.probkit.testing.Bytes;
import io.github.probkit.testing.Corruption;
import io.github.probkit.testing.Zipf;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class HeavyHittersTest {
  // Offsets in the container: capacity, size, total count, item bytes; then the payload.
  private static final int CAPACITY = Bytes.PARAMS;
  private static final int SIZE = CAPACITY + 4;
  private static final int TOTAL = SIZE + 4;
  private static final int ITEM_BYTES = TOTAL + 8;
  private static final int PAYLOAD = ITEM_BYTES + 8;

  static byte[] bytes(HeavyHitters h) throws IOException {
    return GoldenFiles.bytes(h::writeTo);
  }

  static HeavyHitters read(byte[] b) throws IOException {
    return HeavyHitters.readFrom(new ByteArrayInputStream(b));
  }

  private static List<String> items(List<HeavyHitters.Entry> entries) {
    return entries.stream().map(HeavyHitters.Entry::itemAsString).collect(Collectors.toList());
  }

  @Test
  void countsAreExactWhileTheCapacityIsNotReached() {
    HeavyHitters h = HeavyHitters.withCapacity(100);
    for (int i = 1; i <= 50; i++) {
      h.add("item" + i, i);
    }
    assertThat(h.size()).isEqualTo(50);
    assertThat(h.maxError()).isZero();
    assertThat(h.totalCount()).isEqualTo(50 * 51 / 2);
    List<HeavyHitters.Entry> top = h.top(5);
    assertThat(items(top)).containsExactly("item50", "item49", "item48", "item47", "item46");
    assertThat(top).allMatch(e -> e.error() == 0 && e.isCertain());
    assertThat(top.get(0).count()).isEqualTo(50);
    assertThat(h.estimate("item7")).isEqualTo(7);
    assertThat(h.lowerBound("item7")).isEqualTo(7);
    assertThat(h.estimate("never")).isZero();
    assertThat(h.entries()).hasSize(50);
  }

  @Test
  void evictionFollowsSpaceSaving() {
    // Worked by hand: with 3 counters, d replaces c, the smallest (2), and inherits 2 + 1 with
    // error 2.
    HeavyHitters h = FrequencyGoldenFiles.heavyHitters();
    List<HeavyHitters.Entry> all = h.entries();
    assertThat(items(all)).containsExactly("a", "b", "d");
    assertThat(all).extracting(HeavyHitters.Entry::count).containsExactly(5L, 3L, 3L);
    assertThat(all).extracting(HeavyHitters.Entry::error).containsExactly(0L, 0L, 2L);
    assertThat(all).extracting(HeavyHitters.Entry::lowerBound).containsExactly(5L, 3L, 1L);
    assertThat(h.maxError()).isEqualTo(3);
    assertThat(h.totalCount()).isEqualTo(11);
    // c is no longer monitored: it occurred at most maxError() = 3 times.
    assertThat(h.estimate("c")).isEqualTo(3);
    assertThat(h.lowerBound("c")).isZero();
    // Top 2: a (at least 5) beats everything outside (at most 3); b (at least 3) might tie with d.
    List<HeavyHitters.Entry> top = h.top(2);
    assertThat(items(top)).containsExactly("a", "b");
    assertThat(top).extracting(HeavyHitters.Entry::isCertain).containsExactly(true, false);
  }

  @Test
  void boundsHoldAgainstExactCounts() {
    SplittableRandom r = new SplittableRandom(0x5a5e0001L);
    for (int round = 0; round < 60; round++) {
      int capacity = 1 + r.nextInt(300);
      HeavyHitters h = HeavyHitters.withCapacity(capacity);
      Map<String, Long> exact = new HashMap<>();
      double s = r.nextInt(4) * 0.5;
      Zipf zipf = new Zipf(1 + r.nextInt(5000), s, r.nextLong());
      boolean weighted = r.nextBoolean();
      for (int i = 0; i < 20_000; i++) {
        String item = "x" + zipf.next();
        long count = weighted ? r.nextInt(50) : 1;
        h.add(item, count);
        exact.merge(item, count, Long::sum);
      }
      checkAgainstExact(h, exact, 1 + r.nextInt(20), "round " + round);
    }
  }

  /** Every guarantee of the class comment, checked against exact counts. */
  static void checkAgainstExact(HeavyHitters h, Map<String, Long> exact, int k, String what) {
    long n = exact.values().stream().mapToLong(Long::longValue).sum();
    assertThat(h.totalCount()).as(what).isEqualTo(n);
    assertThat(h.maxError() * (double) h.capacity())
        .as(what + ": maxError <= N/m")
        .isLessThanOrEqualTo(n);
    Set<String> monitored = new HashSet<>();
    for (HeavyHitters.Entry e : h.entries()) {
      long truth = exact.getOrDefault(e.itemAsString(), 0L);
      assertThat(truth).as("%s: %s", what, e).isBetween(e.lowerBound(), e.count());
      assertThat(e.error()).isBetween(0L, h.maxError());
      monitored.add(e.itemAsString());
    }
    for (Map.Entry<String, Long> e : exact.entrySet()) {
      if (!monitored.contains(e.getKey())) {
        assertThat(e.getValue())
            .as("%s: unmonitored %s", what, e.getKey())
            .isLessThanOrEqualTo(h.maxError());
        assertThat(h.estimate(e.getKey())).isGreaterThanOrEqualTo(e.getValue());
      } else {
        assertThat(h.estimate(e.getKey())).isGreaterThanOrEqualTo(e.getValue());
        assertThat(h.lowerBound(e.getKey())).isLessThanOrEqualTo(e.getValue());
      }
      if (e.getValue() * (double) h.capacity() > n) {
        assertThat(monitored).as("%s: item above N/m", what).contains(e.getKey());
      }
    }
    // A certain entry of the top k has fewer than k items truly more frequent than it.
    for (HeavyHitters.Entry e : h.top(k)) {
      if (e.isCertain()) {
        long truth = exact.get(e.itemAsString());
        long above = exact.values().stream().filter(v -> v > truth).count();
        assertThat(above).as("%s: certain %s", what, e).isLessThan(k);
        // And no item outside the list is as frequent.
        Set<String> listed = new HashSet<>(items(h.top(k)));
        exact.forEach(
            (item, v) -> {
              if (!listed.contains(item)) {
                assertThat(v).as("%s: %s outside the top %d", what, item, k).isLessThan(truth);
              }
            });
      }
    }
  }

  @Test
  void findsTheTrueTopTenOfAZipfianStream() {
    int[] stream = new Zipf(100_000, 1.0, 0x70910001L).stream(1_000_000);
    HeavyHitters h = HeavyHitters.withCapacity(1000);
    Map<String, Long> exact = new HashMap<>();
    for (int item : stream) {
      String s = "term-" + item;
      h.add(s);
      exact.merge(s, 1L, Long::sum);
    }
    List<String> trueTop =
        exact.entrySet().stream()
            .sorted(Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder()))
            .limit(10)
            .map(Map.Entry::getKey)
            .collect(Collectors.toList());
    List<HeavyHitters.Entry> top = h.top(10);
    assertThat(items(top)).containsExactlyElementsOf(trueTop);
    assertThat(top).allMatch(HeavyHitters.Entry::isCertain);
    checkAgainstExact(h, exact, 10, "zipf");
  }

  @Test
  void mergedSummariesKeepTheGuarantees() {
    SplittableRandom r = new SplittableRandom(0x3e7e1001L);
    for (int round = 0; round < 40; round++) {
      int parts = 2 + r.nextInt(3);
      List<HeavyHitters> summaries = new ArrayList<>();
      int capacity = 1 + r.nextInt(200);
      for (int p = 0; p < parts; p++) {
        // The first is the smallest: the others are merged into it.
        summaries.add(HeavyHitters.withCapacity(p == 0 ? capacity : capacity + r.nextInt(100)));
      }
      Map<String, Long> exact = new HashMap<>();
      Zipf zipf = new Zipf(1 + r.nextInt(3000), r.nextInt(4) * 0.5, r.nextLong());
      for (int i = 0; i < 20_000; i++) {
        String item = "y" + zipf.next();
        long count = 1 + r.nextInt(3);
        summaries.get(r.nextInt(parts)).add(item, count);
        exact.merge(item, count, Long::sum);
      }
      HeavyHitters merged = summaries.get(0);
      for (HeavyHitters other : summaries.subList(1, parts)) {
        merged.merge(other);
      }
      checkAgainstExact(merged, exact, 1 + r.nextInt(10), "merge round " + round);
      // Adding after a merge keeps them too.
      for (int i = 0; i < 5_000; i++) {
        String item = "y" + zipf.next();
        merged.add(item);
        exact.merge(item, 1L, Long::sum);
      }
      checkAgainstExact(merged, exact, 5, "after merge round " + round);
    }
  }

  @Test
  void mergeRefusesASmallerCapacity() {
    assertThatThrownBy(() -> HeavyHitters.withCapacity(100).merge(HeavyHitters.withCapacity(50)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "cannot merge a heavy-hitters summary of capacity 50 into one of capacity 100: "
                + "its counts are only within N/50");
  }

  @Test
  void mergeWithItselfDoublesEveryCount() {
    HeavyHitters h = FrequencyGoldenFiles.heavyHitters();
    h.merge(h);
    assertThat(h.totalCount()).isEqualTo(22);
    assertThat(h.entries()).extracting(HeavyHitters.Entry::count).containsExactly(10L, 6L, 6L);
    assertThat(h.entries()).extracting(HeavyHitters.Entry::error).containsExactly(0L, 0L, 4L);
  }

  @Test
  void countsSaturateInsteadOfWrapping() {
    HeavyHitters h = HeavyHitters.withCapacity(2);
    h.add("a", Long.MAX_VALUE - 1);
    h.add("a", 10);
    h.add("b", 5);
    h.add("c", Long.MAX_VALUE);
    assertThat(h.totalCount()).isEqualTo(Long.MAX_VALUE);
    assertThat(h.estimate("a")).isEqualTo(Long.MAX_VALUE);
    assertThat(h.entries()).allMatch(e -> e.count() > 0 && e.lowerBound() >= 0);
  }

  @Test
  void badArgumentsAreRefused() {
    assertThatThrownBy(() -> HeavyHitters.withCapacity(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("capacity must be in [1, 268435456], was 0");
    assertThatThrownBy(() -> HeavyHitters.create(1.5))
        .hasMessage("epsilon must be in (0, 1), was 1.5");
    assertThat(HeavyHitters.create(0.001).capacity()).isEqualTo(1000);
    HeavyHitters h = HeavyHitters.withCapacity(4);
    assertThatThrownBy(() -> h.add("x", -2)).hasMessage("count must be non-negative, was -2");
    assertThatThrownBy(() -> h.top(0)).hasMessage("k must be positive, was 0");
  }

  @Test
  void longAndEncodedItemsAreTheirBytes() throws IOException {
    HeavyHitters typed = HeavyHitters.withCapacity(10);
    HeavyHitters raw = HeavyHitters.withCapacity(10);
    typed.add(0x0102030405060708L, 3);
    raw.add(new byte[] {8, 7, 6, 5, 4, 3, 2, 1}, 3);
    KeyEncoder<int[]> point = (p, sink) -> sink.putInt(p[0]).putInt(p[1]);
    typed.add(new int[] {1, 2}, point);
    typed.add(new int[] {1, 2}, point, 4);
    raw.add(new byte[] {1, 0, 0, 0, 2, 0, 0, 0}, 5);
    typed.add(-1L);
    raw.add(new byte[] {-1, -1, -1, -1, -1, -1, -1, -1});
    assertThat(typed).isEqualTo(raw);
    assertThat(bytes(typed)).isEqualTo(bytes(raw));
    assertThat(typed.estimate(0x0102030405060708L)).isEqualTo(3);
    assertThat(typed.lowerBound(0x0102030405060708L)).isEqualTo(3);
    assertThat(typed.estimate(new int[] {1, 2}, point)).isEqualTo(5);
    assertThat(typed.lowerBound(new int[] {1, 2}, point)).isEqualTo(5);
    assertThat(typed.estimate(7L)).isZero();
    assertThat(raw.estimate(new byte[] {1, 0, 0, 0, 2, 0, 0, 0})).isEqualTo(5);
  }

  @Test
  void isAFrequencySketch() {
    FrequencySketch h = HeavyHitters.withCapacity(10);
    h.add("a", 3);
    h.addAll(List.of("a", "b"));
    h.addAll(new long[] {5, 5});
    h.add(new byte[] {5, 0, 0, 0, 0, 0, 0, 0});
    assertThat(h.estimate("a")).isEqualTo(4);
    assertThat(h.estimate(5L)).isEqualTo(3);
    assertThat(h.totalCount()).isEqualTo(8);
    assertThat(h.type()).isEqualTo(StructureType.HEAVY_HITTERS);
    assertThat(h.hashStrategy()).isEqualTo(HashStrategy.xxh3());
    FrequencySketch cms = CountMinSketch.withDimensions(8, 2);
    assertThat(h.isCompatible(cms)).isFalse();
    assertThatThrownBy(() -> h.merge(cms))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("cannot merge a count-min sketch into a heavy-hitters sketch");
    assertThat(h.isCompatible(HeavyHitters.withCapacity(10))).isTrue();
    assertThat(h.isCompatible(HeavyHitters.withCapacity(9))).isFalse();
    FrequencySketch copy = h.copy();
    copy.add("a");
    assertThat(h.merge(copy).estimate("a")).isEqualTo(9);
  }

  @Test
  void collectsSequentiallyAndInParallel() {
    List<String> terms = new ArrayList<>();
    Map<String, Long> exact = new HashMap<>();
    for (int item : new Zipf(2000, 1.1, 0xc011ec70L).stream(40_000)) {
      terms.add("c" + item);
      exact.merge("c" + item, 1L, Long::sum);
    }
    HeavyHitters serial = HeavyHitters.withCapacity(100);
    terms.forEach(serial::add);
    assertThat(terms.stream().collect(HeavyHitters.toHeavyHitters(100))).isEqualTo(serial);
    // In parallel the parts are merged: other counts, the same guarantees.
    checkAgainstExact(
        terms.parallelStream().collect(HeavyHitters.toHeavyHitters(100)), exact, 10, "parallel");
    assertThatThrownBy(() -> HeavyHitters.toHeavyHitters(0))
        .hasMessage("capacity must be in [1, 268435456], was 0");
  }

  @Test
  void resultsDoNotDependOnThePlacementKey() throws IOException {
    // Each summary draws its own key; the public XXH3 placement of old gives the same results too.
    List<HeavyHitters> hs =
        List.of(
            HeavyHitters.withCapacity(200),
            HeavyHitters.withCapacity(200),
            HeavyHitters.withPlacement(200, Hashing.xxh3_64()));
    int[] stream = new Zipf(5000, 0.9, 0x5ec2e701L).stream(50_000);
    for (HeavyHitters h : hs) {
      for (int item : stream) {
        h.add("p" + item);
      }
    }
    byte[] b = bytes(hs.get(0));
    for (HeavyHitters h : hs) {
      assertThat(bytes(h)).isEqualTo(b);
      assertThat(h.top(20)).isEqualTo(hs.get(0).top(20));
    }
    // Read back (with a new key) and merged across keys, they stay equal.
    HeavyHitters a = read(b).merge(hs.get(1));
    HeavyHitters c = hs.get(2).merge(hs.get(0));
    assertThat(bytes(a)).isEqualTo(bytes(c));
    for (int item : new Zipf(5000, 0.9, 0x5ec2e702L).stream(20_000)) {
      a.add("p" + item);
      c.add("p" + item);
    }
    assertThat(bytes(a)).isEqualTo(bytes(c));
  }

  @Test
  void memoryGrowsWithTheItemsNotTheCapacity() {
    // A capacity of millions that fits this heap when full (larger ones are refused up front).
    HeavyHitters h = HeavyHitters.withCapacity(1 << 22);
    long empty = h.byteSize();
    assertThat(empty).isLessThan(2_000);
    for (int i = 0; i < 10_000; i++) {
      h.add("k" + i);
    }
    assertThat(h.byteSize()).isBetween(10_000L * 40, 10_000L * 200);
  }

  /** Distinct real words (the system's dictionary when there is one, then numbered ones). */
  private static List<String> words(int n) throws IOException {
    Set<String> distinct = new java.util.LinkedHashSet<>();
    java.nio.file.Path dict = java.nio.file.Path.of("/usr/share/dict/words");
    if (java.nio.file.Files.isReadable(dict)) {
      for (String w : java.nio.file.Files.readAllLines(dict, StandardCharsets.UTF_8)) {
        if (distinct.size() < n) {
          distinct.add(w);
        }
      }
    }
    for (int i = 0; distinct.size() < n; i++) {
      distinct.add("word-" + i);
    }
    return new ArrayList<>(distinct);
  }

  private static HeavyHitters of(int capacity, Object... itemsAndCounts) {
    HeavyHitters h = HeavyHitters.withCapacity(capacity);
    for (int i = 0; i < itemsAndCounts.length; i += 2) {
      h.add((String) itemsAndCounts[i], (Integer) itemsAndCounts[i + 1]);
    }
    return h;
  }

  /**
   * Equality as documented: the same capacity, total and monitored items with the same counts and
   * errors, whatever the order they were added in; a difference in any one of them (each pair below
   * agrees on all the others) makes two summaries unequal.
   */
  @Test
  void equalityIsTheSameItemsCountsAndErrors() throws IOException {
    List<String> words = words(3_000);
    HeavyHitters h = HeavyHitters.withCapacity(500);
    for (int item : new Zipf(words.size(), 1.0, 0xe9a1L).stream(50_000)) {
      h.add(words.get(item));
    }
    assertThat(h.maxError()).as("evictions happened").isPositive();
    for (HeavyHitters same : List.of(h.copy(), read(bytes(h)))) {
      assertThat(same).isEqualTo(h).hasSameHashCodeAs(h);
      assertThat(h).isEqualTo(same);
    }
    assertThat(h.toString()).contains("capacity=500", "size=500", "totalCount=50000");
    assertThat(h).isNotEqualTo(null).isNotEqualTo(h.toString());
    assertThat(h.equals(CountMinSketch.withDimensions(8, 2))).isFalse();

    // The same entries in another order of adds.
    assertThat(of(5, "a", 2, "b", 1)).isEqualTo(of(5, "b", 1, "a", 2));
    // Capacity alone differs.
    assertThat(of(5, "a", 2, "b", 1)).isNotEqualTo(of(6, "a", 2, "b", 1));
    // A zero count adds nothing.
    assertThat(of(5, "a", 2, "b", 1, "c", 0)).isEqualTo(of(5, "a", 2, "b", 1));
    // Size alone differs.
    assertThat(of(2, "a", 3)).isNotEqualTo(of(2, "a", 2, "b", 1));
    // One item differs, the counts alike.
    assertThat(of(5, "a", 2, "b", 1)).isNotEqualTo(of(5, "a", 2, "c", 1));
    // The counts differ, the items and total alike.
    assertThat(of(5, "a", 2, "b", 1)).isNotEqualTo(of(5, "a", 1, "b", 2));
    // Only the error differs: a 2 exactly, against b evicted by a with 1 + 1 (error 1).
    HeavyHitters exact = of(1, "a", 2);
    HeavyHitters evicted = of(1, "b", 1, "a", 1);
    assertThat(evicted.entries().get(0).count()).isEqualTo(2);
    assertThat(evicted.entries().get(0).error()).isEqualTo(1);
    assertThat(exact.totalCount()).isEqualTo(evicted.totalCount());
    assertThat(exact).isNotEqualTo(evicted);
  }

  /**
   * The range of capacities and epsilons, at both ends: capacity 1 is a summary (Space-Saving with
   * one counter), the largest capacity is refused only for the heap it would need, one more (or an
   * epsilon below 1/MAX_CAPACITY) is refused naming the value.
   */
  @Test
  void capacityAndEpsilonAreCheckedAtTheirLimits() {
    HeavyHitters one = HeavyHitters.withCapacity(1);
    one.add("a", 3);
    one.add("b");
    // b replaces a and inherits 3 + 1, with error 3; a occurred at most maxError() = 4 times.
    assertThat(one.entries()).extracting(HeavyHitters.Entry::itemAsString).containsExactly("b");
    assertThat(one.estimate("b")).isEqualTo(4);
    assertThat(one.lowerBound("b")).isEqualTo(1);
    assertThat(one.maxError()).isEqualTo(4);
    assertThat(one.estimate("a")).isEqualTo(4);
    assertThat(HeavyHitters.create(0.25).capacity()).isEqualTo(4);
    assertThat(HeavyHitters.create(0.3).capacity()).isEqualTo(4);

    int max = HeavyHitters.MAX_CAPACITY;
    assertThatThrownBy(() -> HeavyHitters.withCapacity(max + 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("capacity must be in [1, 268435456], was 268435457");
    double tooSmall = Math.nextDown(1.0 / max);
    assertThatThrownBy(() -> HeavyHitters.create(tooSmall))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("epsilon must be at least 1/268435456, was " + tooSmall);
    assertThatThrownBy(() -> HeavyHitters.create(1e-12))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("epsilon must be at least 1/268435456, was 1.0E-12");
    // 2^28 slots of 84 bytes (20 in the item table, 64 in the count buckets) and a table of 2^29
    // ints: 23.0 GiB, refused up front by any smaller heap (the tests run in 1 to 3 GiB).
    org.junit.jupiter.api.Assumptions.assumeTrue(Runtime.getRuntime().maxMemory() < (23L << 30));
    for (org.assertj.core.api.ThrowableAssert.ThrowingCallable largest :
        List.<org.assertj.core.api.ThrowableAssert.ThrowingCallable>of(
            () -> HeavyHitters.withCapacity(max), () -> HeavyHitters.create(1.0 / max))) {
      assertThatThrownBy(largest)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith(
              "a heavy-hitters summary of capacity 268435456 needs 23.0 GiB, more than this"
                  + " JVM's maximum heap");
    }
  }

  // ---- serialization

  @Test
  void roundTripKeepsEverything() throws IOException {
    HeavyHitters h = HeavyHitters.withCapacity(50);
    for (int item : new Zipf(500, 1.0, 0x40171001L).stream(10_000)) {
      h.add("z" + item);
    }
    h.add(new byte[0]);
    h.add("grüße".getBytes(StandardCharsets.UTF_8), 3);
    byte[] b = bytes(h);
    HeavyHitters t = read(b);
    assertThat(t).isEqualTo(h);
    assertThat(t.capacity()).isEqualTo(50);
    assertThat(t.maxError()).isEqualTo(h.maxError());
    assertThat(t.entries()).isEqualTo(h.entries());
    assertThat(bytes(t)).isEqualTo(b);
    // It keeps counting as the original would.
    for (int item : new Zipf(500, 1.0, 0x40171002L).stream(1_000)) {
      h.add("z" + item);
      t.add("z" + item);
    }
    assertThat(t.entries()).isEqualTo(h.entries());
    assertThat(read(bytes(HeavyHitters.withCapacity(7))).size()).isZero();
  }

  @Test
  void goldenFileReads() throws IOException {
    byte[] b = CountMinSketchTest.golden("heavy-hitters-v1.bin");
    HeavyHitters h = read(b);
    // The hand-worked Space-Saving example: capacity 3, a x5, b x3, c x2, d x1.
    assertThat(h.capacity()).isEqualTo(3);
    assertThat(h.totalCount()).isEqualTo(11);
    assertThat(items(h.entries())).containsExactly("a", "b", "d");
    assertThat(h.entries()).extracting(HeavyHitters.Entry::count).containsExactly(5L, 3L, 3L);
    assertThat(h.entries()).extracting(HeavyHitters.Entry::error).containsExactly(0L, 0L, 2L);
    assertThat(bytes(h)).isEqualTo(b);
  }

  @Test
  void truncatedOrFlippedBytesAreRefused() throws IOException {
    HeavyHitters h = HeavyHitters.withCapacity(10);
    for (int item : new Zipf(100, 1.0, 0x40171003L).stream(1_000)) {
      h.add("w" + item);
    }
    Corruption.assertTruncationsAndBitFlipsRefused(bytes(h), 0xf1101001L, HeavyHittersTest::read);
  }

  @Test
  void invalidFieldsAreRefusedEvenWithAValidChecksum() throws IOException {
    // Entries of the golden example, in order: a (5, 0), b (3, 0), d (3, 2); each 20 + 1 bytes.
    byte[] b = bytes(FrequencyGoldenFiles.heavyHitters());
    int a = PAYLOAD;
    int bEntry = a + 21;
    int d = bEntry + 21;
    assertRefused(
        Bytes.putInt(b, CAPACITY, 0),
        "heavy-hitters field 'capacity' is 0, must be in [1, 268435456]");
    assertRefused(
        Bytes.putInt(b, CAPACITY, 2),
        "heavy-hitters field 'size' is 3, must be in [0, capacity 2]");
    assertRefused(
        Bytes.putLong(b, TOTAL, -5),
        "heavy-hitters field 'total count' is -5, must be non-negative");
    assertRefused(
        Bytes.putLong(b, TOTAL, 10),
        "heavy-hitters counts sum to 11, more than the total count 10");
    assertRefused(
        Bytes.putLong(b, a, 2),
        "heavy-hitters entry 1 has count 3, must be non-negative and no larger than the entry before it");
    assertRefused(
        Bytes.putLong(b, d + 8, 4), "heavy-hitters entry 2 has error 4, must be in [0, 3]");
    assertRefused(
        Bytes.putLong(b, a + 8, -1), "heavy-hitters entry 0 has error -1, must be in [0, 3]");
    // With room to spare, every count is exact, so no error is allowed.
    assertRefused(
        Bytes.putInt(b, CAPACITY, 4), "heavy-hitters entry 2 has error 2, must be in [0, 0]");
    // The same item twice ("b" renamed "a").
    assertRefused(Bytes.putByte(b, bEntry + 20, 'a'), "heavy-hitters summary lists an item twice");
    // An item length running past the payload.
    assertThatThrownBy(() -> read(Bytes.putInt(b, d + 16, 1000)))
        .isInstanceOf(SketchFormatException.class)
        .hasMessageContaining("'item' needs 1000 bytes");
    // A huge size and item total with nothing behind them: the payload length must match them, and
    // when it does too, reading fails at the end of the input having allocated only what it read.
    byte[] huge =
        Bytes.putLong(
            Bytes.putInt(Bytes.putInt(b, CAPACITY, 1 << 28), SIZE, 1 << 28), ITEM_BYTES, 1L << 40);
    assertThatThrownBy(() -> read(huge))
        .isInstanceOf(SketchFormatException.class)
        .hasMessageContaining("payload length");
    assertThatThrownBy(() -> read(Bytes.putLong(huge, 20, 20L * (1 << 28) + (1L << 40))))
        .isInstanceOf(SketchFormatException.class)
        .hasMessageContaining("truncated heavy-hitters payload");
  }

  private static void assertRefused(byte[] b, String message) {
    assertThatThrownBy(() -> read(b)).isInstanceOf(SketchFormatException.class).hasMessage(message);
  }
}
