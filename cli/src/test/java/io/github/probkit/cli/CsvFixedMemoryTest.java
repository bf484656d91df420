package io.github.probkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A CSV input is hashed a batch of records at a time, and each batch is let go once its hashes are
 * added: the records of a file of any length go through in the memory of one batch. A batch whose
 * count is not reset keeps every hash of the file (and adds the first batch twice, which a
 * HyperLogLog or Bloom filter does not show), so the heap, not the answer, is where it shows.
 */
class CsvFixedMemoryTest {
  private static final int RECORDS = 1_200_000;

  @TempDir Path dir;

  @Test
  void aCsvOfMillionsOfRecordsIsCountedInASmallHeap() throws Exception {
    Path csv = dir.resolve("keys.csv");
    try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(csv), 1 << 16)) {
      for (int i = 0; i < RECORDS; i++) {
        out.write((i + ",x\n").getBytes(StandardCharsets.US_ASCII));
      }
    }
    // 16 MB of heap cannot hold a batch that never empties when its array of hashes doubles from
    // 2^20 to 2^21 (24 MB at once); a batch of 16,384 takes 128 KiB.
    Probkit.Result r =
        Probkit.finish(
            Probkit.builder(
                    List.of("-Xmx16m"),
                    "distinct",
                    "--format",
                    "csv",
                    "--field",
                    "1",
                    csv.toString())
                .start());
    assertThat(r.exit()).as("%s", r).isZero();
    // HyperLogLog at the default precision: well within 5 % (over six standard errors).
    assertThat(Double.parseDouble(r.out().trim())).isBetween(0.95 * RECORDS, 1.05 * RECORDS);
  }
}
