package io.github.probkit.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.GoldenFiles;
import io.github.probkit.hash.HashStrategy;
import io.github.probkit.io.SketchFormatException;
import io.github.probkit.io.StructureType;
import io.github.probkit.testing.Bytes;
import io.github.probkit.testing.Keys;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class CountingBloomFilterTest {
  private static final String GOLDEN = "counting-v1.bin";

  private static byte[] bytes(MembershipFilter f) throws IOException {
    return GoldenFiles.bytes(f::writeTo);
  }

  @Test
  void sizedAsTheBloomFilterWithFourBitsPerCounter() {
    // m = ceil(-1000 ln 0.01 / (ln 2)^2) = 9586 counters, 16 to a long: 600 longs.
    CountingBloomFilter f = CountingBloomFilter.create(1000, 0.01);
    assertThat(f.counterCount()).isEqualTo(9586);
    assertThat(f.hashCount()).isEqualTo(7);
    assertThat(f.bitSize()).isEqualTo(4 * 9586);
    assertThat(f.byteSize()).isEqualTo(4800);
    assertThat(f.byteSize())
        .as("four times the plain filter")
        .isEqualTo(4 * BloomFilter.create(1000, 0.01).byteSize());
  }

  /**
   * FNV-1a clusters similar keys ("user:0" ... "user:999999" saturated 15,646 counters of a 1 %
   * filter, which no removal clears): a counting filter refuses it when created, and a file written
   * with it before keeps reading, answering as it did (the specification's walkthrough, with
   * counters).
   */
  @Test
  void refusesFnv1aButReadsOldFnv1aFiles() throws IOException {
    assertThatThrownBy(() -> CountingBloomFilter.withCounters(16, 2, HashStrategy.fnv1a()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("a counting Bloom filter cannot use the fnv1a hash");
    assertThatThrownBy(() -> CountingBloomFilter.create(1000, 0.01, HashStrategy.fnv1a()))
        .isInstanceOf(IllegalArgumentException.class);
    // The walkthrough's cells 2, 5, 7, 9, 10, 12 hold 1 ("asha" 10 and 9, "ravi" 5 and 2, "meera" 7
    // and 12).
    long word = 0;
    for (int cell : new int[] {2, 5, 7, 9, 10, 12}) {
      word |= 1L << (4 * cell);
    }
    java.nio.ByteBuffer params = io.github.probkit.io.SketchWriter.params(28);
    params.putLong(16).putInt(2).putLong(0).putDouble(0);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    io.github.probkit.io.SketchWriter w =
        io.github.probkit.io.SketchWriter.begin(
            out, StructureType.COUNTING_BLOOM_FILTER, HashStrategy.fnv1a(), params.array(), 8);
    w.writeLong(word);
    w.finish();
    CountingBloomFilter f =
        CountingBloomFilter.readFrom(new ByteArrayInputStream(out.toByteArray()));
    assertThat(f.hashStrategy()).isEqualTo(HashStrategy.fnv1a());
    assertThat(f.mightContain("kiran"))
        .as("the walkthrough's false positive, bits 10 and 7")
        .isTrue();
    assertThat(f.mightContain("john")).isFalse();
    // asha held bits 10 and 9 alone: removing it clears them, and kiran's false positive goes.
    assertThat(f.remove("asha")).isTrue();
    assertThat(f.counter(10)).isZero();
    assertThat(f.counter(9)).isZero();
    assertThat(f.mightContain("kiran")).isFalse();
    assertThat(f.mightContain("ravi")).isTrue();
    assertThat(f.mightContain("meera")).isTrue();
  }

  @Test
  void answersAsTheBloomFilterOfTheSameShape() {
    for (HashStrategy h : new HashStrategy[] {HashStrategy.xxh3(), HashStrategy.xxh3(0x77L)}) {
      BloomFilter b = BloomFilter.withBits(20_011, 5, h);
      CountingBloomFilter c = CountingBloomFilter.withCounters(20_011, 5, h);
      for (byte[] k : Keys.randomBytes(2_000, 0x5eed2001L)) {
        b.add(k);
        c.add(k);
      }
      for (byte[] k : Keys.randomBytes(20_000, 0x5eed2002L)) {
        assertThat(c.mightContain(k)).as("%s", h).isEqualTo(b.mightContain(k));
      }
    }
  }

  /**
   * Distinct dictionary words and distinct longs added, every second one removed: each key left
   * must still read present, by String (the byte path) and by long, at k = 7 (the default rate) and
   * at other k; and every answer, of the removed keys and of keys never added too, must be that of
   * count(key) != 0, which reads the counters by another path.
   */
  @Test
  void removingHalfTheKeysLeavesEveryOtherKeyPresent() throws IOException {
    List<String> words = new ArrayList<>();
    Set<String> seenWords = new HashSet<>();
    Path dict = Path.of("/usr/share/dict/words");
    if (Files.isReadable(dict)) {
      for (String w : Files.readAllLines(dict, StandardCharsets.UTF_8)) {
        if (seenWords.add(w)) {
          words.add(w);
        }
      }
    }
    for (int i = 0; words.size() < 50_000; i++) {
      if (seenWords.add("w\u00e9rd-" + i)) {
        words.add("w\u00e9rd-" + i);
      }
    }
    SplittableRandom r = new SplittableRandom(0x1f83d9abfb41bd6bL);
    long[] longs = r.longs(60_000).distinct().toArray();
    Set<Long> added = new HashSet<>();
    for (long x : longs) {
      added.add(x);
    }
    long[] absent = r.longs(20_000).filter(x -> !added.contains(x)).toArray();
    int n = words.size() + longs.length;
    for (HashStrategy h : new HashStrategy[] {HashStrategy.xxh3(), HashStrategy.xxh3(0x77L)}) {
      for (CountingBloomFilter f :
          List.of(
              CountingBloomFilter.create(n, 0.01, h),
              CountingBloomFilter.withCounters(6L * n, 3, h),
              CountingBloomFilter.withCounters(20L * n, 11, h))) {
        String label = h + " k=" + f.hashCount();
        for (String w : words) {
          f.add(w);
        }
        for (long x : longs) {
          f.add(x);
        }
        for (int i = 0; i < words.size(); i += 2) {
          assertThat(f.remove(words.get(i))).as(label).isTrue();
        }
        for (int i = 0; i < longs.length; i += 2) {
          assertThat(f.remove(longs[i])).as(label).isTrue();
        }
        for (int i = 0; i < words.size(); i++) {
          String w = words.get(i);
          boolean present = f.mightContain(w);
          if (i % 2 == 1 && !present) {
            throw new AssertionError(label + ": false negative for the word " + w);
          }
          assertThat(present).as("%s: %s", label, w).isEqualTo(f.count(w) != 0);
        }
        for (int i = 0; i < longs.length; i++) {
          boolean present = f.mightContain(longs[i]);
          if (i % 2 == 1 && !present) {
            throw new AssertionError(label + ": false negative for the long " + longs[i]);
          }
          assertThat(present).as("%s: %d", label, longs[i]).isEqualTo(f.count(longs[i]) != 0);
        }
        for (long x : absent) {
          assertThat(f.mightContain(x)).as("%s: %d", label, x).isEqualTo(f.count(x) != 0);
        }
      }
    }
  }

  /** The contract checks the rate at the optimal k; this, where one probe more or less shows. */
  @Test
  void falsePositiveRateAtANonOptimalHashCountIsTheClosedForm() {
    BloomFilterTest.assertRateAtNonOptimalHashCounts(
        CountingBloomFilter::withCounters, HashStrategy.xxh3());
  }

  @Test
  void saturatedCountersStayAndKeepTheKeyPresent() {
    CountingBloomFilter f = CountingBloomFilter.create(1000, 0.01);
    for (int i = 0; i < 14; i++) {
      assertThat(f.add("hot")).isTrue();
    }
    assertThat(f.count("hot")).isEqualTo(14);
    assertThat(f.add("hot")).isTrue();
    assertThat(f.count("hot")).isEqualTo(15);
    assertThat(f.saturatedCounters()).isEqualTo(f.nonZeroCounters()).isBetween(1L, 7L);
    assertThat(f.add("hot")).as("every counter saturated: nothing changes").isFalse();
    // 20 removals: saturated counters are never decremented, so the key can never be removed.
    for (int i = 0; i < 20; i++) {
      assertThat(f.remove("hot")).isTrue();
    }
    assertThat(f.count("hot")).isEqualTo(15);
    assertThat(f.mightContain("hot")).isTrue();
  }

  /**
   * A tiny filter (64 counters, 3 probes) under heavy duplication, so counters saturate and probes
   * collide: no key held by the exact model is ever reported absent, and refused removals of absent
   * keys change nothing.
   */
  @Test
  void noFalseNegativeWhenCountersSaturate() throws IOException {
    SplittableRandom r = new SplittableRandom(0x5eed2003L);
    CountingBloomFilter f = CountingBloomFilter.withCounters(64, 3);
    Map<String, Integer> model = new HashMap<>();
    List<String> live = new ArrayList<>();
    int saturatedSeen = 0;
    int refusedChecked = 0;
    for (int op = 0; op < 20_000; op++) {
      int what = r.nextInt(10);
      if (what < 5 || live.isEmpty()) {
        String k = "k" + r.nextInt(30);
        if (f.add(k) && model.merge(k, 1, Integer::sum) == 1) {
          live.add(k);
        }
      } else if (what < 9) {
        int i = r.nextInt(live.size());
        String k = live.get(i);
        assertThat(f.remove(k)).isTrue();
        if (model.merge(k, -1, Integer::sum) == 0) {
          model.remove(k);
          live.set(i, live.get(live.size() - 1));
          live.remove(live.size() - 1);
        }
      } else {
        String k = "absent" + r.nextInt(1000);
        if (!f.mightContain(k)) {
          byte[] before = bytes(f);
          assertThat(f.remove(k)).isFalse();
          assertThat(bytes(f)).isEqualTo(before);
          refusedChecked++;
        }
      }
      saturatedSeen += f.saturatedCounters() > 0 ? 1 : 0;
      for (String k : live) {
        assertThat(f.mightContain(k)).as("op %d: %s held %d times", op, k, model.get(k)).isTrue();
      }
    }
    assertThat(saturatedSeen).as("the test reached saturation").isGreaterThan(1000);
    assertThat(refusedChecked).isGreaterThan(100);
  }

  @Test
  void mergeAddsCountersAndSaturates() {
    CountingBloomFilter a = CountingBloomFilter.create(2_000, 0.01);
    CountingBloomFilter b = CountingBloomFilter.create(2_000, 0.01);
    List<byte[]> ka = Keys.sequential("a:", 0, 1_000);
    List<byte[]> kb = Keys.sequential("b:", 0, 1_000);
    ka.forEach(a::add);
    kb.forEach(b::add);
    for (int i = 0; i < 10; i++) {
      a.add("both");
      b.add("both");
    }
    assertThat(a.merge(b)).isSameAs(a);
    for (byte[] k : ka) {
      assertThat(a.mightContain(k)).isTrue();
    }
    for (byte[] k : kb) {
      assertThat(a.mightContain(k)).isTrue();
      assertThat(a.remove(k)).isTrue();
    }
    assertThat(a.count("both")).as("10 + 10, capped").isEqualTo(15);
    for (byte[] k : ka) {
      assertThat(a.mightContain(k)).as("a's keys survive removing b's").isTrue();
    }
  }

  @Test
  void mergeRefusesIncompatibleFiltersNamingBothValues() {
    CountingBloomFilter a = CountingBloomFilter.withCounters(1000, 5);
    assertThatThrownBy(() -> a.merge(a))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("itself");
    assertThatThrownBy(() -> a.merge(CountingBloomFilter.withCounters(1001, 5)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("1000")
        .hasMessageContaining("1001");
    assertThatThrownBy(() -> a.merge(CountingBloomFilter.withCounters(1000, 6)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("5 and 6");
    CountingBloomFilter seeded = CountingBloomFilter.withCounters(1000, 5, HashStrategy.xxh3(7));
    assertThatThrownBy(() -> a.merge(seeded))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("xxh3(seed=0x7)");
    assertThat(a.isCompatible(CountingBloomFilter.withCounters(1000, 5))).isTrue();
  }

  @Test
  void badShapesAreRefusedWithTheValue() {
    assertThatThrownBy(() -> CountingBloomFilter.withCounters(0, 3))
        .hasMessageContaining("counters")
        .hasMessageContaining("was 0");
    assertThatThrownBy(
            () -> CountingBloomFilter.withCounters(CountingBloomFilter.MAX_COUNTERS + 1, 3))
        .hasMessageContaining(String.valueOf(CountingBloomFilter.MAX_COUNTERS + 1));
    assertThatThrownBy(() -> CountingBloomFilter.withCounters(100, 0))
        .hasMessageContaining("hashes")
        .hasMessageContaining("was 0");
    assertThatThrownBy(() -> CountingBloomFilter.withCounters(100, 256))
        .hasMessageContaining("was 256");
  }

  @Test
  void corruptFieldsAreNamed() throws IOException {
    byte[] good = bytes(CountingBloomFilter.withCounters(100, 3));
    assertThatThrownBy(
            () -> Filters.readFrom(new ByteArrayInputStream(Bytes.putLong(good, Bytes.PARAMS, 0))))
        .isInstanceOf(SketchFormatException.class)
        .hasMessageContaining("'counters' is 0");
    assertThatThrownBy(
            () ->
                Filters.readFrom(
                    new ByteArrayInputStream(Bytes.putInt(good, Bytes.PARAMS + 8, 300))))
        .isInstanceOf(SketchFormatException.class)
        .hasMessageContaining("'hashes' is 300");
    assertThatThrownBy(
            () ->
                Filters.readFrom(
                    new ByteArrayInputStream(Bytes.putLong(good, Bytes.PARAMS, 1L << 30))))
        .isInstanceOf(SketchFormatException.class)
        .hasMessageContaining("payload length");
    // 100 counters fill 6 words and a quarter: a non-zero nibble past counter 99 is refused.
    int lastWord = good.length - 4 - 8;
    assertThatThrownBy(
            () ->
                Filters.readFrom(new ByteArrayInputStream(Bytes.putLong(good, lastWord, 1L << 40))))
        .isInstanceOf(SketchFormatException.class)
        .hasMessageContaining("beyond");
  }

  // ---- golden file: 100 keys at 1 %, one key added twice, one removed

  @Test
  void readsTheGoldenFile() throws IOException {
    byte[] file = GoldenFiles.golden(GOLDEN);
    MembershipFilter read = Filters.readFrom(new ByteArrayInputStream(file));
    assertThat(read.type()).isEqualTo(StructureType.COUNTING_BLOOM_FILTER);
    CountingBloomFilter f = (CountingBloomFilter) read;
    // Sized by the Bloom formulas: ceil(-100 ln 0.01 / (ln 2)^2) = 959 counters, 7 probes.
    assertThat(f.counterCount()).isEqualTo(959);
    assertThat(f.hashCount()).isEqualTo(7);
    assertThat(f.expectedKeys()).isEqualTo(100);
    assertThat(f.targetFpp()).isEqualTo(0.01);
    assertThat(f.hashStrategy()).isEqualTo(HashStrategy.xxh3());
    // 102 adds and 1 removal of 7 increments each, none near saturation.
    long sum = 0;
    for (long i = 0; i < 959; i++) {
      sum += f.counter(i);
    }
    assertThat(sum).isEqualTo(7 * 101);
    for (byte[] k : Keys.sequential("golden:", 0, 99)) {
      assertThat(f.mightContain(k)).isTrue();
    }
    assertThat(f.count("twice")).isGreaterThanOrEqualTo(2);
    assertThat(bytes(f)).as("written back byte for byte").isEqualTo(file);
  }
}
