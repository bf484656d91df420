package io.github.probkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.filter.BloomFilter;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills real probkit processes with SIGKILL in the middle of rewriting a file and checks that the
 * file is always either the complete old version or the complete new one.
 */
class CrashSafetyTest {
  @TempDir Path dir;

  private Process start(String... args) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx512m");
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(Main.class.getName());
    cmd.addAll(List.of(args));
    return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve("out.log").toFile())
        .start();
  }

  @Test
  void sigkillDuringFilterAddLeavesTheOldOrTheNewFile() throws Exception {
    Path filter = dir.resolve("f.bin");
    Path keys = dir.resolve("keys.txt");
    try (BufferedWriter w = Files.newBufferedWriter(keys)) {
      for (int i = 0; i < 1_500_000; i++) {
        w.write("user:" + i);
        w.newLine();
      }
    }
    assertThat(Cli.run("filter", "create", filter.toString(), "--expected", "2000000", "--fpp", "0.01", "old-key")
        .exit).isNotZero(); // create takes no key arguments
    assertThat(Cli.run("filter", "create", filter.toString(), "--expected", "2000000", "--fpp", "0.01").exit).isZero();
    Cli.run("filter", "add", filter.toString(), "old-key");
    byte[] old = Files.readAllBytes(filter);

    long[] delaysMillis = {150, 400, 700, 1000, 1400, 2000};
    int killedMidway = 0;
    for (long delay : delaysMillis) {
      Process p = start("filter", "add", filter.toString(), "--keys", keys.toString());
      boolean finished = p.waitFor(delay, TimeUnit.MILLISECONDS);
      if (!finished) {
        p.destroyForcibly(); // SIGKILL on Unix
        p.waitFor(10, TimeUnit.SECONDS);
        killedMidway++;
      }
      byte[] now = Files.readAllBytes(filter);
      BloomFilter f;
      try (InputStream in = Files.newInputStream(filter)) {
        f = BloomFilter.readFrom(in); // never half a file: this must not throw
      }
      assertThat(f.mightContain("old-key")).isTrue();
      if (finished) {
        assertThat(p.exitValue()).as(Files.readString(dir.resolve("out.log"))).isZero();
        assertThat(f.mightContain("user:1499999")).isTrue();
        old = now;
      } else {
        // Killed: either the rename had not happened (old bytes) or it had (a complete new file).
        assertThat(java.util.Arrays.equals(now, old) || f.mightContain("user:1499999")).isTrue();
        if (!java.util.Arrays.equals(now, old)) {
          old = now;
        }
      }
      // Restore the starting point so each kill hits a rewrite.
      Files.write(filter, old);
    }
    assertThat(killedMidway).as("at least one process was killed before it finished").isPositive();
  }

  @Test
  void enormousLinesEmptyAndBinaryInputsAreHandled() throws IOException {
    String f = dir.resolve("f.bin").toString();
    Cli.run("filter", "create", f, "--expected", "100", "--fpp", "0.01");
    Path empty = dir.resolve("empty.txt");
    Files.write(empty, new byte[0]);
    assertThat(Cli.run("filter", "add", f, "--keys", empty.toString()).exit).isZero();

    Path binary = dir.resolve("binary.dat");
    byte[] b = new byte[4096];
    new java.util.SplittableRandom(0xb1a5edL).nextBytes(b);
    Files.write(binary, b);
    assertThat(Cli.run("filter", "add", f, "--keys", binary.toString()).exit).isZero();

    Path huge = dir.resolve("huge.txt");
    try (var out = Files.newOutputStream(huge)) {
      byte[] chunk = new byte[1 << 20];
      java.util.Arrays.fill(chunk, (byte) 'a');
      for (int i = 0; i < 65; i++) {
        out.write(chunk);
      }
    }
    Cli r = Cli.run("filter", "add", f, "--keys", huge.toString());
    assertThat(r.exit).isEqualTo(1);
    assertThat(r.err).isEqualTo("probkit: " + huge + ": line 1 is longer than 64 MiB\n");
  }

  @Test
  void structuresBeyondTheHeapFailFastSayingWhatTheyNeed() {
    Cli r = Cli.run("filter", "create", dir.resolve("x.bin").toString(), "--expected", "10000000000",
        "--fpp", "0.01");
    assertThat(r.exit).isEqualTo(2);
    assertThat(r.err).startsWith("probkit: a Bloom filter of 95850583774 bits needs 11.2 GiB, more than")
        .contains("maximum heap");
    Cli beyond = Cli.run("filter", "create", dir.resolve("x.bin").toString(), "--expected", "100000000000",
        "--fpp", "0.001");
    assertThat(beyond.err).isEqualTo("probkit: 100000000000 keys at fpp 0.001 need 1437758756606 bits"
        + " (167.4 GiB), more than the maximum of 137438952896 bits (16.0 GiB)\n");
  }
}
