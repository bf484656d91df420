package io.github.probkit.cli;

import static io.github.probkit.cli.WindowCmsCliTest.ok;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code cms merge} of windowed count-min files: two files of the two halves of a stream (late
 * events included, the second newer) merge into the bytes of the file of the whole stream, whose
 * windowed estimates are never below the exact counts; windows of other slices, and plain sketches,
 * are refused in one line, writing nothing.
 */
class WindowCmsMergeCliTest {
  @TempDir Path dir;

  /** Adds events {@code from .. to} of {@code e}, every {@code every}th from {@code phase}. */
  static void add(
      Path dir, WindowCmsCliTest.Events e, String file, int from, int to, int every, int phase)
      throws IOException {
    StringBuilder b = new StringBuilder();
    for (String line : e.lines(from, to, false).lines().toList()) {
      if (phase-- % every == 0) {
        b.append(line).append('\n');
      }
    }
    Path chunk = Files.createTempFile(dir, "chunk", ".tsv");
    Files.writeString(chunk, b);
    ok(
        Cli.run(
            "cms", "add", file, "--items", chunk.toString(), "--time-field", "2", "--field", "1"));
  }

  /**
   * A stream of 30,000 events in 12-hour windows (cms create --window 12h, hourly slices): whole in
   * {@code whole}; every other event but the last 3,000 in {@code older}, the others and the last
   * 3,000 in {@code newer}, whose newest slice is then later. Each is a file or a redis:// key.
   */
  static WindowCmsCliTest.Events halves(Path dir, String whole, String older, String newer)
      throws IOException {
    WindowCmsCliTest.Events e = WindowCmsCliTest.Events.of(30_000, 2_000);
    int n = e.item().length;
    for (String f : new String[] {whole, older, newer}) {
      WindowCmsCliTest.create(f, "12h");
    }
    add(dir, e, whole, 0, n, 1, 0);
    add(dir, e, older, 0, n - 3_000, 2, 0);
    add(dir, e, newer, 0, n - 3_000, 2, 1);
    add(dir, e, newer, n - 3_000, n, 1, 0);
    return e;
  }

  @Test
  void halvesOfAStreamMergeIntoTheWholeStreamsWindow() throws IOException {
    String whole = dir.resolve("whole.cms").toString();
    String a = dir.resolve("a.cms").toString();
    String b = dir.resolve("b.cms").toString();
    WindowCmsCliTest.Events e = halves(dir, whole, a, b);

    Path merged = dir.resolve("merged.cms");
    ok(Cli.run("cms", "merge", merged.toString(), a, b));
    assertThat(Files.readAllBytes(merged)).isEqualTo(Files.readAllBytes(Path.of(whole)));
    Path queries = dir.resolve("queries.txt");
    Files.write(queries, e.queries());
    for (long hours : new long[] {12, 3}) {
      WindowCmsCliTest.checkWindow(e, merged.toString(), queries, hours, e.latest());
    }

    // Other slices: one line naming the file, nothing written.
    String other = dir.resolve("other.cms").toString();
    WindowCmsCliTest.create(other, "6h");
    Path refused = dir.resolve("refused.cms");
    Cli r = Cli.run("cms", "merge", refused.toString(), a, other);
    assertThat(r.exit).as(r.toString()).isNotZero();
    assertThat(r.err.strip().lines()).hasSize(1);
    assertThat(r.err).contains("other.cms").contains("slices").doesNotContain("Exception");
    assertThat(refused).doesNotExist();

    // A plain sketch among windows: refused by name.
    String plain = dir.resolve("plain.cms").toString();
    ok(Cli.run("cms", "create", plain, "--epsilon", "0.002", "--delta", "0.01"));
    Cli p = Cli.run("cms", "merge", refused.toString(), a, plain);
    assertThat(p.exit).as(p.toString()).isNotZero();
    assertThat(p.err.strip().lines()).hasSize(1);
    assertThat(p.err).contains("plain.cms").doesNotContain("Exception");
    assertThat(refused).doesNotExist();
  }
}
