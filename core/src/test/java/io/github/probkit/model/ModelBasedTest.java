package io.github.probkit.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.github.probkit.cardinality.CardinalitySketch;
import io.github.probkit.cardinality.CardinalitySketches;
import io.github.probkit.cardinality.HyperLogLog;
import io.github.probkit.cardinality.UltraLogLog;
import io.github.probkit.filter.BinaryFuseFilter;
import io.github.probkit.filter.BlockedBloomFilter;
import io.github.probkit.filter.BloomFilter;
import io.github.probkit.filter.CountingBloomFilter;
import io.github.probkit.filter.CuckooFilter;
import io.github.probkit.filter.DeletableFilter;
import io.github.probkit.filter.Filters;
import io.github.probkit.filter.MutableFilter;
import io.github.probkit.filter.ScalableBloomFilter;
import io.github.probkit.frequency.CountMinSketch;
import io.github.probkit.frequency.HeavyHitters;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.BinaryOperator;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Random sequences of add, remove, merge and write-read, checked after every step against an exact
 * model: a multiset of keys for filters, exact counts for frequency sketches. Both sides are
 * checked: nothing in the model is lost (no false negative, no estimate below the truth), and
 * nothing beyond it is reported (a filter answers every key as a filter built from the model's keys
 * alone does, so a removed key is answered as a never-added one; a count-min estimate is at most
 * that of the sketch of the model's counts).
 */
class ModelBasedTest {
  private static final int SEQUENCES = 15;
  private static final int STEPS = 300;
  private static final int POOL = 300;

  /** A filter type under test: how to make one, and how to merge two (null: cannot merge). */
  private static final class FilterType {
    final String name;
    final Supplier<MutableFilter> make;
    final BinaryOperator<MutableFilter> merge;

    FilterType(String name, Supplier<MutableFilter> make, BinaryOperator<MutableFilter> merge) {
      this.name = name;
      this.make = make;
      this.merge = merge;
    }
  }

  private static List<FilterType> filterTypes() {
    // The blocked filter's sizing is a search; do it once rather than for every filter made.
    long blockedBits = BlockedBloomFilter.optimalBits(2 * POOL, 0.01);
    int blockedHashes = BlockedBloomFilter.optimalHashes(blockedBits, 2 * POOL);
    return List.of(
        new FilterType(
            "bloom",
            () -> BloomFilter.create(2 * POOL, 0.01),
            (a, b) -> ((BloomFilter) a).merge((BloomFilter) b)),
        new FilterType(
            "counting",
            () -> CountingBloomFilter.create(2 * POOL, 0.01),
            (a, b) -> ((CountingBloomFilter) a).merge((CountingBloomFilter) b)),
        new FilterType(
            "cuckoo",
            () -> CuckooFilter.create(4 * POOL, 0.01),
            (a, b) -> ((CuckooFilter) a).merge((CuckooFilter) b)),
        new FilterType(
            "blocked",
            () -> BlockedBloomFilter.withBits(blockedBits, blockedHashes),
            (a, b) -> ((BlockedBloomFilter) a).merge((BlockedBloomFilter) b)),
        new FilterType("scalable", () -> ScalableBloomFilter.create(20, 0.01), null));
  }

  private static final byte[][] KEYS = new byte[4 * POOL][];

  static {
    for (int i = 0; i < KEYS.length; i++) {
      KEYS[i] = ("key-" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }
  }

  /** "key-i" as UTF-8; the array is shared, callers must not change it. */
  static byte[] key(int i) {
    return KEYS[i];
  }

  private static <T> T roundTrip(T structure, Serializer<T> w, Reader<T> r) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    w.write(structure, out);
    return r.read(new ByteArrayInputStream(out.toByteArray()));
  }

  /** How a structure writes itself, for a round trip. */
  interface Serializer<T> {
    void write(T t, ByteArrayOutputStream out) throws IOException;
  }

  interface Reader<T> {
    T read(ByteArrayInputStream in) throws IOException;
  }

  @TestFactory
  Stream<DynamicTest> filtersNeverLoseAKeyThatIsStillIn() {
    return filterTypes().stream().map(t -> DynamicTest.dynamicTest(t.name, () -> runFilter(t)));
  }

  private static void runFilter(FilterType type) throws IOException {
    SplittableRandom r = new SplittableRandom(0xfeedbeefcafe1234L ^ type.name.hashCode());
    for (int seq = 0; seq < SEQUENCES; seq++) {
      MutableFilter f = type.make.get();
      // key -> times added minus times removed, in the order first added
      Map<Integer, Integer> model = new LinkedHashMap<>();
      for (int step = 0; step < STEPS; step++) {
        int op = r.nextInt(20);
        int k = r.nextInt(POOL);
        String where = type.name + " sequence " + seq + " step " + step;
        if (op < 11) {
          if (f.add(key(k)) || !(f instanceof CuckooFilter) || f.mightContain(key(k))) {
            model.merge(k, 1, Integer::sum);
          }
        } else if (op < 15 && f instanceof DeletableFilter) {
          // Only keys that are in may be removed: removing others is a documented misuse.
          if (model.getOrDefault(k, 0) > 0) {
            assertThat(((DeletableFilter) f).remove(key(k)))
                .as(where + ": remove of a present key")
                .isTrue();
            model.merge(k, -1, Integer::sum);
          }
        } else if (op < 17 && type.merge != null) {
          MutableFilter other = type.make.get();
          Map<Integer, Integer> added = new HashMap<>();
          for (int i = 0, n = r.nextInt(20); i < n; i++) {
            int j = r.nextInt(POOL);
            other.add(key(j));
            added.merge(j, 1, Integer::sum);
          }
          try {
            f = type.merge.apply(f, other);
            added.forEach((j, c) -> model.merge(j, c, Integer::sum));
          } catch (IllegalStateException full) {
            // A cuckoo merge is all or nothing: it may not fit (at most 8 copies of a key), and
            // then the filter must be as it was, which the checks below verify.
            assertThat(f).isInstanceOf(CuckooFilter.class);
          }
        } else if (op < 19) {
          f = (MutableFilter) roundTrip(f, (x, out) -> x.writeTo(out), Filters::readFrom);
        }
        for (Map.Entry<Integer, Integer> e : model.entrySet()) {
          if (e.getValue() > 0) {
            assertThat(f.mightContain(key(e.getKey())))
                .as(where + ": key %d is in", e.getKey())
                .isTrue();
          }
        }
        if (step % 5 == 4 || step == STEPS - 1) {
          assertAnswersAsTheModelsFilter(type, f, model, where);
        }
      }
    }
  }

  /**
   * The filter built from the model alone (each key added as many times as it is in, in the order
   * first added) answers every key of the pool, and as many never seen, as {@code f} does. A filter
   * whose removals leave traces, or that reports keys it never held, differs. Counting filters are
   * compared only while no counter saturated (a saturated counter keeps removed keys, by design).
   */
  private static void assertAnswersAsTheModelsFilter(
      FilterType type, MutableFilter f, Map<Integer, Integer> model, String where) {
    if (f instanceof CountingBloomFilter && ((CountingBloomFilter) f).saturatedCounters() > 0) {
      return;
    }
    MutableFilter reference = type.make.get();
    model.forEach(
        (k, times) -> {
          for (int i = 0; i < times; i++) {
            // A Bloom-type add may change no bit; a deletable filter must record every add.
            boolean recorded = reference.add(key(k));
            assertThat(recorded || !(reference instanceof DeletableFilter))
                .as(where + ": reference add of key %d", k)
                .isTrue();
          }
        });
    if (f instanceof CountingBloomFilter) {
      // Its counters are a function of the multiset alone: the same filter, counter for counter.
      assertThat(f).as(where).isEqualTo(reference);
    }
    for (int k = 0; k < 2 * POOL; k++) {
      if (f.mightContain(key(k)) != reference.mightContain(key(k))) {
        fail(
            "%s: key %d, %d times in, answered %s, the model's filter %s",
            where,
            k,
            model.getOrDefault(k, 0),
            f.mightContain(key(k)),
            reference.mightContain(key(k)));
      }
    }
  }

  @Test
  void binaryFuseHoldsEveryKeyOfAnySetItWasBuiltFrom() throws IOException {
    SplittableRandom r = new SplittableRandom(0xf00dfacef00dL);
    for (int seq = 0; seq < SEQUENCES * 4; seq++) {
      // Random sets with duplicates, including the empty set and tiny ones.
      int n = seq < 4 ? seq : r.nextInt(3 * POOL);
      List<byte[]> keys = new java.util.ArrayList<>();
      for (int i = 0; i < n; i++) {
        keys.add(key(r.nextInt(2 * POOL)));
      }
      BinaryFuseFilter.FingerprintBits bits =
          seq % 2 == 0
              ? BinaryFuseFilter.FingerprintBits.BITS_8
              : BinaryFuseFilter.FingerprintBits.BITS_16;
      BinaryFuseFilter f = BinaryFuseFilter.create(keys, bits);
      BinaryFuseFilter g = roundTrip(f, (x, out) -> x.writeTo(out), BinaryFuseFilter::readFrom);
      for (byte[] k : keys) {
        assertThat(f.mightContain(k)).isTrue();
        assertThat(g.mightContain(k)).isTrue();
      }
    }
  }

  @Test
  void countMinNeverUnderestimatesAndCountsExactly() throws IOException {
    SplittableRandom r = new SplittableRandom(0x0c0ffee0ddba11L);
    for (int seq = 0; seq < SEQUENCES; seq++) {
      boolean conservative = seq % 2 == 1;
      Supplier<CountMinSketch> make =
          () ->
              conservative
                  ? CountMinSketch.withDimensions(23, 3).withConservativeUpdate()
                  : CountMinSketch.withDimensions(23, 3);
      CountMinSketch s = make.get();
      Map<Integer, Long> exact = new HashMap<>();
      long total = 0;
      for (int step = 0; step < STEPS; step++) {
        int op = r.nextInt(10);
        if (op < 7) {
          int k = r.nextInt(POOL);
          long c = 1 + r.nextInt(5);
          s.add(key(k), c);
          exact.merge(k, c, Long::sum);
          total += c;
        } else if (op < 8) {
          CountMinSketch other = make.get();
          for (int i = 0, n = r.nextInt(30); i < n; i++) {
            int k = r.nextInt(POOL);
            other.add(key(k));
            exact.merge(k, 1L, Long::sum);
            total++;
          }
          s.merge(other);
        } else {
          s = roundTrip(s, (x, out) -> x.writeTo(out), CountMinSketch::readFrom);
        }
        assertThat(s.totalCount()).isEqualTo(total);
        // The standard sketch of the model's counts: what s must be (standard rule) or bound
        // (conservative update never estimates above it). Its estimates are read from its counters
        // here, not from estimate(), which is what is under test.
        CountMinSketch reference = CountMinSketch.withDimensions(23, 3);
        exact.forEach((k, c) -> reference.add(key(k), c));
        for (int k = 0; k < 2 * POOL; k++) {
          long truth = exact.getOrDefault(k, 0L);
          long estimate = s.estimate(key(k));
          long bound = Long.MAX_VALUE;
          int[] columns = reference.columns("key-" + k);
          for (int row = 0; row < columns.length; row++) {
            bound = Math.min(bound, reference.counter(row, columns[row]));
          }
          if (estimate < truth || estimate > bound || (!conservative && estimate != bound)) {
            fail(
                "seq %d step %d key %d: estimate %d, true count %d, the model's sketch %d",
                seq, step, k, estimate, truth, bound);
          }
        }
        if (!conservative) {
          assertThat(s).isEqualTo(reference);
        }
      }
    }
  }

  @Test
  void heavyHitterBoundsAlwaysBracketTheTruth() throws IOException {
    SplittableRandom r = new SplittableRandom(0x5ace5ace5ace5aceL);
    for (int seq = 0; seq < SEQUENCES; seq++) {
      int capacity = 5 + r.nextInt(30);
      HeavyHitters h = HeavyHitters.withCapacity(capacity);
      Map<Integer, Long> exact = new HashMap<>();
      long total = 0;
      for (int step = 0; step < STEPS; step++) {
        int op = r.nextInt(10);
        if (op < 7) {
          // Skewed: low keys far more often, so there are heavy hitters to find.
          int k = (int) Math.min(POOL - 1, Math.abs(r.nextGaussian()) * 15);
          h.add(key(k));
          exact.merge(k, 1L, Long::sum);
          total++;
        } else if (op < 8) {
          HeavyHitters other = HeavyHitters.withCapacity(capacity);
          for (int i = 0, n = r.nextInt(40); i < n; i++) {
            int k = r.nextInt(60);
            other.add(key(k));
            exact.merge(k, 1L, Long::sum);
            total++;
          }
          h.merge(other);
        } else {
          h = roundTrip(h, (x, out) -> x.writeTo(out), HeavyHitters::readFrom);
        }
        assertThat(h.totalCount()).isEqualTo(total);
        assertThat(h.maxError()).isLessThanOrEqualTo(total / capacity);
        Map<String, HeavyHitters.Entry> listed = new HashMap<>();
        for (HeavyHitters.Entry e : h.entries()) {
          listed.put(e.itemAsString(), e);
          long truth = exact.getOrDefault(Integer.parseInt(e.itemAsString().substring(4)), 0L);
          assertThat(truth)
              .as("seq %d step %d %s", seq, step, e)
              .isBetween(e.lowerBound(), e.count());
        }
        for (Map.Entry<Integer, Long> e : exact.entrySet()) {
          if (e.getValue() > total / capacity) {
            assertThat(listed).as("item over N/capacity is kept").containsKey("key-" + e.getKey());
          }
          long est = h.estimate(key(e.getKey()));
          // Never below the truth, and above it by at most the largest error; exact while every
          // item seen is still monitored.
          assertThat(est)
              .as("seq %d step %d key %d", seq, step, e.getKey())
              .isBetween(e.getValue(), e.getValue() + h.maxError());
          if (exact.size() <= capacity) {
            assertThat(est).isEqualTo(e.getValue());
          }
        }
        assertThat(h.estimate(key(POOL + 1))).as("never added").isEqualTo(h.maxError());
      }
    }
  }

  /**
   * Random adds, merges (of sketches at the same or a higher precision, which fold down) and
   * write-reads: after every step the sketch has exactly the registers of the sketch built directly
   * from the set of keys it saw, so a merge is the sketch of the union.
   */
  @Test
  void cardinalitySketchesAreTheSketchOfTheKeysTheySaw() throws IOException {
    SplittableRandom r = new SplittableRandom(0x4111ca4d1ae1L);
    for (int seq = 0; seq < SEQUENCES; seq++) {
      boolean ultra = seq % 2 == 1;
      int p = 6 + r.nextInt(5);
      IntFunction<CardinalitySketch> make =
          q -> ultra ? UltraLogLog.create(q) : HyperLogLog.create(q);
      CardinalitySketch s = make.apply(p);
      // The model: the keys seen, and the sketch built from them alone, key by key.
      Set<Integer> model = new HashSet<>();
      CardinalitySketch direct = make.apply(p);
      for (int step = 0; step < STEPS; step++) {
        int op = r.nextInt(10);
        if (op < 6) {
          int k = r.nextInt(4 * POOL);
          s.add(key(k));
          model.add(k);
          direct.add(key(k));
        } else if (op < 8) {
          CardinalitySketch other = make.apply(p + r.nextInt(3));
          for (int i = 0, n = r.nextInt(60); i < n; i++) {
            int k = r.nextInt(4 * POOL);
            other.add(key(k));
            model.add(k);
            direct.add(key(k));
          }
          s =
              ultra
                  ? ((UltraLogLog) s).merge((UltraLogLog) other)
                  : ((HyperLogLog) s).merge((HyperLogLog) other);
        } else {
          s = roundTrip(s, (x, out) -> x.writeTo(out), CardinalitySketches::readFrom);
        }
        assertThat(s)
            .as("%s seq %d step %d, %d keys", s, seq, step, model.size())
            .isEqualTo(direct);
      }
    }
  }
}
