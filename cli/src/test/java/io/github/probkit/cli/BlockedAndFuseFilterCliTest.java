package io.github.probkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code probkit filter} with the blocked Bloom and binary fuse types. */
class BlockedAndFuseFilterCliTest {
  @TempDir Path dir;
  private Path keys;

  /** The exit code, standard output and standard error of one command. */
  private static final class Run {
    int exit;
    String out;
    String err;
  }

  private static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cl = Main.commandLine();
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    Run r = new Run();
    r.exit = cl.execute(args);
    r.out = out.toString();
    r.err = err.toString();
    return r;
  }

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
    Run c = run("filter", "create", file("b.bin"), "--type", "blocked", "--expected", "2000", "--fpp", "0.01",
        "--keys", keys.toString());
    assertThat(c.exit).as(c.err).isZero();
    Run q = run("filter", "query", file("b.bin"), "--keys", keys.toString());
    assertThat(present(q.out)).isEqualTo(4000);
    assertThat(run("filter", "add", file("b.bin"), "late-key").exit).isZero();
    assertThat(run("filter", "query", file("b.bin"), "late-key").out).isEqualTo("late-key\tpresent\n");
    Run info = run("filter", "info", file("b.bin"), "--json");
    assertThat(info.exit).isZero();
    assertThat(info.out)
        .startsWith("{\"type\": \"blocked\", \"bits\": ")
        .contains("\"blocks\": ", "\"hashes\": ", "\"expectedKeys\": 2000", "\"fpp\": 0.01", "\"bitsSet\": ",
            "\"approximateCount\": ", "\"bytes\": ", "\"hash\": \"xxh3\"");
  }

  @Test
  void binaryFuseFiltersAreBuiltFromTheirKeys() {
    for (String type : new String[] {"binary-fuse8", "binary-fuse16"}) {
      Run c = run("filter", "create", file(type), "--type", type, "--keys", keys.toString());
      assertThat(c.exit).as(c.err).isZero();
      assertThat(present(run("filter", "query", file(type), "--keys", keys.toString()).out)).isEqualTo(4000);
      Run info = run("filter", "info", file(type), "--json");
      String bits = type.endsWith("8") ? "8" : "16";
      assertThat(info.out)
          .startsWith("{\"type\": \"binary-fuse\", \"bits\": ")
          .contains("\"fingerprintBits\": " + bits, "\"keys\": 2000", "\"segmentLength\": ", "\"segmentCount\": ",
              "\"bitsPerKey\": ", "\"bytes\": ")
          .doesNotContain("approximateCount");
    }
  }

  @Test
  void fuseTakesItsWidthFromTheRate() {
    assertThat(run("filter", "create", file("f.bin"), "--type", "fuse", "--fpp", "0.001", "--keys", keys.toString()).exit)
        .isZero();
    assertThat(run("filter", "info", file("f.bin"), "--json").out).contains("\"fingerprintBits\": 16");
    assertThat(run("filter", "create", file("g.bin"), "--type", "fuse", "--keys", keys.toString()).exit).isZero();
    assertThat(run("filter", "info", file("g.bin"), "--json").out).contains("\"fingerprintBits\": 8");
  }

  @Test
  void binaryFuseWithoutKeysIsAUsageError() {
    Run c = run("filter", "create", file("f.bin"), "--type", "binary-fuse8");
    assertThat(c.exit).isEqualTo(Main.EXIT_USAGE);
    assertThat(c.err.lines()).hasSize(1);
    assertThat(c.err).contains("--keys");
    assertThat(dir.resolve("f.bin")).doesNotExist();
  }

  @Test
  void aRateTheWidthCannotMeetIsAUsageError() {
    Run c = run("filter", "create", file("f.bin"), "--type", "binary-fuse8", "--fpp", "0.001", "--keys", keys.toString());
    assertThat(c.exit).isEqualTo(Main.EXIT_USAGE);
    assertThat(c.err).contains("2^-8", "binary-fuse16");
  }

  @Test
  void addingToABinaryFuseFileFailsInOneLineAndLeavesItAlone() throws IOException {
    assertThat(run("filter", "create", file("f.bin"), "--type", "binary-fuse8", "--keys", keys.toString()).exit).isZero();
    byte[] before = Files.readAllBytes(dir.resolve("f.bin"));
    Run a = run("filter", "add", file("f.bin"), "new-key");
    assertThat(a.exit).isEqualTo(Main.EXIT_RUNTIME);
    assertThat(a.err.lines()).hasSize(1);
    assertThat(a.err).contains("static filter, rebuild it with filter create");
    assertThat(Files.readAllBytes(dir.resolve("f.bin"))).isEqualTo(before);
  }

  @Test
  void anEmptyKeyFileGivesAFilterThatHoldsNothing() throws IOException {
    Path empty = Files.createFile(dir.resolve("empty.txt"));
    assertThat(run("filter", "create", file("e.bin"), "--type", "binary-fuse16", "--keys", empty.toString()).exit)
        .isZero();
    assertThat(run("filter", "query", file("e.bin"), "user:1").out).isEqualTo("user:1\tabsent\n");
    assertThat(run("filter", "info", file("e.bin"), "--json").out).contains("\"keys\": 0", "\"bytes\": 0");
  }

  @Test
  void sizedTypesStillNeedExpectedAndFpp() {
    Run noExpected = run("filter", "create", file("b.bin"), "--type", "blocked", "--fpp", "0.01");
    assertThat(noExpected.exit).isEqualTo(Main.EXIT_USAGE);
    assertThat(noExpected.err).contains("--expected is required for --type blocked");
    Run noFpp = run("filter", "create", file("b.bin"), "--expected", "10");
    assertThat(noFpp.exit).isEqualTo(Main.EXIT_USAGE);
    assertThat(noFpp.err).contains("--fpp is required for --type bloom");
  }
}
