package io.github.probkit.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.GoldenFiles;
import io.github.probkit.hash.HashStrategy;
import io.github.probkit.io.SketchFormatException;
import io.github.probkit.io.StructureType;
import io.github.probkit.testing.Binomial;
import io.github.probkit.testing.Bytes;
import io.github.probkit.testing.Keys;
import io.github.probkit.testing.RingBytes;
import io.github.probkit.testing.Threads;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

class ScalableBloomFilterTest {
  private static final String GOLDEN = "scalable-v1.bin";
  private static final double LN2_SQUARED = Math.log(2) * Math.log(2);

  private static byte[] bytes(MembershipFilter f) throws IOException {
    return GoldenFiles.bytes(f::writeTo);
  }

  private static int falsePositives(MembershipFilter f, String prefix, int probes) {
    int fp = 0;
    for (byte[] k : Keys.sequential(prefix, 0, probes)) {
      fp += f.mightContain(k) ? 1 : 0;
    }
    return fp;
  }

  /**
   * The promise: whatever the number of keys (here from the initial capacity to 255 times it, eight
   * layers), the compound rate stays below the requested 1 %, within the binomial tolerance.
   */
  @Test
  void layerShapeIsTheShapeOfTheLayersAGrowingFilterAdds() {
    ScalableBloomFilter f = ScalableBloomFilter.create(1000, 0.01, 3, 0.7);
    for (int i = 0; i < 50_000; i++) {
      f.add("shape:" + i);
    }
    List<ScalableBloomFilter.LayerInfo> layers = f.layers();
    assertThat(layers).hasSizeGreaterThan(3);
    for (int i = 0; i < layers.size(); i++) {
      ScalableBloomFilter.LayerInfo l = layers.get(i);
      // The parameters the filter keeps (create() applies its sizing margin to the rate).
      assertThat(ScalableBloomFilter.layerShape(f.initialCapacity(), f.targetFpp(), 3, 0.7, i))
          .isEqualTo(
              new ScalableBloomFilter.LayerInfo(l.capacity(), 0, l.bits(), l.hashes(), l.fpp()));
    }
    assertThatThrownBy(() -> ScalableBloomFilter.layerShape(1L << 62, 0.01, 2, 0.5, 3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("layer 3");
  }

  @Test
  void compoundRateStaysBelowTheRequestedRateAsItGrows() {
    ScalableBloomFilter f = ScalableBloomFilter.create(1_000, 0.01);
    int added = 0;
    int probes = 50_000;
    long upper = Binomial.upper(probes, 0.01, 0.999);
    for (int checkpoint : new int[] {1_000, 3_000, 15_000, 63_000, 255_000}) {
      for (byte[] k : Keys.sequential("in:", added, checkpoint - added)) {
        f.add(k);
      }
      added = checkpoint;
      int fp = falsePositives(f, "out" + checkpoint + ":", probes);
      assertThat((long) fp)
          .as("false positives of %d probes at %d keys, %d layers", probes, added, f.layerCount())
          .isLessThanOrEqualTo(upper);
    }
    assertThat(f.layerCount()).isEqualTo(8);
    // With every layer full the rate is near sum p_i = 1 % (1 - 2^-8): the bound is nearly tight.
    int fp = falsePositives(f, "final:", 200_000);
    assertThat((long) fp).isLessThanOrEqualTo(Binomial.upper(200_000, 0.01, 0.999));
    assertThat((long) fp).isGreaterThanOrEqualTo(Binomial.interval(200_000, 0.006, 0.999)[0]);
  }

  @Test
  void compoundRateHoldsForOtherGrowthAndTightening() {
    ScalableBloomFilter f = ScalableBloomFilter.create(500, 0.02, 4, 0.85);
    Keys.sequential("in:", 0, 100_000).forEach(f::add);
    assertThat(f.layerCount())
        .isEqualTo(5); // 500 + 2,000 + 8,000 + 32,000 < 100,000 <= ... + 128,000
    int probes = 100_000;
    assertThat((long) falsePositives(f, "out:", probes))
        .isLessThanOrEqualTo(Binomial.upper(probes, 0.02, 0.999));
  }

  @Test
  void layersGrowAndTightenAsConfigured() {
    ScalableBloomFilter f = ScalableBloomFilter.create(1000, 0.01);
    List<byte[]> keys = Keys.sequential("k:", 0, 3001);
    int accepted = 0;
    for (byte[] k : keys.subList(0, 1000)) {
      accepted += f.add(k) ? 1 : 0;
    }
    assertThat(f.layerCount()).isEqualTo(1);
    for (byte[] k : keys.subList(1000, 3001)) {
      accepted += f.add(k) ? 1 : 0;
    }
    assertThat(f.approximateCount()).isEqualTo(accepted);
    assertThat(accepted).isGreaterThan(2950);
    for (byte[] k : keys) {
      assertThat(f.mightContain(k)).isTrue();
    }
    List<ScalableBloomFilter.LayerInfo> layers = f.layers();
    long bytes = 0;
    for (int i = 0; i < layers.size(); i++) {
      ScalableBloomFilter.LayerInfo l = layers.get(i);
      long capacity = 1000L << i;
      // Sized for 0.9 of the rate asked (ScalableBloomFilter.SIZING_MARGIN).
      double p = 0.9 * 0.01 * 0.5 * Math.pow(0.5, i);
      long m = (long) Math.ceil(-capacity * Math.log(p) / LN2_SQUARED);
      assertThat(l.capacity()).isEqualTo(capacity);
      assertThat(l.fpp()).isEqualTo(p);
      assertThat(l.bits()).isEqualTo(m);
      assertThat(l.hashes()).isEqualTo((int) Math.rint((double) m / capacity * Math.log(2)));
      bytes += 8 * ((m + 63) / 64);
    }
    assertThat(layers).hasSize(accepted > 3000 ? 3 : 2);
    assertThat(layers.get(0).keys()).isEqualTo(1000);
    assertThat(f.byteSize()).isEqualTo(bytes);
    assertThat(f.capacity()).isEqualTo(layers.size() == 3 ? 7000 : 3000);
  }

  /**
   * 8 threads add disjoint keys at once to a concurrent filter that grows through several layers
   * meanwhile: every key is present and no layer holds more keys than its capacity (a key is not
   * counted when the layers falsely hold it already: under 1 % of them).
   */
  @Test
  void concurrentAddsLoseNothing() throws Exception {
    ScalableBloomFilter f = ScalableBloomFilter.create(1000, 0.01);
    int perThread = 4_000;
    Threads.run(
        Threads.COUNT,
        t -> {
          for (int i = 0; i < perThread; i++) {
            f.add(((long) t << 32) | i);
          }
        });
    long total = (long) Threads.COUNT * perThread;
    for (int t = 0; t < Threads.COUNT; t++) {
      for (int i = 0; i < perThread; i++) {
        assertThat(f.mightContain(((long) t << 32) | i)).isTrue();
      }
    }
    assertThat(f.layerCount()).isGreaterThanOrEqualTo(5);
    for (ScalableBloomFilter.LayerInfo l : f.layers()) {
      assertThat(l.keys()).isBetween(0L, l.capacity());
    }
    assertThat(f.approximateCount()).isBetween(total - total / 50, total);
  }

  @Test
  void aKeyAddedTwiceIsStoredOnce() {
    ScalableBloomFilter f = ScalableBloomFilter.create(10, 0.01);
    assertThat(f.add("a")).isTrue();
    for (int i = 0; i < 100; i++) {
      assertThat(f.add("a")).isFalse();
    }
    assertThat(f.approximateCount()).isEqualTo(1);
    assertThat(f.layerCount()).isEqualTo(1);
  }

  @Test
  void fnvHashingGrowsToo() {
    ScalableBloomFilter f = ScalableBloomFilter.create(1000, 0.01, 2, 0.5, HashStrategy.fnv1a());
    List<byte[]> keys = Keys.randomBytes(20_000, 0x5eed4001L);
    keys.forEach(f::add);
    for (byte[] k : keys) {
      assertThat(f.mightContain(k)).isTrue();
    }
    assertThat(f.layerCount()).isEqualTo(5);
  }

  @Test
  void badParametersAreRefusedWithTheValue() {
    assertThatThrownBy(() -> ScalableBloomFilter.create(100, 0.01, 1, 0.5))
        .hasMessageContaining("growth")
        .hasMessageContaining("was 1");
    assertThatThrownBy(() -> ScalableBloomFilter.create(100, 0.01, 1025, 0.5))
        .hasMessageContaining("was 1025");
    assertThatThrownBy(() -> ScalableBloomFilter.create(100, 0.01, 2, 1.0))
        .hasMessageContaining("tightening")
        .hasMessageContaining("1.0");
    assertThatThrownBy(() -> ScalableBloomFilter.create(100, 0.01, 2, 0))
        .hasMessageContaining("0.0");
    assertThatThrownBy(() -> ScalableBloomFilter.create(0, 0.01))
        .hasMessageContaining("initialCapacity")
        .hasMessageContaining("was 0");
  }

  /** Reading {@code corrupt} fails as a bad file whose message says {@code what}. */
  private static void assertCorruptRefused(byte[] corrupt, String what) {
    RingBytes.assertRefused(Filters::readFrom, corrupt, what);
  }

  @Test
  void corruptFieldsAreNamed() throws IOException {
    ScalableBloomFilter f = ScalableBloomFilter.create(1000, 0.01);
    Keys.sequential("x:", 0, 2500).forEach(f::add);
    assertThat(f.layerCount()).isEqualTo(2);
    byte[] good = bytes(f);
    int p = Bytes.PARAMS;
    assertCorruptRefused(Bytes.putLong(good, p, 0), "'initialCapacity' is 0");
    assertCorruptRefused(Bytes.putInt(good, p + 16, 1), "'growth' is 1");
    assertCorruptRefused(Bytes.putDouble(good, p + 20, 1.5), "'tightening' is 1.5");
    assertCorruptRefused(Bytes.putInt(good, p + 28, 0), "'layers' is 0");
    assertCorruptRefused(Bytes.putInt(good, p + 28, 3), "payload length");
    // The first layer's key count must equal its capacity, 1000, since a second layer exists.
    int keys0 = p + 32;
    assertCorruptRefused(Bytes.putLong(good, keys0, 999), "'keys of layer 0' is 999");
    assertCorruptRefused(Bytes.putLong(good, keys0 + 8, 2001), "'keys of layer 1' is 2001");
    // Absurd shapes are refused before anything is allocated.
    assertThatThrownBy(
            () ->
                Filters.readFrom(
                    new ByteArrayInputStream(Bytes.putLong(good, p, Long.MAX_VALUE / 2))))
        .isInstanceOf(SketchFormatException.class);
  }

  // ---- golden file: initial capacity 100 at 1 %, 350 keys: layers of 100, 200 and 400

  @Test
  void readsTheGoldenFile() throws IOException {
    byte[] file = GoldenFiles.golden(GOLDEN);
    MembershipFilter read = Filters.readFrom(new ByteArrayInputStream(file));
    assertThat(read.type()).isEqualTo(StructureType.SCALABLE_BLOOM_FILTER);
    ScalableBloomFilter f = (ScalableBloomFilter) read;
    assertThat(f.initialCapacity()).isEqualTo(100);
    assertThat(f.targetFpp()).isEqualTo(0.01);
    assertThat(f.growth()).isEqualTo(2);
    assertThat(f.tightening()).isEqualTo(0.5);
    List<ScalableBloomFilter.LayerInfo> layers = f.layers();
    assertThat(layers).hasSize(3);
    // ceil(-n ln p / (ln 2)^2) bits for (100, 0.5 %), (200, 0.25 %), (400, 0.125 %).
    assertThat(layers)
        .extracting(ScalableBloomFilter.LayerInfo::bits)
        .containsExactly(1103L, 2495L, 5566L);
    assertThat(layers).extracting(ScalableBloomFilter.LayerInfo::hashes).containsExactly(8, 9, 10);
    assertThat(layers.get(0).keys()).isEqualTo(100);
    assertThat(layers.get(1).keys()).isEqualTo(200);
    assertThat(layers.get(2).keys()).isBetween(45L, 50L);
    assertThat(f.byteSize()).isEqualTo(8 * (18 + 39 + 87));
    for (byte[] k : Keys.sequential("golden:", 0, 350)) {
      assertThat(f.mightContain(k)).isTrue();
    }
    assertThat(bytes(f)).as("written back byte for byte").isEqualTo(file);
  }
}
