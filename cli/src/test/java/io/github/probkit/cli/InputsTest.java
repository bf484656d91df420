package io.github.probkit.cli;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.cli.input.InputFormat;
import io.github.probkit.cli.input.Inputs;
import io.github.probkit.cli.input.LineReader;
import io.github.probkit.hash.HashStrategy;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InputsTest {
  @TempDir Path dir;

  @Test
  void fieldAndDelimiterSelectAColumn() throws IOException {
    Path tsv = dir.resolve("log.tsv");
    Files.writeString(tsv, "1\talice\tx\n2\tbob\ty\r\n3\n");
    String f = dir.resolve("f.bin").toString();
    Cli c =
        Cli.run(
            "filter",
            "create",
            f,
            "--expected",
            "100",
            "--fpp",
            "0.01",
            "--keys",
            tsv.toString(),
            "--field",
            "2");
    assertThat(c.exit).as(c.toString()).isZero();
    assertThat(Cli.run("filter", "query", f, "alice", "bob", "1", "x").out)
        .isEqualTo("alice\tpresent\nbob\tpresent\n1\tabsent\nx\tabsent\n");
    Path csv = dir.resolve("log.csv");
    Files.writeString(csv, "a,carol\nb,dave\n");
    Cli.run("filter", "add", f, "--keys", csv.toString(), "--field", "2", "--delimiter", ",");
    assertThat(Cli.run("filter", "query", f, "carol", "dave").out)
        .isEqualTo("carol\tpresent\ndave\tpresent\n");
  }

  @Test
  void badFieldOptionsAreUsageErrors() {
    String f = dir.resolve("f.bin").toString();
    Cli.run("filter", "create", f, "--expected", "100", "--fpp", "0.01");
    Cli r = Cli.runWithInput("a\n", "filter", "add", f, "--field", "2", "--delimiter", "ab");
    assertThat(r.exit).isEqualTo(2);
    assertThat(r.err)
        .isEqualTo(
            "probkit: --delimiter must be one ASCII character other than a newline or quote, or \\t; was 'ab'\n");
    Cli neg = Cli.runWithInput("a\n", "filter", "add", f, "--field", "-1");
    assertThat(neg.err)
        .isEqualTo(
            "probkit: --field counts from 1 (without --field the key is the whole line), was -1\n");
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
    SplittableRandom r = new SplittableRandom(0x11e5ca11L);
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

  /**
   * A run registers only the subcommand it names; whatever names none, or needs the others (help,
   * completion, a mistyped name), sees all of them.
   */
  @Test
  void everyWayOfNamingACommandFindsIt() {
    String[] all = {
      "demo", "filter", "cms", "top", "distinct", "hll", "lab", "help", "generate-completion"
    };
    for (String[] args : new String[][] {{}, {"--help"}, {"help"}}) {
      Cli c = Cli.run(args);
      assertThat(c.exit).as(String.join(" ", args)).isZero();
      int at = -1;
      for (String name : all) {
        int i = c.out.indexOf("\n  " + name + " ");
        assertThat(i).as("%s lists %s", String.join(" ", args), name).isGreaterThan(at);
        at = i;
      }
    }
    assertThat(Cli.run("help", "distinct").out).contains("Usage: probkit distinct");
    assertThat(Cli.runWithInput("a\nb\na\n", "--verbose", "distinct").out).isEqualTo("2\n");
    Cli typo = Cli.run("distnct", "x.txt");
    assertThat(typo.exit).isEqualTo(2);
    assertThat(typo.err).contains("distinct");
  }

  @Test
  void versionAndCompletion() {
    assertThat(Cli.run("--version").out).startsWith("probkit ");
    Cli c = Cli.run("generate-completion");
    assertThat(c.exit).isZero();
    assertThat(c.out).contains("complete -F").contains("filter");
  }

  /**
   * Lines of every length, including empty ones, CRLF endings, one line longer than a block and a
   * last line without its newline, read as blocks: every key arrives once, and in order where the
   * sink asks for order, whatever the number of threads.
   */
  @Test
  void blocksGiveEveryLineOnceWhateverTheThreads() throws IOException {
    SplittableRandom r = new SplittableRandom(0xb10c5L);
    List<String> keys = new ArrayList<>();
    StringBuilder text = new StringBuilder();
    while (text.length() < 3 * LineReader.BLOCK) {
      int len = r.nextInt(10) == 0 ? r.nextInt(3000) : r.nextInt(30);
      if (keys.size() == 1000) {
        len = LineReader.BLOCK + 12345; // longer than a block: the buffer grows
      }
      StringBuilder k = new StringBuilder();
      for (int i = 0; i < len; i++) {
        k.append((char) ('a' + r.nextInt(26)));
      }
      keys.add(k.toString());
      text.append(k).append(r.nextInt(4) == 0 ? "\r\n" : "\n");
    }
    keys.add("last-without-newline");
    text.append("last-without-newline");
    Path file = dir.resolve("lines.txt");
    Files.writeString(file, text);
    Path gz = dir.resolve("lines.txt.gz");
    try (OutputStream o = new GZIPOutputStream(Files.newOutputStream(gz))) {
      o.write(text.toString().getBytes(US_ASCII));
    }
    HashStrategy hash = HashStrategy.xxh3();
    List<Long> expectedHashes = new ArrayList<>();
    for (String k : keys) {
      expectedHashes.add(hash.hash64(k.getBytes(US_ASCII)));
    }
    String saved = System.getProperty("probkit.threads");
    try {
      for (String threads : new String[] {"1", "2", "5"}) {
        System.setProperty("probkit.threads", threads);
        for (Path input : new Path[] {file, gz}) {
          List<String> inOrder = new ArrayList<>();
          long n =
              Inputs.forEachLine(
                  List.of(input.toString()),
                  Inputs.Stdin.file(InputStream.nullInputStream()),
                  new InputFormat(),
                  (b, off, len) -> inOrder.add(new String(b, off, len, US_ASCII)));
          assertThat(n).isEqualTo(keys.size());
          assertThat(inOrder).isEqualTo(keys);

          List<Long> hashes = new ArrayList<>();
          Inputs.forEachLine(
              List.of(input.toString()),
              Inputs.Stdin.file(InputStream.nullInputStream()),
              new InputFormat(),
              Inputs.KeySink.hashes(hash, hashes::add));
          assertThat(hashes).as("hashes with %s threads", threads).isEqualTo(expectedHashes);

          Queue<String> any = new ConcurrentLinkedQueue<>();
          Inputs.forEachLine(
              List.of(input.toString(), input.toString()),
              Inputs.Stdin.file(InputStream.nullInputStream()),
              new InputFormat(),
              Inputs.KeySink.concurrently(
                  (b, off, len) -> any.add(new String(b, off, len, US_ASCII))));
          List<String> twice = new ArrayList<>(keys);
          twice.addAll(keys);
          assertThat(any).containsExactlyInAnyOrderElementsOf(twice);
        }
      }
    } finally {
      if (saved == null) {
        System.clearProperty("probkit.threads");
      } else {
        System.setProperty("probkit.threads", saved);
      }
    }
  }

  /** A sketch built on several threads is the same file, byte for byte, as one built on one. */
  @Test
  void threadsDoNotChangeTheResult() throws IOException {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < 300_000; i++) {
      text.append("user:").append(i % 200_000).append('\n');
    }
    Path keys = dir.resolve("keys.txt");
    Files.writeString(keys, text);
    String saved = System.getProperty("probkit.threads");
    try {
      byte[][] files = new byte[3][];
      String[] threads = {"1", "2", "4"};
      for (int t = 0; t < threads.length; t++) {
        System.setProperty("probkit.threads", threads[t]);
        Path hll = dir.resolve("h" + t + ".hll");
        Path bloom = dir.resolve("b" + t + ".bin");
        assertThat(Cli.run("hll", "create", hll.toString()).exit).isZero();
        assertThat(Cli.run("hll", "add", hll.toString(), "--items", keys.toString()).exit).isZero();
        assertThat(
                Cli.run(
                        "filter",
                        "create",
                        bloom.toString(),
                        "--expected",
                        "200000",
                        "--fpp",
                        "0.01",
                        "--keys",
                        keys.toString())
                    .exit)
            .isZero();
        files[t] = concat(Files.readAllBytes(hll), Files.readAllBytes(bloom));
        assertThat(Cli.run("distinct", keys.toString()).out)
            .isEqualTo(Cli.run("hll", "count", hll.toString()).out);
      }
      assertThat(files[1]).isEqualTo(files[0]);
      assertThat(files[2]).isEqualTo(files[0]);
    } finally {
      if (saved == null) {
        System.clearProperty("probkit.threads");
      } else {
        System.setProperty("probkit.threads", saved);
      }
    }
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] c = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, c, a.length, b.length);
    return c;
  }
}
