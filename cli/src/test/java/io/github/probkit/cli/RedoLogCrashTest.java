package io.github.probkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.filter.Filters;
import io.github.probkit.filter.MembershipFilter;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills (SIGKILL) a {@code filter add} that updates a version-2 Bloom file in place at each step of
 * its redo log protocol, then runs query, info and add as separate processes: every key added
 * before reads present, the killed add's keys all or none, no checksum error, no log left behind.
 */
class RedoLogCrashTest {
  /** The options of {@code filter create} beyond its size: the type whose adds are tested. */
  List<String> typeOptions() {
    return List.of();
  }

  /** The writer's steps, in order: where -Dprobkit.test.stopUpdate stops it. */
  private static final List<String> STEPS =
      List.of("log-entry", "log-written", "chunk-half", "chunk-written", "sums-written", "applied");

  /**
   * The starting file of each test class, by class: its bytes as {@code filter create} wrote them.
   */
  private static final Map<Class<?>, byte[]> STARTS = new ConcurrentHashMap<>();

  @TempDir Path dir;
  private Path file;
  private Path log;
  private final List<String> added = new ArrayList<>();
  private List<String> fresh;

  @BeforeEach
  void create() throws Exception {
    List<String> words = new ArrayList<>();
    for (String w : new LinkedHashSet<>(Words.lines())) {
      if (!w.isEmpty() && !w.startsWith("-")) {
        words.add(w);
      }
    }
    // 4.8 MB: 73 chunks, so that the few chunks a two-key add changes are updated in place.
    file = dir.resolve("f.bin");
    log = dir.resolve("f.bin.redo");
    added.addAll(words.subList(0, 20_000));
    fresh = new ArrayList<>(words.subList(20_000, words.size()));
    byte[] start = STARTS.get(getClass());
    if (start == null) {
      // Made by the command in a class's first test only: the adds are what the tests kill, and
      // the same keys and options give the same bytes, so the others start from a copy.
      Path keys = dir.resolve("initial.txt");
      Files.write(keys, added);
      List<String> create =
          new ArrayList<>(
              List.of(
                  "filter",
                  "create",
                  file.toString(),
                  "--expected",
                  "4000000",
                  "--keys",
                  keys.toString()));
      create.addAll(typeOptions());
      ok(run(create.toArray(new String[0])));
      start = Files.readAllBytes(file);
      STARTS.put(getClass(), start);
    } else {
      Files.write(file, start);
    }
    assertThat(start[4]).as("format version 2").isEqualTo((byte) 2);
  }

  @Test
  void killedAtEveryStepLosesNoKeyAndLeavesNothingBroken() throws Exception {
    List<String> nextCommand = List.of("query", "info", "add");
    for (int i = 0; i < STEPS.size(); i++) {
      String step = STEPS.get(i);
      List<String> two = twoAbsentKeys();
      String other = twoAbsentKeys().get(0); // read now: after the kill the file may be torn
      byte[] before = Files.readAllBytes(file);
      killAt(step, two);
      if (step.equals("chunk-written") || step.equals("sums-written")) {
        // The file is torn: only the log can make it whole.
        assertThat(Files.readAllBytes(file)).as(step).isNotEqualTo(before);
        assertThat(log).as(step).exists();
      }
      // The first process after the kill is each of query, info and add in turn.
      switch (nextCommand.get(i % 3)) {
        case "info" -> ok(run("filter", "info", file.toString()));
        case "add" -> {
          ok(run("filter", "add", file.toString(), other));
          added.add(other);
        }
        default -> ok(run(queryArgs(two)));
      }
      assertThat(log).as(step + ": the log was dealt with").doesNotExist();
      Probkit.Result q = run(queryArgs(two));
      ok(q);
      // The killed add: wholly there or wholly absent; there once its log was complete.
      boolean wanted = !step.equals("log-entry");
      for (String k : two) {
        assertThat(q.out()).as(step).contains(k + "\t" + (wanted ? "present" : "absent") + "\n");
      }
      if (wanted) {
        added.addAll(two);
      }
      assertNoFalseNegative(q, step);
      ok(run("filter", "info", file.toString()));
      assertWholeFileReads(step);
    }
    // And an add that is not stopped, read the same ways.
    List<String> last = twoAbsentKeys();
    ok(run(addArgs(last)));
    added.addAll(last);
    assertThat(log).doesNotExist();
    assertNoFalseNegative(run(queryArgs(List.of())), "after a clean add");
    assertWholeFileReads("after a clean add");
  }

  @Test
  void aFlippedByteInTheLogIsNeverApplied() throws Exception {
    List<String> two = twoAbsentKeys();
    byte[] before = Files.readAllBytes(file);
    killAt("log-written", two);
    byte[] bytes = Files.readAllBytes(log);
    bytes[bytes.length / 3] ^= 0x10;
    Files.write(log, bytes);
    Probkit.Result q = run(queryArgs(two));
    ok(q);
    for (String k : two) {
      assertThat(q.out()).contains(k + "\tabsent\n");
    }
    assertThat(log).doesNotExist();
    assertThat(Files.readAllBytes(file)).isEqualTo(before);
    assertNoFalseNegative(q, "flipped log");
  }

  @Test
  void racingWritersLoseNoKey() throws Exception {
    List<Process> writers = new ArrayList<>();
    List<List<String>> theirs = new ArrayList<>();
    for (int w = 0; w < 4; w++) {
      List<String> three = new ArrayList<>(twoAbsentKeys());
      three.add(twoAbsentKeys().get(0));
      theirs.add(three);
      writers.add(Probkit.builder(List.of(), addArgs(three)).start());
    }
    // Readers at the same time, of the keys added before: never absent.
    Probkit.Result during =
        Probkit.finish(Probkit.builder(List.of(), queryArgs(List.of())).start());
    for (int w = 0; w < writers.size(); w++) {
      ok(Probkit.finish(writers.get(w)));
      added.addAll(theirs.get(w));
    }
    ok(during);
    assertNoFalseNegativeAmong(during, added.subList(0, 20_000), "while writers raced");
    assertThat(log).doesNotExist();
    assertNoFalseNegative(run(queryArgs(List.of())), "after racing writers");
    assertWholeFileReads("after racing writers");
  }

  @Test
  void aReaderThatMayNotWriteTheFileRefusesItWhileTorn() throws Exception {
    List<String> two = twoAbsentKeys();
    killAt("chunk-written", two);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("r--r--r--"));
    Probkit.Result refused = run(queryArgs(two));
    assertThat(refused.exit()).as(refused.toString()).isEqualTo(1);
    assertThat(refused.out()).isEmpty();
    assertThat(refused.err().strip().lines()).as(refused.toString()).hasSize(1);
    assertThat(refused.err()).contains("f.bin.redo").contains("is read-only");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
    Probkit.Result q = run(queryArgs(two));
    ok(q);
    added.addAll(two);
    assertNoFalseNegative(q, "once writable");
    assertThat(log).doesNotExist();
  }

  /** Starts an add of {@code keys} that stops at {@code step}, and kills it there. */
  private void killAt(String step, List<String> keys) throws Exception {
    Path marker = dir.resolve("reached-" + step);
    Process p =
        Probkit.builder(List.of("-Dprobkit.test.stopUpdate=" + step + "," + marker), addArgs(keys))
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("killed.log").toFile())
            .start();
    Probkit.awaitMarker(
        p,
        marker,
        Duration.ofSeconds(60),
        20,
        () -> step + " not reached: " + Files.readString(dir.resolve("killed.log")),
        step + " not reached in time");
    p.destroyForcibly(); // SIGKILL
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
  }

  /** Two dictionary words the filter answers absent for now (its false positives skipped). */
  private List<String> twoAbsentKeys() throws Exception {
    List<String> two = new ArrayList<>();
    try (InputStream in = Files.newInputStream(file)) {
      MembershipFilter f = Filters.readFrom(in);
      while (two.size() < 2) {
        String k = fresh.remove(0);
        if (!f.mightContain(k.getBytes(StandardCharsets.UTF_8))) {
          two.add(k);
        }
      }
    }
    return two;
  }

  private String[] addArgs(List<String> keys) {
    List<String> a = new ArrayList<>(List.of("filter", "add", file.toString()));
    a.addAll(keys);
    return a.toArray(new String[0]);
  }

  /** A query of every key added so far, then of {@code extra}. */
  private String[] queryArgs(List<String> extra) throws IOException {
    Path keys = dir.resolve("query.txt");
    List<String> all = new ArrayList<>(added);
    all.addAll(extra);
    Files.write(keys, all);
    return new String[] {"filter", "query", file.toString(), "--keys", keys.toString()};
  }

  private void assertNoFalseNegative(Probkit.Result q, String when) {
    assertNoFalseNegativeAmong(q, added, when);
  }

  private static void assertNoFalseNegativeAmong(Probkit.Result q, List<String> keys, String when) {
    // The answers parsed once: searching the whole output (decoded afresh) for each of 20,000 keys
    // cost this class minutes of CPU.
    Set<String> present = new HashSet<>();
    q.out()
        .lines()
        .filter(line -> line.endsWith("\tpresent"))
        .forEach(line -> present.add(line.substring(0, line.length() - "\tpresent".length())));
    List<String> absent = new ArrayList<>();
    for (String k : keys) {
      if (!present.contains(k)) {
        absent.add(k);
      }
    }
    assertThat(absent).as(when + ": added keys not answered present").isEmpty();
  }

  /** Every chunk's checksum (a whole read checks them all) and every added key, in this JVM. */
  private void assertWholeFileReads(String when) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      MembershipFilter f = Filters.readFrom(in);
      for (String k : added) {
        assertThat(f.mightContain(k.getBytes(StandardCharsets.UTF_8))).as(when + ": " + k).isTrue();
      }
    }
  }

  private static Probkit.Result run(String... args) throws Exception {
    return Probkit.run(args);
  }

  private static void ok(Probkit.Result r) {
    assertThat(r.exit()).as(r.toString()).isZero();
    assertThat(r.err()).as(r.toString()).doesNotContain("checksum").doesNotContain("Exception");
  }
}
