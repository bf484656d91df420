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
    return new String[] {String.valueOf(p.exitValue()), out, Files.readString(dir.resolve("err.log"))};
  }

  @Test
  void demoAndAFilterRoundTripThroughTheLauncher() throws Exception {
    String[] demo = run("", "demo", "bloom");
    assertThat(demo[0]).isEqualTo("0");
    assertThat(demo[1]).isEqualTo(DemoCommandTest.SEED_000_BLOOM);
    assertThat(demo[2]).as("no build, no progress noise on a non-terminal").isEmpty();

    String f = dir.resolve("users.bin").toString();
    assertThat(run("", "filter", "create", f, "--expected", "1000000", "--fpp", "0.01")[0]).isEqualTo("0");
    assertThat(run("alice\nbob\n", "filter", "add", f)[0]).isEqualTo("0");
    assertThat(run("", "filter", "query", f, "alice", "carol")[1]).isEqualTo("alice\tpresent\ncarol\tabsent\n");
    assertThat(run("", "filter", "info", f, "--json")[1]).contains("\"bits\": 9585059", "\"hashes\": 7");

    String[] bad = run("", "filter", "info", dir.resolve("missing.bin").toString());
    assertThat(bad[0]).isEqualTo("1");
    assertThat(bad[2]).isEqualTo("probkit: " + dir.resolve("missing.bin") + ": no such file\n");
  }
}
