package io.github.probkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.filter.AgePartitionedBloomFilter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code filter create --type window}, {@code filter add --time-field}, {@code filter query --at}
 * and {@code info} of window filters, over distinct real words added in separate commands over
 * simulated time: no key of the window absent, expired keys and never-added ones present no more
 * often than the rate allows, a damaged file refused.
 */
class WindowFilterCliTest {
  private static final double FPP = 0.01;
  private static final long DAY = 86_400_000L;

  @TempDir Path dir;

  static List<String> words() throws IOException {
    List<String> w = new ArrayList<>();
    for (String s : Words.lines()) {
      if (!s.isEmpty() && s.indexOf('\t') < 0 && s.indexOf(',') < 0) {
        w.add(s);
      }
    }
    // The list repeats a word in other cases only; distinct lines are distinct keys.
    Collections.shuffle(w, new Random(0x77696eL));
    return w;
  }

  private static Cli ok(Cli r) {
    assertThat(r.exit).as(r.toString()).isZero();
    return r;
  }

  private static int lines(String out) {
    return out.isBlank() ? 0 : out.split("\n").length;
  }

  /** Keys at most {@code p} * n + 6 sd of Binomial(n, p) + 1 present. */
  private static void assertAtMostRate(int present, int n) {
    Rates.assertAtMostRate(present, n, FPP, "keys present");
  }

  /**
   * 20 days of words, 1,200 a day at random times, added by 10 {@code filter add}s of 2 days each
   * with the time in field 1 (epoch ms, epoch seconds and ISO-8601 in turn); then queried at the
   * end of the last day and of the days after it (the window slides on without adds): every word of
   * the 7 days before is present.
   */
  @Test
  void aTimeWindowReportsNoKeyOfTheWindowAbsentAcrossSeparateAdds() throws IOException {
    List<String> words = words();
    int perDay = 1200;
    int days = 20;
    long start = Instant.parse("2025-11-01T00:00:00Z").toEpochMilli();
    Path seen = dir.resolve("seen.bin");
    ok(
        Cli.run(
            "filter",
            "create",
            seen.toString(),
            "--type",
            "window",
            "--window",
            "7d",
            "--fpp",
            "0.01",
            "--expected-rate",
            "1200/day"));
    SplittableRandom r = new SplittableRandom(0x7d7dL);
    long[] time = new long[perDay * days];
    for (int d = 0; d < days; d += 2) {
      StringBuilder in = new StringBuilder();
      for (int i = d * perDay; i < (d + 2) * perDay; i++) {
        time[i] = start + (i / perDay) * DAY + r.nextLong(DAY);
        String t =
            switch (i % 3) {
              case 0 -> Long.toString(time[i]);
              case 1 -> (time[i] / 1000) + "." + String.format("%03d", time[i] % 1000);
              default -> Instant.ofEpochMilli(time[i]).toString();
            };
        in.append(t).append('\t').append(words.get(i)).append('\n');
      }
      ok(
          Cli.runWithInput(
              in.toString(),
              "filter",
              "add",
              seen.toString(),
              "--time-field",
              "1",
              "--field",
              "2"));
    }
    AgePartitionedBloomFilter shape =
        AgePartitionedBloomFilter.create(Duration.ofDays(7), 8_400, FPP);
    long forgotten = shape.window() + shape.slack() + shape.generationMillis();
    int inside = 0;
    int expired = 0;
    for (int end = days; end <= days + 6; end += 2) {
      long at = start + end * DAY - 1;
      StringBuilder in = new StringBuilder();
      StringBuilder old = new StringBuilder();
      int n = 0;
      int m = 0;
      for (int i = 0; i < time.length; i++) {
        if (at - time[i] < 7 * DAY && time[i] <= at) {
          in.append(words.get(i)).append('\n');
          n++;
        } else if (at - time[i] > forgotten) {
          old.append(words.get(i)).append('\n');
          m++;
        }
      }
      String when = Long.toString(at);
      Cli absent =
          Cli.runWithInput(in.toString(), "filter", "query", seen.toString(), "--at", when, "-c");
      assertThat(absent.out.strip()).as("keys of the window present at " + when).isEqualTo("" + n);
      Cli present =
          Cli.runWithInput(old.toString(), "filter", "query", seen.toString(), "--at", when, "-c");
      assertAtMostRate(Integer.parseInt(present.out.strip()), m);
      inside += n;
      expired += m;
    }
    assertThat(inside).isGreaterThan(18_000);
    assertThat(expired).isGreaterThan(45_000);
    // Never-added words, and now (a year on): the window holds none of them.
    StringBuilder never = new StringBuilder();
    for (int i = time.length; i < time.length + 20_000; i++) {
      never.append(words.get(i)).append('\n');
    }
    String end = Long.toString(start + days * DAY - 1);
    Cli fp =
        Cli.runWithInput(never.toString(), "filter", "query", seen.toString(), "--at", end, "-c");
    assertAtMostRate(Integer.parseInt(fp.out.strip()), 20_000);
    Cli now = Cli.runWithInput(words.get(time.length - 1), "filter", "query", seen.toString());
    assertThat(now.out).endsWith("\tabsent\n");

    Cli info = ok(Cli.run("info", seen.toString()));
    assertThat(info.out)
        .contains("type:              window")
        .contains("window:            7d")
        .contains("slack");
  }

  /**
   * Two machines' window filters of one shape, each with half of a week's words, merged: no word of
   * the window absent from the union; a count window refused in one line.
   */
  @Test
  void windowFiltersOfTimeMergeWithoutLosingAKeyOfTheWindow() throws IOException {
    List<String> words = WindowFilterCliTest.words();
    long start = Instant.parse("2025-12-01T00:00:00Z").toEpochMilli();
    int n = 12_000;
    long[] time = new long[n];
    StringBuilder[] parts = {new StringBuilder(), new StringBuilder()};
    for (int i = 0; i < n; i++) {
      time[i] = start + i * (10 * DAY / n);
      parts[i % 2].append(time[i]).append('\t').append(words.get(i)).append('\n');
    }
    Path[] f = {dir.resolve("a.bin"), dir.resolve("b.bin")};
    for (int m = 0; m < 2; m++) {
      ok(
          Cli.runWithInput(
              parts[m].toString(),
              "filter",
              "create",
              f[m].toString(),
              "--type",
              "window",
              "--window",
              "3d",
              "--expected",
              "5000",
              "--time-field",
              "1",
              "--field",
              "2"));
    }
    Path union = dir.resolve("union.bin");
    ok(Cli.run("filter", "merge", union.toString(), f[0].toString(), f[1].toString()));
    long at = time[n - 1];
    StringBuilder inside = new StringBuilder();
    int count = 0;
    for (int i = 0; i < n; i++) {
      if (at - time[i] < 3 * DAY) {
        inside.append(words.get(i)).append('\n');
        count++;
      }
    }
    Cli q =
        Cli.runWithInput(
            inside.toString(), "filter", "query", union.toString(), "--at", "" + at, "--absent");
    assertThat(q.out).as("%d words of the window, absent from the union", count).isEmpty();
    assertThat(count).isGreaterThan(3000);

    Path c1 = dir.resolve("c1.bin");
    ok(Cli.run("filter", "create", c1.toString(), "--type", "window", "--window", "100"));
    Cli counts =
        Cli.run("filter", "merge", dir.resolve("cu.bin").toString(), c1.toString(), c1.toString());
    assertThat(counts.exit).as(counts.toString()).isEqualTo(1);
    assertThat(counts.err.strip().lines()).hasSize(1);
  }

  /** The last 10,000 keys of three adds: every one present, and a damaged file refused. */
  @Test
  void aCountWindowKeepsItsLastNKeysAndRefusesADamagedFile() throws IOException {
    List<String> words = words();
    int window = 10_000;
    Path recent = dir.resolve("recent.bin");
    ok(Cli.run("filter", "create", recent.toString(), "--type", "window", "--window", "10k"));
    int n = 30_000;
    for (int part = 0; part < 3; part++) {
      ok(
          Cli.runWithInput(
              String.join("\n", words.subList(part * n / 3, (part + 1) * n / 3)),
              "filter",
              "add",
              recent.toString()));
    }
    String last = String.join("\n", words.subList(n - window, n));
    Cli r = Cli.runWithInput(last, "filter", "query", recent.toString(), "--absent");
    assertThat(r.out).as("keys of the last 10,000 absent").isEmpty();
    assertThat(r.exit).isEqualTo(1);
    // Keys that left long ago (the window and its slack) are present at rate p.
    AgePartitionedBloomFilter shape = AgePartitionedBloomFilter.create(window, FPP);
    int oldEnd = (int) (n - shape.window() - shape.slack() - shape.generationKeys());
    String old = String.join("\n", words.subList(0, oldEnd));
    Cli p = Cli.runWithInput(old, "filter", "query", recent.toString(), "--present", "-c");
    assertAtMostRate(Integer.parseInt(p.out.strip()), oldEnd);

    Cli info = ok(Cli.run("filter", "info", recent.toString()));
    assertThat(info.out).contains("windowKeys").contains("10");

    byte[] b = Files.readAllBytes(recent);
    for (int at : new int[] {6, 40, b.length / 2, b.length - 5}) {
      byte[] bad = b.clone();
      bad[at] ^= 0x10;
      Path damaged = dir.resolve("damaged-" + at + ".bin");
      Files.write(damaged, bad);
      Cli q = Cli.runWithInput(last, "filter", "query", damaged.toString());
      assertThat(q.exit).as("byte %d flipped: %s", at, q).isEqualTo(1);
      assertThat(q.out).isEmpty();
      assertThat(q.err.strip().lines()).hasSize(1);
      Cli i = Cli.run("info", damaged.toString());
      assertThat(i.exit).as(i.toString()).isEqualTo(1);
    }
  }

  /**
   * {@code filter query --time-field}: each key answered for the window ending at the time in its
   * line, as a log replays. 3,000 words added over a day (a window of 1d); queried with a time
   * within a day after their own, every one is present; with a time three days after (the filter
   * never moved on), each has left the window and reads present at most at the rate.
   */
  @Test
  void aQueryTakesEachKeysTimeFromItsLine() throws IOException {
    List<String> words = words().subList(0, 3_000);
    long start = Instant.parse("2025-12-02T00:00:00Z").toEpochMilli();
    SplittableRandom r = new SplittableRandom(0x71e1dL);
    long[] time = new long[words.size()];
    StringBuilder added = new StringBuilder();
    for (int i = 0; i < words.size(); i++) {
      time[i] = start + r.nextLong(DAY);
      added.append(time[i]).append('\t').append(words.get(i)).append('\n');
    }
    Path f = dir.resolve("replay.bin");
    ok(
        Cli.runWithInput(
            added.toString(),
            Commands.windowFilterCreate(f.toString(), "--field", "2", "--time-field", "1")));
    StringBuilder soon = new StringBuilder("time,key\n");
    StringBuilder later = new StringBuilder("time,key\n");
    for (int i = 0; i < words.size(); i++) {
      long t = time[i] + r.nextLong(DAY);
      soon.append(Instant.ofEpochMilli(t)).append(',').append(words.get(i)).append('\n');
      later.append((time[i] + 3 * DAY) / 1000).append(',').append(words.get(i)).append('\n');
    }
    String[] byHeader = {"--format", "csv", "--header", "--field", "key", "--time-field", "time"};
    Cli present = Cli.runWithInput(soon.toString(), concat("--absent", "-c", f, byHeader));
    assertThat(present.out).as(present.toString()).isEqualTo("0\n");
    Cli gone = Cli.runWithInput(later.toString(), concat("--present", "-c", f, byHeader));
    assertAtMostRate(Integer.parseInt(gone.out.strip()), words.size());
    // The same keys queried now (2025 is long past): gone too, so the times were the lines'.
    String[] noTime = {"--format", "csv", "--header", "--field", "key"};
    Cli now = Cli.runWithInput(soon.toString(), concat("--present", "-c", f, noTime));
    assertAtMostRate(Integer.parseInt(now.out.strip()), words.size());
  }

  private static String[] concat(String select, String count, Path f, String[] rest) {
    List<String> all = new ArrayList<>(List.of("filter", "query", f.toString(), select, count));
    all.addAll(List.of(rest));
    return all.toArray(new String[0]);
  }

  @Test
  void badWindowsAndOptionsForOtherFiltersAreOneLineWithExitTwo() throws IOException {
    Path f = dir.resolve("w.bin");
    Path bloom = dir.resolve("b.bin");
    ok(Cli.run("filter", "create", bloom.toString(), "--expected", "100"));
    ok(Cli.run("filter", "create", f.toString(), "--type", "window", "--window", "1h"));
    String[][] bad = {
      {"filter", "create", f + "x", "--type", "window", "--window", "0"},
      {"filter", "create", f + "x", "--type", "window", "--window", "7x"},
      {"filter", "create", f + "x", "--type", "window"},
      {"filter", "create", f + "x", "--type", "window", "--window", "1h", "--expected-rate", "5"},
      {"filter", "create", f + "x", "--type", "window", "--window", "100", "--expected", "5"},
      {"filter", "create", f + "x", "--window", "1h", "--expected", "5"},
      {"filter", "add", bloom.toString(), "--time-field", "1", "--field", "2", "--keys", "-"},
      {"filter", "query", bloom.toString(), "--at", "2025-12-02T00:00:00Z", "k"},
      {"filter", "query", f.toString(), "--at", "yesterday", "k"},
      {"filter", "add", f.toString(), "--time-field", "1", "--keys", "-"},
      {"filter", "query", bloom.toString(), "--time-field", "1", "--field", "2", "--keys", "-"},
      {"filter", "query", f.toString(), "--time-field", "1", "--keys", "-"},
      {"filter", "query", f.toString(), "--time-field", "1", "--field", "2", "k"},
      {"filter", "query", f.toString(), "--time-field", "1", "--field", "2", "--at", "1764633600"},
      {"filter", "remove", f.toString(), "k"},
    };
    for (String[] args : bad) {
      Cli r = Cli.runWithInput("1764633600\tk\n", args);
      assertThat(r.exit).as(String.join(" ", args) + ": " + r).isIn(1, 2);
      assertThat(r.err.strip().lines()).as(r.toString()).hasSize(1);
      assertThat(r.err).doesNotContain("Exception");
    }
    assertThat(Cli.run("filter", "create", f + "x", "--type", "window", "--window", "7x").err)
        .contains("--window")
        .contains("'7x'");
    Cli late =
        Cli.runWithInput(
            "1764633600\tk\nnoon\tj\n",
            "filter",
            "add",
            f.toString(),
            "--time-field",
            "1",
            "--field",
            "2");
    assertThat(late.exit).isEqualTo(1);
    assertThat(late.err).contains("line 2").contains("'noon'");
    assertThat(late.err.strip().lines()).hasSize(1);
  }
}
