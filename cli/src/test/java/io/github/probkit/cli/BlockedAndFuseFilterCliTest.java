package io.github.probkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.filter.BinaryFuseFilter;
import io.github.probkit.filter.BinaryFuseFilter.Derivation;
import io.github.probkit.filter.BinaryFuseFilter.FingerprintBits;
import io.github.probkit.hash.HashStrategy;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code probkit filter} with the blocked Bloom and binary fuse types. */
class BlockedAndFuseFilterCliTest {
  @TempDir Path dir;
  private Path keys;

  @BeforeEach
  void writeKeys() throws IOException {
    // 2,000 distinct keys, each written twice: a static filter must store them once.
    List<String> lines = new ArrayList<>();
    for (int copy = 0; copy < 2; copy++) {
      for (int i = 0; i < 2000; i++) {
        lines.add("user:" + i);
      }
    }
    keys = dir.resolve("keys.txt");
    Files.write(keys, lines, StandardCharsets.UTF_8);
  }

  private String file(String name) {
    return dir.resolve(name).toString();
  }

  private static int present(String queryOutput) {
    return (int) queryOutput.lines().filter(l -> l.endsWith("\tpresent")).count();
  }

  @Test
  void blockedFilterIsCreatedFilledQueriedAndDescribed() {
    Cli c =
        create(
            "b.bin", "blocked", "--expected", "2000", "--fpp", "0.01", "--keys", keys.toString());
    assertThat(c.exit).as(c.err).isZero();
    Cli q = Cli.run("filter", "query", file("b.bin"), "--keys", keys.toString());
    assertThat(present(q.out)).isEqualTo(4000);
    assertThat(Cli.run("filter", "add", file("b.bin"), "late-key").exit).isZero();
    assertThat(Cli.run("filter", "query", file("b.bin"), "late-key").out)
        .isEqualTo("late-key\tpresent\n");
    Cli info = Cli.run("filter", "info", file("b.bin"), "--json");
    assertThat(info.exit).isZero();
    assertThat(info.out)
        .startsWith("{\"type\": \"blocked\", \"bits\": ")
        .contains(
            "\"blocks\": ",
            "\"hashes\": ",
            "\"expectedKeys\": 2000",
            "\"fpp\": 0.01",
            "\"bitsSet\": ",
            "\"approximateCount\": ",
            "\"bytes\": ",
            "\"hash\": \"xxh3\"");
  }

  /** {@code filter create} of {@code name} in the test's folder as {@code type}. */
  private Cli create(String name, String type, String... more) {
    return Cli.run(Commands.filterCreate(file(name), type, more));
  }

  @Test
  void binaryFuseFiltersAreBuiltFromTheirKeys() {
    for (String type : new String[] {"binary-fuse8", "binary-fuse16"}) {
      Cli c = create(type, type, "--keys", keys.toString());
      assertThat(c.exit).as(c.err).isZero();
      assertThat(present(Cli.run("filter", "query", file(type), "--keys", keys.toString()).out))
          .isEqualTo(4000);
      Cli info = Cli.run("filter", "info", file(type), "--json");
      String bits = type.endsWith("8") ? "8" : "16";
      assertThat(info.out)
          .startsWith("{\"type\": \"binary-fuse\", \"bits\": ")
          .contains(
              "\"fingerprintBits\": " + bits,
              "\"keys\": 2000",
              "\"segmentLength\": ",
              "\"segmentCount\": ",
              "\"bitsPerKey\": ",
              "\"bytes\": ")
          .doesNotContain("approximateCount");
    }
  }

  /**
   * Every dictionary word is found by {@code filter query} (which maps the file) in a file of
   * either derivation: 2, as {@code filter create} writes, and 1, as files written before it hold.
   * A flipped fingerprint is refused in one line.
   */
  @Test
  void everyWordIsFoundInFuseFilesOfBothDerivations() throws IOException {
    List<String> words = Words.lines().stream().distinct().toList();
    Path wordFile = dir.resolve("words.txt");
    Files.write(wordFile, words, StandardCharsets.UTF_8);
    Cli c = create("v2.bin", "binary-fuse8", "--keys", wordFile.toString());
    assertThat(c.exit).as(c.err).isZero();
    assertThat(Cli.run("filter", "info", file("v2.bin"), "--json").out)
        .contains("\"derivation\": 2");
    long[] hashes = new long[words.size()];
    for (int i = 0; i < hashes.length; i++) {
      hashes[i] = HashStrategy.xxh3().hash64(words.get(i));
    }
    BinaryFuseFilter v1 =
        BinaryFuseFilter.fromHashes(
            hashes, hashes.length, FingerprintBits.BITS_8, HashStrategy.xxh3(), Derivation.V1);
    try (OutputStream out = Files.newOutputStream(dir.resolve("v1.bin"))) {
      v1.writeTo(out);
    }
    assertThat(Cli.run("filter", "info", file("v1.bin"), "--json").out)
        .contains("\"derivation\": 1");
    for (String name : new String[] {"v1.bin", "v2.bin"}) {
      Cli q = Cli.run("filter", "query", file(name), "--keys", wordFile.toString(), "--absent");
      assertThat(q.exit).as(name + ": " + q.err).isIn(0, 1);
      assertThat(q.out).as(name + ": words reported absent").isEmpty();
    }
    byte[] bad = Files.readAllBytes(dir.resolve("v2.bin"));
    bad[bad.length / 2] ^= 0x10;
    Files.write(dir.resolve("bad.bin"), bad);
    Cli q = Cli.run("filter", "query", file("bad.bin"), "--keys", wordFile.toString());
    assertThat(q.exit).isNotZero();
    assertThat(q.err.lines().count()).as(q.err).isEqualTo(1);
    assertThat(q.err).contains("checksum");
  }

  @Test
  void fuseTakesItsWidthFromTheRate() {
    assertThat(create("f.bin", "fuse", "--fpp", "0.001", "--keys", keys.toString()).exit).isZero();
    assertThat(Cli.run("filter", "info", file("f.bin"), "--json").out)
        .contains("\"fingerprintBits\": 16");
    assertThat(create("g.bin", "fuse", "--keys", keys.toString()).exit).isZero();
    assertThat(Cli.run("filter", "info", file("g.bin"), "--json").out)
        .contains("\"fingerprintBits\": 8");
  }

  @Test
  void binaryFuseReadsItsKeysFromStandardInput() {
    Cli c =
        Cli.runWithInput(
            "a\nb\nc\na\n",
            "filter",
            "create",
            file("s.bin"),
            "--type",
            "binary-fuse8",
            "--keys",
            "-");
    assertThat(c.exit).as(c.err).isZero();
    assertThat(Cli.run("filter", "info", file("s.bin"), "--json").out).contains("\"keys\": 3");
    assertThat(Cli.run("filter", "query", file("s.bin"), "a", "b", "c").out)
        .isEqualTo("a\tpresent\nb\tpresent\nc\tpresent\n");
  }

  @Test
  void blockedFiltersMerge() {
    create("x.bin", "blocked", "--expected", "100", "--fpp", "0.01");
    create("y.bin", "blocked", "--expected", "100", "--fpp", "0.01");
    Cli.run("filter", "add", file("x.bin"), "left");
    Cli.run("filter", "add", file("y.bin"), "right");
    Cli m = Cli.run("filter", "merge", file("xy.bin"), file("x.bin"), file("y.bin"));
    assertThat(m.exit).as(m.err).isZero();
    assertThat(Cli.run("filter", "query", file("xy.bin"), "left", "right").out)
        .isEqualTo("left\tpresent\nright\tpresent\n");
    create("z.bin", "blocked", "--expected", "1000", "--fpp", "0.01");
    Cli bad = Cli.run("filter", "merge", file("xz.bin"), file("x.bin"), file("z.bin"));
    assertThat(bad.exit).isEqualTo(Main.EXIT_RUNTIME);
    assertThat(bad.err).contains("different sizes");
  }

  @Test
  void binaryFuseWithoutKeysIsAUsageError() {
    Cli c = Cli.runAtTerminal("filter", "create", file("f.bin"), "--type", "binary-fuse8");
    assertThat(c.exit).isEqualTo(Main.EXIT_USAGE);
    assertThat(c.err.lines()).hasSize(1);
    assertThat(c.err).contains("--keys");
    assertThat(dir.resolve("f.bin")).doesNotExist();
  }

  @Test
  void aRateTheWidthCannotMeetIsAUsageError() {
    Cli c = create("f.bin", "binary-fuse8", "--fpp", "0.001", "--keys", keys.toString());
    assertThat(c.exit).isEqualTo(Main.EXIT_USAGE);
    assertThat(c.err).contains("2^-8", "binary-fuse16");
  }

  @Test
  void addingToABinaryFuseFileFailsInOneLineAndLeavesItAlone() throws IOException {
    assertThat(create("f.bin", "binary-fuse8", "--keys", keys.toString()).exit).isZero();
    byte[] before = Files.readAllBytes(dir.resolve("f.bin"));
    Cli a = Cli.run("filter", "add", file("f.bin"), "new-key");
    assertThat(a.exit).isEqualTo(Main.EXIT_RUNTIME);
    assertThat(a.err.lines()).hasSize(1);
    assertThat(a.err).contains("static filter, rebuild it with filter create");
    assertThat(Files.readAllBytes(dir.resolve("f.bin"))).isEqualTo(before);
  }

  @Test
  void anEmptyKeyFileGivesAFilterThatHoldsNothing() throws IOException {
    Path empty = Files.createFile(dir.resolve("empty.txt"));
    assertThat(create("e.bin", "binary-fuse16", "--keys", empty.toString()).exit).isZero();
    assertThat(Cli.run("filter", "query", file("e.bin"), "user:1").out)
        .isEqualTo("user:1\tabsent\n");
    assertThat(Cli.run("filter", "info", file("e.bin"), "--json").out)
        .contains("\"keys\": 0", "\"bytes\": 0");
  }

  @Test
  void sizedTypesNeedExpectedAndHaveADefaultFpp() {
    Cli noExpected = create("b.bin", "blocked", "--fpp", "0.01");
    assertThat(noExpected.exit).isEqualTo(Main.EXIT_USAGE);
    assertThat(noExpected.err)
        .isEqualTo("probkit: missing required option --expected=N (needed by --type blocked)\n");
    Cli noFpp = create("b.bin", "blocked", "--expected", "10");
    assertThat(noFpp.exit).isZero();
    assertThat(Cli.run("filter", "info", file("b.bin")).out).contains("fpp:              0.01\n");
  }
}
