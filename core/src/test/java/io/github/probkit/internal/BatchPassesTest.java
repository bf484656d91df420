package io.github.probkit.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.filter.BloomFilter;
import io.github.probkit.filter.CountingBloomFilter;
import io.github.probkit.filter.CuckooFilter;
import io.github.probkit.hash.HashStrategy;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The gaps the widened mutation run left in the batch code: a batch is checked whole before any key
 * goes in, an empty batch is a batch, and a batch started inside another keeps its own arrays.
 */
class BatchPassesTest {

  private static byte[] bytes(Object filter) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    if (filter instanceof BloomFilter) {
      ((BloomFilter) filter).writeTo(out);
    } else {
      ((CountingBloomFilter) filter).writeTo(out);
    }
    return out.toByteArray();
  }

  @Test
  void aBatchWithABadLastSliceAddsNothing() throws IOException {
    // Past the first chunk, whose keys would be in before the second is hashed.
    int count = BatchPasses.CHUNK + 1;
    byte[] buf = "alphabetagamma".getBytes(StandardCharsets.UTF_8);
    int[] offsets = new int[count];
    int[] lengths = new int[count];
    for (int i = 0; i < count; i++) {
      offsets[i] = i % 9;
      lengths[i] = 5;
    }
    lengths[count - 1] = buf.length - offsets[count - 1] + 1; // one byte past the buffer
    BloomFilter f = BloomFilter.create(1000, 0.01);
    byte[] empty = bytes(f);
    assertThatThrownBy(() -> f.addAll(buf, offsets, lengths, count))
        .isInstanceOf(IndexOutOfBoundsException.class);
    assertThat(bytes(f)).as("nothing added").isEqualTo(empty);
  }

  @Test
  void aBatchOfHashesPastTheArrayAddsNothing() throws IOException {
    CountingBloomFilter f = CountingBloomFilter.create(1000, 0.01);
    byte[] empty = bytes(f);
    long[] h = {1, 2, 3};
    assertThatThrownBy(() -> f.addAllHashes(h, 0, 4)).isInstanceOf(IndexOutOfBoundsException.class);
    assertThat(bytes(f)).as("nothing added").isEqualTo(empty);
  }

  /** A query batch of hashes answered one by one (the cuckoo filter's) is checked whole, too. */
  @Test
  void aQueryOfHashesWithTooFewResultsAnswersNone() {
    CuckooFilter f = CuckooFilter.create(1000, 0.01);
    long[] h = {11, 22, 33};
    f.addAllHashes(h, 0, 3);
    boolean[] present = new boolean[2];
    assertThatThrownBy(() -> f.mightContainAllHashes(h, 0, 3, present))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the results array has 2 elements, the keys need 3");
    assertThat(present).as("no answer written").containsOnly(false);
    assertThatThrownBy(() -> f.mightContainAllHashes(h, 2, 1, new boolean[3]))
        .isInstanceOf(IndexOutOfBoundsException.class);
  }

  @Test
  void anEmptyBatchOfSlicesIsABatch() {
    BloomFilter f = BloomFilter.create(1000, 0.01);
    assertThat(f.addAll(new byte[0], new int[0], new int[0], 0)).isZero();
    assertThat(f.mightContainAll(new byte[0], new int[0], new int[0], 0, new boolean[0])).isZero();
  }

  /** A batch run inside another's chunk (as a filter inside a filter's op) has its own arrays. */
  @Test
  void aBatchInsideABatchLeavesTheOuterHashesAlone() {
    HashStrategy hash = HashStrategy.xxh3(0);
    long[] outer = new long[3 * BatchPasses.CHUNK + 7];
    long[] inner = new long[BatchPasses.CHUNK + 1];
    for (int i = 0; i < outer.length; i++) {
      outer[i] = i;
    }
    for (int i = 0; i < inner.length; i++) {
      inner[i] = -1 - i;
    }
    long[] seen = new long[outer.length];
    long sum =
        BatchPasses.overLongs(
            hash,
            outer,
            0,
            outer.length,
            (h, ints, n, at) -> {
              long in = BatchPasses.overLongs(hash, inner, 0, inner.length, (g, j, m, a) -> m);
              assertThat(in).isEqualTo(inner.length);
              System.arraycopy(h, 0, seen, at, n);
              return n;
            });
    assertThat(sum).isEqualTo(outer.length);
    for (int i = 0; i < outer.length; i++) {
      assertThat(seen[i]).as("hash of key %d", i).isEqualTo(hash.hash64(outer[i]));
    }
  }
}
