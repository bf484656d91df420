package io.github.probkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.cardinality.HyperLogLog;
import io.github.probkit.cli.location.SketchFiles;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

/**
 * The commands that write files, used as people mistype them: an existing file named to create,
 * merges into an existing file, several key files, keys on a pipe or not, keys that repeat, more
 * keys than a filter was sized for, and many writers in one JVM.
 */
class WritingCommandsTest extends InTempDir {

  private static void assertOneLineError(Cli c, int exit, String error) {
    assertThat(c.exit).as(c.toString()).isEqualTo(exit);
    assertThat(c.err).as(c.toString()).isEqualTo("probkit: " + error + "\n");
  }

  @Test
  void createRefusesAnExistingFileUnlessForced() throws IOException {
    String[][] creates = {
      {"filter", "create", f("f.bin"), "--expected", "100", "--fpp", "0.01"},
      {"cms", "create", f("s.cms"), "--width", "10", "--depth", "2"},
      {"hll", "create", f("h.hll")},
    };
    for (String[] c : creates) {
      assertThat(Cli.run(c).exit).isZero();
      byte[] before = Files.readAllBytes(Path.of(c[2]));
      assertOneLineError(Cli.run(c), 1, c[2] + ": already exists (--force replaces it)");
      assertThat(Files.readAllBytes(Path.of(c[2]))).isEqualTo(before);
      String[] forced = java.util.Arrays.copyOf(c, c.length + 1);
      forced[c.length] = "--force";
      assertThat(Cli.run(forced).exit).isZero();
    }
    // Arguments swapped: the key list is not turned into a filter.
    Path keys = Files.writeString(dir.resolve("keys.txt"), "alice\nbob\n");
    Cli swapped =
        Cli.run(
            "filter",
            "create",
            keys.toString(),
            "--expected",
            "10",
            "--fpp",
            "0.01",
            "--keys",
            f("f.bin"));
    assertOneLineError(swapped, 1, keys + ": already exists (--force replaces it)");
    assertThat(Files.readString(keys)).isEqualTo("alice\nbob\n");
  }

  /**
   * A write replaces its file by a rename, which would put a regular file where a FIFO (or, as
   * root, /dev/full) was: such targets are refused, even with --force, and left as they were. A
   * FIFO of the test's own directory stands for a device, which the test must not risk.
   */
  @Test
  void aDeviceOrPipeIsNeverReplaced() throws Exception {
    Path fifo = dir.resolve("fifo");
    Process mk = new ProcessBuilder("mkfifo", fifo.toString()).start();
    assertThat(mk.waitFor()).isZero();
    String[][] writes = {
      {"filter", "create", "--force", fifo.toString(), "--expected", "100"},
      {"cms", "create", "--force", fifo.toString(), "--width", "10", "--depth", "2"},
      {"hll", "create", "--force", fifo.toString()},
      {"hll", "add", fifo.toString(), "k"},
      {"filter", "merge", fifo.toString(), f("missing.bin")},
    };
    for (String[] w : writes) {
      assertOneLineError(
          Cli.runWithInput("", w),
          1,
          fifo
              + ": not a regular file (a device, pipe or socket); probkit writes regular files only");
      assertThat(Files.isRegularFile(fifo)).isFalse();
      assertThat(Files.exists(fifo)).isTrue();
    }
    try (var files = Files.list(dir)) {
      assertThat(files).containsExactly(fifo);
    }
  }

  @Test
  void aMistypedFileNameLeavesNoLockFileBehind() throws IOException {
    assertOneLineError(
        Cli.run("filter", "add", f("usres.bin"), "k"), 1, f("usres.bin") + ": no such file");
    assertOneLineError(
        Cli.run("cms", "add", f("usres.cms"), "k"), 1, f("usres.cms") + ": no such file");
    assertOneLineError(
        Cli.run("hll", "add", f("usres.hll"), "k"), 1, f("usres.hll") + ": no such file");
    try (var files = Files.list(dir)) {
      assertThat(files).isEmpty();
    }
  }

  @Test
  void mergeIncludesAnExistingDestinationUnlessReplace() {
    // HyperLogLog: X holds a and b, Y holds c.
    Cli.run("hll", "create", f("x.hll"));
    Cli.run("hll", "add", f("x.hll"), "a", "b");
    Cli.run("hll", "create", f("y.hll"));
    Cli.run("hll", "add", f("y.hll"), "c");
    assertThat(Cli.run("hll", "merge", f("x.hll"), f("y.hll")).exit).isZero();
    assertThat(Cli.run("hll", "count", f("x.hll")).out).isEqualTo("3\n");
    assertThat(Cli.run("hll", "merge", "--replace", f("x.hll"), f("y.hll")).exit).isZero();
    assertThat(Cli.run("hll", "count", f("x.hll")).out).isEqualTo("1\n");
    assertThat(Cli.run("hll", "merge", f("new.hll"), f("y.hll")).exit).isZero();
    assertThat(Cli.run("hll", "count", f("new.hll")).out).isEqualTo("1\n");

    // Count-min: counts add up; the destination named as a source too would count it twice.
    Cli.run("cms", "create", f("d.cms"), "--width", "100", "--depth", "3");
    Cli.run("cms", "add", f("d.cms"), "i", "i");
    Cli.run("cms", "create", f("s.cms"), "--width", "100", "--depth", "3");
    Cli.run("cms", "add", f("s.cms"), "i", "i", "i");
    assertOneLineError(
        Cli.run("cms", "merge", f("d.cms"), f("d.cms"), f("s.cms")),
        1,
        f("d.cms")
            + ": is the destination, which merge includes already (--replace merges the sources alone)");
    assertThat(Cli.run("cms", "merge", f("d.cms"), f("s.cms")).exit).isZero();
    assertThat(Cli.run("cms", "query", f("d.cms"), "i").out).isEqualTo("i\t5\n");
    assertThat(Cli.run("cms", "merge", "--replace", f("d.cms"), f("s.cms"), f("s.cms")).exit)
        .isZero();
    assertThat(Cli.run("cms", "query", f("d.cms"), "i").out).isEqualTo("i\t6\n");

    // Filters.
    Cli.run("filter", "create", f("d.bin"), "--expected", "100", "--fpp", "0.01");
    Cli.run("filter", "add", f("d.bin"), "a");
    Cli.run("filter", "create", f("s.bin"), "--expected", "100", "--fpp", "0.01");
    Cli.run("filter", "add", f("s.bin"), "b");
    assertThat(Cli.run("filter", "merge", f("d.bin"), f("s.bin")).exit).isZero();
    assertThat(Cli.run("filter", "query", f("d.bin"), "a", "b").out)
        .isEqualTo("a\tpresent\nb\tpresent\n");
    assertThat(Cli.run("filter", "merge", "--replace", f("d.bin"), f("s.bin")).exit).isZero();
    assertThat(Cli.run("filter", "query", f("d.bin"), "a", "b").out)
        .isEqualTo("a\tabsent\nb\tpresent\n");
    assertThat(Cli.run("filter", "merge", "--help").out).contains("PFMERGE", "--replace");
  }

  @Test
  void keysComeFromEveryFileNamedNeverFromAFileName() throws IOException {
    Path k1 = Files.writeString(dir.resolve("k1.txt"), "one\n");
    Path k2 = dir.resolve("k2.txt.gz");
    try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(k2))) {
      out.write("two\n".getBytes(StandardCharsets.US_ASCII));
    }
    String[] files = {k1.toString(), k2.toString()};
    assertThat(
            Cli.run(
                    "filter",
                    "create",
                    f("c.bin"),
                    "--expected",
                    "100",
                    "--fpp",
                    "0.01",
                    "--keys",
                    files[0],
                    files[1])
                .exit)
        .isZero();
    assertThat(Cli.run("filter", "query", f("c.bin"), "one", "two", files[1]).out)
        .isEqualTo("one\tpresent\ntwo\tpresent\n" + files[1] + "\tabsent\n");
    Cli.run("filter", "create", f("a.bin"), "--expected", "100", "--fpp", "0.01");
    assertThat(Cli.run("filter", "add", f("a.bin"), "--keys", files[0], files[1]).exit).isZero();
    assertThat(Cli.run("filter", "query", f("a.bin"), "--keys", files[0], files[1]).out)
        .isEqualTo("one\tpresent\ntwo\tpresent\n");
    assertThat(Cli.run("filter", "query", f("a.bin"), files[1]).out)
        .isEqualTo(files[1] + "\tabsent\n");

    Cli.run("cms", "create", f("s.cms"), "--width", "100", "--depth", "3");
    assertThat(Cli.run("cms", "add", f("s.cms"), "--items", files[0], files[1], files[0]).exit)
        .isZero();
    assertThat(Cli.run("cms", "query", f("s.cms"), "--items", files[0], files[1]).out)
        .isEqualTo("one\t2\ntwo\t1\n");
    Cli.run("hll", "create", f("h.hll"));
    assertThat(Cli.run("hll", "add", f("h.hll"), "--items", files[0], files[1]).exit).isZero();
    assertThat(Cli.run("hll", "count", f("h.hll")).out).isEqualTo("2\n");
  }

  @Test
  void keysComeFromStandardInputUnlessItIsATerminal() {
    // head -2 keys.txt | probkit filter create ...: the piped keys are in the filter.
    assertThat(
            Cli.runWithInput(
                    "x\ny\n", "filter", "create", f("p.bin"), "--expected", "100", "--fpp", "0.01")
                .exit)
        .isZero();
    assertThat(Cli.run("filter", "query", f("p.bin"), "x", "y", "z").out)
        .isEqualTo("x\tpresent\ny\tpresent\nz\tabsent\n");
    // At a terminal, create makes an empty filter; add and query want keys; --keys - reads it
    // anyway.
    assertThat(
            Cli.runAtTerminal("filter", "create", f("t.bin"), "--expected", "100", "--fpp", "0.01")
                .exit)
        .isZero();
    Cli add = Cli.runAtTerminal("filter", "add", f("t.bin"));
    assertOneLineError(
        add,
        2,
        "no keys: give them as arguments, with --keys FILE..., or on standard input (--keys - reads a terminal)");
    assertThat(Cli.runAtTerminal("cms", "add", f("t.bin")).exit).isEqualTo(2);
    assertThat(Cli.runAtTerminal("filter", "add", f("t.bin"), "--keys", "-").exit).isZero();
    // Arguments, when given, are the keys: stdin is not read.
    assertThat(Cli.runWithInput("x\n", "filter", "query", f("t.bin"), "y").out)
        .isEqualTo("y\tabsent\n");
  }

  /**
   * Repeated keys in cuckoo and counting filters: with --if-absent, the login-shell column of a
   * passwd file (22 lines, 3 distinct), and a log of 100,000 lines of 50 distinct keys, fit the
   * filters sized for them; by default every repeat counts.
   */
  @Test
  void repeatedKeysAreAddedOnceWithIfAbsent() throws IOException {
    StringBuilder passwd = new StringBuilder();
    String[] shells = {"/bin/bash", "/usr/sbin/nologin", "/bin/sync"};
    for (int i = 0; i < 22; i++) {
      String shell = i == 0 ? shells[0] : i == 4 ? shells[2] : i % 5 == 0 ? shells[0] : shells[1];
      passwd
          .append("user")
          .append(i)
          .append(":x:")
          .append(i)
          .append(':')
          .append(i)
          .append("::/home:")
          .append(shell)
          .append('\n');
    }
    Path pw = Files.writeString(dir.resolve("passwd"), passwd);
    for (String type : new String[] {"cuckoo", "counting"}) {
      String file = f("shells-" + type + ".bin");
      Cli c =
          Cli.run(
              Commands.sizedFilterCreate(
                  file,
                  type,
                  "22",
                  "0.01",
                  "--field",
                  "7",
                  "--delimiter",
                  ":",
                  "--if-absent",
                  "--keys",
                  pw.toString()));
      assertThat(c.exit).as(c.toString()).isZero();
      assertThat(c.err).isEmpty();
      assertThat(Cli.run("filter", "query", file, shells[0], shells[1], shells[2], "/bin/zsh").out)
          .isEqualTo(
              shells[0]
                  + "\tpresent\n"
                  + shells[1]
                  + "\tpresent\n"
                  + shells[2]
                  + "\tpresent\n/bin/zsh\tabsent\n");
      assertThat(Cli.run("filter", "remove", file, shells[1]).out)
          .isEqualTo("removed 1 of 1 keys (0 certainly absent)\n");
      assertThat(Cli.run("filter", "query", file, shells[1]).out)
          .isEqualTo(shells[1] + "\tabsent\n");
    }
    assertThat(Cli.run("filter", "info", f("shells-cuckoo.bin")).out)
        .contains("keys:             2\n");

    StringBuilder log = new StringBuilder();
    for (int i = 0; i < 100_000; i++) {
      log.append("GET /page/").append(i % 50).append('\n');
    }
    Path logFile = Files.writeString(dir.resolve("access.log"), log);
    Cli big =
        Cli.run(
            "filter",
            "create",
            f("log.bin"),
            "--type",
            "cuckoo",
            "--expected",
            "1000",
            "--fpp",
            "0.01",
            "--if-absent",
            "--keys",
            logFile.toString());
    assertThat(big.exit).as(big.toString()).isZero();
    assertThat(Cli.run("filter", "info", f("log.bin"), "--json").out).contains("\"keys\": 50,");

    // By default (and with --multiset, which names it) repeats count: a key added twice needs two
    // removals. DeletableFilterCliTest has the rest.
    Cli.run(
        "filter", "create", f("m.bin"), "--type", "counting", "--expected", "100", "--fpp", "0.01");
    assertThat(Cli.run("filter", "add", f("m.bin"), "--multiset", "k", "k").exit).isZero();
    Cli.run("filter", "remove", f("m.bin"), "k");
    assertThat(Cli.run("filter", "query", f("m.bin"), "k").out).isEqualTo("k\tpresent\n");
    Cli.run("filter", "create", f("b.bin"), "--expected", "100", "--fpp", "0.01");
    assertOneLineError(
        Cli.run("filter", "add", f("b.bin"), "--multiset", "k"),
        2,
        "--multiset applies to counting and cuckoo filters, not to a bloom filter");
  }

  @Test
  void aFilterGivenMoreKeysThanItWasSizedForWarnsOnce() {
    for (String type : new String[] {"bloom", "blocked", "counting"}) {
      String file = f(type + ".bin");
      Cli.run("filter", "create", file, "--type", type, "--expected", "1000", "--fpp", "0.01");
      StringBuilder keys = new StringBuilder();
      for (int i = 0; i < 1000; i++) {
        keys.append("k").append(i).append('\n');
      }
      Cli exact = Cli.runWithInput(keys.toString(), "filter", "add", file);
      assertThat(exact.err).as("%s: %s", type, exact).isEmpty();
      for (int i = 1000; i < 3000; i++) {
        keys.append("k").append(i).append('\n');
      }
      Cli over = Cli.runWithInput(keys.toString(), "filter", "add", file);
      assertThat(over.exit).isZero();
      assertThat(over.err)
          .as(type)
          .matches(
              "probkit: warning: "
                  + java.util.regex.Pattern.quote(file)
                  + " holds about [23],[0-9]{3} keys, more than the 1,000 it was sized for: its false-positive rate is now"
                  + " [0-9.]+ % \\(sized for 1 %\\)\n");
    }
  }

  @Test
  void aSaturatedFilterSaysSo() {
    // --fpp 0.5 for one key: 2 bits, which a few keys fill.
    Cli.run("filter", "create", f("s.bin"), "--expected", "1", "--fpp", "0.5");
    Cli add = Cli.run("filter", "add", f("s.bin"), "a", "b", "c", "d", "e", "f", "g", "h");
    assertThat(add.err)
        .isEqualTo(
            "probkit: warning: "
                + f("s.bin")
                + " is saturated, more than the 1 it was sized"
                + " for: its false-positive rate is now 100 % (sized for 50 %)\n");
    assertThat(Cli.run("filter", "info", f("s.bin")).out)
        .contains("approximateCount: saturated (too full to estimate: any key may read present)\n")
        .doesNotContain(Long.toString(Long.MAX_VALUE));
    assertThat(Cli.run("filter", "info", f("s.bin"), "--json").out)
        .contains("\"approximateCount\": null, \"saturated\": true,");
  }

  /** Threads of one JVM take turns on a file as processes do (a channel lock alone is per JVM). */
  @Test
  void threadsOfOneJvmTakeTurns() throws Exception {
    int threads = 8;
    int each = 2_000;
    Cli.run(
        "filter", "create", f("t.bin"), "--type", "cuckoo", "--expected", "20000", "--fpp", "0.01");
    Cli.run("hll", "create", f("t.hll"), "--precision", "16");
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Future<List<Cli>>> runs = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      StringBuilder keys = new StringBuilder();
      for (int i = 0; i < each; i++) {
        keys.append("t").append(t).append(':').append(i).append('\n');
      }
      String in = keys.toString();
      runs.add(
          pool.submit(
              () ->
                  List.of(
                      Cli.runWithInput(in, "filter", "add", f("t.bin")),
                      Cli.runWithInput(in, "hll", "add", f("t.hll")))));
    }
    for (Future<List<Cli>> r : runs) {
      for (Cli c : r.get()) {
        assertThat(c.exit).as(c.toString()).isZero();
      }
    }
    pool.shutdown();
    StringBuilder all = new StringBuilder();
    for (int t = 0; t < threads; t++) {
      for (int i = 0; i < each; i++) {
        all.append("t").append(t).append(':').append(i).append('\n');
      }
    }
    assertThat(Cli.runWithInput(all.toString(), "filter", "query", f("t.bin")).out)
        .doesNotContain("absent");
    HyperLogLog expected = HyperLogLog.create(16);
    all.toString().lines().forEach(expected::add);
    assertThat(SketchFiles.read(dir.resolve("t.hll"), HyperLogLog::readFrom).registers())
        .isEqualTo(expected.registers());
  }
}
