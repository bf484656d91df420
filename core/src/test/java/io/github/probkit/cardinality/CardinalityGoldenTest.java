package io.github.probkit.cardinality;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.github.probkit.hash.HashStrategy;
import io.github.probkit.testing.Keys;
import io.github.probkit.testing.Theory;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import org.junit.jupiter.api.Test;

/**
 * The version-1 files of the cardinality sketches, written once and checked in; they must keep
 * reading forever. Each holds the keys "user:0", "user:1", ... of the count below, so what they
 * must say is known without the code that wrote them: the parameters, an estimate within the stated
 * error of that count, and that every one of those keys is already in. They were written by {@link
 * io.github.probkit.GoldenFiles}, whose recipes GoldenFilesTest rebuilds them from.
 */
class CardinalityGoldenTest {
  private static final String DIR = "golden/";

  /** HyperLogLog, precision 12, dense, 20,000 keys. */
  private static final String HLL = "hyperloglog-v1.bin";

  /** HyperLogLog, precision 14, sparse, 300 keys. */
  private static final String HLL_SPARSE = "hyperloglog-sparse-v1.bin";

  /** UltraLogLog, precision 12, 20,000 keys. */
  private static final String ULL = "ultraloglog-v1.bin";

  private static byte[] resource(String name) {
    try (InputStream in =
        CardinalityGoldenTest.class.getClassLoader().getResourceAsStream(DIR + name)) {
      assertThat(in).as("resource %s", name).isNotNull();
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void checkKnownFacts(CardinalitySketch s, int keys, double rse) {
    assertThat(s.hashStrategy()).isEqualTo(HashStrategy.xxh3());
    assertThat(s.estimate()).isCloseTo(keys, within(4 * rse * keys));
    double martingaleRse =
        (s instanceof HyperLogLog
                ? Math.sqrt(Theory.HLL_MARTINGALE_VARIANCE)
                : Math.sqrt(Theory.ULL_MARTINGALE_VARIANCE))
            / Math.sqrt(1 << s.precision());
    assertThat(s.martingaleEstimate().orElseThrow())
        .isCloseTo(keys, within(4 * martingaleRse * keys));
    CardinalitySketch again = s.copy();
    for (byte[] k : Keys.sequential("user:", 0, keys)) {
      assertThat(again.add(k)).as("a key the file holds").isFalse();
    }
  }

  @Test
  void denseHyperLogLog() throws IOException {
    byte[] file = resource(HLL);
    HyperLogLog s = HyperLogLog.readFrom(new ByteArrayInputStream(file));
    assertThat(s.precision()).isEqualTo(12);
    assertThat(s.isSparse()).isFalse();
    assertThat(s.byteSize()).isEqualTo(3072);
    checkKnownFacts(s, 20_000, Math.sqrt(Theory.HLL_VARIANCE / 4096));
  }

  @Test
  void sparseHyperLogLog() throws IOException {
    byte[] file = resource(HLL_SPARSE);
    HyperLogLog s = HyperLogLog.readFrom(new ByteArrayInputStream(file));
    assertThat(s.precision()).isEqualTo(14);
    assertThat(s.isSparse()).isTrue();
    assertThat(s.sparseEntries()).isEqualTo(300);
    assertThat(Math.round(s.estimate())).isEqualTo(300);
    assertThat(Math.round(s.martingaleEstimate().orElseThrow())).isEqualTo(300);
    checkKnownFacts(s, 300, Math.sqrt(Theory.HLL_VARIANCE / 4096));
  }

  @Test
  void ultraLogLog() throws IOException {
    byte[] file = resource(ULL);
    UltraLogLog s = UltraLogLog.readFrom(new ByteArrayInputStream(file));
    assertThat(s.precision()).isEqualTo(12);
    assertThat(s.byteSize()).isEqualTo(4096);
    checkKnownFacts(s, 20_000, Math.sqrt(Theory.ULL_VARIANCE / 4096));
  }
}
