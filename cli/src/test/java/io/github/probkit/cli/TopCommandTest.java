package io.github.probkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TopCommandTest {
  @TempDir Path dir;

  @Test
  void printsTheMostFrequentLinesWithCounts() {
    Cli r = Cli.runWithInput("b\na\nc\na\nb\na\nd\r\n", "top", "-k", "2");
    assertThat(r.exit).as(r.toString()).isZero();
    assertThat(r.out).isEqualTo("3\t3\ta\n2\t2\tb\n");
    assertThat(r.err).isEmpty();
    // Ties are listed in byte order; fewer lines than K is fine; --k is accepted too.
    assertThat(Cli.runWithInput("y\nx\n", "top", "--k", "5").out).isEqualTo("1\t1\tx\n1\t1\ty\n");
    assertThat(Cli.runWithInput("", "top").out).isEmpty();
    // A tie at the K-th count, every count exact: no warning.
    Cli tie = Cli.runWithInput("a\nb\nc\n", "top", "-k", "2");
    assertThat(tie.out).isEqualTo("1\t1\ta\n1\t1\tb\n");
    assertThat(tie.err).isEmpty();
  }

  @Test
  void fieldSelectsAColumn() {
    Cli r =
        Cli.runWithInput(
            "1\tcricket\n2\train\n3\tcricket\nno field\n", "top", "-k", "1", "--field", "2");
    assertThat(r.exit).as(r.toString()).isZero();
    assertThat(r.out).isEqualTo("2\t2\tcricket\n");
  }

  @Test
  void jsonAddsTheBounds() {
    // Capacity 2: c replaces b (count 1), so c has count 2 with error 1.
    Cli r = Cli.runWithInput("a\na\na\nb\nc\n", "top", "-k", "1", "--capacity", "2", "--json");
    assertThat(r.exit).as(r.toString()).isZero();
    assertThat(r.out)
        .isEqualTo(
            "{\"k\": 1, \"capacity\": 2, \"totalCount\": 5, \"distinctTracked\": 2, "
                + "\"maxError\": 2, \"items\": [{\"item\": \"a\", \"count\": 3, \"error\": 0, \"lowerBound\": 3, "
                + "\"certain\": true}]}\n");
    Cli all = Cli.runWithInput("a\na\na\nb\nc\n", "top", "-k", "2", "--capacity", "2", "--json");
    assertThat(all.out)
        .contains(
            "{\"item\": \"c\", \"count\": 2, \"error\": 1, \"lowerBound\": 1, \"certain\": false}");
  }

  @Test
  void readsSeveralFilesAndGzipAndFindsTheTrueTop() throws IOException {
    // A skewed stream: line i appears about 2000/i times, in random order, over two files.
    SplittableRandom random = new SplittableRandom(0x70900001L);
    List<String> lines = new ArrayList<>();
    for (int i = 1; i <= 3000; i++) {
      for (int j = 0; j < Math.max(1, 2000 / i); j++) {
        lines.add("query " + i);
      }
    }
    for (int i = lines.size() - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      String t = lines.get(i);
      lines.set(i, lines.get(j));
      lines.set(j, t);
    }
    Path plain = dir.resolve("part1.txt");
    Path gz = dir.resolve("part2.txt.gz");
    Files.write(plain, lines.subList(0, lines.size() / 2), StandardCharsets.UTF_8);
    try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(gz))) {
      for (String l : lines.subList(lines.size() / 2, lines.size())) {
        out.write((l + "\n").getBytes(StandardCharsets.UTF_8));
      }
    }
    Cli r = Cli.run("top", "-k", "4", "--capacity", "200", plain.toString(), gz.toString());
    assertThat(r.exit).as(r.toString()).isZero();
    // Exact counts 2000, 1000, 666, 500 are far above N/200, so they are exact or nearly so, and
    // their order is certain; check the lines and that each count is an upper bound.
    String[] out = r.out.split("\n");
    assertThat(out).hasSize(4);
    int[] truth = {2000, 1000, 666, 500};
    for (int i = 0; i < 4; i++) {
      String[] f = out[i].split("\t");
      assertThat(f[2]).isEqualTo("query " + (i + 1));
      assertThat(Long.parseLong(f[0])).isGreaterThanOrEqualTo(truth[i]);
      assertThat(Long.parseLong(f[1])).isLessThanOrEqualTo(truth[i]);
    }
    // "-" reads stdin among files.
    Cli mixed =
        Cli.runWithInput("from stdin\n".repeat(5000), "top", "-k", "1", plain.toString(), "-");
    String[] first = mixed.out.split("\n")[0].split("\t");
    assertThat(first[2]).isEqualTo("from stdin");
    assertThat(Long.parseLong(first[0])).isGreaterThanOrEqualTo(5000);
  }

  @Test
  void errorsAreOneLineWithTheRightExitCode() {
    Cli zero = Cli.run("top", "-k", "0");
    assertThat(zero.exit).isEqualTo(2);
    assertThat(zero.err).isEqualTo("probkit: -k must be positive, was 0\n");
    Cli small = Cli.run("top", "-k", "10", "--capacity", "5");
    assertThat(small.exit).isEqualTo(2);
    assertThat(small.err).isEqualTo("probkit: --capacity must be at least K (10), was 5\n");
    Cli huge = Cli.run("top", "--capacity", "2000000000");
    assertThat(huge.exit).isEqualTo(2);
    assertThat(huge.err).isEqualTo("probkit: capacity must be in [1, 268435456], was 2000000000\n");
    String missing = dir.resolve("missing.txt").toString();
    Cli none = Cli.run("top", missing);
    assertThat(none.exit).isEqualTo(1);
    assertThat(none.err).isEqualTo("probkit: " + missing + ": no such file\n");
    assertThat(none.out).isEmpty();
    assertThat(Cli.run("top", "-k", "x").exit).isEqualTo(2);
  }

  /**
   * Five frequent lines (18 down to 14 times), 3,000 lines 5 times each and 100,000 lines once, in
   * random order, each after {@code pad} x's: a summary of 1,000 candidates loses the frequent
   * lines among the singletons.
   */
  private Path flood(int pad) throws IOException {
    List<String> lines = new ArrayList<>();
    for (int i = 1; i <= 5; i++) {
      for (int j = 0; j < 19 - i; j++) {
        lines.add("hot " + i);
      }
    }
    for (int i = 0; i < 3000; i++) {
      for (int j = 0; j < 5; j++) {
        lines.add("mid " + i);
      }
    }
    for (int i = 0; i < 100_000; i++) {
      lines.add("once " + i);
    }
    SplittableRandom random = new SplittableRandom(0x70900002L);
    for (int i = lines.size() - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      String t = lines.get(i);
      lines.set(i, lines.get(j));
      lines.set(j, t);
    }
    String x = "x".repeat(pad);
    lines.replaceAll(l -> x + l);
    Path p = dir.resolve("flood" + pad + ".txt");
    Files.write(p, lines, StandardCharsets.UTF_8);
    return p;
  }

  /** The true count of each line of {@link #flood}. */
  private static long truth(String padded) {
    String line = padded.replaceFirst("^x*", "");
    return line.startsWith("hot ")
        ? 19 - Integer.parseInt(line.substring(4))
        : line.startsWith("mid ") ? 5 : 1;
  }

  @Test
  void byDefaultTheTopIsExactAmongAFloodOfSingletons() throws IOException {
    Cli r = Cli.run("top", "-k", "5", flood(0).toString());
    assertThat(r.exit).as(r.toString()).isZero();
    assertThat(r.out)
        .isEqualTo("18\t18\thot 1\n17\t17\thot 2\n16\t16\thot 3\n15\t15\thot 4\n14\t14\thot 5\n");
    assertThat(r.err).isEmpty();
  }

  /** Checks that every printed row's true count lies within its two bounds; whether all exact. */
  private static boolean honest(Cli r, int k) {
    assertThat(r.exit).as(r.toString()).isZero();
    String[] rows = r.out.split("\n");
    assertThat(rows).hasSize(k);
    boolean exact = true;
    for (String row : rows) {
      String[] f = row.split("\t");
      long count = Long.parseLong(f[0]);
      long atLeast = Long.parseLong(f[1]);
      assertThat(truth(f[2])).as(row).isBetween(atLeast, count);
      exact &= atLeast == count;
    }
    return exact;
  }

  @Test
  void withFewCandidatesTheCountsAreRangesAndAWarningSaysSo() throws IOException {
    Path in = flood(0);
    // 1,000 candidates for 103,005 distinct lines: an unlisted line may have occurred 100 times.
    Cli r = Cli.run("top", "-k", "5", "--capacity", "1000", in.toString());
    assertThat(honest(r, 5)).isFalse();
    assertThat(r.err)
        .startsWith("probkit: warning: top: these may not be the top 5 lines: more distinct lines")
        .contains("--capacity")
        .hasLineCount(1);
    // The same when the memory is what limits the candidates: 2 MB holds 15,625 candidates of
    // short lines, and about a third as many of these lines of 200 bytes and more.
    System.setProperty("probkit.top.bytes", "2000000");
    try {
      Cli m = Cli.run("top", "-k", "5", in.toString());
      assertThat(honest(m, 5)).isFalse();
      assertThat(m.err)
          .startsWith("probkit: warning: top: these are the top 5 lines, but their order")
          .hasLineCount(1);
      assertThat(Cli.run("top", "-k", "5", "--json", in.toString()).out)
          .contains("\"capacity\": 15625,");
      Path padded = flood(200);
      Cli p = Cli.run("top", "-k", "5", padded.toString());
      assertThat(honest(p, 5)).isFalse();
      assertThat(p.err).startsWith("probkit: warning: top: ").hasLineCount(1);
      String json = Cli.run("top", "-k", "5", "--json", padded.toString()).out;
      long kept = Long.parseLong(json.replaceAll(".*\"capacity\": (\\d+),.*\n", "$1"));
      assertThat(kept).isBetween(1000L, 15625L / 2);
    } finally {
      System.clearProperty("probkit.top.bytes");
    }
  }
}
