package io.github.probkit.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a one-key add that updates a version-2 Bloom file in place says, as the rewrite would. */
class RedoLogFastPathTest {
  @TempDir Path dir;

  /** The inode: an add in place keeps it, a rewrite (a rename) does not. */
  private static Object inode(Path file) throws Exception {
    return Files.getAttribute(file, "unix:ino");
  }

  @Test
  void theOverfullWarningComesFromTheAddInPlaceToo() throws Exception {
    // 1.5 M keys at 1 %: 1.8 MB, 28 chunks, so that a one-key add (7 hashes) stays in place.
    List<String> keys = new ArrayList<>(1_700_000);
    for (String w : new LinkedHashSet<>(Words.lines())) {
      for (int i = 0; i < 17 && !w.isEmpty() && !w.startsWith("-"); i++) {
        keys.add(w + "/" + i);
      }
    }
    assertThat(keys.size()).isGreaterThan(1_600_000);
    Path file = dir.resolve("f.bin");
    Path first = dir.resolve("first.txt");
    Path more = dir.resolve("more.txt");
    Files.write(first, keys.subList(0, 1_300_000));
    Files.write(more, keys.subList(1_300_000, 1_560_000));
    Cli.ok(
        "filter", "create", file.toString(), "--expected", "1500000", "--keys", first.toString());

    // Below its size: no warning, from a sample or a count.
    Object ino = inode(file);
    Cli under = Cli.ok("filter", "add", file.toString(), keys.get(1_600_000));
    assertThat(inode(file)).as("added in place").isEqualTo(ino);
    assertThat(under.err).isEmpty();

    Cli rewrite = Cli.ok("filter", "add", file.toString(), "--keys", more.toString());
    assertThat(rewrite.err).contains("warning").contains("more than the 1,500,000");
    ino = inode(file);
    Cli over = Cli.ok("filter", "add", file.toString(), keys.get(1_600_001));
    assertThat(inode(file)).as("added in place").isEqualTo(ino);
    assertThat(over.err.strip().lines()).as(over.toString()).hasSize(1);
    assertThat(over.err)
        .startsWith("probkit: warning: " + file + " holds about 1,5")
        .contains("more than the 1,500,000 it was sized for");
    Cli q = Cli.ok("filter", "query", file.toString(), keys.get(1_600_000), keys.get(1_600_001));
    assertThat(q.out).contains("\tpresent\n").doesNotContain("absent");
  }

  @Test
  void aDirectoryWhereTheLogCannotBeCreatedRefusesTheAddInOneLine() throws Exception {
    List<String> words = new ArrayList<>(new LinkedHashSet<>(Words.lines())).subList(0, 20_000);
    Path sub = Files.createDirectory(dir.resolve("sub"));
    Path file = sub.resolve("f.bin");
    Path keys = dir.resolve("keys.txt");
    Files.write(keys, words);
    Cli.ok("filter", "create", file.toString(), "--expected", "4000000", "--keys", keys.toString());
    Cli.ok("filter", "add", file.toString(), "a-first-add"); // its lock file exists now
    byte[] before = Files.readAllBytes(file);
    readOnly(sub, true);
    try {
      assertThat(Files.isWritable(file)).isTrue();
      Cli c = Cli.run("filter", "add", file.toString(), "a-key-not-there-yet");
      assertThat(c.exit).as(c.toString()).isEqualTo(1);
      assertThat(c.err.strip().lines()).as(c.toString()).hasSize(1);
      assertThat(c.err).contains(file.toString()).contains("cannot write").contains("f.bin.redo");
      assertThat(c.err).doesNotContain("Exception");
      assertThat(Files.readAllBytes(file)).isEqualTo(before);
      assertThat(sub.resolve("f.bin.redo")).doesNotExist();
      Cli q = Cli.ok("filter", "query", file.toString(), "--keys", keys.toString(), "--count");
      assertThat(q.out.strip()).isEqualTo("20000");
    } finally {
      readOnly(sub, false);
    }
  }

  /**
   * Makes {@code d} refuse new entries while its files stay writable: its mode, or, for root, whom
   * modes do not stop, the immutable attribute.
   */
  private static void readOnly(Path d, boolean on) throws Exception {
    if (!on) {
      if (chattrWorks()) {
        new ProcessBuilder("chattr", "-i", d.toString()).start().waitFor(10, TimeUnit.SECONDS);
      }
      Files.setPosixFilePermissions(d, PosixFilePermissions.fromString("rwxr-xr-x"));
      return;
    }
    Files.setPosixFilePermissions(d, PosixFilePermissions.fromString("r-xr-xr-x"));
    Path probe = d.resolve("probe");
    if (canCreate(probe)) {
      assumeTrue(chattrWorks(), "no way to make a directory read-only for root here");
      Process p = new ProcessBuilder("chattr", "+i", d.toString()).start();
      assumeTrue(
          p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0 && !canCreate(probe),
          "no way to make a directory read-only for root here");
    }
  }

  private static boolean chattrWorks() {
    return Files.isExecutable(Path.of("/usr/bin/chattr"));
  }

  private static boolean canCreate(Path probe) {
    try {
      Files.createFile(probe);
      Files.delete(probe);
      return true;
    } catch (Exception e) {
      return false;
    }
  }
}
