package io.github.probkit.filter;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.Concurrency;
import io.github.probkit.GoldenFiles;
import io.github.probkit.hash.HashStrategy;
import io.github.probkit.testing.Threads;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Supplier;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What the deletable filters keep (the cuckoo filter's size, the counts it answers) against what a
 * reader or an exact model computes, and what an add reports against what it did.
 */
class FilterKeptStateTest {

  private static byte[] bytes(MembershipFilter f) throws IOException {
    return GoldenFiles.bytes(f::writeTo);
  }

  /**
   * A key alone in a cuckoo filter is counted exactly, as many times as it was added and not
   * removed, up to {@code maxCopies}; in a filter of one bucket, and in filters of a few buckets
   * where a quarter or more of the keys have their alternate bucket equal to their home bucket
   * ({@code maxCopies} 4), as in filters of many.
   */
  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3, 5, 8, 1000})
  void aCuckooKeyAloneIsCountedExactly(long buckets) {
    int oneBucket = 0;
    for (long i = 0; i < 400; i++) {
      byte[] key = ("k" + i).getBytes(StandardCharsets.UTF_8);
      CuckooFilter f = CuckooFilter.withBuckets(buckets, 16);
      int max = f.maxCopies(key, 0, key.length);
      oneBucket += max == 4 ? 1 : 0;
      assertThat(f.count(key)).isZero();
      for (int j = 1; j <= max; j++) {
        assertThat(f.add(key)).as("key %d, add %d of %d", i, j, max).isTrue();
        assertThat(f.count(key)).as("key %d after %d adds", i, j).isEqualTo(j);
        assertThat(f.size()).isEqualTo(j);
      }
      assertThat(f.add(key)).as("key %d, one add more than %d", i, max).isFalse();
      assertThat(f.count(key)).isEqualTo(max);
      for (int j = max - 1; j >= 0; j--) {
        assertThat(f.remove(key)).isTrue();
        assertThat(f.count(key)).as("key %d after removes down to %d", i, j).isEqualTo(j);
        assertThat(f.size()).isEqualTo(j);
      }
      assertThat(f.remove(key)).isFalse();
    }
    if (buckets <= 2) {
      assertThat(oneBucket).as("keys whose two buckets are one").isGreaterThan(100);
    }
  }

  enum Deletable {
    CUCKOO(() -> CuckooFilter.withBuckets(64, 12)),
    CUCKOO_SEEDED(() -> CuckooFilter.withBuckets(61, 9, HashStrategy.xxh3(7))),
    COUNTING(() -> CountingBloomFilter.withCounters(2_000, 3)),
    COUNTING_SEEDED(() -> CountingBloomFilter.withCounters(1_500, 4, HashStrategy.xxh3(7)));

    final Supplier<DeletableFilter> create;

    Deletable(Supplier<DeletableFilter> create) {
      this.create = create;
    }
  }

  private static DeletableFilter read(DeletableFilter f) throws IOException {
    return (DeletableFilter) Filters.readFrom(new ByteArrayInputStream(bytes(f)));
  }

  /**
   * Seeded random adds, removes of added keys, merges (from an empty filter too), copies and
   * write-reads on a small filter: a cuckoo filter's kept size is the number of keys in, and the
   * reader's count of its slots; every key is counted at least as often as it is in, and the filter
   * read from the bytes answers every count, query and summary alike.
   */
  @ParameterizedTest
  @EnumSource(Deletable.class)
  void keptCountsAreTheRecountedOnes(Deletable kind) throws IOException {
    for (long seed = 0; seed < 40; seed++) {
      SplittableRandom r = new SplittableRandom(0xc0c0L * 977 + seed);
      DeletableFilter f = kind.create.get();
      Map<Long, Integer> in = new HashMap<>();
      List<String> steps = new ArrayList<>();
      for (int step = 0; step < 300; step++) {
        int op = r.nextInt(20);
        if (op < 10) {
          long key = r.nextInt(150);
          if (f.add(key)) {
            in.merge(key, 1, Integer::sum);
          }
          steps.add("add " + key);
        } else if (op < 15 && !in.isEmpty()) {
          List<Long> keys = new ArrayList<>(in.keySet());
          long key = keys.get(r.nextInt(keys.size()));
          assertThat(f.remove(key)).as("%s: remove %d", steps, key).isTrue();
          in.merge(key, -1, Integer::sum);
          in.remove(key, 0);
          steps.add("remove " + key);
        } else if (op < 17) {
          DeletableFilter other = kind.create.get();
          int n = r.nextInt(8);
          List<Long> added = new ArrayList<>();
          for (int j = 0; j < n; j++) {
            long key = r.nextInt(150);
            if (other.add(key)) {
              added.add(key);
            }
          }
          try {
            ((MergeableFilter) f).merge(other);
            for (long key : added) {
              in.merge(key, 1, Integer::sum);
            }
          } catch (IllegalStateException full) {
            // A cuckoo filter refuses a merge that does not fit, and is left unchanged.
            assertThat(f).isInstanceOf(CuckooFilter.class);
          }
          steps.add("merge " + n);
        } else if (op < 18) {
          ((MergeableFilter) f).merge(kind.create.get());
          DeletableFilter empty = kind.create.get();
          ((MergeableFilter) empty).merge(f);
          f = empty;
          steps.add("merge into and from empty");
        } else if (op < 19) {
          f = f.copy();
          steps.add("copy");
        } else {
          f = read(f);
          steps.add("read");
        }
        String where = "seed " + seed + ", " + steps;
        DeletableFilter back = read(f);
        for (long key = 0; key < 150; key++) {
          int c = f.count(key);
          assertThat(c)
              .as("%s: count of %d", where, key)
              .isGreaterThanOrEqualTo(in.getOrDefault(key, 0));
          assertThat(back.count(key)).as("%s: count of %d read back", where, key).isEqualTo(c);
          assertThat(back.mightContain(key)).isEqualTo(f.mightContain(key));
        }
        if (f instanceof CuckooFilter) {
          assertThat(((CuckooFilter) f).size()).as(where).isEqualTo(((CuckooFilter) back).size());
          long sum = in.values().stream().mapToLong(Integer::longValue).sum();
          assertThat(((CuckooFilter) f).size()).as(where).isEqualTo(sum);
        }
        assertThat(f.approximateCount()).as(where).isEqualTo(back.approximateCount());
        assertThat(f.expectedFpp()).as(where).isEqualTo(back.expectedFpp());
        assertThat(bytes(back)).as(where).isEqualTo(bytes(f));
      }
    }
  }

  /**
   * An add reports a change only when it made one. With one probe an add sets at most one bit, so
   * the adds reported new are exactly the bits set. Two threads add the same keys in the same
   * order, released together by a spin (both on a processor, so that they run in step), and race
   * for the same bits: an add that reports "new" from its first, unlocked read of a bit the other
   * thread sets meanwhile breaks the equality. Many short rounds: each fits in a time slice, which
   * a loaded machine does not give a long one.
   */
  @Tag("race")
  @ParameterizedTest
  @ValueSource(strings = {"bloom", "bloom-fnv", "blocked"})
  void concurrentAddsReportNewOnlyForWhatTheySet(String kind) throws Exception {
    int rounds = 400;
    int keys = 2_000;
    MutableFilter[] filters = new MutableFilter[rounds];
    for (int i = 0; i < rounds; i++) {
      filters[i] =
          kind.equals("bloom")
              ? BloomFilter.withBits(1 << 15, 1, HashStrategy.xxh3(), Concurrency.CONCURRENT)
              : kind.equals("bloom-fnv")
                  ? BloomFilter.withBits(1 << 15, 1, HashStrategy.fnv1a(), Concurrency.CONCURRENT)
                  : BlockedBloomFilter.withBits(
                      1 << 15, 1, HashStrategy.xxh3(), Concurrency.CONCURRENT);
    }
    AtomicIntegerArray arrived = new AtomicIntegerArray(rounds);
    AtomicLongArray reportedNew = new AtomicLongArray(rounds);
    Threads.run(
        2,
        t -> {
          for (int i = 0; i < rounds; i++) {
            arrived.incrementAndGet(i);
            while (arrived.get(i) < 2) {
              Thread.onSpinWait();
            }
            long mine = 0;
            long offset = (long) i << 40;
            for (long j = 0; j < keys; j++) {
              mine += filters[i].add(offset + j) ? 1 : 0;
            }
            reportedNew.addAndGet(i, mine);
          }
        });
    for (int i = 0; i < rounds; i++) {
      long bits =
          filters[i] instanceof BloomFilter
              ? ((BloomFilter) filters[i]).bitCount()
              : ((BlockedBloomFilter) filters[i]).bitCount();
      assertThat(reportedNew.get(i)).as("round %d: adds reported new", i).isEqualTo(bits);
    }
  }
}
