package io.github.probkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InputsTest {
  @TempDir Path dir;

  @Test
  void fieldAndDelimiterSelectAColumn() throws IOException {
    Path tsv = dir.resolve("log.tsv");
    Files.writeString(tsv, "1\talice\tx\n2\tbob\ty\r\n3\n");
    String f = dir.resolve("f.bin").toString();
    Cli c = Cli.run("filter", "create", f, "--expected", "100", "--fpp", "0.01", "--keys", tsv.toString(),
        "--field", "2");
    assertThat(c.exit).as(c.toString()).isZero();
    assertThat(Cli.run("filter", "query", f, "alice", "bob", "1", "x").out)
        .isEqualTo("alice\tpresent\nbob\tpresent\n1\tabsent\nx\tabsent\n");
    Path csv = dir.resolve("log.csv");
    Files.writeString(csv, "a,carol\nb,dave\n");
    Cli.run("filter", "add", f, "--keys", csv.toString(), "--field", "2", "--delimiter", ",");
    assertThat(Cli.run("filter", "query", f, "carol", "dave").out).isEqualTo("carol\tpresent\ndave\tpresent\n");
  }

  @Test
  void badFieldOptionsAreUsageErrors() {
    String f = dir.resolve("f.bin").toString();
    Cli.run("filter", "create", f, "--expected", "100", "--fpp", "0.01");
    Cli r = Cli.runWithInput("a\n", "filter", "add", f, "--field", "2", "--delimiter", "ab");
    assertThat(r.exit).isEqualTo(2);
    assertThat(r.err).isEqualTo("probkit: --delimiter must be one ASCII character or \\t, was 'ab'\n");
    Cli neg = Cli.runWithInput("a\n", "filter", "add", f, "--field", "-1");
    assertThat(neg.err).isEqualTo("probkit: --field must be 1 or more, was -1\n");
  }

  @Test
  void directoriesAndMissingFilesAreNamed() {
    String f = dir.resolve("f.bin").toString();
    Cli.run("filter", "create", f, "--expected", "100", "--fpp", "0.01");
    Cli d = Cli.run("filter", "add", f, "--keys", dir.toString());
    assertThat(d.exit).isEqualTo(1);
    assertThat(d.err).isEqualTo("probkit: " + dir + ": is a directory\n");
    Cli m = Cli.run("filter", "add", f, "--keys", dir.resolve("missing.txt").toString());
    assertThat(m.err).isEqualTo("probkit: " + dir.resolve("missing.txt") + ": no such file\n");
  }

  @Test
  void newlineScanFindsEveryNewlineAtEveryAlignment() {
    java.util.SplittableRandom r = new java.util.SplittableRandom(0x11e5ca11L);
    for (int trial = 0; trial < 2000; trial++) {
      byte[] b = new byte[r.nextInt(40)];
      for (int i = 0; i < b.length; i++) {
        // Bytes next to '\n' (0x0a) in value, and 0x8a, stress the word trick's borrows.
        byte[] choices = {'\n', 0x0b, 0x09, (byte) 0x8a, 0, (byte) 0xff, 'a'};
        b[i] = choices[r.nextInt(choices.length)];
      }
      int from = b.length == 0 ? 0 : r.nextInt(b.length + 1);
      int expected = -1;
      for (int i = from; i < b.length; i++) {
        if (b[i] == '\n') {
          expected = i;
          break;
        }
      }
      assertThat(LineReader.indexOfNewline(b, from, b.length)).isEqualTo(expected);
    }
  }

  @Test
  void versionAndCompletion() {
    assertThat(Cli.run("--version").out).startsWith("probkit ");
    Cli c = Cli.run("generate-completion");
    assertThat(c.exit).isZero();
    assertThat(c.out).contains("complete -F").contains("filter");
  }
}
