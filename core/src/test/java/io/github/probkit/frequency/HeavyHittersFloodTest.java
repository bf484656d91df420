package io.github.probkit.frequency;

import static org.assertj.core.api.Assertions.assertThat;

import com.dynatrace.hash4j.hashing.Hasher64;
import com.dynatrace.hash4j.hashing.Hashing;
import io.github.probkit.testing.Keys;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Items built to collide cannot slow the summary down: the probing work is measured with {@link
 * HeavyHitters#probesToFindAll()}, a count that does not depend on the machine's load (the time is
 * measured by JMH: {@code FrequencyBenchmark.heavyHittersFlood}).
 */
class HeavyHittersFloodTest {
  private static final int N = 30_000;

  /** A fixed placement key, so that the counts are reproducible (summaries draw a random one). */
  private static final Hasher64 KEYED =
      Hashing.polymurHash2_0(0, 0x1b873593cc9e2d51L, 0x85ebca6bc2b2ae35L);

  /**
   * {@code n} distinct 32-byte items with the same XXH3-64 (seed 0), crafted with nothing but the
   * algorithm's published constants: with bytes 0-7 and 16-23 equal to the first and third words of
   * XXH3's default secret, both 16-byte multiplications of its 17-to-32-byte path are by zero, so
   * bytes 8-15 and 24-31 are free. Printable, without a newline: a text file of them can be fed to
   * {@code probkit top}.
   */
  static List<byte[]> xxh3Collisions(int n, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    List<byte[]> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(xxh3Collision(i, r.nextLong()));
    }
    return out;
  }

  /** The crafted item of index i (distinct for distinct i), its free bytes 24-31 chosen by v. */
  static byte[] xxh3Collision(int i, long v) {
    ByteBuffer b = ByteBuffer.allocate(32).order(ByteOrder.LITTLE_ENDIAN);
    b.putLong(0, 0xbe4ba423396cfeb8L);
    b.putLong(16, 0xdb979083e96dd4deL);
    // i in base 26 in bytes 8-15, letters from v in 24-31.
    for (int j = 0; j < 8; j++, i /= 26, v >>>= 5) {
      b.put(8 + j, (byte) ('a' + i % 26));
      b.put(24 + j, (byte) ('a' + (int) (v & 31) % 26));
    }
    return b.array();
  }

  @Test
  void theCraftedItemsShareOneXxh3Hash() {
    List<byte[]> items = xxh3Collisions(1000, 0xc0111de0L);
    long h = Hashing.xxh3_64().hashBytesToLong(items.get(0));
    assertThat(items).allMatch(k -> Hashing.xxh3_64().hashBytesToLong(k) == h);
    assertThat(items.stream().map(String::new).distinct().count()).isEqualTo(1000);
    assertThat(items)
        .allMatch(
            k -> new String(k, java.nio.charset.StandardCharsets.ISO_8859_1).indexOf('\n') < 0);
  }

  @Test
  void collidingItemsCostNoMoreProbesThanRandomOnes() {
    long random = probes(KEYED, Keys.randomBytes(N, 0x7a11d0e1L));
    long crafted = probes(KEYED, xxh3Collisions(N, 0x7a11d0e2L));
    // Linear probing at load <= 1/2 reads about 1.5 entries per successful lookup.
    assertThat(random).isBetween((long) N, 3L * N);
    assertThat(crafted).isLessThanOrEqualTo(3 * random);
  }

  @Test
  void placedByThePublicHashTheSameItemsWouldProbeQuadratically() {
    // What placement by XXH3 with seed 0 did before: every crafted item in one probe run, so the
    // lookups of n items read n^2 / 2 entries (kept to 5,000 items: it is slow).
    int n = 5000;
    assertThat(probes(Hashing.xxh3_64(), xxh3Collisions(n, 0x7a11d0e2L)))
        .isGreaterThan((long) n * n / 2);
    assertThat(probes(Hashing.xxh3_64(), Keys.randomBytes(n, 0x7a11d0e1L))).isLessThan(3L * n);
  }

  @Test
  void evictingCollidingItemsKeepsTheSummaryExact() {
    // Only 1,000 of them fit: every later one evicts one, and ties in count and error are broken
    // by the bytes, since the order hash is the same for all.
    HeavyHitters h = HeavyHitters.withPlacement(1000, KEYED);
    List<byte[]> items = xxh3Collisions(5000, 0x7a11d0e3L);
    HeavyHittersModelTest.Model model = new HeavyHittersModelTest.Model(1000);
    for (int round = 0; round < 3; round++) {
      for (byte[] k : items) {
        h.add(k);
        model.add(k, 1);
      }
    }
    assertThat(HeavyHittersModelTest.describe(h.entries())).isEqualTo(model.entries());
    assertThat(h.probesToFindAll()).isLessThanOrEqualTo(3L * 1000);
  }

  /** The probes to find every item of a summary holding all of them. */
  private static long probes(Hasher64 placement, List<byte[]> items) {
    HeavyHitters h = HeavyHitters.withPlacement(items.size(), placement);
    for (byte[] k : items) {
      h.add(k);
    }
    assertThat(h.size()).isEqualTo(items.size());
    return h.probesToFindAll();
  }
}
