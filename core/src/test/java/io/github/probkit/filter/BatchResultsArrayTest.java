package io.github.probkit.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.Concurrency;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A results array one element short is refused before any answer is written, for every batch form
 * (long keys, byte slices, hashes) and every filter with batches of its own. Without the check, a
 * batch answers the keys that fit and then fails part-way, leaving answers the caller cannot tell
 * from a complete batch's.
 */
class BatchResultsArrayTest {
  private static final int N = 3_000;

  enum Kind {
    BLOOM(() -> BloomFilter.create(2 * N, 0.01)),
    BLOCKED(() -> BlockedBloomFilter.create(2 * N, 0.01)),
    BLOCKED_SINGLE_WRITER(() -> BlockedBloomFilter.create(2 * N, 0.01, Concurrency.SINGLE_WRITER)),
    SPLIT_BLOCK(() -> SplitBlockBloomFilter.create(2 * N, 0.01)),
    COUNTING(() -> CountingBloomFilter.create(2 * N, 0.01)),
    CUCKOO(() -> CuckooFilter.create(2 * N, 0.01)),
    FUSE(
        () ->
            BinaryFuseFilter.ofLongs(
                LongStream.range(0, N).toArray(), BinaryFuseFilter.FingerprintBits.BITS_8));

    final Supplier<MembershipFilter> create;

    Kind(Supplier<MembershipFilter> create) {
      this.create = create;
    }
  }

  /** Every key of the batch present: an answer written before the refusal would show as true. */
  private static MembershipFilter filled(Kind kind) {
    MembershipFilter f = kind.create.get();
    if (f instanceof MutableFilter) {
      MutableFilter m = (MutableFilter) f;
      for (long i = 0; i < N; i++) {
        m.add(i);
        m.add(Long.toString(i));
      }
    }
    return f;
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void longKeys(Kind kind) {
    MembershipFilter f = filled(kind);
    long[] keys = LongStream.range(0, N).toArray();
    refusedShortThenAnswered(present -> f.mightContainAll(keys, 0, N, present));
  }

  @ParameterizedTest
  @EnumSource(value = Kind.class, mode = EnumSource.Mode.EXCLUDE, names = "FUSE")
  void byteSlices(Kind kind) {
    MembershipFilter f = filled(kind);
    StringBuilder all = new StringBuilder();
    int[] offsets = new int[N];
    int[] lengths = new int[N];
    for (int i = 0; i < N; i++) {
      offsets[i] = all.length();
      String key = Integer.toString(i);
      lengths[i] = key.length();
      all.append(key);
    }
    byte[] buf = all.toString().getBytes(StandardCharsets.US_ASCII);
    refusedShortThenAnswered(present -> f.mightContainAll(buf, offsets, lengths, N, present));
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void hashes(Kind kind) {
    MembershipFilter f = filled(kind);
    if (!f.hashSuffices()) {
      return;
    }
    long[] hashes = new long[N];
    for (int i = 0; i < N; i++) {
      hashes[i] = f.hashStrategy().hash64(i);
    }
    refusedShortThenAnswered(present -> f.mightContainAllHashes(hashes, 0, N, present));
  }

  /**
   * {@code batch} with a results array one short is refused naming both lengths, before it writes
   * any answer; with a whole one it finds every key.
   */
  private static void refusedShortThenAnswered(ToIntFunction<boolean[]> batch) {
    boolean[] present = new boolean[N - 1];
    assertThatThrownBy(() -> batch.applyAsInt(present))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(Integer.toString(N - 1))
        .hasMessageContaining(Integer.toString(N));
    assertThat(present).containsOnly(false);
    assertThat(batch.applyAsInt(new boolean[N])).isEqualTo(N);
  }
}
