package io.github.probkit.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.Concurrency;
import io.github.probkit.GoldenFiles;
import io.github.probkit.filter.BinaryFuseFilter.FingerprintBits;
import io.github.probkit.hash.HashStrategy;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import java.util.function.Supplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A batch answers exactly as one call per key: the same answers for every key (present, absent, and
 * the false positives), the same count of changed adds, the same bytes afterwards; for every filter
 * type, over ranges that are not whole chunks, for long keys and for keys given as buffer slices.
 */
class BatchTest {
  private static final int N = 3_000;

  enum Kind {
    BLOOM(() -> BloomFilter.create(N, 0.05)),
    BLOOM_SINGLE_WRITER(() -> BloomFilter.create(N, 0.05, Concurrency.SINGLE_WRITER)),
    BLOOM_FNV(() -> BloomFilter.create(N, 0.05, HashStrategy.fnv1a())),
    BLOCKED(() -> BlockedBloomFilter.create(N, 0.05)),
    BLOCKED_SINGLE_WRITER(() -> BlockedBloomFilter.create(N, 0.05, Concurrency.SINGLE_WRITER)),
    BLOCKED_FNV(() -> BlockedBloomFilter.create(N, 0.05, HashStrategy.fnv1a())),
    BLOCKED_TIGHT(() -> BlockedBloomFilter.create(N, 0.0001, Concurrency.SINGLE_WRITER)),
    COUNTING(() -> CountingBloomFilter.create(N, 0.05)),
    CUCKOO(() -> CuckooFilter.create(N, 0.05)),
    SCALABLE(() -> ScalableBloomFilter.create(1000, 0.05));

    final Supplier<MutableFilter> create;

    Kind(Supplier<MutableFilter> create) {
      this.create = create;
    }
  }

  /** Key number {@code i}: keys 0..N-1 are added, N..2N-1 are not. */
  private static long key(long i) {
    return i * 0x9E3779B97F4A7C15L;
  }

  /** Numbers of keys, half added and half not, in a random order with repeats. */
  private static int[] numbers(long seed) {
    return new SplittableRandom(seed).ints(2 * N + 777, 0, 2 * N).toArray();
  }

  private static long[] queries(int[] numbers) {
    long[] q = new long[numbers.length];
    for (int i = 0; i < q.length; i++) {
      q[i] = key(numbers[i]);
    }
    return q;
  }

  private static byte[] bytes(MembershipFilter f) throws IOException {
    return GoldenFiles.bytes(f::writeTo);
  }

  /**
   * Keys as lines of one buffer: "k" + number, each followed by a newline that is not part of it.
   */
  private static final class Slices {
    final byte[] buf;
    final int[] offsets;
    final int[] lengths;

    Slices(long[] keys) {
      StringBuilder b = new StringBuilder();
      offsets = new int[keys.length];
      lengths = new int[keys.length];
      for (int i = 0; i < keys.length; i++) {
        String k = "k" + keys[i];
        offsets[i] = b.length();
        lengths[i] = k.length();
        b.append(k).append('\n');
      }
      buf = b.toString().getBytes(StandardCharsets.US_ASCII);
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aBatchOfAddsChangesWhatSingleAddsChange(Kind kind) throws IOException {
    long[] keys = queries(numbers(0x6b43a9b5d1e0f27aL));
    MutableFilter batch = kind.create.get();
    MutableFilter single = kind.create.get();
    // From an offset that is not a whole chunk, to one short of the end, then the rest.
    long changed =
        batch.addAll(keys, 13, keys.length - 1)
            + batch.addAll(keys, 0, 13)
            + batch.addAll(keys, keys.length - 1, keys.length);
    long expected = 0;
    for (int i = 13; i < keys.length - 1; i++) {
      expected += single.add(keys[i]) ? 1 : 0;
    }
    for (int i : new int[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, keys.length - 1}) {
      expected += single.add(keys[i]) ? 1 : 0;
    }
    assertThat(changed).isEqualTo(expected);
    assertThat(bytes(batch)).isEqualTo(bytes(single));

    Slices s = new Slices(keys);
    MutableFilter batchBytes = kind.create.get();
    MutableFilter singleBytes = kind.create.get();
    long changedBytes = batchBytes.addAll(s.buf, s.offsets, s.lengths, keys.length);
    long expectedBytes = 0;
    for (int i = 0; i < keys.length; i++) {
      expectedBytes += singleBytes.add(s.buf, s.offsets[i], s.lengths[i]) ? 1 : 0;
    }
    assertThat(changedBytes).isEqualTo(expectedBytes);
    assertThat(bytes(batchBytes)).isEqualTo(bytes(singleBytes));
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aBatchQueryAnswersAsSingleQueries(Kind kind) {
    MutableFilter f = kind.create.get();
    for (long i = 0; i < N; i++) {
      f.add(key(i));
    }
    assertAnswersAsSingleCalls(f);
  }

  @org.junit.jupiter.api.Test
  void aBinaryFuseBatchAnswersAsSingleQueries() {
    long[] keys = new long[N];
    for (int i = 0; i < N; i++) {
      keys[i] = key(i);
    }
    BinaryFuseFilter fuse = BinaryFuseFilter.ofLongs(keys, FingerprintBits.BITS_8);
    assertAnswersAsSingleCalls(fuse);
    long[] q = queries(numbers(0x510e527fade682d1L));
    long[] hashes = new long[q.length];
    for (int i = 0; i < q.length; i++) {
      hashes[i] = fuse.hashStrategy().hash64(q[i]);
    }
    boolean[] present = new boolean[q.length];
    fuse.mightContainAllHashes(hashes, 0, q.length, present);
    for (int i = 0; i < q.length; i++) {
      assertThat(present[i]).isEqualTo(fuse.mightContain(q[i]));
    }
    assertAnswersAsSingleCalls(BinaryFuseFilter.ofLongs(keys, FingerprintBits.BITS_16));
    assertAnswersAsSingleCalls(BinaryFuseFilter.ofLongs(new long[0], FingerprintBits.BITS_8));
  }

  private static void assertAnswersAsSingleCalls(MembershipFilter f) {
    int[] numbers = numbers(0x1f83d9abfb41bd6bL);
    long[] q = queries(numbers);
    boolean[] present = new boolean[q.length];
    present[4] = true; // before the range: must stay as it was
    int found = f.mightContainAll(q, 5, q.length, present);
    int expected = 0;
    int falsePositives = 0;
    int absent = 0;
    for (int i = 5; i < q.length; i++) {
      boolean p = f.mightContain(q[i]);
      assertThat(present[i]).as("key #%d", i).isEqualTo(p);
      expected += p ? 1 : 0;
      falsePositives += p && numbers[i] >= N ? 1 : 0;
      absent += numbers[i] >= N ? 1 : 0;
    }
    assertThat(found).isEqualTo(expected);
    assertThat(present[4]).isTrue();
    assertThat(present[0]).isFalse();
    if (f.expectedFpp() * absent >= 10) {
      // With 10 expected, none at all has a Poisson probability of 5e-5.
      assertThat(falsePositives)
          .as("the answers include false positives, which must agree too")
          .isPositive();
    }

    Slices s = new Slices(q);
    boolean[] presentBytes = new boolean[q.length];
    int foundBytes = f.mightContainAll(s.buf, s.offsets, s.lengths, q.length, presentBytes);
    int expectedBytes = 0;
    for (int i = 0; i < q.length; i++) {
      boolean p = f.mightContain(s.buf, s.offsets[i], s.lengths[i]);
      assertThat(presentBytes[i]).isEqualTo(p);
      expectedBytes += p ? 1 : 0;
    }
    assertThat(foundBytes).isEqualTo(expectedBytes);
  }

  /**
   * Keys given by their hashes answer and add exactly as the keys; a filter that needs the keys
   * says so.
   */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void keysGivenByTheirHashesAnswerAndAddAsTheKeys(Kind kind) throws IOException {
    MutableFilter byKey = kind.create.get();
    MutableFilter byHash = kind.create.get();
    long[] keys = queries(numbers(0x3c6ef372fe94f82bL));
    long[] hashes = new long[keys.length];
    for (int i = 0; i < keys.length; i++) {
      hashes[i] = byKey.hashStrategy().hash64(keys[i]);
    }
    boolean fnvBloom = kind == Kind.BLOOM_FNV;
    assertThat(byKey.hashSuffices()).isEqualTo(!fnvBloom);
    if (fnvBloom) {
      assertThatThrownBy(() -> byHash.addAllHashes(hashes, 0, 1))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("needs the keys");
      assertThatThrownBy(() -> byHash.mightContainAllHashes(hashes, 0, 1, new boolean[1]))
          .isInstanceOf(IllegalStateException.class);
      return;
    }
    int half = keys.length / 2;
    long expected = 0;
    for (int i = 0; i < half; i++) {
      expected += byKey.add(keys[i]) ? 1 : 0;
    }
    assertThat(byHash.addAllHashes(hashes, 0, half)).isEqualTo(expected);
    assertThat(bytes(byHash)).isEqualTo(bytes(byKey));
    boolean[] present = new boolean[keys.length];
    int found = byHash.mightContainAllHashes(hashes, 3, keys.length, present);
    int expectedFound = 0;
    for (int i = 3; i < keys.length; i++) {
      assertThat(present[i]).isEqualTo(byKey.mightContain(keys[i]));
      expectedFound += present[i] ? 1 : 0;
    }
    assertThat(found).isEqualTo(expectedFound);
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void badRangesAreRefusedNamingTheValues(Kind kind) {
    MutableFilter f = kind.create.get();
    long[] keys = new long[10];
    assertThatThrownBy(() -> f.mightContainAll(keys, 0, 10, new boolean[9]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("9")
        .hasMessageContaining("10");
    assertThatThrownBy(() -> f.mightContainAll(keys, 5, 11, new boolean[20]))
        .isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> f.addAll(keys, -1, 3)).isInstanceOf(IndexOutOfBoundsException.class);
    byte[] buf = new byte[8];
    assertThatThrownBy(() -> f.addAll(buf, new int[] {0, 4}, new int[] {4, 5}, 2))
        .isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(
            () -> f.mightContainAll(buf, new int[] {0}, new int[] {4}, 2, new boolean[2]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("was 2");
  }
}
