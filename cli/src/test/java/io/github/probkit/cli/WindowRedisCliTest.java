package io.github.probkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The window commands on redis:// keys against a real redis-server, beside the same commands on
 * files: distinct real words added in chunks by separate commands (the Redis ones by separate
 * processes), with their times from a field. Keys added within the window are never absent from
 * either; both answer the same for the same queries; the windowed distinct counts agree.
 */
class WindowRedisCliTest extends WithRedisServer {
  private static final long HOUR = 3_600_000L;
  private static final long DAY = 24 * HOUR;

  @TempDir Path dir;

  private static Cli ok(Cli c) {
    assertThat(c.exit).as(c.toString()).isZero();
    return c;
  }

  /** Runs probkit in a process of its own, as a shell would. */
  private static void process(String... args) throws Exception {
    Probkit.Result r = Probkit.run(args);
    assertThat(r.exit()).as(r.toString()).isZero();
  }

  /** Three days of distinct words, one every ~40 s, one in ten up to 10 minutes late. */
  private record Stream(List<String> words, long[] times, long latest) {}

  private static Stream stream(int n) throws IOException {
    List<String> all = WindowFilterCliTest.words();
    SplittableRandom r = new SplittableRandom(0x27c11L);
    long[] times = new long[n];
    long clock = 1_764_633_600_000L; // 2025-12-02T00:00:00Z
    long latest = Long.MIN_VALUE;
    for (int i = 0; i < n; i++) {
      clock += 20_000 + r.nextInt(40_000);
      times[i] = clock - (r.nextInt(10) == 0 ? r.nextInt(600_000) : 0);
      latest = Math.max(latest, times[i]);
    }
    return new Stream(all.subList(0, n), times, latest);
  }

  /** Lines TIME TAB WORD of words {@code from..to - 1}, in a file for --keys. */
  private Path lines(Stream s, int from, int to, String name) throws IOException {
    StringBuilder b = new StringBuilder();
    for (int i = from; i < to; i++) {
      b.append(s.times[i]).append('\t').append(s.words.get(i)).append('\n');
    }
    Path p = dir.resolve(name);
    Files.writeString(p, b);
    return p;
  }

  /**
   * The lines of {@code s} between successive {@code cuts}, each chunk added (time in field 1, key
   * in field 2) by its own command to {@code file} and by its own process to {@code key}.
   */
  private void addInChunks(
      Stream s, int[] cuts, String name, String command, String file, String key) throws Exception {
    String keysOption = command.equals("filter") ? "--keys" : "--items";
    for (int c = 0; c + 1 < cuts.length; c++) {
      String chunk = lines(s, cuts[c], cuts[c + 1], name + c + ".tsv").toString();
      String[] fieldsOf = {keysOption, chunk, "--field", "2", "--time-field", "1"};
      List<String> toFile = new ArrayList<>(List.of(command, "add", file));
      toFile.addAll(List.of(fieldsOf));
      ok(Cli.run(toFile.toArray(String[]::new)));
      List<String> toKey = new ArrayList<>(List.of(command, "add", key));
      toKey.addAll(List.of(fieldsOf));
      process(toKey.toArray(String[]::new));
    }
  }

  @Test
  void keysOfTheWindowAreNeverAbsentOverRedisAsOverFilesAndBothAnswerAlike() throws Exception {
    int n = 6_000; // about 3.5 days
    Stream s = stream(n);
    String file = dir.resolve("seen.bin").toString();
    String key = uri("seen");
    for (String where : List.of(file, key)) {
      ok(Cli.run(Commands.windowFilterCreate(where, "--fpp", "0.01")));
    }
    // Three chunks, each added by its own command; over Redis each by its own process.
    int[] cuts = {0, 2_000, 4_000, n};
    addInChunks(s, cuts, "chunk", "filter", file, key);

    // Every key of the last day, queried at the latest time, then each at a time between its own
    // and the latest (--time-field): present, from the file and from Redis.
    List<String> inWindow = new ArrayList<>();
    StringBuilder timed = new StringBuilder();
    SplittableRandom r = new SplittableRandom(7);
    for (int i = 0; i < n; i++) {
      if (s.latest - s.times[i] < DAY) {
        inWindow.add(s.words.get(i));
        long t = s.times[i] + r.nextLong(s.latest - s.times[i] + 1);
        timed.append(t).append('\t').append(s.words.get(i)).append('\n');
      }
    }
    assertThat(inWindow.size()).isGreaterThan(1_000);
    Path recent = dir.resolve("recent.txt");
    Files.write(recent, inWindow);
    Path recentTimed = dir.resolve("recent.tsv");
    Files.writeString(recentTimed, timed);
    String at = Long.toString(s.latest);
    for (String where : List.of(file, key)) {
      // --absent -c: how many keys are absent, and exit 1 (as grep's) when none is.
      Cli absent =
          Cli.run(
              "filter", "query", where, "--keys", recent.toString(), "--at", at, "--absent", "-c");
      assertThat(absent.out).as(absent.toString()).isEqualTo("0\n");
      assertThat(absent.exit).as(absent.toString()).isEqualTo(1);
      Cli absentTimed =
          Cli.run(
              "filter",
              "query",
              where,
              "--keys",
              recentTimed.toString(),
              "--field",
              "2",
              "--time-field",
              "1",
              "--absent",
              "-c");
      assertThat(absentTimed.out).as(absentTimed.toString()).isEqualTo("0\n");
      assertThat(absentTimed.exit).as(absentTimed.toString()).isEqualTo(1);
    }

    // The same answers, line for line, for keys of the window, keys that left it days ago and
    // words never added, at the latest time and at each key's time.
    List<String> mixed = new ArrayList<>(inWindow.subList(0, 500));
    mixed.addAll(s.words.subList(0, 1_000)); // the first day: left the window
    List<String> all = WindowFilterCliTest.words();
    mixed.addAll(all.subList(n, n + 3_000)); // never added
    Path mixedKeys = dir.resolve("mixed.txt");
    Files.write(mixedKeys, mixed);
    String fromFile =
        ok(Cli.run("filter", "query", file, "--keys", mixedKeys.toString(), "--at", at)).out;
    String fromRedis =
        ok(Cli.run("filter", "query", key, "--keys", mixedKeys.toString(), "--at", at)).out;
    assertThat(fromRedis).isEqualTo(fromFile);
    long presentOld = fromFile.lines().skip(500).filter(l -> l.endsWith("\tpresent")).count();
    assertThat(presentOld).as("false positives among 4,000 keys not in the window").isLessThan(120);
    StringBuilder mixedTimed = new StringBuilder();
    for (int i = 0; i < mixed.size(); i++) {
      mixedTimed
          .append(s.latest - (i % 7) * 60_000L)
          .append('\t')
          .append(mixed.get(i))
          .append('\n');
    }
    Path mixedTsv = dir.resolve("mixed.tsv");
    Files.writeString(mixedTsv, mixedTimed);
    String[] timedQuery = {
      "--keys", mixedTsv.toString(), "--field", "2", "--time-field", "1", "--present"
    };
    Set<String> fileTimed =
        new HashSet<>(
            ok(Cli.run(concat("filter", "query", file, timedQuery))).out.lines().toList());
    Set<String> redisTimed =
        new HashSet<>(ok(Cli.run(concat("filter", "query", key, timedQuery))).out.lines().toList());
    // Redis may read up to its grace slices more for a time behind the latest: never fewer keys.
    assertThat(redisTimed).containsAll(fileTimed);

    // The export of the key is the file, byte for byte.
    Path exported = dir.resolve("exported.bin");
    ok(Cli.run("export", key, exported.toString()));
    assertThat(Files.readAllBytes(exported)).isEqualTo(Files.readAllBytes(Path.of(file)));
  }

  private static String[] concat(String a, String b, String c, String[] rest) {
    List<String> all = new ArrayList<>(List.of(a, b, c));
    all.addAll(List.of(rest));
    return all.toArray(new String[0]);
  }

  @Test
  void windowedDistinctCountsInRedisAreTheFilesCounts() throws Exception {
    int n = 6_000;
    Stream s = stream(n);
    String file = dir.resolve("visitors.hll").toString();
    String key = uri("visitors");
    for (String where : List.of(file, key)) {
      ok(Cli.run("hll", "create", where, "--window", "2d", "--slice", "1h", "--precision", "12"));
    }
    int[] cuts = {0, 3_000, n};
    addInChunks(s, cuts, "visits", "hll", file, key);
    String at = Long.toString(s.latest);
    for (String last : List.of("6h", "1d", "2d")) {
      String fromFile = ok(Cli.run("hll", "count", file, "--last", last, "--at", at)).out;
      String fromRedis = ok(Cli.run("hll", "count", key, "--last", last, "--at", at)).out;
      assertThat(fromRedis).as("--last " + last).isEqualTo(fromFile);
      // Exact: the distinct words of the slices from the one holding at - last to at's.
      long span = last.equals("6h") ? 6 * HOUR : last.equals("1d") ? DAY : 2 * DAY;
      long from = Math.floorDiv(s.latest - span, HOUR);
      long exact = 0;
      for (int i = 0; i < n; i++) {
        long slice = Math.floorDiv(s.times[i], HOUR);
        exact += slice >= from && slice <= Math.floorDiv(s.latest, HOUR) ? 1 : 0;
      }
      // p = 12: a standard error of 1.6 %; 5 % is over three of them.
      assertThat((double) Long.parseLong(fromFile.strip()))
          .as("--last " + last)
          .isCloseTo(exact, org.assertj.core.data.Percentage.withPercentage(5));
    }
    Cli info = ok(Cli.run("info", key));
    assertThat(info.out).contains("window-cardinality");
  }

  /** Windows a fleet cannot share, and options for a window of time only, in one line each. */
  @Test
  void whatRedisCannotKeepIsRefusedInOneLine() {
    ok(Cli.run("filter", "create", uri("plain"), "--expected", "100", "--fpp", "0.01"));
    String[][] bad = {
      {"filter", "create", uri("by-count"), "--type", "window", "--window", "10000"},
      {"filter", "query", uri("plain"), "k", "--at", "1764633600"},
    };
    for (String[] args : bad) {
      Cli r = Cli.run(args);
      assertThat(r.exit).as(String.join(" ", args) + ": " + r).isEqualTo(2);
      assertThat(r.err.strip().lines()).as(r.toString()).hasSize(1);
    }
    Cli timed =
        Cli.runWithInput(
            "1764633600\tk\n", "filter", "add", uri("plain"), "--field", "2", "--time-field", "1");
    assertThat(timed.exit).as(timed.toString()).isEqualTo(2);
    assertThat(timed.err.strip().lines()).as(timed.toString()).hasSize(1);
  }
}
