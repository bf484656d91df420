package io.github.probkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Readers that opened a version-2 Bloom file while no redo log existed, racing one-key adds that
 * write pages of it in place: a chunk changed after the reader read the checksums no longer matches
 * them, and such a reader must answer from verified bytes anyway, never with a checksum error, and
 * never answer absent a key whose add finished before its query began.
 */
class RedoLogReaderRaceTest {
  @TempDir Path dir;

  @Test
  void readersRacingInPlaceAddsNeverFailAndLoseNoKey() throws Exception {
    race("bloom");
  }

  @Test
  void readersRacingInPlaceAddsToABlockedFilterNeverFailAndLoseNoKey() throws Exception {
    race("blocked");
  }

  private void race(String type) throws Exception {
    List<String> words = new ArrayList<>();
    for (String w : new LinkedHashSet<>(Words.lines())) {
      if (!w.isEmpty() && !w.startsWith("-")) {
        words.add(w);
      }
    }
    Path file = dir.resolve("f.bin");
    Path initial = dir.resolve("initial.txt");
    Files.write(initial, words.subList(0, 20_000));
    // 73 chunks of 64 KiB: a one-key add changes at most 7 of them, in place.
    Cli.ok(
        "filter",
        "create",
        file.toString(),
        "--type",
        type,
        "--expected",
        "4000000",
        "--keys",
        initial.toString());
    Object inode = Files.getAttribute(file, "unix:ino");
    List<String> done = new CopyOnWriteArrayList<>(words.subList(0, 20_000));
    List<String> failures = Collections.synchronizedList(new ArrayList<>());
    AtomicBoolean writing = new AtomicBoolean(true);
    int[] queries = new int[3];

    Thread writer =
        new Thread(
            () -> {
              try {
                for (String k : words.subList(20_000, 20_150)) {
                  Cli c = Cli.run("filter", "add", file.toString(), k);
                  if (c.exit != 0) {
                    failures.add("add " + k + ": " + c);
                    return;
                  }
                  done.add(k);
                }
              } finally {
                writing.set(false);
              }
            });
    List<Thread> readers = new ArrayList<>();
    for (int r = 0; r < 3; r++) {
      int id = r;
      readers.add(
          new Thread(
              () -> {
                try {
                  Path keys = dir.resolve("query-" + id + ".txt");
                  while (writing.get()) {
                    // Every key whose add returned before this query: never absent.
                    List<String> before = new ArrayList<>(done);
                    Files.write(keys, before);
                    String[] args =
                        id == 2
                            ? new String[] {"filter", "info", file.toString(), "--verify"}
                            : new String[] {
                              "filter", "query", file.toString(), "--keys", keys.toString()
                            };
                    Cli c = Cli.run(args);
                    queries[id]++;
                    if (c.exit != 0 || !c.err.isEmpty()) {
                      failures.add(String.join(" ", args) + ": " + c.exit + " " + c.err);
                      return;
                    }
                    if (id == 2) {
                      continue;
                    }
                    Set<String> lines = new HashSet<>(List.of(c.out.split("\n")));
                    List<String> absent = new ArrayList<>();
                    for (String k : before) {
                      if (!lines.contains(k + "\tpresent")) {
                        absent.add(k);
                      }
                    }
                    if (!absent.isEmpty()) {
                      failures.add("added keys answered absent: " + absent);
                      return;
                    }
                  }
                } catch (Exception e) {
                  failures.add(e.toString());
                }
              }));
    }
    writer.start();
    readers.forEach(Thread::start);
    writer.join();
    for (Thread t : readers) {
      t.join();
    }
    assertThat(failures)
        .as("after %s queries", List.of(queries[0], queries[1], queries[2]))
        .isEmpty();
    assertThat(queries[0] + queries[1]).as("queries that raced the adds").isGreaterThan(5);
    assertThat(dir.resolve("f.bin.redo")).doesNotExist();
    assertThat(Files.getAttribute(file, "unix:ino")).as("every add was in place").isEqualTo(inode);
  }

  @Test
  void aCorruptChunkIsStillReportedWhetherTheFileMayBeLockedOrNot() throws Exception {
    List<String> words = new ArrayList<>(new LinkedHashSet<>(Words.lines())).subList(0, 5_000);
    Path file = dir.resolve("c.bin");
    Path keys = dir.resolve("keys.txt");
    Files.write(keys, words);
    Cli.ok("filter", "create", file.toString(), "--expected", "1000000", "--keys", keys.toString());
    byte[] bytes = Files.readAllBytes(file);
    bytes[bytes.length / 2] ^= 0x01; // a payload byte: its chunk's checksum no longer matches
    Files.write(file, bytes);
    for (String mode : List.of("rw-r--r--", "r--r--r--")) {
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(mode));
      for (String[] args :
          List.of(
              new String[] {"filter", "query", file.toString(), "--keys", keys.toString()},
              new String[] {"filter", "info", file.toString(), "--verify"})) {
        Cli c = Cli.run(args);
        assertThat(c.exit).as(mode + " " + c).isEqualTo(1);
        assertThat(c.err.strip().lines()).as(mode + " " + c).hasSize(1);
        assertThat(c.err).as(mode).contains("checksum mismatch").doesNotContain("Exception");
      }
    }
    assertThat(dir.resolve("c.bin.redo")).doesNotExist();
  }
}
