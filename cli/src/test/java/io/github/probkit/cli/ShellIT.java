package io.github.probkit.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shell tool as a user meets it, through the {@code ./probkit} launcher and the packaged jar:
 * dedupe, grep-style queries, line-at-a-time answers, JSON Lines, CSV, compressed input, and the
 * rough edges of issue 18, each run as a process.
 */
class ShellIT {
  @TempDir Path dir;

  record Run(int exit, byte[] stdout, String err) {
    String out() {
      return new String(stdout, UTF_8);
    }

    @Override
    public String toString() {
      return "exit " + exit + "\n--- out\n" + out() + "--- err\n" + err;
    }
  }

  static Path launcher() {
    Path p = Path.of("").toAbsolutePath();
    while (p != null && !Files.isExecutable(p.resolve("probkit"))) {
      p = p.getParent();
    }
    assertThat(p).as("the ./probkit launcher above " + Path.of("").toAbsolutePath()).isNotNull();
    return p.resolve("probkit");
  }

  private ProcessBuilder builder(Path probkit, String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(probkit.toString());
    cmd.addAll(List.of(args));
    ProcessBuilder b = new ProcessBuilder(cmd).directory(dir.toFile());
    // Small, quick JVMs: many tests start one.
    b.environment().put("JAVA_OPTS", "-Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1");
    return b;
  }

  private Run run(byte[] stdin, String... args) throws IOException, InterruptedException {
    return finish(builder(launcher(), args), stdin);
  }

  private Run run(String... args) throws IOException, InterruptedException {
    return run(new byte[0], args);
  }

  private Run finish(ProcessBuilder b, byte[] stdin) throws IOException, InterruptedException {
    Path err = Files.createTempFile(dir, "err", ".txt");
    Process p = b.redirectError(err.toFile()).start();
    try (OutputStream in = p.getOutputStream()) {
      in.write(stdin);
    } catch (IOException e) {
      // The command needed none of it.
    }
    byte[] out = p.getInputStream().readAllBytes();
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("finished in 2 minutes").isTrue();
    return new Run(p.exitValue(), out, Files.readString(err));
  }

  private Path write(String name, String text) throws IOException {
    return Files.write(dir.resolve(name), text.getBytes(UTF_8));
  }

  // ---- the rough edges

  @Test
  void everySubcommandPrintsTheVersion() throws Exception {
    String[][] commands = {
      {"filter", "--version"},
      {"filter", "create", "--version"},
      {"top", "--version"},
      {"distinct", "-V"},
      {"hll", "count", "--version"},
      {"demo", "--version"},
      {"dedupe", "--version"},
    };
    for (String[] c : commands) {
      Run r = run(c);
      assertThat(r.exit).as(String.join(" ", c)).isZero();
      assertThat(r.out()).as(String.join(" ", c)).matches("probkit \\S+\n");
    }
  }

  @Test
  void helpOfANestedCommand() throws Exception {
    Run r = run("help", "filter", "create");
    assertThat(r.exit).isZero();
    assertThat(r.out()).startsWith("Usage: probkit filter create ").contains("--expected=N");
    Run bad = run("help", "filter", "crate");
    assertThat(bad.exit).isEqualTo(2);
    assertThat(bad.err)
        .isEqualTo(
            "probkit: unknown command 'crate': probkit filter has the subcommands create,"
                + " add, remove, query, info, merge, import, export (see 'probkit help"
                + " --help')\n");
  }

  @Test
  void numbersAsPeopleWriteThem() throws Exception {
    assertThat(run("filter", "create", "a.bin", "--expected", "1k", "--fpp", "1%").exit).isZero();
    assertThat(run("filter", "info", "a.bin").out())
        .contains("expectedKeys:     1000\n", "fpp:              0.01\n");
    assertThat(run("cms", "create", "a.cms", "--width", "2k", "--depth", "3").exit).isZero();
    assertThat(run("cms", "info", "a.cms").out()).contains("width:      2000\n");

    Run tooWide = run("cms", "create", "b.cms", "--width", "10G", "--depth", "2");
    assertThat(tooWide.exit).isEqualTo(2);
    assertThat(tooWide.err)
        .isEqualTo(
            "probkit: Invalid value for option '--width': '10G' is too large"
                + " (at most 2147483647) (see 'probkit cms create --help')\n");
    Run tooMany = run("filter", "create", "b.bin", "--expected", "1e30");
    assertThat(tooMany.err)
        .isEqualTo(
            "probkit: Invalid value for option '--expected': '1e30' is too large"
                + " (at most 9223372036854775807) (see 'probkit filter create --help')\n");
    Run tiny = run("filter", "create", "b.bin", "--expected", "1000", "--fpp", "1e-300");
    assertThat(tiny.exit).isEqualTo(2);
    assertThat(tiny.err)
        .isEqualTo(
            "probkit: --fpp 1e-300 is below 1.73e-77 (2^-255), the lowest rate of a"
                + " bloom filter, which probes each key at most 255 times\n");
    assertThat(dir.resolve("b.bin")).doesNotExist();
  }

  @Test
  void fppIsOptionalWithTheDocumentedDefault() throws Exception {
    assertThat(run("filter", "create", "--help").out()).contains("[--fpp=P]", "(default: 0.01)");
    assertThat(run("filter", "create", "d.bin", "--expected", "1000").exit).isZero();
    assertThat(run("filter", "info", "d.bin").out()).contains("fpp:              0.01\n");
  }

  @Test
  void usageErrorsAreOneLineWithOnePrefix() throws Exception {
    Run r = run("cms", "create", "x.cms", "--epsilon", "0.1");
    assertThat(r.exit).isEqualTo(2);
    assertThat(r.err)
        .isEqualTo(
            "probkit: Missing required argument(s): --delta=D (see 'probkit cms create --help')\n");
    Run typo = run("filter", "create", "x.bin", "--expectd", "5");
    assertThat(typo.err)
        .isEqualTo(
            "probkit: Unknown options: '--expectd', '5'; did you mean --expected or"
                + " --expected-rate? (see 'probkit filter create --help')\n");
    assertThat(run("filter", "crate").err)
        .isEqualTo(
            "probkit: unknown command 'crate': probkit filter has the subcommands create, add,"
                + " remove, query, info, merge, import, export; did you mean create? (see"
                + " 'probkit filter --help')\n");
    assertThat(run("dedupe", "--field", "0", "x.txt").err)
        .isEqualTo(
            "probkit: --field counts from 1 (without --field the key is the whole line), was 0\n");
  }

  @Test
  void topSaysWhatIsWrongWithK() throws Exception {
    Run r = run("top", "-k", "1000000000", "-");
    assertThat(r.exit).isEqualTo(2);
    assertThat(r.err)
        .isEqualTo(
            "probkit: -k 1000000000 is more lines than top can keep in memory: at most 268435456\n");
  }

  @Test
  void completionOffersTheSketchTypes() throws Exception {
    Run r = run("generate-completion");
    assertThat(r.exit).isZero();
    assertThat(r.out()).contains("TYPE_option_args=(\"hyperloglog\" \"ultraloglog\")");
  }

  @Test
  void aSketchCountedWithItselfKeepsItsEstimate() throws Exception {
    StringBuilder keys = new StringBuilder();
    for (int i = 0; i < 30_000; i++) {
      keys.append("user-").append(i).append('\n');
    }
    assertThat(run("hll", "create", "a.hll").exit).isZero();
    assertThat(run(keys.toString().getBytes(UTF_8), "hll", "add", "a.hll").exit).isZero();
    String alone = run("hll", "count", "a.hll").out();
    assertThat(run("hll", "count", "a.hll", "a.hll").out()).isEqualTo(alone);
    assertThat(run("hll", "count", "--json", "a.hll", "a.hll").out())
        .contains("\"estimator\": \"martingale\"");
    assertThat(run("hll", "count", "--help").out())
        .contains("count A A prints what count A prints");
  }

  @Test
  void scalableInfoPrintsItsLayersAsText() throws Exception {
    assertThat(run("filter", "create", "s.bin", "--type", "scalable", "--expected", "1000").exit)
        .isZero();
    StringBuilder keys = new StringBuilder();
    for (int i = 0; i < 2500; i++) {
      keys.append(i).append('\n');
    }
    assertThat(run(keys.toString().getBytes(UTF_8), "filter", "add", "s.bin").exit).isZero();
    String info = run("filter", "info", "s.bin").out();
    // The first layer holds 1,000 keys, the second twice as many, and has the rest (less the few
    // false positives, which are not stored again).
    assertThat(info)
        .contains("layers:           2\n")
        .containsPattern(
            "\nlayer 1: {10}capacity 1000, keys 1000, bits \\d+, hashes \\d+, fpp 0\\.\\d+\n"
                + "layer 2: {10}capacity 2000, keys 1[45]\\d\\d, bits \\d+, hashes \\d+, fpp 0\\.\\d+\n");
    assertThat(info).doesNotContain("[", "{");
    assertThat(run("filter", "info", "--json", "s.bin").out())
        .contains("\"layers\": [{\"capacity\": 1000, \"keys\": 1000,");
  }

  // ---- the launcher

  @Test
  void aSymlinkedLauncherFindsItsCheckout() throws Exception {
    Path bin = Files.createDirectories(dir.resolve("bin"));
    Path link = Files.createSymbolicLink(bin.resolve("probkit"), launcher());
    Path chained =
        Files.createSymbolicLink(bin.resolve("pk"), Path.of("probkit")); // relative, to a link
    for (Path p : List.of(link, chained)) {
      Run r = finish(builder(p, "--version"), new byte[0]);
      assertThat(r.exit).as(r.toString()).isZero();
      assertThat(r.out()).startsWith("probkit ");
    }
  }

  /**
   * Three first runs at once of a checkout without its jar build it once: a stand-in for mvn on the
   * PATH counts its runs, takes a second, and "builds" the real jar. The build log goes to the
   * user's cache, and nothing to the shared temporary directory.
   */
  @Test
  void parallelFirstRunsBuildOnceAndLogPerUser() throws Exception {
    Path tree = Files.createDirectories(dir.resolve("checkout"));
    Files.copy(launcher(), tree.resolve("probkit"));
    for (String d : List.of("core/src/main", "cli/src/main")) {
      Files.createDirectories(tree.resolve(d));
      Files.writeString(tree.resolve(d).resolve("Source.java"), "// a source\n");
    }
    for (String pom : List.of("pom.xml", "core/pom.xml", "cli/pom.xml")) {
      Files.writeString(tree.resolve(pom), "<project/>\n");
    }
    FileTime old = FileTime.fromMillis(System.currentTimeMillis() - 3_600_000);
    try (var files = Files.walk(tree)) {
      for (Path p : (Iterable<Path>) files::iterator) {
        Files.setLastModifiedTime(p, old);
      }
    }
    Path jar = Path.of("target").toAbsolutePath();
    try (var jars = Files.list(jar)) {
      jar =
          jars.filter(p -> p.getFileName().toString().matches("probkit-cli-.*-all\\.jar"))
              .findFirst()
              .orElseThrow();
    }
    Path fakeBin = Files.createDirectories(dir.resolve("fakebin"));
    Path mvn = fakeBin.resolve("mvn");
    Files.writeString(
        mvn,
        "#!/bin/sh\necho run >> "
            + dir.resolve("mvn-runs")
            + "\necho building\nsleep 1\n"
            + "mkdir -p cli/target && cp "
            + jar
            + " cli/target/probkit-cli-9-all.jar\n");
    assertThat(mvn.toFile().setExecutable(true)).isTrue();
    Path home = Files.createDirectories(dir.resolve("home"));
    Path tmp = Files.createDirectories(dir.resolve("tmp"));

    List<Process> runs = new ArrayList<>();
    List<Path> errs = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      ProcessBuilder b = builder(tree.resolve("probkit"), "--version");
      Map<String, String> env = b.environment();
      env.put("PATH", fakeBin + File.pathSeparator + env.get("PATH"));
      env.put("HOME", home.toString());
      env.remove("XDG_CACHE_HOME");
      env.put("TMPDIR", tmp.toString());
      Path err = dir.resolve("err" + i);
      errs.add(err);
      runs.add(b.redirectError(err.toFile()).redirectInput(new File("/dev/null")).start());
    }
    for (int i = 0; i < 3; i++) {
      Process p = runs.get(i);
      String out = new String(p.getInputStream().readAllBytes(), UTF_8);
      assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
      assertThat(p.exitValue()).as(Files.readString(errs.get(i))).isZero();
      assertThat(out).startsWith("probkit ");
    }
    assertThat(Files.readAllLines(dir.resolve("mvn-runs"))).hasSize(1);
    assertThat(Files.readString(home.resolve(".cache/probkit/build.log"))).isEqualTo("building\n");
    try (var left = Files.list(tmp)) {
      assertThat(left).isEmpty();
    }
  }

  // ---- dedupe, grep-style queries, streams

  @Test
  void dedupeKeepsFirstLinesInOrderAndCountsTheDropped() throws Exception {
    Run r = run("b\na\nb\nc\na\nb\n".getBytes(UTF_8), "dedupe");
    assertThat(r.exit).isZero();
    assertThat(r.out()).isEqualTo("b\na\nc\n");
    assertThat(r.err)
        .isEqualTo("probkit: dedupe: kept 3 of 6 lines, dropped 3 (in a filter of 1.3 MiB)\n");
    Path csv =
        write(
            "users.csv",
            "id,email,city\n1,a@x,\"Paris, France\"\n2,b@x,Oslo\n3,c@x,\"Paris, France\"\n");
    Run byCity = run("dedupe", "--format", "csv", "--header", "--field", "city", csv.toString());
    assertThat(byCity.out()).isEqualTo("id,email,city\n1,a@x,\"Paris, France\"\n2,b@x,Oslo\n");
    assertThat(run("dedupe", "--help").out())
        .contains("a line is never printed twice", "probability about P at most");
  }

  @Test
  void queriesAnswerLikeGrep() throws Exception {
    assertThat(
            run("alice\nbob\n".getBytes(UTF_8), "filter", "create", "f.bin", "--expected", "100")
                .exit)
        .isZero();
    assertThat(run("filter", "query", "-q", "f.bin", "alice").exit).isZero();
    Run absent = run("filter", "query", "-q", "f.bin", "zed");
    assertThat(absent.exit).isEqualTo(1);
    assertThat(absent.stdout).isEmpty();
    Run missing = run("filter", "query", "-q", "nope.bin", "alice");
    assertThat(missing.exit).as("an error is not 'absent'").isEqualTo(2);
    assertThat(missing.err).isEqualTo("probkit: nope.bin: no such file\n");

    Path log =
        write("log.tsv", "1\talice\tGET /\n2\tzed\tGET /a\n3\tbob\tPOST /b\n4\tyan\tGET /c\n");
    Run unknown =
        run("filter", "query", "f.bin", "--absent", "--field", "2", "--keys", log.toString());
    assertThat(unknown.exit).isZero();
    assertThat(unknown.out()).isEqualTo("2\tzed\tGET /a\n4\tyan\tGET /c\n");
    Run known =
        run(Files.readAllBytes(log), "filter", "query", "f.bin", "--present", "--field", "2");
    assertThat(known.out()).isEqualTo("1\talice\tGET /\n3\tbob\tPOST /b\n");
    Run count =
        run(
            Files.readAllBytes(log),
            "filter",
            "query",
            "f.bin",
            "--count",
            "--absent",
            "--field",
            "2");
    assertThat(count.out()).isEqualTo("2\n");
    Run none = run("carol\n".getBytes(UTF_8), "filter", "query", "f.bin", "--present");
    assertThat(none.exit).isEqualTo(1);
    assertThat(none.stdout).isEmpty();
  }

  @Test
  void jsonLinesSayWhatTheyDoWithBytesThatAreNotUtf8() throws Exception {
    assertThat(
            run("alice\n".getBytes(UTF_8), "filter", "create", "f.bin", "--expected", "100").exit)
        .isZero();
    byte[] keys = {
      'a', 'l', 'i', 'c', 'e', '\n', 'c', 'a', 'f', (byte) 0xe9, '\n', '"', 'q', '"', '\n'
    };
    Run r = run(keys, "filter", "query", "f.bin", "--json");
    assertThat(r.out())
        .isEqualTo(
            "{\"key\": \"alice\", \"present\": true}\n"
                + "{\"key\": \"caf\uFFFD\", \"keyBase64\": \"Y2Fm6Q==\", \"present\": false}\n"
                + "{\"key\": \"\\\"q\\\"\", \"present\": false}\n");
    assertThat(run("cms", "create", "t.cms", "--width", "100", "--depth", "2").exit).isZero();
    assertThat(run("rain\nrain\n".getBytes(UTF_8), "cms", "add", "t.cms").exit).isZero();
    assertThat(run("cms", "query", "--json", "t.cms", "rain", "sun").out())
        .isEqualTo("{\"item\": \"rain\", \"estimate\": 2}\n{\"item\": \"sun\", \"estimate\": 0}\n");
  }

  /**
   * Lines written to the command one at a time, each answer read before the next line is written
   * and before standard input is closed: a command that waited for the end of its input, or for a
   * full buffer, would give no answer and fail the 60-second wait.
   */
  @Test
  void linesFromAPipeAreAnsweredAsTheyCome() throws Exception {
    assertThat(
            run("alice\n".getBytes(UTF_8), "filter", "create", "f.bin", "--expected", "100").exit)
        .isZero();
    assertThat(run("cms", "create", "t.cms", "--width", "100", "--depth", "2").exit).isZero();
    assertThat(run("rain\n".getBytes(UTF_8), "cms", "add", "t.cms").exit).isZero();
    converse(
        List.of("filter", "query", "f.bin"),
        "alice",
        "alice\tpresent",
        "zed",
        "zed\tabsent",
        "alice",
        "alice\tpresent");
    converse(List.of("filter", "query", "f.bin", "--absent"), "zed", "zed", "yan", "yan");
    converse(List.of("dedupe"), "a", "a", "b", "b", "c", "c");
    converse(List.of("dedupe", "--format", "csv"), "1,\"x, y\"", "1,\"x, y\"", "2,z", "2,z");
    converse(List.of("cms", "query", "t.cms"), "rain", "rain\t1", "sun", "sun\t0");
  }

  /**
   * Writes each even-numbered string as a line, waits for the next one as the answer; then closes
   * stdin.
   */
  private void converse(List<String> args, String... linesAndAnswers) throws Exception {
    Process p =
        builder(launcher(), args.toArray(String[]::new))
            .redirectError(dir.resolve("err.log").toFile())
            .start();
    BlockingQueue<String> answers = new ArrayBlockingQueue<>(100);
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(new InputStreamReader(p.getInputStream(), UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                  answers.add(line);
                }
              } catch (IOException e) {
                answers.add("read failed: " + e);
              }
            });
    reader.start();
    try (OutputStream in = p.getOutputStream()) {
      for (int i = 0; i < linesAndAnswers.length; i += 2) {
        in.write((linesAndAnswers[i] + "\n").getBytes(UTF_8));
        in.flush();
        assertThat(answers.poll(60, TimeUnit.SECONDS))
            .as(args + " answering " + linesAndAnswers[i] + " with stdin open")
            .isEqualTo(linesAndAnswers[i + 1]);
      }
    }
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    reader.join();
    assertThat(p.exitValue()).as(Files.readString(dir.resolve("err.log"))).isZero();
    assertThat(answers).isEmpty();
  }

  // ---- input formats

  @Test
  void csvFieldsMayHoldDelimitersQuotesAndNewlines() throws Exception {
    Path csv =
        write(
            "cities.csv",
            "1,alice,\"Paris, France\"\r\n2,bob,\"say \"\"hi\"\"\"\r\n3,carol,\"two\nlines\"\r\n");
    Run keys =
        run(
            "filter",
            "create",
            "c.bin",
            "--expected",
            "100",
            "--format",
            "csv",
            "--field",
            "3",
            "--keys",
            csv.toString());
    assertThat(keys.exit).as(keys.toString()).isZero();
    assertThat(
            run("filter", "query", "c.bin", "Paris, France", "say \"hi\"", "two\nlines", "\"Paris")
                .out())
        .isEqualTo(
            "Paris, France\tpresent\nsay \"hi\"\tpresent\ntwo\nlines\tpresent\n\"Paris\tabsent\n");
    Run bad = run("1,\"open\n".getBytes(UTF_8), "dedupe", "--format", "csv");
    assertThat(bad.exit).isEqualTo(1);
    assertThat(bad.err).startsWith("probkit: <stdin>: not valid CSV: ").doesNotContain("\n\t");
  }

  @Test
  void xzAndZstdAreReadAndBzip2Refused() throws Exception {
    byte[] keys = "alice\nbob\nalice\n".getBytes(UTF_8);
    ByteArrayOutputStream gz = new ByteArrayOutputStream();
    try (OutputStream o = new GZIPOutputStream(gz)) {
      o.write(keys);
    }
    ByteArrayOutputStream xz = new ByteArrayOutputStream();
    try (OutputStream o =
        new org.tukaani.xz.XZOutputStream(xz, new org.tukaani.xz.LZMA2Options())) {
      o.write(keys);
    }
    Files.write(dir.resolve("keys.gz"), gz.toByteArray());
    Files.write(dir.resolve("keys.xz"), xz.toByteArray());
    Files.write(dir.resolve("keys.zst"), com.github.luben.zstd.Zstd.compress(keys));
    Files.write(dir.resolve("keys.txt"), keys);
    for (String n : List.of("keys.gz", "keys.xz", "keys.zst")) {
      Run r = run("dedupe", n);
      assertThat(r.out()).as(n + ": " + r).isEqualTo("alice\nbob\n");
      // Named for what they hold, not for their names.
      Files.move(
          dir.resolve(n),
          dir.resolve("renamed"),
          java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      assertThat(run("dedupe", "renamed").out()).isEqualTo("alice\nbob\n");
    }
    // Several frames (as `cat a.zst b.zst` makes), compressed by the reference library.
    byte[] many = "carol\n".repeat(100_000).getBytes(UTF_8);
    ByteArrayOutputStream frames = new ByteArrayOutputStream();
    frames.write(com.github.luben.zstd.Zstd.compress(keys));
    frames.write(com.github.luben.zstd.Zstd.compress(many));
    Files.write(dir.resolve("frames.zst"), frames.toByteArray());
    assertThat(run("dedupe", "frames.zst").out()).isEqualTo("alice\nbob\ncarol\n");
    byte[] big =
        com.github.luben.zstd.Zstd.compress(
            java.util.stream.IntStream.range(0, 100_000)
                .mapToObj(i -> i + "\n")
                .collect(java.util.stream.Collectors.joining())
                .getBytes(UTF_8));
    Files.write(dir.resolve("truncated.zst"), java.util.Arrays.copyOf(big, big.length / 2));
    Run cut = run("dedupe", "truncated.zst");
    assertThat(cut.exit).as(cut.toString()).isEqualTo(1);
    assertThat(cut.err)
        .startsWith("probkit: truncated.zst: corrupt zstd data (")
        .doesNotContain("\n\tat ");
    byte[] corrupt = big.clone();
    for (int i = 40; i < 48; i++) {
      corrupt[i] ^= (byte) 0xA5;
    }
    Files.write(dir.resolve("corrupt.zst"), corrupt);
    Run bad = run("dedupe", "corrupt.zst");
    assertThat(bad.exit).as(bad.toString()).isEqualTo(1);
    assertThat(bad.err).startsWith("probkit: corrupt.zst: corrupt zstd data (").endsWith(")\n");
    Files.write(dir.resolve("truncated.xz"), java.util.Arrays.copyOf(xz.toByteArray(), 30));
    assertThat(run("dedupe", "truncated.xz").err)
        .isEqualTo("probkit: truncated.xz: truncated xz data\n");
    // The magic bytes of bzip2: "BZh", the block size, the block header's pi.
    byte[] bz = {'B', 'Z', 'h', '9', 0x31, 0x41, 0x59, 0x26, 0x53, 0x59, 1, 2, 3};
    Files.write(dir.resolve("keys.bz2"), bz);
    Run r = run("dedupe", "keys.bz2");
    assertThat(r.exit).isEqualTo(1);
    assertThat(r.err)
        .isEqualTo(
            "probkit: keys.bz2: bzip2 data, which probkit does not read (gzip, xz and zstd"
                + " it does): decompress it into a pipe, as in 'bzip2 -dc keys.bz2 | probkit ...'\n");
  }
}
