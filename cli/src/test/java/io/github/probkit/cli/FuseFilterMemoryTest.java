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
 * A binary fuse filter is built from its distinct keys, so a long log of few distinct keys builds
 * in the memory of the distinct keys: keeping a hash per line would need 6 M × 8 bytes, doubled on
 * growth, which a 24 MB heap cannot hold.
 */
class FuseFilterMemoryTest {
  private static final int LINES = 6_000_000;
  private static final int DISTINCT = 20_000;

  @TempDir Path dir;

  @Test
  void aLogOfMillionsOfLinesAndFewKeysBuildsInASmallHeap() throws Exception {
    Path log = dir.resolve("log.txt");
    Path distinct = dir.resolve("distinct.txt");
    try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(log), 1 << 16)) {
      for (int i = 0; i < LINES; i++) {
        out.write(
            ("user-" + (int) ((i * 2654435761L) % DISTINCT) + "\n")
                .getBytes(StandardCharsets.US_ASCII));
      }
    }
    StringBuilder keys = new StringBuilder();
    for (int i = 0; i < DISTINCT; i++) {
      keys.append("user-").append(i).append('\n');
    }
    Files.writeString(distinct, keys);
    Path filter = dir.resolve("f.bin");
    Probkit.Result create =
        Probkit.finish(
            Probkit.builder(
                    List.of("-Xmx24m"),
                    "filter",
                    "create",
                    filter.toString(),
                    "--type",
                    "binary-fuse8",
                    "--keys",
                    log.toString())
                .start());
    assertThat(create.exit()).as("%s", create).isZero();
    Probkit.Result query =
        Probkit.finish(
            Probkit.builder(
                    List.of(),
                    "filter",
                    "query",
                    filter.toString(),
                    "--count",
                    "--keys",
                    distinct.toString())
                .start());
    assertThat(query.exit()).as("%s", query).isZero();
    assertThat(query.out().trim()).isEqualTo(String.valueOf(DISTINCT));
  }
}
