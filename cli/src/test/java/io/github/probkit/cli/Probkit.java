package io.github.probkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/** Starts probkit as a separate process (the JVM of the test, its classpath), as a shell would. */
final class Probkit {
  private Probkit() {}

  /**
   * Polls every {@code pollMillis} until {@code p} creates {@code marker}, the sign of a test hook
   * that it reached the point to stop at; fails with {@code ended}'s text when the process ends
   * first, or as {@code late} once {@code limit} has passed.
   */
  static void awaitMarker(
      Process p, Path marker, Duration limit, long pollMillis, Callable<String> ended, String late)
      throws Exception {
    long deadline = System.nanoTime() + limit.toNanos();
    while (!Files.exists(marker)) {
      if (!p.isAlive()) {
        throw new AssertionError(ended.call());
      }
      assertThat(System.nanoTime()).as(late).isLessThan(deadline);
      Thread.sleep(pollMillis);
    }
  }

  /** A finished run: exit code, and standard output and error as bytes. */
  record Result(int exit, byte[] stdout, byte[] stderr) {
    String out() {
      return new String(stdout, java.nio.charset.StandardCharsets.UTF_8);
    }

    String err() {
      return new String(stderr, java.nio.charset.StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
      return "exit " + exit + "\n--- out\n" + out() + "--- err\n" + err();
    }
  }

  static String java() {
    return java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  /** The command line that runs {@code probkit args} with {@code jvmOptions}. */
  static List<String> command(List<String> jvmOptions, String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(java());
    // Small, quick JVMs: many run at once on few cores.
    cmd.addAll(List.of("-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
    cmd.addAll(jvmOptions);
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName()));
    cmd.addAll(List.of(args));
    return cmd;
  }

  /**
   * A builder for {@code probkit args}: standard input from /dev/null (a command without keys would
   * otherwise read the pipe Java gives it), and SIGINT, SIGTERM and SIGHUP at their defaults, as in
   * a terminal, even where the build runs with them ignored (a background job ignores SIGINT, and
   * its children inherit that).
   */
  static ProcessBuilder builder(List<String> jvmOptions, String... args) {
    List<String> cmd = new ArrayList<>(List.of("env", "--default-signal=INT,TERM,HUP"));
    cmd.addAll(command(jvmOptions, args));
    return new ProcessBuilder(cmd)
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
  }

  /** Runs {@code probkit args} to its end; the result has its exit code, stdout and stderr. */
  static Result run(String... args) throws IOException, InterruptedException {
    return finish(builder(List.of(), args).start());
  }

  /** Waits (at most two minutes) for {@code p} and collects its output. */
  static Result finish(Process p) throws IOException, InterruptedException {
    // Both streams read while it runs, so that a full pipe cannot stall it; neither read waits
    // here, so that a process that never ends (a writer waiting for a lock forever) fails the test
    // after two minutes instead of holding the build.
    byte[][] got = new byte[2][];
    Thread out = drain(p.getInputStream(), got, 0);
    Thread err = drain(p.getErrorStream(), got, 1);
    if (!p.waitFor(2, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new AssertionError(
          "still running after 2 minutes: " + p.info().commandLine().orElse("?"));
    }
    out.join();
    err.join();
    return new Result(p.exitValue(), got[0], got[1]);
  }

  private static Thread drain(java.io.InputStream in, byte[][] into, int i) {
    Thread t =
        new Thread(
            () -> {
              try {
                into[i] = in.readAllBytes();
              } catch (IOException e) {
                into[i] = new byte[0];
              }
            });
    t.start();
    return t;
  }
}
