package io.github.probkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code top --window} against exact counts of the same slices of a Zipf-like stream of real words
 * whose frequent words change over time: exact counts when every line of a slice is kept, counts
 * within the printed bounds with a small --capacity; a window of lines; bad windows in one line.
 */
class WindowTopCliTest {
  private static final long HOUR = 3_600_000L;

  /** Words drawn Zipf-like (rank r with weight 1/r) from a vocabulary that shifts each hour. */
  static String[] stream(int n, long[] time, long start, long seed) throws IOException {
    List<String> words = WindowFilterCliTest.words();
    SplittableRandom r = new SplittableRandom(seed);
    String[] item = new String[n];
    long clock = start;
    for (int i = 0; i < n; i++) {
      clock += r.nextInt(300);
      // Up to 2 minutes late, one line in ten.
      time[i] = clock - (r.nextInt(10) == 0 ? r.nextInt(120_000) : 0);
      int rank = (int) Math.floor(Math.pow(2000, r.nextDouble())); // P(rank) ~ 1/rank
      int hour = (int) ((clock - start) / HOUR);
      item[i] = words.get(rank * 7 + hour * 13);
    }
    return item;
  }

  /** The lines of {@link #stream}, their times and the newest of those times. */
  record Timed(String[] item, long[] time, long latest) {
    static Timed of(int n, long seed) throws IOException {
      long[] time = new long[n];
      String[] item = stream(n, time, Instant.parse("2025-12-02T00:00:00Z").toEpochMilli(), seed);
      return new Timed(item, time, Arrays.stream(time).max().orElseThrow());
    }

    /** One line a key: its time in epoch ms, a tab, the key. */
    String tsv() {
      StringBuilder in = new StringBuilder();
      for (int i = 0; i < item.length; i++) {
        in.append(time[i]).append('\t').append(item[i]).append('\n');
      }
      return in.toString();
    }
  }

  /** {@code top} over a time window with the time in field 1 and the item in {@code field}. */
  static String[] topWindow(String window, int field, String... more) {
    List<String> a = new ArrayList<>(List.of("top", "--window", window, "--time-field", "1"));
    a.addAll(List.of("--field", Integer.toString(field)));
    a.addAll(List.of(more));
    return a.toArray(String[]::new);
  }

  /** COUNT, AT_LEAST and LINE of each printed line. */
  static List<String[]> printed(Cli r) {
    assertThat(r.exit).as(r.toString()).isZero();
    return r.out.lines().map(l -> l.split("\t", 3)).toList();
  }

  @Test
  void theTopOfTheLastHourIsTheExactCountOfItsSlices() throws IOException {
    int n = 80_000; // about 6.7 hours at 150 ms a line
    Timed s = Timed.of(n, 0x70bL);
    String[] item = s.item();
    long[] time = s.time();
    long latest = s.latest();
    StringBuilder in = new StringBuilder();
    for (int i = 0; i < n; i++) {
      String t = i % 2 == 0 ? Long.toString(time[i]) : Instant.ofEpochMilli(time[i]).toString();
      in.append(t).append('\t').append(i).append('\t').append(item[i]).append('\n');
    }
    // The window's slices: 24 of 150 s, from the one holding latest - 1h to the one holding latest.
    long slice = HOUR / 24;
    long from = Math.floorDiv(latest - HOUR, slice);
    long to = Math.floorDiv(latest, slice);
    Map<String, Long> exact = exactCounts(item, time, slice, from, to);
    List<Long> exactTop =
        exact.values().stream().sorted((a, b) -> Long.compare(b, a)).limit(10).toList();

    List<String[]> top = printed(Cli.runWithInput(in.toString(), topWindow("1h", 3)));
    assertThat(top).hasSize(10);
    for (String[] e : top) {
      assertThat(Long.parseLong(e[0]))
          .as(e[2])
          .isEqualTo(exact.get(e[2]))
          .isEqualTo(Long.parseLong(e[1]));
    }
    assertThat(top.stream().map(e -> Long.parseLong(e[0])).toList()).isEqualTo(exactTop);

    // 50 candidates a slice, fewer than its distinct words: counts are ranges holding the exact.
    Cli small = Cli.runWithInput(in.toString(), topWindow("1h", 3, "--capacity", "50"));
    for (String[] e : printed(small)) {
      long exactCount = exact.getOrDefault(e[2], 0L);
      assertThat(exactCount).as(e[2]).isBetween(Long.parseLong(e[1]), Long.parseLong(e[0]));
    }
    assertThat(small.err).contains("warning");
  }

  /** ITEM to COUNT of printed lines, each exact (COUNT equal to AT_LEAST). */
  static Map<String, Long> exactlyPrinted(Cli r) {
    Map<String, Long> m = new HashMap<>();
    for (String[] e : printed(r)) {
      assertThat(e[0]).as(e[2]).isEqualTo(e[1]);
      assertThat(m.put(e[2], Long.parseLong(e[0]))).as("%s printed twice", e[2]).isNull();
    }
    return m;
  }

  /** Exact counts of the items whose time is in slices {@code from..to} of {@code slice} ms. */
  static Map<String, Long> exactCounts(String[] item, long[] time, long slice, long from, long to) {
    Map<String, Long> exact = new HashMap<>();
    for (int i = 0; i < item.length; i++) {
      long s = Math.floorDiv(time[i], slice);
      if (s >= from && s <= to) {
        exact.merge(item[i], 1L, Long::sum);
      }
    }
    return exact;
  }

  /**
   * {@code top --window 1h --save FILE} keeps the window's slices (type 52): {@code top --from
   * FILE} prints the same lines, the exact counts of those slices, in another process's run; {@code
   * --last 10m --at T} those of the fewer slices of the last 10 minutes ending at T; info describes
   * it.
   */
  @Test
  void aSavedWindowPrintsTheExactCountsOfItsSlicesAgain(@TempDir Path dir) throws IOException {
    Timed s = Timed.of(30_000, 0x5a7eL); // about 75 minutes at 150 ms a line
    String[] item = s.item();
    long[] time = s.time();
    long latest = s.latest();
    long slice = HOUR / 24;
    long to = Math.floorDiv(latest, slice);
    Map<String, Long> hour =
        exactCounts(item, time, slice, Math.floorDiv(latest - HOUR, slice), to);
    String k = Integer.toString(hour.size() + 10); // every word of the window printed
    Path saved = dir.resolve("top.bin");
    Cli live = Cli.runWithInput(s.tsv(), topWindow("1h", 2, "-k", k, "--save", saved.toString()));
    assertThat(exactlyPrinted(live)).isEqualTo(hour);

    Cli back = Cli.run("top", "--from", saved.toString(), "-k", k);
    assertThat(back.exit).as(back.toString()).isZero();
    assertThat(back.out).isEqualTo(live.out);

    long at = latest - 7 * 60_000L;
    Map<String, Long> tenMinutes =
        exactCounts(
            item, time, slice, Math.floorDiv(at - 600_000L, slice), Math.floorDiv(at, slice));
    assertThat(tenMinutes.size()).isLessThan(hour.size());
    Cli last =
        Cli.run(
            "top",
            "--from",
            saved.toString(),
            "--last",
            "10m",
            "--at",
            Instant.ofEpochMilli(at).toString(),
            "-k",
            k);
    assertThat(exactlyPrinted(last)).isEqualTo(tenMinutes);

    Cli info = Cli.run("info", saved.toString(), "--json");
    assertThat(info.exit).as(info.toString()).isZero();
    assertThat(info.out)
        .contains("\"type\": \"window-heavy-hitters\"")
        .contains("\"window\": \"1h\"")
        .contains("\"slice\": \"2m30s\"")
        .contains("\"slices\": 25")
        .contains("\"totalCountOfWindow\": " + hour.values().stream().mapToLong(c -> c).sum());

    // A window of lines has no times to keep; a longer --last than the file keeps is refused.
    String[][] bad = {
      {"top", "--window", "1000", "--save", dir.resolve("lines.bin").toString()},
      {"top", "--from", saved.toString(), "--last", "2h"},
      {"top", "--last", "10m"},
      {"top", "--save", dir.resolve("plain.bin").toString()},
    };
    for (String[] args : bad) {
      Cli r = Cli.runWithInput("a\n", args);
      assertThat(r.exit).as(String.join(" ", args) + ": " + r).isEqualTo(2);
      assertThat(r.err.strip().lines()).as(r.toString()).hasSize(1);
    }
    assertThat(dir.resolve("lines.bin")).doesNotExist();
  }

  @Test
  void aWindowOfLinesCountsTheLastLines() throws IOException {
    int n = 30_000;
    long[] time = new long[n];
    String[] item = stream(n, time, 0, 0x11e5L);
    int window = 5000;
    long slice = -Math.floorDiv(-window, 24);
    long from = Math.floorDiv(n - 1 - window, slice);
    Map<String, Long> exact = new HashMap<>();
    for (int i = 0; i < n; i++) {
      if (i / slice >= from) {
        exact.merge(item[i], 1L, Long::sum);
      }
    }
    Cli r = Cli.runWithInput(String.join("\n", item) + "\n", "top", "--window", "5000", "-k", "20");
    List<String[]> top = printed(r);
    assertThat(top).hasSize(20);
    for (String[] e : top) {
      assertThat(Long.parseLong(e[0])).as(e[2]).isEqualTo(exact.get(e[2]));
    }
  }

  @Test
  void badWindowsAreOneLineWithExitTwo() {
    String[][] bad = {
      {"top", "--window", "0"},
      {"top", "--window", "7x"},
      {"top", "--window", "1000", "--time-field", "1", "--field", "2"},
      {"top", "--window", "1h", "--time-field", "1"},
      {"top", "--time-field", "1", "--field", "2"},
      {"top", "--from", "x.topk", "--window", "1h"},
    };
    for (String[] args : bad) {
      Cli r = Cli.runWithInput("1764633600\tk\n", args);
      assertThat(r.exit).as(String.join(" ", args) + ": " + r).isEqualTo(2);
      assertThat(r.err.strip().lines()).as(r.toString()).hasSize(1);
    }
    Cli late = Cli.runWithInput("1764633600\tk\n17646336xx\tj\n", topWindow("1h", 2));
    assertThat(late.exit).isEqualTo(1);
    assertThat(late.err).contains("line 2").contains("'17646336xx'");
  }
}
