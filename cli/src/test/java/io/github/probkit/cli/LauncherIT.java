package io.github.probkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The packaged jar, run through the {@code ./probkit} launcher as the README shows. */
class LauncherIT {
  @TempDir Path dir;

  private static Path launcher() {
    Path p = Path.of("").toAbsolutePath();
    while (p != null && !Files.isExecutable(p.resolve("probkit"))) {
      p = p.getParent();
    }
    assertThat(p).as("the ./probkit launcher above " + Path.of("").toAbsolutePath()).isNotNull();
    return p.resolve("probkit");
  }

  private String[] run(String stdin, String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(launcher().toString());
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectError(dir.resolve("err.log").toFile()).start();
    p.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    return new String[] {
      String.valueOf(p.exitValue()), out, Files.readString(dir.resolve("err.log"))
    };
  }

  @Test
  void demoAndAFilterRoundTripThroughTheLauncher() throws Exception {
    String[] demo = run("", "demo", "bloom");
    assertThat(demo[0]).isEqualTo("0");
    assertThat(demo[1]).isEqualTo(DemoCommandTest.SEED_000_BLOOM);
    assertThat(demo[2]).as("no build, no progress noise on a non-terminal").isEmpty();

    String f = dir.resolve("users.bin").toString();
    assertThat(run("", "filter", "create", f, "--expected", "1000000", "--fpp", "0.01")[0])
        .isEqualTo("0");
    assertThat(run("alice\nbob\n", "filter", "add", f)[0]).isEqualTo("0");
    assertThat(run("", "filter", "query", f, "alice", "carol")[1])
        .isEqualTo("alice\tpresent\ncarol\tabsent\n");
    assertThat(run("", "filter", "info", f, "--json")[1])
        .contains("\"bits\": 9585059", "\"hashes\": 7");

    String[] bad = run("", "filter", "info", dir.resolve("missing.bin").toString());
    assertThat(bad[0]).isEqualTo("1");
    assertThat(bad[2]).isEqualTo("probkit: " + dir.resolve("missing.bin") + ": no such file\n");
  }

  /**
   * The class-data-sharing archive (or, on Java 25 and later, the AOT cache) beside the jar is only
   * a speed-up: one that the JVM refuses, or none at all, still gives the same answers, exit code
   * and an empty stderr. Covers both the plain query and the --version that the launcher runs with
   * C1 alone, and a run that keeps the JVM's defaults (filter info).
   */
  @Test
  void aCorruptOrAbsentArchiveStillAnswers() throws Exception {
    String f = dir.resolve("k.bin").toString();
    Files.writeString(dir.resolve("keys.txt"), "alice\nbob\n");
    assertThat(
            run(
                "",
                "filter",
                "create",
                f,
                "--expected",
                "1000",
                "--fpp",
                "0.01",
                "--keys",
                dir.resolve("keys.txt").toString())[0])
        .isEqualTo("0");
    String[] expected = run("", "filter", "query", f, "alice", "bob", "carol");
    assertThat(expected[1]).isEqualTo("alice\tpresent\nbob\tpresent\ncarol\tabsent\n");
    String version = run("", "--version")[1];
    String info = run("", "filter", "info", f)[1];
    Path target = launcher().getParent().resolve("cli").resolve("target");
    List<Path> archives = new ArrayList<>();
    try (var s = Files.list(target)) {
      s.filter(p -> p.toString().endsWith(".jsa") || p.toString().endsWith(".aot"))
          .forEach(archives::add);
    }
    assertThat(archives).as("the launcher made an archive in " + target).isNotEmpty();
    try {
      // Corrupt: written after the jar, so the launcher takes it as current and hands it over.
      for (Path a : archives) {
        byte[] junk = new byte[8192];
        new java.util.Random(31).nextBytes(junk);
        Files.write(a, junk);
      }
      assertAnswers(f, expected, version, info, "a corrupt archive");
      // Absent, and marked as one this JVM cannot make: the launcher runs without one.
      for (Path a : archives) {
        Files.delete(a);
        Files.writeString(a.resolveSibling(a.getFileName() + ".failed"), "");
      }
      assertAnswers(f, expected, version, info, "no archive");
    } finally {
      // The next run of the launcher makes the archive again.
      for (Path a : archives) {
        Files.deleteIfExists(a);
        Files.deleteIfExists(a.resolveSibling(a.getFileName() + ".failed"));
      }
    }
  }

  private void assertAnswers(String f, String[] query, String version, String info, String what)
      throws Exception {
    String[] q = run("", "filter", "query", f, "alice", "bob", "carol");
    assertThat(q).as(what + ": filter query").containsExactly(query);
    String[] v = run("", "--version");
    assertThat(v).as(what + ": --version").containsExactly("0", version, "");
    String[] i = run("", "filter", "info", f);
    assertThat(i).as(what + ": filter info").containsExactly("0", info, "");
  }

  /**
   * Without any locale (env -i, keeping PATH), a file named café.txt can be read and café.bin
   * written (the launcher gives the JVM a UTF-8 locale for file names), and the key café is
   * answered as the bytes it is. The bytes come from printf, not from this test's own locale.
   */
  @Test
  void withoutALocaleFileNamesAndKeysKeepTheirBytes() throws Exception {
    String probkit = "env -i PATH=\"$PATH\" " + launcher(); // no locale at all; java where it is
    String sh =
        "cd "
            + dir
            + " && k=$(printf 'caf\\303\\251') && printf '%s\\n' \"$k\" > \"$k.txt\""
            + " && "
            + probkit
            + " filter create \"$k.bin\" --expected 100 --fpp 0.01 --keys \"$k.txt\""
            + " && "
            + probkit
            + " filter query \"$k.bin\" \"$k\" cafe";
    Process p =
        new ProcessBuilder("sh", "-c", sh)
            .redirectError(dir.resolve("err.log").toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
            .start();
    byte[] out = p.getInputStream().readAllBytes();
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(Files.readString(dir.resolve("err.log"))).isZero();
    byte[] cafe = {'c', 'a', 'f', (byte) 0xc3, (byte) 0xa9};
    java.io.ByteArrayOutputStream expected = new java.io.ByteArrayOutputStream();
    expected.writeBytes(cafe);
    expected.writeBytes("\tpresent\ncafe\tabsent\n".getBytes(StandardCharsets.US_ASCII));
    assertThat(out).isEqualTo(expected.toByteArray());
  }
}
