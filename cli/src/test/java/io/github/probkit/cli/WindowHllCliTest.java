package io.github.probkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code hll create --window --slice}, {@code hll add --time-field} and {@code hll count --last
 * --at} against exact distinct counts of the same slices, over real words with repeats, added by
 * separate commands; a window longer than the file's, or a damaged file, refused in one line.
 */
class WindowHllCliTest {
  private static final long HOUR = 3_600_000L;

  /** p = 14: 1.04 / sqrt(2^14). */
  private static final double RSE = 1.04 / 128;

  @TempDir Path dir;

  private static Cli ok(Cli r) {
    assertThat(r.exit).as(r.toString()).isZero();
    return r;
  }

  @Test
  void aWindowedCountIsTheExactDistinctCountOfItsSlicesWithinTheSketchError() throws IOException {
    List<String> words = WindowFilterCliTest.words();
    long start = Instant.parse("2025-12-01T00:00:00Z").toEpochMilli();
    int n = 60_000;
    SplittableRandom r = new SplittableRandom(0x4c4cL);
    String[] item = new String[n];
    long[] time = new long[n];
    long clock = start;
    for (int i = 0; i < n; i++) {
      // About 20,000 events a day over 3 days, up to 10 minutes late; a third repeat a recent word.
      clock += r.nextInt(8640);
      time[i] = clock - (r.nextInt(8) == 0 ? r.nextInt(600_000) : 0);
      item[i] = i > 100 && r.nextInt(3) == 0 ? item[i - 1 - r.nextInt(100)] : words.get(i % 90_000);
    }
    Path visitors = dir.resolve("visitors.hll");
    ok(Cli.run("hll", "create", visitors.toString(), "--window", "24h", "--slice", "1h"));
    int parts = 3;
    for (int p = 0; p < parts; p++) {
      StringBuilder in = new StringBuilder();
      for (int i = p * n / parts; i < (p + 1) * n / parts; i++) {
        String t = p == 1 ? Instant.ofEpochMilli(time[i]).toString() : Long.toString(time[i]);
        in.append(item[i]).append('\t').append(t).append('\n');
      }
      ok(
          Cli.runWithInput(
              in.toString(),
              "hll",
              "add",
              visitors.toString(),
              "--time-field",
              "2",
              "--field",
              "1"));
    }
    long end = clock;
    long[][] checks = {
      {end, 24}, {end, 6}, {end, 1}, {end - 5 * HOUR, 12}, {end - 2 * HOUR, 20},
    };
    for (long[] c : checks) {
      long at = c[0];
      long fromSlice = Math.floorDiv(at - c[1] * HOUR, HOUR);
      long toSlice = Math.floorDiv(at, HOUR);
      Set<String> exact = new HashSet<>();
      for (int i = 0; i < n; i++) {
        long s = Math.floorDiv(time[i], HOUR);
        if (s >= fromSlice && s <= toSlice) {
          exact.add(item[i]);
        }
      }
      Cli count =
          ok(
              Cli.run(
                  "hll",
                  "count",
                  visitors.toString(),
                  "--last",
                  c[1] + "h",
                  "--at",
                  Instant.ofEpochMilli(at).toString()));
      long estimate = Long.parseLong(count.out.strip());
      assertThat((double) estimate)
          .as("last %dh at %s: %d distinct", c[1], Instant.ofEpochMilli(at), exact.size())
          .isCloseTo(exact.size(), org.assertj.core.data.Offset.offset(4 * RSE * exact.size()));
    }
    // Now, a year after the log, its window holds nothing.
    assertThat(ok(Cli.run("hll", "count", visitors.toString(), "--last", "24h")).out.strip())
        .isEqualTo("0");
    Cli info = ok(Cli.run("info", visitors.toString()));
    assertThat(info.out)
        .contains("window:                1d")
        .contains("slices:                25");
  }

  @Test
  void windowsTheFileDoesNotHaveAndDamagedFilesAreOneLine() throws IOException {
    Path w = dir.resolve("w.hll");
    Path plain = dir.resolve("p.hll");
    ok(
        Cli.runWithInput(
            "a\nb\n", "hll", "create", w.toString(), "--window", "2h", "--slice", "10m"));
    ok(Cli.runWithInput("a\nb\n", "hll", "create", plain.toString()));
    String[][] usage = {
      {"hll", "count", w.toString(), "--last", "3h"},
      {"hll", "count", w.toString(), "--last", "0"},
      {"hll", "count", w.toString(), "--last", "7x"},
      {"hll", "count", plain.toString(), "--last", "1h"},
      {"hll", "create", dir.resolve("x.hll").toString(), "--window", "0"},
      {"hll", "create", dir.resolve("x.hll").toString(), "--window", "1h", "--slice", "2h"},
      {"hll", "create", dir.resolve("x.hll").toString(), "--slice", "2h"},
      {"hll", "add", plain.toString(), "--time-field", "1", "--field", "2", "--items", "-"},
    };
    for (String[] args : usage) {
      Cli r = Cli.runWithInput("1764633600\tk\n", args);
      assertThat(r.exit).as(String.join(" ", args) + ": " + r).isEqualTo(2);
      assertThat(r.err.strip().lines()).as(r.toString()).hasSize(1);
      assertThat(r.err).doesNotContain("Exception");
    }
    assertThat(Cli.run("hll", "count", w.toString(), "--last", "3h").err)
        .contains("--last 3h")
        .contains("2h");
    Cli late =
        Cli.runWithInput(
            "k\t1764633600\nj\tyesterday\n",
            "hll",
            "add",
            w.toString(),
            "--time-field",
            "2",
            "--field",
            "1");
    assertThat(late.exit).isEqualTo(1);
    assertThat(late.err).contains("line 2").contains("'yesterday'");

    WindowCmsCliTest.assertFlippedBytesRefused(
        w, dir, ".hll", d -> new String[][] {{"hll", "count", d}, {"info", d}});
  }
}
