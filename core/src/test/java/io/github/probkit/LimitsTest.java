package io.github.probkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.probkit.filter.BinaryFuseFilter;
import io.github.probkit.filter.BinaryFuseFilter.FingerprintBits;
import io.github.probkit.filter.BlockedBloomFilter;
import io.github.probkit.filter.BloomFilter;
import io.github.probkit.filter.CountingBloomFilter;
import io.github.probkit.filter.CuckooFilter;
import io.github.probkit.filter.ScalableBloomFilter;
import io.github.probkit.frequency.CountMinSketch;
import io.github.probkit.frequency.HeavyHitters;
import io.github.probkit.hash.HashStrategy;
import io.github.probkit.internal.Preconditions;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * Every factory refuses, before allocating anything, a structure larger than the JVM's maximum
 * heap, with an IllegalArgumentException saying what it would need. The sizes below need 8 GiB or
 * more (worked out by hand in each comment); the build runs tests with -Xmx3g.
 */
class LimitsTest {
  private static final String HEAP =
      "more than this JVM's maximum heap of "
          + Preconditions.formatBytes(Runtime.getRuntime().maxMemory())
          + " (raise it with -Xmx)";

  @BeforeEach
  void heapBelowEightGiB() {
    assumeTrue(
        Runtime.getRuntime().maxMemory() < (8L << 30),
        "needs a heap below 8 GiB (the build gives 3)");
  }

  /**
   * Runs {@code factory}, which must fail with {@code message} having allocated next to nothing.
   */
  private static void refused(Executable factory, String message) {
    assertThatThrownBy(factory::execute)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(message);
    // Once more, measured: the first call also loaded classes.
    long before = allocatedBytes();
    try {
      factory.execute();
    } catch (Throwable expected) {
      // as above
    }
    assertThat(allocatedBytes() - before).as("allocated before refusing").isLessThan(1 << 20);
  }

  private static long allocatedBytes() {
    return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
        .getThreadAllocatedBytes(Thread.currentThread().getId());
  }

  @Test
  void bloom() {
    // 1e10 keys at 1 %: 9.585 bits per key, 95,850,583,774 bits = 11.98e9 bytes = 11.2 GiB.
    refused(
        () -> BloomFilter.create(10_000_000_000L, 0.01),
        "a Bloom filter of 95850583774 bits needs 11.2 GiB, " + HEAP);
    // The largest filter: (2^31 - 9) words of 8 bytes, just under 16 GiB.
    refused(
        () -> BloomFilter.withBits(BloomFilter.MAX_BITS, 3),
        "a Bloom filter of 137438952896 bits needs 16.0 GiB, " + HEAP);
  }

  @Test
  void counting() {
    // 2e9 keys at 1 %: ceil(2e9 * 9.5850583774) = 19,170,116,755 counters of 4 bits = 9.585e9 bytes
    // = 8.9 GiB.
    refused(
        () -> CountingBloomFilter.create(2_000_000_000L, 0.01),
        "a counting Bloom filter of 19170116755 counters needs 8.9 GiB, " + HEAP);
  }

  @Test
  void cuckoo() {
    // 3e9 keys at 1e-6: 23-bit fingerprints (8 / (2^23 - 1) <= 1e-6), CuckooFilter.bucketsFor:
    // 833,419,936 buckets of 4 slots, 76.7e9 bits = 9.58e9 bytes = 8.9 GiB.
    refused(
        () -> CuckooFilter.create(3_000_000_000L, 1e-6),
        "a cuckoo filter of 833419936 buckets needs 8.9 GiB, " + HEAP);
  }

  @Test
  void blocked() {
    // 1e10 keys at 1 %: a little more than the standard filter's 11.2 GiB.
    assertThatThrownBy(() -> BlockedBloomFilter.create(10_000_000_000L, 0.01))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("a blocked Bloom filter of ")
        .hasMessageMatching(".* bits needs 1[12]\\.\\d GiB, .*")
        .hasMessageEndingWith(HEAP);
    refused(
        () -> BlockedBloomFilter.withBits(BlockedBloomFilter.MAX_BITS, 8),
        "a blocked Bloom filter of "
            + BlockedBloomFilter.MAX_BITS
            + " bits needs 16.0 GiB, "
            + HEAP);
  }

  @Test
  void scalable() {
    // Layer 0 of 1e10 keys at 0.9 * 1 % * (1 - 0.5) = 0.45 % (the sizing margin): -ln(0.0045) /
    // ln(2)^2
    // = 11.2470475274 bits per key, 112,470,475,274 bits = 14.06e9 bytes = 13.1 GiB.
    refused(
        () -> ScalableBloomFilter.create(10_000_000_000L, 0.01),
        "layer 0 of a scalable Bloom filter (112470475274 bits) needs 13.1 GiB, " + HEAP);
  }

  @Test
  void scalableGrowthBeyondTheHeapFailsTheAddAndKeepsTheFilter() {
    // Growth 1024, tightening 0.001: layer 1 holds 2,048,000 keys at 1e-5 (about 6 MiB); layer 2
    // would hold 2,097,152,000 keys at 1e-8, 38.4 bits each: 10.0e9 bytes, 9.4 GiB.
    ScalableBloomFilter f = ScalableBloomFilter.create(2000, 0.01, 1024, 0.001);
    long keys = 2000 + 2_048_000;
    long added = 0;
    for (long i = 0; added < keys; i++) {
      added += f.add(i) ? 1 : 0;
    }
    assertThat(f.layerCount()).isEqualTo(2);
    long fresh = Long.MIN_VALUE;
    while (f.mightContain(fresh)) {
      fresh++;
    }
    long key = fresh;
    assertThatThrownBy(() -> f.add(key))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith(
            "cannot grow the scalable filter: layer 2 of a scalable Bloom filter (")
        .hasMessageMatching(".* bits\\) needs 9\\.\\d GiB, .*");
    assertThat(f.layerCount()).isEqualTo(2);
    assertThat(f.approximateCount()).isEqualTo(keys);
    assertThat(f.mightContain(0L)).isTrue();
  }

  @Test
  void countMin() {
    // epsilon 2e-9: ceil(e / 2e-9) = 1,359,140,915 counters in 1 row (delta 0.5) = 10.1 GiB.
    refused(
        () -> CountMinSketch.create(2e-9, 0.5),
        "a count-min sketch of 1 x 1359140915 counters needs 10.1 GiB, " + HEAP);
    refused(
        () -> CountMinSketch.withDimensions(Integer.MAX_VALUE - 8, 1),
        "a count-min sketch of 1 x 2147483639 counters needs 16.0 GiB, " + HEAP);
  }

  @Test
  void heavyHitters() {
    // 2^28 slots of 84 bytes (21 GiB) and a table of 2^29 ints (2 GiB).
    refused(
        () -> HeavyHitters.withCapacity(HeavyHitters.MAX_CAPACITY),
        "a heavy-hitters summary of capacity 268435456 needs 23.0 GiB, " + HEAP);
    // epsilon 5e-9: capacity 2e8, 2e8 * 84 bytes + 2^29 ints = 16.8e9 + 2.1e9 bytes = 17.6 GiB.
    refused(
        () -> HeavyHitters.create(5e-9),
        "a heavy-hitters summary of capacity 200000000 needs 17.6 GiB, " + HEAP);
  }

  @Test
  void binaryFuseInASmallHeap() throws IOException, InterruptedException {
    // In-process the build would need 100 million hashes (800 MB) before it could exceed the heap,
    // so
    // a JVM of 64 MiB builds from 4 million (32 MB): about 4.5 million slots of 17 bytes of work
    // arrays plus 12 bytes per key, 125 MB. It must refuse before copying the hashes, as a copy
    // alone would fill the heap.
    List<String> cmd =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx64m",
                "-cp",
                System.getProperty("java.class.path"),
                FuseInASmallHeap.class.getName()));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(out)
        .startsWith("refused: building a binary fuse filter of 4000000 keys needs ")
        .contains("more than this JVM's maximum heap of ");
    assertThat(p.exitValue()).isZero();
  }

  /** The body of {@link #binaryFuseInASmallHeap}, run in a JVM of 64 MiB. */
  static final class FuseInASmallHeap {
    public static void main(String[] args) {
      long[] hashes = new long[4_000_000];
      SplittableRandom r = new SplittableRandom(0xf05eL);
      for (int i = 0; i < hashes.length; i++) {
        hashes[i] = r.nextLong();
      }
      try {
        BinaryFuseFilter.fromHashes(hashes, FingerprintBits.BITS_8, HashStrategy.xxh3());
        System.out.println("built");
      } catch (IllegalArgumentException e) {
        System.out.println("refused: " + e.getMessage());
      }
    }
  }
}
