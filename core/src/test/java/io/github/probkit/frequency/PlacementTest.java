package io.github.probkit.frequency;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.testing.Keys;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The keyed placement of heavy-hitter items: multiply-shift for short items, PolymurHash for long
 * ones. HeavyHittersFloodTest measures the same floods with a PolymurHash placement.
 */
class PlacementTest {
  /** Fixed keys, so that the counts are reproducible (summaries draw random ones). */
  private static final long[] KEYS = new SplittableRandom(0x5bd1e9955bd1e995L).longs(21).toArray();

  private static final Placement PLACEMENT = Placement.keyed(KEYS);

  @Test
  void xxh3CollisionsCostNoMoreProbesThanRandomItems() {
    int n = 30_000;
    long random = probes(Keys.randomBytes(n, 0x7a11d0e1L));
    long crafted = probes(HeavyHittersFloodTest.xxh3Collisions(n, 0x7a11d0e2L));
    // Linear probing at load <= 1/2 reads about 1.5 entries per successful lookup.
    assertThat(random).isBetween((long) n, 3L * n);
    assertThat(crafted).isBetween((long) n, 3L * n);
  }

  @Test
  void itemsThatDifferOnlyInLengthOrOneByteHaveDistinctPlaces() {
    // Zero-padding makes "a", "a\0", "a\0\0" the same words: the length must tell them apart; and
    // every byte of every length, the tail read in overlapping loads included, must count. Among
    // 2^32 places, ~m^2 / 2^33 of m strongly universal values collide: here m < 25,000, so a
    // collision is possible (p ~ 0.07) but not with these keys, which the test fixes.
    Set<Integer> places = new HashSet<>();
    int m = 0;
    for (int len = 0; len <= 2 * Placement.SHORT; len++) {
      byte[] zeros = new byte[len];
      places.add(PLACEMENT.place(zeros, 0, len));
      m++;
      for (int i = 0; i < len; i++) {
        for (int v : new int[] {1, 0x80, 0xff}) {
          byte[] b = zeros.clone();
          b[i] = (byte) v;
          places.add(PLACEMENT.place(b, 0, len));
          m++;
        }
      }
    }
    assertThat(places).hasSize(m);
  }

  @Test
  void anItemIsPlacedByItsBytesWhereverTheyLie() {
    SplittableRandom r = new SplittableRandom(0x2545f4914f6cdd1dL);
    for (int len = 0; len <= 2 * Placement.SHORT; len++) {
      byte[] item = new byte[len];
      r.nextBytes(item);
      byte[] framed = new byte[len + 11];
      r.nextBytes(framed);
      System.arraycopy(item, 0, framed, 5, len);
      assertThat(PLACEMENT.place(framed, 5, len)).isEqualTo(PLACEMENT.place(item, 0, len));
    }
  }

  /** The probes to find every item of a summary holding all of them. */
  private static long probes(List<byte[]> items) {
    HeavyHitters h = HeavyHitters.withPlacementKeys(items.size(), KEYS);
    for (byte[] k : items) {
      h.add(k);
    }
    assertThat(h.size()).isEqualTo(items.size());
    return h.probesToFindAll();
  }
}
