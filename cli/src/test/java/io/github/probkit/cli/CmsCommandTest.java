package io.github.probkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.frequency.CountMinSketch;
import io.github.probkit.hash.HashStrategy;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

class CmsCommandTest extends InTempDir {

  private static void assertOneLineError(Cli r, int exit, String message) {
    assertThat(r.exit).as(r.toString()).isEqualTo(exit);
    assertThat(r.err)
        .startsWith("probkit: " + message)
        .doesNotContain("\tat ")
        .doesNotContain("Exception");
    assertThat(r.out).isEmpty();
  }

  private static CountMinSketch load(String file) throws IOException {
    try (InputStream in = Files.newInputStream(Path.of(file))) {
      return CountMinSketch.readFrom(in);
    }
  }

  @Test
  void demoPrintsTheSeedLinesByteForByte() throws IOException {
    String seed;
    try (InputStream in = getClass().getResourceAsStream("/seed-000-cms.txt")) {
      seed = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    Cli r = Cli.run("demo", "cms");
    assertThat(r.exit).isZero();
    assertThat(r.out).isEqualTo(seed);
    // And as part of every demo.
    assertThat(Cli.run("demo").out).contains("== probkit demo cms ==\n" + seed);
  }

  @Test
  void createSizesFromErrorOrDimensions() throws IOException {
    String a = f("a.cms");
    assertThat(Cli.run("cms", "create", a, "--epsilon", "0.001", "--delta", "0.01").exit).isZero();
    CountMinSketch s = load(a);
    assertThat(s.width()).isEqualTo(2719);
    assertThat(s.depth()).isEqualTo(5);
    assertThat(s.isConservative()).isFalse();
    assertThat(s.totalCount()).isZero();

    String b = f("b.cms");
    assertThat(Cli.run("cms", "create", b, "--width", "100", "--depth", "3", "--conservative").exit)
        .isZero();
    assertThat(load(b).width()).isEqualTo(100);
    assertThat(load(b).depth()).isEqualTo(3);
    assertThat(load(b).isConservative()).isTrue();

    String c = f("c.cms");
    assertThat(Cli.run("cms", "create", c, "--width", "8", "--depth", "2", "--hash", "fnv1a").exit)
        .isZero();
    assertThat(load(c).hashStrategy()).isEqualTo(HashStrategy.fnv1a());
  }

  @Test
  void createCountsTheItemsPipedInAsAddWould() throws IOException {
    // Piped into create, the items are counted, not dropped: the same sketch as create then add.
    String piped = f("piped.cms");
    assertThat(
            Cli.runWithInput(
                    "rain\ncricket\nrain\n",
                    "cms",
                    "create",
                    piped,
                    "--width",
                    "50",
                    "--depth",
                    "3")
                .exit)
        .isZero();
    String added = f("added.cms");
    assertThat(Cli.run("cms", "create", added, "--width", "50", "--depth", "3").exit).isZero();
    assertThat(Cli.run("cms", "add", added, "rain", "cricket", "rain").exit).isZero();
    assertThat(Files.readAllBytes(Path.of(piped))).isEqualTo(Files.readAllBytes(Path.of(added)));
    assertThat(load(piped).estimate("rain")).isEqualTo(2);

    String counted = f("counted.cms");
    assertThat(
            Cli.runWithInput(
                    "rain\t7\nsun\t2\n",
                    "cms",
                    "create",
                    counted,
                    "--width",
                    "50",
                    "--depth",
                    "3",
                    "--counts")
                .exit)
        .isZero();
    assertThat(load(counted).estimate("rain")).isEqualTo(7);
    assertThat(load(counted).totalCount()).isEqualTo(9);
    // At a terminal, create makes an empty sketch rather than waiting for typed items.
    String empty = f("empty.cms");
    assertThat(Cli.runAtTerminal("cms", "create", empty, "--width", "50", "--depth", "3").exit)
        .isZero();
    assertThat(load(empty).totalCount()).isZero();
  }

  @Test
  void createRefusesBadSizingWithExitCode2() {
    String f = f("x.cms");
    assertOneLineError(
        Cli.run("cms", "create", f, "--epsilon", "1.5", "--delta", "0.01"),
        2,
        "epsilon must be in (0, 1), was 1.5");
    assertOneLineError(
        Cli.run("cms", "create", f, "--epsilon", "0.01", "--delta", "0"),
        2,
        "delta must be in (0, 1), was 0.0");
    assertOneLineError(
        Cli.run("cms", "create", f, "--width", "0", "--depth", "3"),
        2,
        "width must be positive, was 0");
    assertOneLineError(
        Cli.run("cms", "create", f, "--width", "8", "--depth", "3", "--hash", "fnv1a"),
        2,
        "the fnv1a strategy has row seeds for depth 1 or 2 only");
    assertOneLineError(
        Cli.run("cms", "create", f, "--width", "8", "--depth", "2", "--hash", "md5"),
        2,
        "--hash must be one of xxh3, fnv1a, was 'md5'");
    // Redis's HyperLogLog hashing is a hash label too: a count-min sketch must refuse it, not
    // quietly use xxh3; and so must a filter.
    assertOneLineError(
        Cli.run("cms", "create", f, "--width", "8", "--depth", "2", "--hash", "redis"),
        2,
        "--hash must be one of xxh3, fnv1a, was 'redis'");
    assertThat(java.nio.file.Files.exists(java.nio.file.Path.of(f))).isFalse();
    assertOneLineError(
        Cli.run("filter", "create", f, "--expected", "100", "--hash", "redis"),
        2,
        "--hash must be one of xxh3, fnv1a, was 'redis'");
    assertThat(java.nio.file.Files.exists(java.nio.file.Path.of(f))).isFalse();
    assertThat(Cli.run("cms", "create", f).exit).isEqualTo(2);
    assertThat(Cli.run("cms", "create", f, "--epsilon", "0.01").exit).isEqualTo(2);
    assertThat(
            Cli.run(
                    "cms",
                    "create",
                    f,
                    "--epsilon",
                    "0.01",
                    "--delta",
                    "0.1",
                    "--width",
                    "5",
                    "--depth",
                    "2")
                .exit)
        .isEqualTo(2);
    assertThat(Files.exists(Path.of(f))).isFalse();
  }

  @Test
  void addQueryAndInfo() throws IOException {
    String f = f("t.cms");
    Cli.run("cms", "create", f, "--epsilon", "0.001", "--delta", "0.01");
    // Arguments, then stdin (no items and no --items), then a gzip file through --items.
    assertThat(Cli.run("cms", "add", f, "cricket", "rain", "cricket").exit).isZero();
    assertThat(Cli.runWithInput("rain\r\ncricket\ngold\n", "cms", "add", f).exit).isZero();
    Path gz = dir.resolve("items.gz");
    try (GZIPOutputStream out = new GZIPOutputStream(Files.newOutputStream(gz))) {
      out.write("cricket\ncricket\n".getBytes(StandardCharsets.UTF_8));
    }
    assertThat(Cli.run("cms", "add", f, "--items", gz.toString()).exit).isZero();

    Cli q = Cli.run("cms", "query", f, "cricket", "rain", "gold", "chess", "");
    assertThat(q.exit).isZero();
    assertThat(q.out).isEqualTo("cricket\t5\nrain\t2\ngold\t1\nchess\t0\n\t0\n");
    assertThat(Cli.runWithInput("gold\nrain\n", "cms", "query", f).out)
        .isEqualTo("gold\t1\nrain\t2\n");

    Cli info = Cli.run("cms", "info", f, "--json");
    assertThat(info.exit).isZero();
    assertThat(info.out)
        .startsWith(
            "{\"type\": \"count-min\", \"width\": 2719, \"depth\": 5, "
                + "\"update\": \"standard\", \"totalCount\": 8, ");
    assertThat(info.out).contains("\"bytes\": 108760, \"hash\": \"xxh3\", \"hashSeed\": \"0x0\"}");
    Cli text = Cli.run("cms", "info", f);
    assertThat(text.out).contains("width:      2719\n").contains("totalCount: 8\n");
  }

  @Test
  void addWithCounts() throws IOException {
    String f = f("t.cms");
    Cli.run("cms", "create", f, "--width", "1000", "--depth", "4");
    Cli r =
        Cli.runWithInput(
            "cricket\t5\nrain\t3\nwith\ttab\t2\nzero\t0\n", "cms", "add", f, "--counts");
    assertThat(r.exit).as(r.toString()).isZero();
    assertThat(Cli.run("cms", "add", f, "--counts", "cricket\t1").exit).isZero();
    assertThat(Cli.run("cms", "query", f, "cricket", "rain", "with\ttab", "zero").out)
        .isEqualTo("cricket\t6\nrain\t3\nwith\ttab\t2\nzero\t0\n");
    assertThat(load(f).totalCount()).isEqualTo(11);
  }

  @Test
  void fieldSelectsAColumnOfEachLine() throws IOException {
    String f = f("t.cms");
    Cli.run("cms", "create", f, "--width", "1000", "--depth", "3");
    assertThat(
            Cli.runWithInput(
                    "1,cricket\n2,rain\n3,cricket\n",
                    "cms",
                    "add",
                    f,
                    "--field",
                    "2",
                    "--delimiter",
                    ",")
                .exit)
        .isZero();
    assertThat(Cli.run("cms", "query", f, "cricket", "rain").out)
        .isEqualTo("cricket\t2\nrain\t1\n");
    assertOneLineError(
        Cli.run("cms", "add", f, "--counts", "--field", "2", "a\t1"),
        2,
        "--field cannot be combined with --counts");
  }

  @Test
  void badCountLinesFailWithExitCode1AndLeaveTheFileUnchanged() throws IOException {
    String f = f("t.cms");
    Cli.run("cms", "create", f, "--width", "100", "--depth", "2");
    byte[] before = Files.readAllBytes(Path.of(f));
    assertOneLineError(
        Cli.runWithInput("a\t1\nb 2\n", "cms", "add", f, "--counts"),
        1,
        "--counts: item 2 has no tab: expected ITEM<TAB>COUNT");
    assertOneLineError(
        Cli.runWithInput("a\t-1\n", "cms", "add", f, "--counts"),
        1,
        "--counts: item 1 has count '-1', must be an integer in [0, 9223372036854775807]");
    assertOneLineError(
        Cli.runWithInput("a\t9223372036854775808\n", "cms", "add", f, "--counts"),
        1,
        "--counts: item 1 has count '9223372036854775808'");
    assertOneLineError(
        Cli.runWithInput("a\t\n", "cms", "add", f, "--counts"), 1, "--counts: item 1 has count ''");
    assertThat(Files.readAllBytes(Path.of(f))).isEqualTo(before);
  }

  @Test
  void missingOrCorruptFilesFailWithExitCode1() throws IOException {
    String missing = f("missing.cms");
    assertOneLineError(Cli.run("cms", "query", missing, "a"), 1, missing + ": no such file");
    assertOneLineError(Cli.run("cms", "add", missing, "a"), 1, missing + ": no such file");
    assertOneLineError(Cli.run("cms", "info", missing), 1, missing + ": no such file");
    Path junk = dir.resolve("junk.cms");
    Files.writeString(junk, "hello, world");
    assertOneLineError(
        Cli.run("cms", "info", junk.toString()),
        1,
        junk + ": not a probkit file (bad magic 0x68656c6c)");
    String f = f("t.cms");
    Cli.run("cms", "create", f, "--width", "100", "--depth", "2");
    byte[] b = Files.readAllBytes(Path.of(f));
    b[40] ^= 1;
    Files.write(Path.of(f), b);
    assertOneLineError(Cli.run("cms", "query", f, "a"), 1, f + ": checksum mismatch");
    Cli.run("filter", "create", f("f.bloom"), "--expected", "100", "--fpp", "0.01");
    assertOneLineError(
        Cli.run("cms", "info", f("f.bloom")),
        1,
        f("f.bloom") + ": expected a count-min structure, found a bloom structure");
    String g = f("g.cms");
    Cli.run("cms", "create", g, "--width", "100", "--depth", "2");
    assertOneLineError(
        Cli.run("cms", "add", g, "--items", f("none.txt")), 1, f("none.txt") + ": no such file");
  }

  @Test
  void mergeAddsStreamsAndRefusesMismatches() throws IOException {
    String a = f("a.cms");
    String b = f("b.cms");
    String c = f("c.cms");
    String out = f("out.cms");
    Cli.run("cms", "create", a, "--width", "500", "--depth", "3");
    Cli.run("cms", "create", b, "--width", "500", "--depth", "3");
    Cli.run("cms", "add", a, "x", "y", "x");
    Cli.run("cms", "add", b, "x", "z");
    assertThat(Cli.run("cms", "merge", out, a, b).exit).isZero();
    assertThat(Cli.run("cms", "query", out, "x", "y", "z").out).isEqualTo("x\t3\ny\t1\nz\t1\n");
    assertThat(load(out).totalCount()).isEqualTo(5);

    Cli.run("cms", "create", c, "--width", "400", "--depth", "3");
    assertOneLineError(
        Cli.run("cms", "merge", out, a, c),
        1,
        c + ": cannot merge count-min sketches of different dimensions: 3 x 500 and 3 x 400");
    String cons = f("cons.cms");
    Cli.run("cms", "create", cons, "--width", "500", "--depth", "3", "--conservative");
    assertOneLineError(
        Cli.run("cms", "merge", out, a, cons),
        1,
        cons
            + ": cannot merge count-min sketches with different update rules: standard and conservative");
    assertThat(Cli.run("cms", "merge", out).exit).isEqualTo(2);
  }

  @Test
  void helpListsTheSubcommands() {
    Cli r = Cli.run("cms", "--help");
    assertThat(r.exit).isZero();
    assertThat(r.out).contains("create", "add", "query", "info", "merge");
    assertThat(Cli.run("--help").out).contains("cms", "top");
  }
}
