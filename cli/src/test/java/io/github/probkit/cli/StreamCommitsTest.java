package io.github.probkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.cardinality.HyperLogLog;
import io.github.probkit.cli.location.SketchFiles;
import io.github.probkit.cli.location.StreamCommits;
import io.github.probkit.filter.Filters;
import io.github.probkit.filter.MembershipFilter;
import io.github.probkit.frequency.CountMinSketch;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code tail -f app.log | probkit filter add seen.bin}: an add fed by a pipe that stays open
 * commits what it has read every few seconds, and once more when it is stopped by a signal. Each
 * add runs as a separate process whose standard input is a pipe this test holds open.
 */
class StreamCommitsTest {
  @TempDir Path dir;

  private static Process adding(String... args) throws IOException {
    return Probkit.builder(List.of(), args)
        .redirectInput(ProcessBuilder.Redirect.PIPE)
        .redirectErrorStream(true)
        .start();
  }

  private static void feed(Process p, String prefix, int n) throws IOException {
    OutputStream in = p.getOutputStream();
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < n; i++) {
      s.append(prefix).append(i).append('\n');
    }
    in.write(s.toString().getBytes(StandardCharsets.UTF_8));
    in.flush();
  }

  private static void terminate(Process p) throws Exception {
    stop(p, "TERM");
  }

  private static void stop(Process p, String signal) throws Exception {
    assertThat(new ProcessBuilder("kill", "-s", signal, Long.toString(p.pid())).start().waitFor())
        .isZero();
    assertThat(p.waitFor(1, TimeUnit.MINUTES)).isTrue();
  }

  private static int absent(Path file, String prefix, int n) {
    MembershipFilter f = SketchFiles.read(file, Filters::readFrom);
    int a = 0;
    for (int i = 0; i < n; i++) {
      a += f.mightContain(prefix + i) ? 0 : 1;
    }
    return a;
  }

  /**
   * Gives a running add, which has committed once already (so it is up and reading), the time to
   * read what was just fed: milliseconds for a few thousand lines.
   */
  private static void settle() throws Exception {
    Thread.sleep(1500);
  }

  /**
   * Waits until the periodic commit has changed {@code f} from {@code before}, while {@code p}
   * runs.
   */
  private static void awaitCommit(Process p, Path f, byte[] before) throws Exception {
    long deadline =
        System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(3 * StreamCommits.INTERVAL_MILLIS);
    while (java.util.Arrays.equals(Files.readAllBytes(f), before)) {
      assertThat(p.isAlive()).as("still reading").isTrue();
      assertThat(System.nanoTime())
          .as("the items fed were committed while the pipe is open")
          .isLessThan(deadline);
      Thread.sleep(100);
    }
  }

  /**
   * While the pipe is still open, the keys fed so far reach the file within an interval or two;
   * SIGTERM (SIGINT, SIGHUP) then writes the keys read after the last commit too, and the exit is
   * 143 (130, 129).
   */
  @ParameterizedTest
  @CsvSource({"stdin, TERM, 143", "--keys -, INT, 130", "stdin, HUP, 129"})
  void aPipeThatStaysOpenIsCommittedPeriodicallyAndWhenStopped(String from, String signal, int exit)
      throws Exception {
    Path f = dir.resolve("seen.bin");
    Cli c = Cli.run("filter", "create", f.toString(), "--expected", "100000", "--fpp", "0.01");
    assertThat(c.exit).as(c.toString()).isZero();
    Process p =
        from.equals("stdin")
            ? adding("filter", "add", f.toString())
            : adding("filter", "add", f.toString(), "--keys", "-");
    try {
      feed(p, "early", 1000);
      long deadline =
          System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(3 * StreamCommits.INTERVAL_MILLIS);
      while (absent(f, "early", 1000) > 0) {
        assertThat(p.isAlive()).as("still reading").isTrue();
        assertThat(System.nanoTime())
            .as("the keys fed were committed while the pipe is open")
            .isLessThan(deadline);
        Thread.sleep(100);
      }
      feed(p, "late", 1000);
      settle();
      stop(p, signal);
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.exitValue()).as(out).isEqualTo(exit);
      assertThat(out).isEqualTo("probkit: " + f + ": stopped; the keys read so far are written\n");
      assertThat(absent(f, "early", 1000)).isZero();
      assertThat(absent(f, "late", 1000)).as("keys read before the signal").isZero();
      try (Stream<Path> s = Files.list(dir)) {
        assertThat(s.map(x -> x.getFileName().toString()))
            .containsExactlyInAnyOrder("seen.bin", ".seen.bin.lock");
      }
    } finally {
      p.destroyForcibly();
    }
  }

  /** {@code cms add} and {@code hll add}: SIGTERM writes every item read, counted once. */
  @ParameterizedTest
  @ValueSource(strings = {"cms", "hll"})
  void sketchesFedByAPipeKeepWhatWasReadWhenStopped(String kind) throws Exception {
    Path f = dir.resolve("s." + kind);
    Cli c =
        kind.equals("cms")
            ? Cli.run("cms", "create", f.toString(), "--width", "1000", "--depth", "4")
            : Cli.run("hll", "create", f.toString());
    assertThat(c.exit).as(c.toString()).isZero();
    byte[] empty = Files.readAllBytes(f);
    Process p = adding(kind, "add", f.toString());
    try {
      feed(p, "first", 1);
      awaitCommit(p, f, empty);
      feed(p, "item", 5000);
      settle();
      terminate(p);
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.exitValue()).as(out).isEqualTo(143);
    } finally {
      p.destroyForcibly();
    }
    if (kind.equals("cms")) {
      CountMinSketch s = SketchFiles.read(f, CountMinSketch::readFrom);
      assertThat(s.totalCount()).isEqualTo(5001);
      assertThat(s.estimate("item42")).isGreaterThanOrEqualTo(1);
    } else {
      HyperLogLog expected = HyperLogLog.create(14);
      expected.add("first0");
      for (int i = 0; i < 5000; i++) {
        expected.add("item" + i);
      }
      HyperLogLog h = SketchFiles.read(f, HyperLogLog::readFrom);
      assertThat(h.registers()).isEqualTo(expected.registers());
    }
  }
}
