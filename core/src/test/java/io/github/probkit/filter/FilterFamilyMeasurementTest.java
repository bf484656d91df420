package io.github.probkit.filter;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Prints bits per key and measured false-positive rate of the filter family at 1 % and 0.1 %, for
 * 10^6 keys and 10^6 absent probes. Slow (about a minute); run it with
 *
 * <pre>
 *   mvn -B -q -o test -pl core -Dtest=FilterFamilyMeasurementTest -Dprobkit.excludedGroups=
 * </pre>
 */
@Tag("slow")
class FilterFamilyMeasurementTest {
  private static final int N = 1_000_000;
  private static final int PROBES = 1_000_000;

  private static byte[] key(String prefix, int i) {
    return (prefix + i).getBytes(StandardCharsets.UTF_8);
  }

  private static void row(String name, double target, MutableFilter f, int keys) {
    for (int i = 0; i < keys; i++) {
      if (!f.add(key("user:", i)) && f instanceof CuckooFilter) {
        throw new AssertionError(name + " full after " + i + " keys");
      }
    }
    report(name, target, f, keys);
  }

  private static void report(String name, double target, MembershipFilter f, int keys) {
    long fp = 0;
    for (int i = 0; i < PROBES; i++) {
      fp += f.mightContain(key("ghost:", i)) ? 1 : 0;
    }
    System.out.printf(
        Locale.ROOT,
        "| %-34s | %6.2f %% | %10d | %6.2f | %7.3f %% | %7.3f %% |%n",
        name,
        100 * target,
        f.byteSize(),
        8.0 * f.byteSize() / keys,
        100.0 * fp / PROBES,
        100 * f.expectedFpp());
  }

  @Test
  void printTable() {
    System.out.printf(
        Locale.ROOT,
        "%n%d keys, %d absent probes (\"user:\" + i / \"ghost:\" + i), XXH3%n",
        N,
        PROBES);
    System.out.println(
        "| filter                             | target   | bytes      | bits/k | measured  | expected  |");
    System.out.println("|---|---|---|---|---|---|");
    for (double p : new double[] {0.01, 0.001}) {
      row("bloom", p, BloomFilter.create(N, p), N);
      row("counting", p, CountingBloomFilter.create(N, p), N);
      CuckooFilter c = CuckooFilter.create(N, p);
      row("cuckoo (f=" + c.fingerprintBits() + ", load 0.90)", p, c, N);
      row("scalable (n0 = n, 1 layer)", p, ScalableBloomFilter.create(N, p), N);
      ScalableBloomFilter s = ScalableBloomFilter.create(N / 16, p);
      row("scalable (n0 = n/16, 5 layers)", p, s, N);
      assertThat(s.layerCount()).isEqualTo(5);
      ScalableBloomFilter s9 = ScalableBloomFilter.create(N / 16, p, 2, 0.9);
      row("scalable (n0 = n/16, r = 0.9)", p, s9, N);
      BlockedBloomFilter b = BlockedBloomFilter.create(N, p);
      row("blocked (k=" + b.hashCount() + ")", p, b, N);
      BinaryFuseFilter.FingerprintBits bits = BinaryFuseFilter.FingerprintBits.forFpp(p);
      report(
          "binary fuse (f=" + bits.bits() + ")",
          p,
          BinaryFuseFilter.create(
              () ->
                  new java.util.Iterator<byte[]>() {
                    int i;

                    @Override
                    public boolean hasNext() {
                      return i < N;
                    }

                    @Override
                    public byte[] next() {
                      return key("user:", i++);
                    }
                  },
              bits),
          N);
    }
    BiFunction<Integer, Integer, Double> firstFailure =
        (buckets, bits) -> {
          CuckooFilter f = CuckooFilter.withBuckets(buckets, bits);
          for (int i = 0; ; i++) {
            if (!f.add(key("fill:", i))) {
              return f.load();
            }
          }
        };
    for (int buckets : new int[] {1 << 10, 1 << 14, 1 << 18, 250_000}) {
      System.out.printf(
          Locale.ROOT,
          "cuckoo load at the first failed add, %d buckets, f = 10: %.4f%n",
          buckets,
          firstFailure.apply(buckets, 10));
    }
  }
}
