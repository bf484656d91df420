package io.github.probkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.cardinality.HyperLogLog;
import io.github.probkit.filter.BloomFilter;
import io.github.probkit.frequency.CountMinSketch;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.GZIPOutputStream;
import org.assertj.core.data.Percentage;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills real probkit processes with SIGKILL in the middle of rewriting a file and checks that the
 * file is always either the complete old version or the complete new one; and asks for structures
 * larger than the heap, which must be refused at once with what they would need.
 */
class CrashSafetyTest {
  private static final int KEYS = 300_000;
  private static final String LAST_KEY = "user:" + (KEYS - 1);

  /** Kill moments from just after the JVM starts to well into reading the keys. */
  private static final long[] DELAYS_MILLIS = {150, 500};

  @TempDir static Path shared;
  @TempDir Path dir;
  private static Path keys;

  @BeforeAll
  static void writeKeys() throws IOException {
    keys = shared.resolve("keys.txt");
    try (BufferedWriter w = Files.newBufferedWriter(keys)) {
      for (int i = 0; i < KEYS; i++) {
        w.write("user:" + i);
        w.newLine();
      }
    }
  }

  private Process start(String... args) throws IOException {
    return Probkit.builder(List.of(), args)
        .redirectErrorStream(true)
        .redirectOutput(dir.resolve("out.log").toFile())
        .start();
  }

  /**
   * Reads the file and checks what the old version holds, and the new one too when {@code updated}.
   */
  @FunctionalInterface
  private interface Check {
    void verify(Path file, boolean updated) throws IOException;
  }

  /** A structure's {@code readFrom}. */
  @FunctionalInterface
  private interface Reader<T> {
    T readFrom(InputStream in) throws IOException;
  }

  private static <T> T read(Path file, Reader<T> reader) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      return reader.readFrom(in);
    }
  }

  /** {@code filter create file --expected expected --fpp 0.01}, then {@code more} arguments. */
  private static Cli createFilter(Path file, String expected, String... more) {
    List<String> args =
        new ArrayList<>(
            List.of("filter", "create", file.toString(), "--expected", expected, "--fpp", "0.01"));
    args.addAll(List.of(more));
    return Cli.run(args.toArray(String[]::new));
  }

  /**
   * Runs {@code probkit args} (which rewrite {@code file} with the keys file's 300,000 keys) and
   * kills it with SIGKILL after each of {@link #DELAYS_MILLIS}, then once while it writes the new
   * version, then lets it finish; after each run the file must read, and be either the old bytes or
   * a complete new version, as {@code check} verifies.
   */
  private void killWhileRewriting(Path file, Check check, String... args) throws Exception {
    killWhileRewriting(file, true, check, args);
  }

  /**
   * As {@link #killWhileRewriting(Path, Check, String...)}; when not {@code mustCatchTheWrite}, the
   * new version may be written too fast for the kill on its temporary file to land in time.
   */
  private void killWhileRewriting(Path file, boolean mustCatchTheWrite, Check check, String... args)
      throws Exception {
    byte[] old = Files.readAllBytes(file);
    int killedMidway = 0;
    boolean killedWriting = false;
    boolean completed = false;
    for (int run = 0; run < DELAYS_MILLIS.length + 2; run++) {
      Process p = start(args);
      boolean finished;
      if (run < DELAYS_MILLIS.length) {
        finished = p.waitFor(DELAYS_MILLIS[run], TimeUnit.MILLISECONDS);
      } else if (run == DELAYS_MILLIS.length) {
        // Killed the moment its temporary file appears: while the new version is being written,
        // the window a fixed delay is least likely to hit.
        finished = !awaitTemporaryFile(file, p);
        killedWriting = !finished;
      } else {
        // And one run to the end, whose new version must be complete.
        finished = p.waitFor(60, TimeUnit.SECONDS);
        completed = finished;
      }
      if (!finished) {
        p.destroyForcibly(); // SIGKILL on Unix
        p.waitFor(10, TimeUnit.SECONDS);
        killedMidway++;
      }
      byte[] now = Files.readAllBytes(file);
      if (run == DELAYS_MILLIS.length && killedWriting) {
        assertThat(now).as("killed while writing the temporary file").isEqualTo(old);
      }
      if (finished) {
        assertThat(p.exitValue()).as(Files.readString(dir.resolve("out.log"))).isZero();
      }
      // Killed: either the rename had not happened (old bytes) or it had (a complete new file);
      // never half a file, so reading must not throw.
      check.verify(file, !Arrays.equals(now, old));
      if (finished) {
        assertThat(now).as("a finished run rewrote the file").isNotEqualTo(old);
      }
      // Restore the starting point so each kill hits a rewrite. A kill after the temporary file was
      // created leaves it behind (hidden, beside the file); it is never read, but the poll above
      // must not mistake it for the next run's.
      Files.write(file, old);
      try (Stream<Path> files = Files.list(file.getParent())) {
        for (Path f : (Iterable<Path>) files::iterator) {
          if (f.getFileName().toString().startsWith("." + file.getFileName() + ".")) {
            Files.delete(f);
          }
        }
      }
    }
    assertThat(killedMidway).as("at least one process was killed before it finished").isPositive();
    if (mustCatchTheWrite) {
      assertThat(killedWriting).as("a process was killed while writing the new version").isTrue();
    }
    assertThat(completed).as("the last run finished").isTrue();
  }

  /**
   * Polls for the temporary file of a rewrite of {@code file}; false when {@code p} ended first.
   */
  private static boolean awaitTemporaryFile(Path file, Process p)
      throws IOException, InterruptedException {
    String prefix = "." + file.getFileName() + ".probkit-";
    while (p.isAlive()) {
      try (Stream<Path> files = Files.list(file.getParent())) {
        if (files.anyMatch(f -> f.getFileName().toString().startsWith(prefix))) {
          return true;
        }
      }
      Thread.sleep(1);
    }
    return false;
  }

  @Test
  void sigkillDuringFilterAddLeavesTheOldOrTheNewFile() throws Exception {
    Path filter = dir.resolve("f.bin");
    assertThat(createFilter(filter, "2000000", "old-key").exit)
        .isNotZero(); // create takes no key arguments
    assertThat(createFilter(filter, "20000000").exit).isZero();
    Cli.run("filter", "add", filter.toString(), "old-key");
    killWhileRewriting(
        filter,
        (file, updated) -> {
          BloomFilter f = read(file, BloomFilter::readFrom);
          assertThat(f.mightContain("old-key")).isTrue();
          if (updated) {
            assertThat(f.mightContain(LAST_KEY)).isTrue();
          }
        },
        "filter",
        "add",
        filter.toString(),
        "--keys",
        keys.toString());
  }

  /**
   * SIGKILL at a known moment instead of a race: the writer pauses once the first MiB of the new
   * version is in its temporary file (the test hook {@code probkit.test.pauseWrite}), is killed
   * there, and the filter must be exactly the old bytes; the next write then succeeds.
   */
  @Test
  void sigkillWhilePausedInTheWriteLeavesTheOldBytes() throws Exception {
    Path filter = dir.resolve("paused.bin");
    assertThat(createFilter(filter, "2000000").exit).isZero();
    assertThat(Cli.run("filter", "add", filter.toString(), "old-key").exit).isZero();
    byte[] old = Files.readAllBytes(filter);
    Path marker = dir.resolve("paused");
    // From a keys file: a key given as an argument is written in place (RedoLogCrashTest), and
    // this is the test of the whole rewrite.
    Path newKey = dir.resolve("new-key.txt");
    Files.writeString(newKey, "new-key\n");
    Process p =
        Probkit.builder(
                List.of("-Dprobkit.test.pauseWrite=" + marker),
                "filter",
                "add",
                filter.toString(),
                "--keys",
                newKey.toString())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("paused.log").toFile())
            .start();
    Probkit.awaitMarker(
        p,
        marker,
        Duration.ofMinutes(2),
        5,
        () -> "the writer ended before it paused: " + Files.readString(dir.resolve("paused.log")),
        "paused within 2 minutes");
    p.destroyForcibly(); // SIGKILL on Unix
    assertThat(p.waitFor(1, TimeUnit.MINUTES)).isTrue();
    assertThat(Files.readAllBytes(filter)).as("the old version, byte for byte").isEqualTo(old);
    assertThat(Cli.run("filter", "add", filter.toString(), "new-key").exit).isZero();
    BloomFilter f = read(filter, BloomFilter::readFrom);
    assertThat(f.mightContain("old-key")).isTrue();
    assertThat(f.mightContain("new-key")).isTrue();
  }

  @Test
  void sigkillDuringCmsAddLeavesTheOldOrTheNewFile() throws Exception {
    Path sketch = dir.resolve("s.cms");
    assertThat(
            Cli.run("cms", "create", sketch.toString(), "--epsilon", "0.00001", "--delta", "0.001")
                .exit)
        .isZero();
    assertThat(Cli.run("cms", "add", sketch.toString(), "old-item", "old-item").exit).isZero();
    killWhileRewriting(
        sketch,
        (file, updated) -> {
          CountMinSketch s = read(file, CountMinSketch::readFrom);
          assertThat(s.estimate("old-item")).isGreaterThanOrEqualTo(2);
          // The old file or all of the new one: no count of a half-finished add.
          assertThat(s.totalCount()).isEqualTo(updated ? 2 + KEYS : 2);
          if (updated) {
            assertThat(s.estimate(LAST_KEY)).isGreaterThanOrEqualTo(1);
          }
        },
        "cms",
        "add",
        sketch.toString(),
        "--items",
        keys.toString());
  }

  @Test
  void sigkillDuringHllAddLeavesTheOldOrTheNewFile() throws Exception {
    Path sketch = dir.resolve("v.hll");
    assertThat(Cli.run("hll", "create", sketch.toString(), "--precision", "18").exit).isZero();
    assertThat(Cli.run("hll", "add", sketch.toString(), "old-1", "old-2", "old-3").exit).isZero();
    // 192 KiB are written in a few milliseconds: the kill on the temporary file may come too late
    // (the filter and count-min runs, through the same SketchFiles.write, always catch it).
    killWhileRewriting(
        sketch,
        false,
        (file, updated) -> {
          HyperLogLog s = read(file, HyperLogLog::readFrom);
          // At precision 18 small counts are all but exact (linear counting over 262,144
          // registers).
          assertThat(s.estimate())
              .isCloseTo(updated ? 3 + KEYS : 3, Percentage.withPercentage(updated ? 1 : 10));
        },
        "hll",
        "add",
        sketch.toString(),
        "--items",
        keys.toString());
  }

  @Test
  void runningOutOfHeapIsOneLineAndLeavesTheFile() throws Exception {
    // A 48 MiB line (gzipped to 48 KiB) in a JVM of 32 MiB: the line buffer cannot grow to hold it.
    Path filter = dir.resolve("f.bin");
    assertThat(createFilter(filter, "100").exit).isZero();
    byte[] before = Files.readAllBytes(filter);
    Path line = dir.resolve("line.gz");
    try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(line))) {
      byte[] chunk = new byte[1 << 20];
      Arrays.fill(chunk, (byte) 'x');
      for (int i = 0; i < 48; i++) {
        out.write(chunk);
      }
    }
    Process p =
        Probkit.builder(
                List.of("-Xmx32m"), "filter", "add", filter.toString(), "--keys", line.toString())
            .redirectErrorStream(true)
            .start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(out).isEqualTo("probkit: out of memory (raise the heap with JAVA_OPTS=-Xmx...)\n");
    assertThat(p.exitValue()).isEqualTo(Main.EXIT_RUNTIME);
    assertThat(Files.readAllBytes(filter)).isEqualTo(before);
  }

  /**
   * A write removes the temporary files that killed writes left behind in its directory (unlocked),
   * whatever their target and however recent, and nothing else: not one a live writer (another
   * process: a child holds the lock) has locked, not a file that only looks similar.
   */
  @Test
  void aWriteRemovesTemporaryFilesThatKilledWritesLeftBehind() throws Exception {
    Path stale = dir.resolve(".t.bin.probkit-abc123.tmp");
    Path otherTarget = dir.resolve(".u.bin.probkit-def456.tmp");
    Path locked = dir.resolve(".t.bin.probkit-ghi789.tmp");
    Path lookalike = dir.resolve(".t.bin.probkit-notes.txt");
    Path otherTool = dir.resolve(".t.bin.abc123.tmp");
    Path lockFile = dir.resolve(".t.bin.lock");
    for (Path p : new Path[] {stale, otherTarget, locked, lookalike, otherTool, lockFile}) {
      Files.write(p, new byte[] {1, 2, 3});
    }
    // flock(1) would take another kind of lock; a JVM takes the kind probkit tests for.
    Process holder =
        new ProcessBuilder(
                Probkit.java(),
                "-cp",
                System.getProperty("java.class.path"),
                LockHolder.class.getName(),
                locked.toString())
            .redirectErrorStream(true)
            .start();
    try {
      assertThat(new String(holder.getInputStream().readNBytes(7), StandardCharsets.US_ASCII))
          .isEqualTo("locked\n");
      Cli c = createFilter(dir.resolve("t.bin"), "100");
      assertThat(c.exit).as(c.toString()).isZero();
    } finally {
      holder.destroyForcibly().waitFor();
    }
    assertThat(stale).doesNotExist();
    assertThat(otherTarget).doesNotExist();
    assertThat(locked).exists();
    assertThat(lookalike).exists();
    assertThat(otherTool).exists();
    assertThat(lockFile).exists();
    assertThat(dir.resolve("t.bin")).exists();
  }

  /** Holds a lock on the file named by its argument until killed; says "locked" once it has it. */
  static final class LockHolder {
    public static void main(String[] args) throws Exception {
      try (java.nio.channels.FileChannel ch =
              java.nio.channels.FileChannel.open(
                  Path.of(args[0]), java.nio.file.StandardOpenOption.WRITE);
          java.nio.channels.FileLock lock = ch.lock()) {
        System.out.println("locked");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
      }
    }
  }

  @Test
  void rewritingAFileKeepsItsPermissions() throws IOException {
    Path filter = dir.resolve("p.bin");
    assertThat(createFilter(filter, "100").exit).isZero();
    // A new file gets the permissions the umask gives any new file (not owner-only).
    Path plain = Files.createFile(dir.resolve("plain"));
    assertThat(Files.getPosixFilePermissions(filter))
        .isEqualTo(Files.getPosixFilePermissions(plain));
    // A rewritten file keeps its own.
    Set<PosixFilePermission> shared = PosixFilePermissions.fromString("rw-r-----");
    Files.setPosixFilePermissions(filter, shared);
    assertThat(Cli.run("filter", "add", filter.toString(), "k").exit).isZero();
    assertThat(Cli.run("filter", "query", filter.toString(), "k").out).isEqualTo("k\tpresent\n");
    assertThat(Files.getPosixFilePermissions(filter)).isEqualTo(shared);
  }

  @Test
  void structuresBeyondTheHeapFailFastSayingWhatTheyNeed() {
    String x = dir.resolve("x.bin").toString();
    Cli r = Cli.run("filter", "create", x, "--expected", "10000000000", "--fpp", "0.01");
    assertThat(r.exit).isEqualTo(2);
    assertThat(r.err)
        .startsWith("probkit: a Bloom filter of 95850583774 bits needs 11.2 GiB, more than")
        .contains("maximum heap");
    Cli beyond = Cli.run("filter", "create", x, "--expected", "100000000000", "--fpp", "0.001");
    assertThat(beyond.err)
        .isEqualTo(
            "probkit: 100000000000 keys at fpp 0.001 need 1437758756606 bits"
                + " (167.4 GiB), more than the maximum of 137438952896 bits (16.0 GiB)\n");
    // Every other command that creates a structure; the sizes are those of core's LimitsTest.
    String[][] tooLarge = {
      {"filter", "create", x, "--type", "counting", "--expected", "2000000000", "--fpp", "0.01"},
      {"filter", "create", x, "--type", "cuckoo", "--expected", "3000000000", "--fpp", "0.000001"},
      {"filter", "create", x, "--type", "scalable", "--expected", "10000000000", "--fpp", "0.01"},
      {"filter", "create", x, "--type", "blocked", "--expected", "10000000000", "--fpp", "0.01"},
      {"cms", "create", x, "--epsilon", "0.000000002", "--delta", "0.5"},
      {"cms", "create", x, "--width", "2147483639", "--depth", "1"},
      {"top", "--capacity", "268435456", dir.resolve("none.txt").toString()},
    };
    String[] needs = {
      "a counting Bloom filter of 19170116755 counters needs 8.9 GiB",
      "a cuckoo filter of 833419936 buckets needs 8.9 GiB",
      "layer 0 of a scalable Bloom filter (112470475274 bits) needs 13.1 GiB",
      "a blocked Bloom filter of ",
      "a count-min sketch of 1 x 1359140915 counters needs 10.1 GiB",
      "a count-min sketch of 1 x 2147483639 counters needs 16.0 GiB",
      "a heavy-hitters summary of capacity 268435456 needs 23.0 GiB",
    };
    for (int i = 0; i < tooLarge.length; i++) {
      Cli c = Cli.run(tooLarge[i]);
      assertThat(c.exit).as(c.toString()).isEqualTo(2);
      assertThat(c.err)
          .as(String.join(" ", tooLarge[i]))
          .startsWith("probkit: " + needs[i])
          .contains(", more than this JVM's maximum heap of ")
          .endsWith(" (raise it with -Xmx)\n")
          .hasLineCount(1);
    }
    assertThat(Files.exists(Path.of(x))).isFalse();
  }
}
