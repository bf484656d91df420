package io.github.probkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.cardinality.CardinalitySketch;
import io.github.probkit.cardinality.CardinalitySketches;
import io.github.probkit.cardinality.HyperLogLog;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

/** {@code probkit distinct} and {@code probkit hll ...}. */
class CardinalityCommandsTest extends InTempDir {

  /** Lines "item:i" for i in [from, to), each repeated {@code copies} times. */
  private Path lines(String name, int from, int to, int copies) throws IOException {
    StringBuilder sb = new StringBuilder();
    for (int c = 0; c < copies; c++) {
      for (int i = from; i < to; i++) {
        sb.append("item:").append(i).append('\n');
      }
    }
    Path p = dir.resolve(name);
    Files.writeString(p, sb);
    return p;
  }

  private CardinalitySketch read(String name) throws IOException {
    try (InputStream in = Files.newInputStream(dir.resolve(name))) {
      return CardinalitySketches.readFrom(in);
    }
  }

  // ---- distinct

  @Test
  void distinctCountsSmallInputsExactly() throws IOException {
    Path p = lines("a.txt", 0, 250, 3);
    Cli r = Cli.run("distinct", p.toString());
    assertThat(r.exit).as(r.toString()).isZero();
    assertThat(r.out).isEqualTo("250\n");
    assertThat(r.err).isEmpty();
  }

  @Test
  void distinctReadsStdinWhenNoInputIsGiven() {
    Cli r = Cli.runWithInput("a\nb\r\na\nc\nb\n", "distinct");
    assertThat(r.out).isEqualTo("3\n");
    assertThat(Cli.runWithInput("", "distinct").out).isEqualTo("0\n");
  }

  @Test
  void distinctCountsTheUnionOfSeveralInputsGzipIncluded() throws IOException {
    Path a = lines("a.txt", 0, 100, 1);
    Path gz = dir.resolve("b.txt.gz");
    try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(gz))) {
      out.write(Files.readAllBytes(lines("b.txt", 50, 150, 2)));
    }
    Cli r = Cli.runWithInput("item:149\nitem:150\n", "distinct", a.toString(), gz.toString(), "-");
    assertThat(r.out).as(r.toString()).isEqualTo("151\n");
  }

  @Test
  void distinctJsonGivesTheErrorPrecisionAndBytes() throws IOException {
    Path p = lines("big.txt", 0, 100_000, 1);
    Cli r = Cli.run("distinct", "--precision", "12", "--json", p.toString());
    assertThat(r.exit).as(r.toString()).isZero();
    assertThat(r.out)
        .contains(
            "\"precision\": 12",
            "\"bytes\": 3072",
            "\"estimator\": \"martingale\"",
            "\"type\": \"hyperloglog\"",
            "\"lines\": 100000",
            "\"relativeStandardError\": 0.0130");
    long estimate = Long.parseLong(r.out.replaceAll("(?s).*\"estimate\": (\\d+).*", "$1"));
    // 0.83/sqrt(4096) = 1.3 %; four standard errors.
    assertThat(estimate).isBetween(100_000L * 948 / 1000, 100_000L * 1052 / 1000);
  }

  @Test
  void distinctCanCountOneFieldOfEachLine() {
    Cli r = Cli.runWithInput("u1\tx\nu2\tx\nu1\ty\nshort\n", "distinct", "--field", "2");
    assertThat(r.out).isEqualTo("2\n");
  }

  @Test
  void distinctRefusesABadPrecisionAndAMissingFile() {
    Cli bad = Cli.run("distinct", "--precision", "3");
    assertThat(bad.exit).isEqualTo(2);
    assertThat(bad.err).isEqualTo("probkit: --precision must be in [4, 18], was 3\n");
    Cli missing = Cli.run("distinct", f("nope.txt"));
    assertThat(missing.exit).isEqualTo(1);
    assertThat(missing.err).isEqualTo("probkit: " + f("nope.txt") + ": no such file\n");
    Cli notANumber = Cli.run("distinct", "--precision", "x");
    assertThat(notANumber.exit).isEqualTo(2);
    assertThat(notANumber.err).contains("Invalid value for option '--precision'");
  }

  // ---- hll

  @Test
  void createAddCountAndInfo() throws IOException {
    assertThat(Cli.run("hll", "create", f("v.hll")).exit).isZero();
    assertThat(Cli.run("hll", "count", f("v.hll")).out).isEqualTo("0\n");
    assertThat(Cli.run("hll", "add", f("v.hll"), "alice", "bob", "alice").exit).isZero();
    assertThat(
            Cli.run("hll", "add", f("v.hll"), "--items", lines("i.txt", 0, 40, 2).toString()).exit)
        .isZero();
    assertThat(Cli.runWithInput("carol\nbob\n", "hll", "add", f("v.hll")).exit).isZero();
    assertThat(Cli.run("hll", "count", f("v.hll")).out).isEqualTo("43\n");

    Cli info = Cli.run("hll", "info", f("v.hll"), "--json");
    assertThat(info.out)
        .contains(
            "\"type\": \"hyperloglog\"",
            "\"precision\": 14",
            "\"registers\": 16384",
            "\"representation\": \"sparse\"",
            "\"sparseEntries\": 43",
            "\"estimate\": 43",
            "\"martingaleEstimate\": 43",
            "\"bytes\": 256",
            "\"hash\": \"xxh3\"",
            "\"hashSeed\": \"0x0\"");
    Cli text = Cli.run("hll", "info", f("v.hll"));
    assertThat(text.out).contains("representation:", "sparse");

    // The file is the library's format: the library reads what the command line wrote.
    HyperLogLog lib = (HyperLogLog) read("v.hll");
    assertThat(lib.add("alice")).isFalse();
    assertThat(lib.add("dave")).isTrue();
  }

  @Test
  void createCountsTheItemsPipedInAsAddWould() throws IOException {
    // Piped into create, the items are counted, not dropped: the same sketch as create then add.
    assertThat(Cli.runWithInput("alice\nbob\nalice\n", "hll", "create", f("p.hll")).exit).isZero();
    assertThat(Cli.run("hll", "create", f("q.hll")).exit).isZero();
    assertThat(Cli.run("hll", "add", f("q.hll"), "alice", "bob").exit).isZero();
    assertThat(Files.readAllBytes(dir.resolve("p.hll")))
        .isEqualTo(Files.readAllBytes(dir.resolve("q.hll")));
    assertThat(Cli.run("hll", "count", f("p.hll")).out).isEqualTo("2\n");
    Path items = lines("items.txt", 0, 30, 1);
    assertThat(
            Cli.run("hll", "create", f("r.ull"), "--type", "ull", "--items", items.toString()).exit)
        .isZero();
    assertThat(Cli.run("hll", "count", f("r.ull")).out).isEqualTo("30\n");
    // At a terminal, create makes an empty sketch rather than waiting for typed items.
    assertThat(Cli.runAtTerminal("hll", "create", f("t.hll")).exit).isZero();
    assertThat(Cli.run("hll", "count", f("t.hll")).out).isEqualTo("0\n");
  }

  @Test
  void createTakesAPrecisionAndAType() throws IOException {
    assertThat(Cli.run("hll", "create", f("s.hll"), "--precision", "10").exit).isZero();
    assertThat(read("s.hll").precision()).isEqualTo(10);
    assertThat(Cli.run("hll", "create", f("u.ull"), "-p", "12", "--type", "ultraloglog").exit)
        .isZero();
    Cli info = Cli.run("hll", "info", f("u.ull"), "--json");
    assertThat(info.out)
        .contains("\"type\": \"ultraloglog\"", "\"precision\": 12", "\"bytes\": 4096");

    Cli badType = Cli.run("hll", "create", f("x.hll"), "--type", "loglog");
    assertThat(badType.exit).isEqualTo(2);
    assertThat(badType.err)
        .isEqualTo("probkit: --type must be hyperloglog or ultraloglog, was 'loglog'\n");
    Cli badPrecision = Cli.run("hll", "create", f("x.hll"), "--precision", "19");
    assertThat(badPrecision.exit).isEqualTo(2);
    assertThat(badPrecision.err).isEqualTo("probkit: --precision must be in [4, 18], was 19\n");
    assertThat(Files.exists(dir.resolve("x.hll"))).isFalse();
  }

  @Test
  void mergeAndCountGiveTheUnionAtTheLowestPrecision() throws IOException {
    Cli.run("hll", "create", f("a.hll"), "--precision", "14");
    Cli.run("hll", "create", f("b.hll"), "--precision", "11");
    Cli.run("hll", "add", f("a.hll"), "--items", lines("a.txt", 0, 5000, 1).toString());
    Cli.run("hll", "add", f("b.hll"), "--items", lines("b.txt", 4000, 9000, 1).toString());

    Cli merge = Cli.run("hll", "merge", f("ab.hll"), f("a.hll"), f("b.hll"));
    assertThat(merge.exit).as(merge.toString()).isZero();
    CardinalitySketch ab = read("ab.hll");
    assertThat(ab.precision()).isEqualTo(11);
    assertThat(ab.martingaleEstimate()).isEmpty();

    // The same union built in one go: the registers are identical.
    HyperLogLog direct = HyperLogLog.create(11);
    for (int i = 0; i < 9000; i++) {
      direct.add("item:" + i);
    }
    assertThat(ab).isEqualTo(direct);
    Cli count = Cli.run("hll", "count", f("a.hll"), f("b.hll"), "--json");
    assertThat(count.out)
        .contains(
            "\"estimate\": " + Math.round(direct.estimate()),
            "\"precision\": 11",
            "\"estimator\": \"registers\"");
    assertThat(Cli.run("hll", "count", f("ab.hll")).out)
        .isEqualTo(Math.round(direct.estimate()) + "\n");
  }

  @Test
  void sketchesThatCannotBeCombinedAreRefusedNamingTheFile() throws IOException {
    Cli.run("hll", "create", f("h.hll"));
    Cli.run("hll", "create", f("u.ull"), "--type", "ultraloglog");
    Cli r = Cli.run("hll", "merge", f("out.hll"), f("h.hll"), f("u.ull"));
    assertThat(r.exit).isEqualTo(1);
    assertThat(r.err)
        .isEqualTo(
            "probkit: "
                + f("u.ull")
                + ": cannot combine an ultraloglog sketch with the "
                + "hyperloglog sketch of "
                + f("h.hll")
                + "\n");
    assertThat(Files.exists(dir.resolve("out.hll"))).isFalse();

    HyperLogLog seeded = HyperLogLog.create(14, io.github.probkit.hash.HashStrategy.xxh3(7));
    try (OutputStream out = Files.newOutputStream(dir.resolve("seeded.hll"))) {
      seeded.writeTo(out);
    }
    Cli hash = Cli.run("hll", "count", f("h.hll"), f("seeded.hll"));
    assertThat(hash.exit).isEqualTo(1);
    assertThat(hash.err).contains(f("seeded.hll") + ": hashed with xxh3(seed=0x7)");
  }

  @Test
  void missingCorruptAndForeignFilesAreOneLineErrors() throws IOException {
    Cli missing = Cli.run("hll", "count", f("nope.hll"));
    assertThat(missing.exit).isEqualTo(1);
    assertThat(missing.err).isEqualTo("probkit: " + f("nope.hll") + ": no such file\n");

    Cli.run("hll", "create", f("c.hll"));
    Cli.run("hll", "add", f("c.hll"), "x", "y");
    byte[] b = Files.readAllBytes(dir.resolve("c.hll"));
    b[b.length - 6] ^= 1;
    Files.write(dir.resolve("c.hll"), b);
    Cli corrupt = Cli.run("hll", "info", f("c.hll"));
    assertThat(corrupt.exit).isEqualTo(1);
    assertThat(corrupt.err)
        .startsWith("probkit: " + f("c.hll") + ": checksum mismatch")
        .doesNotContain("\tat ");

    Cli.run("filter", "create", f("f.bin"), "--expected", "10", "--fpp", "0.01");
    Cli foreign = Cli.run("hll", "add", f("f.bin"), "x");
    assertThat(foreign.exit).isEqualTo(1);
    assertThat(foreign.err)
        .isEqualTo(
            "probkit: "
                + f("f.bin")
                + ": expected a cardinality sketch, found a bloom structure\n");

    Files.writeString(dir.resolve("text.hll"), "hello", StandardCharsets.UTF_8);
    Cli text = Cli.run("hll", "count", f("text.hll"));
    assertThat(text.exit).isEqualTo(1);
    assertThat(text.err).contains("not a probkit file");
  }

  @Test
  void helpListsTheCommands() {
    Cli top = Cli.run("--help");
    assertThat(top.out).contains("distinct", "hll");
    Cli hll = Cli.run("hll", "--help");
    assertThat(hll.out).contains("create", "add", "count", "merge", "info");
    assertThat(Cli.run("distinct", "--help").out).contains("--precision", "0.65 %");
    assertThat(Cli.run("hll", "create", "--help").out).contains("0.81 %");
  }
}
