package io.github.probkit.cli;

import static io.github.probkit.cli.WindowCmsCliTest.ok;
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

  /** The whole stream's file bytes, its halves at {@code olderAt} and {@code newerAt}. */
  private void halves(String olderAt, String newerAt) throws IOException {
    Path file = dir.resolve("whole.cms");
    e = WindowCmsMergeCliTest.halves(dir, file.toString(), olderAt, newerAt);
    whole = Files.readAllBytes(file);
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
    WindowCmsMergeCliTest.add(dir, e, sixHours, 0, 100, 1, 0);
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

    // Redis's slices add by the standard rule: a conservative window is refused, into the key or
    // into a missing one, which is then not created.
    String conservative = dir.resolve("conservative.cms").toString();
    ok(
        Cli.run(
            "cms",
            "create",
            conservative,
            "--window",
            "12h",
            "--slice",
            "1h",
            "--epsilon",
            "" + WindowCmsCliTest.EPSILON,
            "--delta",
            "0.01",
            "--conservative"));
    WindowCmsMergeCliTest.add(dir, e, conservative, 0, 100, 1, 0);
    refused(Cli.run("cms", "merge", older, conservative), "conservative");
    assertThat(export(older)).isEqualTo(before);
    String missing = uri("never-created");
    refused(Cli.run("cms", "merge", missing, conservative), "conservative");
    assertThat(Cli.run("info", missing).exit).isNotZero();
  }

  private static void refused(Cli r, String naming) {
    assertThat(r.exit).as(r.toString()).isNotZero();
    assertThat(r.err.strip().lines()).as(r.toString()).hasSize(1);
    assertThat(r.err).contains(naming).doesNotContain("Exception").doesNotContain("\tat ");
  }
}
