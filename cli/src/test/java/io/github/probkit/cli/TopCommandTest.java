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
    assertThat(r.out).isEqualTo("3\ta\n2\tb\n");
    assertThat(r.err).isEmpty();
    // Ties are listed in byte order; fewer lines than K is fine; --k is accepted too.
    assertThat(Cli.runWithInput("y\nx\n", "top", "--k", "5").out).isEqualTo("1\tx\n1\ty\n");
    assertThat(Cli.runWithInput("", "top").out).isEmpty();
  }

  @Test
  void fieldSelectsAColumn() {
    Cli r =
        Cli.runWithInput(
            "1\tcricket\n2\train\n3\tcricket\nno field\n", "top", "-k", "1", "--field", "2");
    assertThat(r.exit).as(r.toString()).isZero();
    assertThat(r.out).isEqualTo("2\tcricket\n");
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
      assertThat(f[1]).isEqualTo("query " + (i + 1));
      assertThat(Long.parseLong(f[0])).isGreaterThanOrEqualTo(truth[i]);
    }
    // "-" reads stdin among files.
    Cli mixed =
        Cli.runWithInput("from stdin\n".repeat(5000), "top", "-k", "1", plain.toString(), "-");
    String[] first = mixed.out.split("\n")[0].split("\t");
    assertThat(first[1]).isEqualTo("from stdin");
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
}
