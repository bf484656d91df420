package io.github.probkit.cli;

import static io.github.probkit.cli.WindowCmsCliTest.ok;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --max-skew} of windows in Redis: a writer whose clock is ahead (29 minutes, within {@code
 * --max-skew 30m}, for the window filter; 9 within 10 for the count-min) adds after the others, and
 * a reader at the others' time still finds every key of its hour and counts no item below its exact
 * count. Files refuse the option in one line; {@code info} of the keys shows the skew kept.
 */
class WindowSkewRedisCliTest extends WithRedisServer {
  private static final long MINUTE = 60_000L;
  private static final long T = Instant.parse("2025-12-02T12:00:00Z").toEpochMilli();

  @TempDir Path dir;

  /** Lines TIME TAB WORD: {@code n} dictionary words at times in (T - 59 min, T]. */
  private static String[] lines(int n, long[] times) throws IOException {
    List<String> words = WindowFilterCliTest.words();
    SplittableRandom r = new SplittableRandom(0x5ce3L);
    String[] w = new String[n];
    for (int i = 0; i < n; i++) {
      times[i] = T - r.nextLong(59 * MINUTE);
      // A few hundred distinct words, each several times: counts to check.
      w[i] = words.get(r.nextInt(300));
    }
    return w;
  }

  private Path file(String name, String[] words, long[] times) throws IOException {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < words.length; i++) {
      b.append(times[i]).append('\t').append(words[i]).append('\n');
    }
    Path p = dir.resolve(name);
    Files.writeString(p, b);
    return p;
  }

  /** {@code COMMAND add KEY} of the lines TIME TAB KEY of {@code input}. */
  private static void timedAdd(String command, String key, Path input) {
    String keysOption = command.equals("filter") ? "--keys" : "--items";
    ok(
        Cli.run(
            command,
            "add",
            key,
            keysOption,
            input.toString(),
            "--time-field",
            "1",
            "--field",
            "2"));
  }

  /**
   * {@code COMMAND create KEY CREATE...}, the lines of {@code input} added, then one key added at T
   * + {@code minutes} by a writer whose clock is ahead (it rotates the window).
   */
  private void fillThenAhead(String command, String key, Path input, long minutes, String... create)
      throws IOException {
    String[] args = new String[3 + create.length];
    args[0] = command;
    args[1] = "create";
    args[2] = key;
    System.arraycopy(create, 0, args, 3, create.length);
    ok(Cli.run(args));
    timedAdd(command, key, input);
    Path ahead = dir.resolve("ahead.tsv");
    Files.writeString(ahead, (T + minutes * MINUTE) + "\tfrom-the-future\n");
    timedAdd(command, key, ahead);
  }

  @Test
  void aWindowFilterWithMaxSkewLosesNoKeyToAWriterAhead() throws IOException {
    long[] times = new long[2_000];
    String[] words = lines(times.length, times);
    Path keys = file("keys.tsv", words, times);
    String key = server.uri() + "/seen";
    // 29 minutes: beyond the window's slack (a quarter of it), which alone keeps keys a while.
    fillThenAhead(
        "filter",
        key,
        keys,
        29,
        "--type",
        "window",
        "--window",
        "1h",
        "--expected",
        "5000",
        "--max-skew",
        "30m");
    Cli absent =
        Cli.run(
            "filter",
            "query",
            key,
            "--keys",
            keys.toString(),
            "--field",
            "2",
            "--at",
            Long.toString(T),
            "--absent",
            "-c");
    assertThat(absent.out).as(absent.toString()).isEqualTo("0\n");
    assertThat(ok(Cli.run("filter", "info", key)).out).contains("maxSkew:").contains("window:");
    assertThat(ok(Cli.run("info", key, "--json")).out).contains("\"maxSkew\": \"30m");
  }

  @Test
  void aWindowedCountMinWithMaxSkewNeverUnderestimatesAfterAWriterAhead() throws IOException {
    long[] times = new long[3_000];
    String[] words = lines(times.length, times);
    Path items = file("items.tsv", words, times);
    String key = server.uri() + "/terms";
    fillThenAhead(
        "cms",
        key,
        items,
        9,
        "--window",
        "1h",
        "--slice",
        "1m",
        "--epsilon",
        "0.01",
        "--delta",
        "0.01",
        "--max-skew",
        "10m");
    Map<String, Long> exact = new HashMap<>();
    for (String w : words) {
      exact.merge(w, 1L, Long::sum);
    }
    Path queries = dir.resolve("queries.txt");
    Files.write(queries, exact.keySet());
    Cli q =
        ok(
            Cli.run(
                "cms",
                "query",
                key,
                "--items",
                queries.toString(),
                "--last",
                "1h",
                "--at",
                Long.toString(T)));
    assertThat(q.out.lines()).hasSize(exact.size());
    for (String line : q.out.lines().toList()) {
      int tab = line.lastIndexOf('\t');
      assertThat(Long.parseLong(line.substring(tab + 1)))
          .as(line)
          .isGreaterThanOrEqualTo(exact.get(line.substring(0, tab)));
    }
    assertThat(ok(Cli.run("cms", "info", key)).out).contains("maxSkew:").contains("slices:");
  }

  @Test
  void aWindowedHyperLogLogWithMaxSkewCountsTheWholeHourAfterAWriterAhead() throws IOException {
    // 2,000 distinct words, so that a lost slice shows in the count.
    List<String> words = WindowFilterCliTest.words().subList(0, 2_000);
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < words.size(); i++) {
      b.append(T - 59 * MINUTE + i * (59 * MINUTE / words.size()))
          .append('\t')
          .append(words.get(i))
          .append('\n');
    }
    Path items = dir.resolve("visits.tsv");
    Files.writeString(items, b);
    String key = server.uri() + "/visitors";
    fillThenAhead("hll", key, items, 9, "--window", "1h", "--slice", "1m", "--max-skew", "10m");
    long count =
        Long.parseLong(
            ok(Cli.run("hll", "count", key, "--last", "1h", "--at", Long.toString(T))).out.strip());
    // p = 14: a standard error of 0.8 %; eight lost minutes of sixty would be 13 % fewer.
    assertThat((double) count)
        .isCloseTo(words.size(), org.assertj.core.data.Percentage.withPercentage(4));
  }

  @Test
  void maxSkewOnAFileWithoutAWindowOrAsLongAsTheWindowIsOneLine() {
    String f = dir.resolve("w.cms").toString();
    String k = server.uri() + "/bad";
    String[][] usage = {
      {"cms", "create", f, "--window", "1h", "--width", "9", "--depth", "2", "--max-skew", "1m"},
      {"hll", "create", f, "--window", "1h", "--max-skew", "1m"},
      {"filter", "create", f, "--type", "window", "--window", "1h", "--max-skew", "1m"},
      {"cms", "create", k, "--width", "9", "--depth", "2", "--max-skew", "1m"},
      {"hll", "create", k, "--max-skew", "1m"},
      {"cms", "create", k, "--window", "1h", "--width", "9", "--depth", "2", "--max-skew", "0"},
      {"cms", "create", k, "--window", "1h", "--width", "9", "--depth", "2", "--max-skew", "2h"},
      {"hll", "create", k, "--window", "1h", "--max-skew", "2h"},
    };
    for (String[] args : usage) {
      Cli r = Cli.runWithInput("", args);
      assertThat(r.exit).as(String.join(" ", args) + ": " + r).isEqualTo(2);
      assertThat(r.err.strip().lines()).as(r.toString()).hasSize(1);
      assertThat(r.err).containsIgnoringCase("skew").doesNotContain("Exception");
    }
    assertThat(Files.exists(Path.of(f))).isFalse();
  }
}
