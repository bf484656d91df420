package io.github.probkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code cms create --window --slice}, {@code cms add --time-field} and {@code cms query --last
 * --at} against exact counts of the same slices, over real words with skewed repeats and late
 * events, added by separate commands: no estimate below its exact count, few above it by more than
 * epsilon times the window's total; bad options, and damaged files, refused in one line.
 */
class WindowCmsCliTest {
  static final long HOUR = 3_600_000L;

  /** Of the sketches below: ceil(e / 0.002) = 1,360 counters by ceil(ln 100) = 5 rows. */
  static final double EPSILON = 0.002;

  @TempDir Path dir;

  static Cli ok(Cli r) {
    assertThat(r.exit).as(r.toString()).isZero();
    return r;
  }

  /**
   * Events over about three days, one every ~4 s: words of the dictionary drawn log-uniformly among
   * {@code distinct} (a few very frequent, many rare), one event in eight up to 10 minutes late.
   */
  record Events(String[] item, long[] time, long latest, List<String> unseen) {
    static Events of(int n, int distinct) throws IOException {
      List<String> words = WindowFilterCliTest.words();
      SplittableRandom r = new SplittableRandom(0xc0de27L);
      String[] item = new String[n];
      long[] time = new long[n];
      long clock = Instant.parse("2025-12-01T00:00:00Z").toEpochMilli();
      long latest = Long.MIN_VALUE;
      for (int i = 0; i < n; i++) {
        clock += r.nextInt(8640);
        time[i] = clock - (r.nextInt(8) == 0 ? r.nextInt(600_000) : 0);
        latest = Math.max(latest, time[i]);
        item[i] = words.get((int) Math.pow(distinct, r.nextDouble()) - 1);
      }
      return new Events(item, time, latest, words.subList(distinct, distinct + 500));
    }

    /** Lines ITEM TAB TIME of events {@code from..to - 1}, times as epoch ms or ISO-8601. */
    String lines(int from, int to, boolean iso) {
      StringBuilder b = new StringBuilder();
      for (int i = from; i < to; i++) {
        String t = iso ? Instant.ofEpochMilli(time[i]).toString() : Long.toString(time[i]);
        b.append(item[i]).append('\t').append(t).append('\n');
      }
      return b.toString();
    }

    /** Exact counts of the slices from the one holding {@code at - last} to the one of at. */
    Map<String, Long> exact(long last, long at) {
      return WindowTopCliTest.exactCounts(
          item, time, HOUR, Math.floorDiv(at - last, HOUR), Math.floorDiv(at, HOUR));
    }

    /** Every item added, then words never added. */
    List<String> queries() {
      List<String> q = new ArrayList<>(new LinkedHashSet<>(List.of(item)));
      q.addAll(unseen);
      return q;
    }
  }

  /**
   * Checks {@code cms query --last H h --at AT} of {@code where} against the exact counts: never
   * below one, above it by more than epsilon times the window's total for at most 1 % of the items.
   * Returns the output, for comparisons.
   */
  static String checkWindow(Events e, String where, Path queries, long hours, long at) {
    Cli q =
        ok(
            Cli.run(
                "cms",
                "query",
                where,
                "--items",
                queries.toString(),
                "--last",
                hours + "h",
                "--at",
                Instant.ofEpochMilli(at).toString()));
    Map<String, Long> exact = e.exact(hours * HOUR, at);
    long total = exact.values().stream().mapToLong(Long::longValue).sum();
    assertThat(total).as("events in the window").isGreaterThan(500);
    List<String> lines = q.out.lines().toList();
    assertThat(lines).hasSize(e.queries().size());
    int over = 0;
    long maxExact = 0;
    for (String line : lines) {
      int tab = line.lastIndexOf('\t');
      String item = line.substring(0, tab);
      long estimate = Long.parseLong(line.substring(tab + 1));
      long truth = exact.getOrDefault(item, 0L);
      maxExact = Math.max(maxExact, truth);
      assertThat(estimate)
          .as("%s over the last %dh at %s", item, hours, Instant.ofEpochMilli(at))
          .isGreaterThanOrEqualTo(truth);
      if (estimate > truth + EPSILON * total) {
        over++;
      }
    }
    assertThat(over).as("estimates above epsilon * N").isLessThanOrEqualTo(lines.size() / 100);
    assertThat(maxExact).as("a frequent item").isGreaterThan(50);
    return q.out;
  }

  /** {@code cms create WHERE --window W --slice 1h}, epsilon {@link #EPSILON}, delta 1 %. */
  static void create(String where, String window) {
    ok(
        Cli.run(
            "cms",
            "create",
            where,
            "--window",
            window,
            "--slice",
            "1h",
            "--epsilon",
            "" + EPSILON,
            "--delta",
            "0.01"));
  }

  /**
   * The events added to {@code where} by {@code writers} probkit processes at once, each a chunk of
   * them (every other one with ISO-8601 times); {@code alsoTo}, when not null, is given the same
   * chunks one after the other, by this process.
   */
  static void addAtOnce(Events e, String where, int writers, Path dir, String alsoTo)
      throws Exception {
    int n = e.item.length;
    List<Process> running = new ArrayList<>();
    for (int p = 0; p < writers; p++) {
      Path chunk = dir.resolve("chunk" + p + ".tsv");
      Files.writeString(chunk, e.lines(p * n / writers, (p + 1) * n / writers, p % 2 == 1));
      String[] add = {"--items", chunk.toString(), "--time-field", "2", "--field", "1"};
      if (alsoTo != null) {
        ok(Cli.run(concat(new String[] {"cms", "add", alsoTo}, add)));
      }
      running.add(
          Probkit.builder(List.of(), concat(new String[] {"cms", "add", where}, add)).start());
    }
    for (Process p : running) {
      Probkit.Result r = Probkit.finish(p);
      assertThat(r.exit()).as(r.toString()).isZero();
    }
  }

  @Test
  void windowedEstimatesAreNeverBelowTheExactCountsOfTheirSlices() throws IOException {
    Events e = Events.of(60_000, 3_000);
    Path terms = dir.resolve("terms.cms");
    create(terms.toString(), "24h");
    int parts = 3;
    int n = e.item.length;
    for (int p = 0; p < parts; p++) {
      ok(
          Cli.runWithInput(
              e.lines(p * n / parts, (p + 1) * n / parts, p == 1),
              "cms",
              "add",
              terms.toString(),
              "--time-field",
              "2",
              "--field",
              "1"));
    }
    Path queries = dir.resolve("queries.txt");
    Files.write(queries, e.queries());
    long[][] checks = {
      {e.latest, 24}, {e.latest, 6}, {e.latest, 1}, {e.latest - 5 * HOUR, 12},
    };
    for (long[] c : checks) {
      checkWindow(e, terms.toString(), queries, c[1], c[0]);
    }
    // Now, a year after the log, its window holds nothing.
    String now = ok(Cli.run("cms", "query", terms.toString(), e.item[0], "--last", "24h")).out;
    assertThat(now).isEqualTo(e.item[0] + "\t0\n");
    Cli info = ok(Cli.run("info", terms.toString()));
    assertThat(info.out).contains("window:").contains("1d").contains("slices:").contains("25");
    assertThat(ok(Cli.run("cms", "info", terms.toString(), "--json")).out)
        .contains("\"width\": 1360")
        .contains("\"depth\": 5");
  }

  @Test
  void processesAddingToOneWindowedFileAtOnceLoseNoCount() throws Exception {
    Events e = Events.of(12_000, 1_000);
    Path terms = dir.resolve("shared.cms");
    create(terms.toString(), "24h");
    addAtOnce(e, terms.toString(), 4, dir, null);
    Path queries = dir.resolve("queries.txt");
    Files.write(queries, e.queries());
    checkWindow(e, terms.toString(), queries, 24, e.latest);
    checkWindow(e, terms.toString(), queries, 3, e.latest);
  }

  @Test
  void badWindowOptionsAndDamagedFilesAreOneLine() throws IOException {
    Path w = dir.resolve("w.cms");
    Path plain = dir.resolve("p.cms");
    String x = dir.resolve("x.cms").toString();
    String[] size = {"--epsilon", "0.01", "--delta", "0.01"};
    ok(
        Cli.runWithInput(
            "a\nb\n",
            concat(new String[] {"cms", "create", w.toString(), "--window", "2h"}, size)));
    ok(Cli.runWithInput("a\nb\n", concat(new String[] {"cms", "create", plain.toString()}, size)));
    String[][] usage = {
      {"cms", "query", w.toString(), "a", "--last", "3h"},
      {"cms", "query", w.toString(), "a", "--last", "0"},
      {"cms", "query", w.toString(), "a", "--last", "7x"},
      {"cms", "query", w.toString(), "a", "--at", "yesterday"},
      {"cms", "query", plain.toString(), "a", "--last", "1h"},
      {"cms", "query", plain.toString(), "a", "--at", "1764633600"},
      {"cms", "add", plain.toString(), "--time-field", "1", "--field", "2", "--items", "-"},
      {"cms", "add", w.toString(), "--counts", "--items", "-"},
      concat(new String[] {"cms", "create", x, "--window", "0"}, size),
      concat(new String[] {"cms", "create", x, "--window", "1h", "--slice", "2h"}, size),
      concat(new String[] {"cms", "create", x, "--window", "1h", "--slice", "1ms"}, size),
      concat(new String[] {"cms", "create", x, "--slice", "2h"}, size),
      concat(new String[] {"cms", "create", x, "--time-field", "1", "--field", "2"}, size),
      concat(new String[] {"cms", "create", x, "--window", "1h", "--counts", "--items", "-"}, size),
    };
    for (String[] args : usage) {
      Cli r = Cli.runWithInput("1764633600\tk\n", args);
      assertThat(r.exit).as(String.join(" ", args) + ": " + r).isEqualTo(2);
      assertThat(r.err.strip().lines()).as(r.toString()).hasSize(1);
      assertThat(r.err).doesNotContain("Exception");
    }
    assertThat(Files.exists(Path.of(x))).isFalse();
    assertThat(Cli.run("cms", "query", w.toString(), "a", "--last", "3h").err)
        .contains("--last 3h")
        .contains("2h");

    Map<Path, byte[]> damaged =
        assertFlippedBytesRefused(
            w,
            dir,
            ".cms",
            d -> new String[][] {{"cms", "query", d, "a"}, {"info", d}, {"cms", "add", d, "a"}});
    for (Map.Entry<Path, byte[]> d : damaged.entrySet()) {
      assertThat(Files.readAllBytes(d.getKey())).isEqualTo(d.getValue());
    }
  }

  /**
   * Copies of {@code file} in {@code dir}, each with bit 2 of one byte flipped (at 5, 30, the
   * middle, 3 before the end): every command {@code commands} gives for a copy's name is refused
   * (exit 1, nothing on stdout, one line on stderr). Returns each copy with the bytes it was given.
   */
  static Map<Path, byte[]> assertFlippedBytesRefused(
      Path file, Path dir, String extension, Function<String, String[][]> commands)
      throws IOException {
    Map<Path, byte[]> copies = new LinkedHashMap<>();
    byte[] b = Files.readAllBytes(file);
    for (int at : new int[] {5, 30, b.length / 2, b.length - 3}) {
      byte[] bad = b.clone();
      bad[at] ^= 0x04;
      Path damaged = dir.resolve("damaged-" + at + extension);
      Files.write(damaged, bad);
      for (String[] args : commands.apply(damaged.toString())) {
        Cli r = Cli.run(args);
        assertThat(r.exit).as("byte %d flipped: %s", at, r).isEqualTo(1);
        assertThat(r.out).isEmpty();
        assertThat(r.err.strip().lines()).hasSize(1);
      }
      copies.put(damaged, bad);
    }
    return copies;
  }

  static String[] concat(String[] a, String[] b) {
    List<String> all = new ArrayList<>(List.of(a));
    all.addAll(List.of(b));
    return all.toArray(new String[0]);
  }
}
