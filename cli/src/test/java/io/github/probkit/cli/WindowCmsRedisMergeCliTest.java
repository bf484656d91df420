package io.github.probkit.cli;

import static io.github.probkit.cli.WindowCmsCliTest.ok;
import static io.github.probkit.cli.WindowCmsMergeCliTest.add;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code cms merge} into and from a windowed count-min sketch in Redis, against a real
 * redis-server: a key holding one half of a stream, merged with a file of the other half, exports
 * the bytes of the file of the whole stream, whichever half is newer, and so does a file merged
 * from the key; a window of other slices, a plain sketch among windows, or a window into a plain
 * sketch in Redis is refused in one line, the key unchanged.
 */
class WindowCmsRedisMergeCliTest extends WithRedisServer {
  @TempDir Path dir;

  private WindowCmsCliTest.Events e;
  private byte[] whole;
  private String older;
  private String newer;

  /**
   * The stream's file whole, and its halves: {@code older} every other event but the last 3,000,
   * {@code newer} the others and the last 3,000 (its newest slice later), each created as {@code
   * where} says (a file or a key).
   */
  private void halves(String olderAt, String newerAt) throws IOException {
    e = WindowCmsCliTest.Events.of(30_000, 2_000);
    int n = e.item().length;
    String file = dir.resolve("whole.cms").toString();
    for (String f : new String[] {file, olderAt, newerAt}) {
      WindowCmsCliTest.create(f, "12h");
    }
    add(dir, e, file, 0, n, 1, 0);
    add(dir, e, olderAt, 0, n - 3_000, 2, 0);
    add(dir, e, newerAt, 0, n - 3_000, 2, 1);
    add(dir, e, newerAt, n - 3_000, n, 1, 0);
    whole = Files.readAllBytes(Path.of(file));
    older = olderAt;
    newer = newerAt;
  }

  private byte[] export(String key) throws IOException {
    Path out = Files.createTempFile(dir, "export", ".cms");
    ok(Cli.run("export", key, out.toString(), "--force"));
    return Files.readAllBytes(out);
  }

  @Test
  void aNewerFileMergedIntoTheOlderHalfInRedisIsTheWholeStream() throws IOException {
    halves(uri("older-in-redis"), dir.resolve("newer.cms").toString());
    ok(Cli.run("cms", "merge", older, newer));
    assertThat(export(older)).isEqualTo(whole);
    Path queries = dir.resolve("queries.txt");
    Files.write(queries, e.queries());
    for (long hours : new long[] {12, 3}) {
      WindowCmsCliTest.checkWindow(e, older, queries, hours, e.latest());
    }
  }

  @Test
  void anOlderFileMergedIntoTheNewerHalfInRedisIsTheWholeStream() throws IOException {
    halves(dir.resolve("older.cms").toString(), uri("newer-in-redis"));
    ok(Cli.run("cms", "merge", newer, older));
    assertThat(export(newer)).isEqualTo(whole);
  }

  @Test
  void aFileMergedFromAKeyAndAMissingKeyMergedFromFilesAreTheWholeStream() throws IOException {
    halves(uri("older-source"), dir.resolve("newer.cms").toString());
    Path merged = dir.resolve("merged.cms");
    ok(Cli.run("cms", "merge", merged.toString(), older, newer));
    assertThat(Files.readAllBytes(merged)).isEqualTo(whole);

    String created = uri("created-by-merge");
    ok(Cli.run("cms", "merge", created, older, newer));
    assertThat(export(created)).isEqualTo(whole);
  }

  @Test
  void otherShapesAreRefusedInOneLineAndTheKeyIsUnchanged() throws IOException {
    halves(uri("refusing"), dir.resolve("newer.cms").toString());
    byte[] before = export(older);

    String sixHours = dir.resolve("six-hours.cms").toString();
    WindowCmsCliTest.create(sixHours, "6h");
    add(dir, e, sixHours, 0, 100, 1, 0);
    refused(Cli.run("cms", "merge", older, sixHours), "slices");
    assertThat(export(older)).isEqualTo(before);

    String plain = dir.resolve("plain.cms").toString();
    ok(Cli.run("cms", "create", plain, "--epsilon", "0.002", "--delta", "0.01"));
    refused(Cli.run("cms", "merge", older, newer, plain), "plain.cms");
    assertThat(export(older)).isEqualTo(before);

    String plainKey = uri("plain");
    ok(Cli.run("cms", "create", plainKey, "--epsilon", "0.002", "--delta", "0.01"));
    byte[] plainBefore = export(plainKey);
    refused(Cli.run("cms", "merge", plainKey, newer), "windowed");
    assertThat(export(plainKey)).isEqualTo(plainBefore);
    refused(Cli.run("cms", "merge", older, plain), "plain");
    assertThat(export(older)).isEqualTo(before);
  }

  private static void refused(Cli r, String naming) {
    assertThat(r.exit).as(r.toString()).isNotZero();
    assertThat(r.err.strip().lines()).as(r.toString()).hasSize(1);
    assertThat(r.err).contains(naming).doesNotContain("Exception").doesNotContain("\tat ");
  }
}
