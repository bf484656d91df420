package io.github.probkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.filter.SplitBlockBloomFilter;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code probkit filter create --type split-block}: Parquet's filter from the command line. */
class SplitBlockCliTest {
  @TempDir Path dir;

  private List<String> words(int n) throws IOException {
    Path dict = Path.of("/usr/share/dict/words");
    LinkedHashSet<String> words = new LinkedHashSet<>();
    if (Files.isReadable(dict)) {
      for (String w : Files.readAllLines(dict, StandardCharsets.UTF_8)) {
        if (words.size() < n) {
          words.add(w);
        }
      }
    }
    for (int i = 0; words.size() < n; i++) {
      words.add("user:" + i);
    }
    return new ArrayList<>(words);
  }

  @Test
  void createdQueriedMergedAndTheLibrarysBits() throws IOException {
    List<String> words = words(20_000);
    Path first = dir.resolve("first.txt");
    Path second = dir.resolve("second.txt");
    Files.write(first, words.subList(0, 10_000), StandardCharsets.UTF_8);
    Files.write(second, words.subList(10_000, 20_000), StandardCharsets.UTF_8);
    String a = dir.resolve("a.bin").toString();
    String b = dir.resolve("b.bin").toString();
    for (String[] f : new String[][] {{a, first.toString()}, {b, second.toString()}}) {
      Cli c =
          Cli.run(
              "filter",
              "create",
              f[0],
              "--type",
              "split-block",
              "--expected",
              "20000",
              "--keys",
              f[1]);
      assertThat(c.exit).as(c.err).isZero();
    }
    Cli merge = Cli.run("filter", "merge", a, b);
    assertThat(merge.exit).as(merge.err).isZero();
    Path all = dir.resolve("all.txt");
    Files.write(all, words, StandardCharsets.UTF_8);
    Cli q = Cli.run("filter", "query", a, "--keys", all.toString());
    assertThat(q.out.lines().filter(l -> l.endsWith("\tabsent")).count())
        .as("kept words reported absent")
        .isZero();

    SplitBlockBloomFilter library = SplitBlockBloomFilter.create(20_000, 0.01);
    words.forEach(library::add);
    try (InputStream in = Files.newInputStream(Path.of(a))) {
      assertThat(SplitBlockBloomFilter.readFrom(in).toParquetBitset())
          .isEqualTo(library.toParquetBitset());
    }
    Cli info = Cli.run("filter", "info", a, "--json");
    assertThat(info.out)
        .startsWith("{\"type\": \"split-block\", \"bits\": ")
        .contains("\"hash\": \"xxh64\"");
  }

  @Test
  void anotherHashOrADamagedFileIsOneLine() throws IOException {
    String f = dir.resolve("f.bin").toString();
    Cli c =
        Cli.run(
            "filter", "create", f, "--type", "split-block", "--expected", "100", "--hash", "fnv1a");
    assertThat(c.exit).isEqualTo(2);
    assertThat(c.err).contains("xxh64").hasLineCount(1);
    assertThat(Path.of(f)).doesNotExist();
    Cli x =
        Cli.run(
            "filter", "create", f, "--type", "split-block", "--expected", "100", "--hash", "xxh64");
    assertThat(x.exit).isEqualTo(2);
    assertThat(x.err).contains("--type split-block takes no --hash").hasLineCount(1);

    assertThat(
            Cli.runWithInput(
                    "k1\nk2\n", "filter", "create", f, "--type", "split-block", "--expected", "100")
                .exit)
        .isZero();
    byte[] bytes = Files.readAllBytes(Path.of(f));
    bytes[bytes.length - 40] ^= 1;
    Files.write(Path.of(f), bytes);
    Cli q = Cli.run("filter", "query", f, "k1");
    assertThat(q.exit).isEqualTo(1);
    assertThat(q.err).hasLineCount(1);
    assertThat(q.out).isEmpty();
  }
}
