package io.github.probkit.filter;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.Concurrency;
import io.github.probkit.GoldenFiles;
import io.github.probkit.hash.HashStrategy;
import io.github.probkit.testing.Keys;
import io.github.probkit.testing.Threads;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The two write modes of the Bloom, blocked and scalable filters: the same keys give the same bits,
 * answers and bytes in both; a filter read in a mode stays in it; concurrent adds lose nothing.
 */
class ConcurrencyModeTest {
  enum Kind {
    BLOOM(c -> BloomFilter.create(30_000, 0.01, c)),
    BLOOM_FNV(c -> BloomFilter.create(30_000, 0.01, HashStrategy.fnv1a(), c)),
    BLOCKED(c -> BlockedBloomFilter.create(30_000, 0.01, c)),
    BLOCKED_TIGHT(
        c -> BlockedBloomFilter.create(30_000, 0.0001, c)), // k > 7: more than one group of probes
    SCALABLE(c -> ScalableBloomFilter.create(1000, 0.01, c)),
    SCALABLE_FNV(c -> ScalableBloomFilter.create(1000, 0.01, 2, 0.5, HashStrategy.fnv1a(), c));

    final Function<Concurrency, MutableFilter> create;

    Kind(Function<Concurrency, MutableFilter> create) {
      this.create = create;
    }
  }

  private static byte[] bytes(MembershipFilter f) throws IOException {
    return GoldenFiles.bytes(f::writeTo);
  }

  private static Concurrency modeOf(MembershipFilter f) {
    if (f instanceof BloomFilter) {
      return ((BloomFilter) f).concurrency();
    }
    if (f instanceof BlockedBloomFilter) {
      return ((BlockedBloomFilter) f).concurrency();
    }
    return ((ScalableBloomFilter) f).concurrency();
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void bothModesGiveTheSameAddsAnswersAndBytes(Kind kind) throws IOException {
    MutableFilter a = kind.create.apply(Concurrency.CONCURRENT);
    MutableFilter b = kind.create.apply(Concurrency.SINGLE_WRITER);
    assertThat(modeOf(a)).isEqualTo(Concurrency.CONCURRENT);
    assertThat(modeOf(b)).isEqualTo(Concurrency.SINGLE_WRITER);
    // Every key twice: the second add of a key must report no change in both modes alike.
    List<byte[]> keys = Keys.sequential("k:", 0, 20_000);
    for (int round = 0; round < 2; round++) {
      for (byte[] k : keys) {
        assertThat(b.add(k)).isEqualTo(a.add(k));
      }
    }
    for (long i = 0; i < 20_000; i++) {
      assertThat(b.add(i)).isEqualTo(a.add(i));
    }
    assertThat(bytes(b)).isEqualTo(bytes(a));
    assertThat(b).isEqualTo(a);
    for (byte[] k : Keys.sequential("absent:", 0, 20_000)) {
      assertThat(b.mightContain(k)).isEqualTo(a.mightContain(k));
    }
    assertThat(modeOf(a.copy())).isEqualTo(Concurrency.CONCURRENT);
    assertThat(modeOf(b.copy())).isEqualTo(Concurrency.SINGLE_WRITER);
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aFilterReadInAModeStaysInIt(Kind kind) throws IOException {
    MutableFilter a = kind.create.apply(Concurrency.CONCURRENT);
    Keys.sequential("k:", 0, 5_000).forEach(a::add);
    byte[] file = bytes(a);
    MembershipFilter single =
        Filters.readFrom(new ByteArrayInputStream(file), Concurrency.SINGLE_WRITER);
    MembershipFilter concurrent = Filters.readFrom(new ByteArrayInputStream(file));
    assertThat(modeOf(single)).isEqualTo(Concurrency.SINGLE_WRITER);
    assertThat(modeOf(concurrent)).isEqualTo(Concurrency.CONCURRENT);
    // More keys into both: still the same.
    for (byte[] k : Keys.sequential("more:", 0, 5_000)) {
      ((MutableFilter) single).add(k);
      ((MutableFilter) concurrent).add(k);
      a.add(k);
    }
    assertThat(bytes(single)).isEqualTo(bytes(a)).isEqualTo(bytes(concurrent));
  }

  /**
   * Disjoint keys from 8 threads at once: every key present, and (Bloom, blocked) the bits of a
   * one-thread build.
   */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void concurrentAddsLoseNothing(Kind kind) throws Exception {
    MutableFilter shared = kind.create.apply(Concurrency.CONCURRENT);
    int perThread = 4_000;
    Threads.run(
        Threads.COUNT,
        t -> {
          for (int i = 0; i < perThread; i++) {
            shared.add(((long) t << 32) | i);
          }
        });
    MutableFilter alone = kind.create.apply(Concurrency.SINGLE_WRITER);
    for (int t = 0; t < Threads.COUNT; t++) {
      for (int i = 0; i < perThread; i++) {
        long key = ((long) t << 32) | i;
        assertThat(shared.mightContain(key)).as("key %x", key).isTrue();
        alone.add(key);
      }
    }
    if (shared instanceof ScalableBloomFilter) {
      // The layers depend on the order of the adds; what must hold is each layer's capacity.
      for (ScalableBloomFilter.LayerInfo l : ((ScalableBloomFilter) shared).layers()) {
        assertThat(l.keys()).isBetween(0L, l.capacity());
      }
      // A key is not counted when the layers already (falsely) have it: under 1 % of them.
      long total = (long) Threads.COUNT * perThread;
      assertThat(shared.approximateCount()).isBetween(total - total / 50, total);
    } else {
      assertThat(bytes(shared)).isEqualTo(bytes(alone));
    }
  }

  /**
   * Merges into a concurrent filter while other threads add: the result is the union, bit for bit.
   */
  @ParameterizedTest
  @EnumSource(
      value = Kind.class,
      names = {"BLOOM", "BLOCKED", "BLOCKED_TIGHT"})
  void mergesAndAddsAtOnceLoseNothing(Kind kind) throws Exception {
    MutableFilter shared = kind.create.apply(Concurrency.CONCURRENT);
    MutableFilter other = kind.create.apply(Concurrency.SINGLE_WRITER);
    for (long i = 0; i < 20_000; i++) {
      other.add(-i - 1);
    }
    int perThread = 5_000;
    Threads.run(
        Threads.COUNT,
        t -> {
          if (t % 2 == 0) {
            for (int i = 0; i < perThread; i++) {
              shared.add(((long) t << 32) | i);
            }
          } else {
            for (int round = 0; round < 5; round++) {
              ((MergeableFilter) shared).merge(other);
            }
          }
        });
    MutableFilter expected = other.copy();
    for (int t = 0; t < Threads.COUNT; t += 2) {
      for (int i = 0; i < perThread; i++) {
        expected.add(((long) t << 32) | i);
      }
    }
    assertThat(bytes(shared)).isEqualTo(bytes(expected));
  }
}
