package io.github.probkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code top --window --save redis://...} against a real redis-server: one run saves the same
 * window to a key as to a file (the export is the file's bytes, {@code top --from} prints the
 * same), four probkit processes at once share a window whose counts are the exact counts of its
 * slices, and a window of another shape is refused in one line.
 */
class WindowTopRedisCliTest extends WithRedisServer {
  private static final long HOUR = 3_600_000L;

  @TempDir Path dir;

  private static String[] top(String input, String save, String... more) {
    List<String> a =
        new ArrayList<>(List.of(WindowTopCliTest.topWindow("1h", 2, "--capacity", "8000")));
    if (save != null) {
      a.add("--save");
      a.add(save);
    }
    a.addAll(List.of(more));
    if (input != null) {
      a.add(input);
    }
    return a.toArray(String[]::new);
  }

  /** The number {@code field} of an {@code info --json}. */
  static long jsonLong(String json, String field) {
    Matcher m = Pattern.compile("\"" + field + "\": (\\d+)").matcher(json);
    assertThat(m.find()).as("%s in %s", field, json).isTrue();
    return Long.parseLong(m.group(1));
  }

  @Test
  void aWindowSavedToRedisIsTheFilesAndAFleetSharesOne() throws Exception {
    int n = 30_000;
    WindowTopCliTest.Timed s = WindowTopCliTest.Timed.of(n, 0x52edL);
    long latest = s.latest();
    String in = s.tsv();
    Path input = dir.resolve("in.tsv");
    Files.writeString(input, in);
    long slice = HOUR / 24;
    long to = Math.floorDiv(latest, slice);
    // What top --from prints: the whole window (24 slices before the newest, and the newest).
    Map<String, Long> window = WindowTopCliTest.exactCounts(s.item(), s.time(), slice, to - 24, to);
    String k = Integer.toString(window.size() + 10);

    Path file = dir.resolve("top.bin");
    String key = server.uri() + "/top";
    Cli toFile = Cli.run(top(input.toString(), file.toString(), "-k", k));
    Cli toRedis = Cli.run(top(input.toString(), key, "-k", k));
    assertThat(toRedis.exit).as(toRedis.toString()).isZero();
    assertThat(toRedis.out).isEqualTo(toFile.out);

    Path exported = dir.resolve("exported.bin");
    WindowCmsCliTest.ok(Cli.run("export", key, exported.toString()));
    assertThat(Files.readAllBytes(exported)).isEqualTo(Files.readAllBytes(file));

    Cli fromRedis = Cli.run("top", "--from", key, "-k", k);
    assertThat(WindowTopCliTest.exactlyPrinted(fromRedis)).isEqualTo(window);
    assertThat(fromRedis.out).isEqualTo(Cli.run("top", "--from", file.toString(), "-k", k).out);
    String at = Instant.ofEpochMilli(latest - 7 * 60_000L).toString();
    assertThat(Cli.run("top", "--from", key, "--last", "10m", "--at", at, "-k", k).out)
        .isEqualTo(
            Cli.run("top", "--from", file.toString(), "--last", "10m", "--at", at, "-k", k).out);

    Cli info = Cli.run("info", key, "--json");
    assertThat(info.exit).as(info.toString()).isZero();
    assertThat(info.out)
        .contains("\"type\": \"window-heavy-hitters\"")
        .contains("\"window\": \"1h\"")
        .contains("\"capacity\": 8000");
    // bytes: the slices' real memory, so at least the window's distinct items' own bytes (each is a
    // field of a slice's items hash), and within the keys' memoryUsage (which adds the metadata).
    long itemBytes = 0;
    for (String w : window.keySet()) {
      itemBytes += w.getBytes(StandardCharsets.UTF_8).length;
    }
    assertThat(jsonLong(info.out, "bytes"))
        .isGreaterThan(itemBytes)
        .isLessThan(jsonLong(info.out, "memoryUsage"));

    // Four processes at once, each a quarter of the lines, into one key: no count lost.
    String fleet = server.uri() + "/fleet";
    List<Process> running = new ArrayList<>();
    List<String> lines = in.lines().toList();
    for (int p = 0; p < 4; p++) {
      Path chunk = dir.resolve("chunk" + p + ".tsv");
      Files.write(chunk, lines.subList(p * n / 4, (p + 1) * n / 4));
      running.add(
          Probkit.builder(List.of(), top(chunk.toString(), fleet, "--max-skew", "5m")).start());
    }
    for (Process p : running) {
      Probkit.Result r = Probkit.finish(p);
      assertThat(r.exit()).as(r.toString()).isZero();
    }
    assertThat(WindowTopCliTest.exactlyPrinted(Cli.run("top", "--from", fleet, "-k", k)))
        .isEqualTo(window);
    assertThat(WindowCmsCliTest.ok(Cli.run("info", fleet, "--json")).out)
        .contains("\"maxSkew\": \"5m\"");
    // A file has one writer: --max-skew is refused there, in one line, before anything is read.
    Cli skewedFile =
        Cli.run(top(input.toString(), dir.resolve("s.bin").toString(), "--max-skew", "5m"));
    assertThat(skewedFile.exit).as(skewedFile.toString()).isEqualTo(2);
    assertThat(skewedFile.err.strip().lines()).hasSize(1);
    assertThat(skewedFile.err).contains("--max-skew");
    assertThat(dir.resolve("s.bin")).doesNotExist();

    // Another shape for the same key: one line, nothing changed.
    Cli other =
        Cli.run(
            WindowTopCliTest.topWindow(
                "2h", 2, "--capacity", "8000", "--save", fleet, input.toString()));
    assertThat(other.exit).as(other.toString()).isEqualTo(1);
    assertThat(other.err.strip().lines()).hasSize(1);
    assertThat(other.err).contains("exists").contains("150000 ms").doesNotContain("Exception");
    assertThat(WindowTopCliTest.exactlyPrinted(Cli.run("top", "--from", fleet, "-k", k)))
        .isEqualTo(window);
  }
}
