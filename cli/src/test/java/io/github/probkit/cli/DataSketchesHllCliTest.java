package io.github.probkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.cardinality.HyperLogLog;
import io.github.probkit.hash.HashStrategy;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.datasketches.hll.HllSketch;
import org.apache.datasketches.hll.TgtHllType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Files DataSketches itself writes, counted by {@code probkit hll count} (recognized by bytes). */
class DataSketchesHllCliTest {
  @TempDir Path dir;

  @Test
  void hllCountReadsADataSketchesFileAsItsRegisters() throws Exception {
    HllSketch ds = new HllSketch(12, TgtHllType.HLL_4);
    HyperLogLog same = HyperLogLog.create(12, HashStrategy.datasketches(12));
    for (int i = 0; i < 20_000; i++) {
      ds.update("visitor:" + i);
      same.add("visitor:" + i);
    }
    Path file = dir.resolve("sketch.bin");
    Files.write(file, ds.toCompactByteArray());
    Cli count = Cli.run("hll", "count", file.toString());
    assertThat(count.exit).as(count.err).isZero();
    assertThat(count.out).isEqualTo(Math.round(same.estimate()) + "\n");

    byte[] bad = ds.toCompactByteArray();
    bad[23] ^= 0x10; // kxq0's exponent
    Files.write(file, bad);
    Cli refused = Cli.run("hll", "count", file.toString());
    assertThat(refused.exit).isEqualTo(1);
    assertThat(refused.err).contains("datasketches hll: kxq0").doesNotContain("\tat ");
    assertThat(refused.err.trim().lines().count()).isEqualTo(1);
  }
}
