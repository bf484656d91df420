package io.github.probkit.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.probkit.cardinality.HyperLogLog;
import io.github.probkit.cli.location.SketchFiles;
import io.github.probkit.cli.output.Stdout;
import io.github.probkit.filter.BloomFilter;
import io.github.probkit.filter.CuckooFilter;
import io.github.probkit.frequency.CountMinSketch;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.CRC32;
import org.apache.commons.math3.distribution.BinomialDistribution;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Structure files shared by real probkit processes, as a shell uses them: writers running at once,
 * a writer stopped by a signal while it writes, output to a full device or a closed pipe.
 */
class SharedFilesTest {
  private static final int WRITERS = 8;
  private static final int KEYS_EACH = 25_000;

  @TempDir static Path shared;
  @TempDir Path dir;

  /** A Bloom filter of 100.6 MB (805 M bits), and the CRC of its bytes. */
  private static Path big;

  private static long bigCrc;

  @BeforeAll
  static void createTheBigFilter() throws Exception {
    big = shared.resolve("big.bin");
    Probkit.Result r =
        Probkit.run("filter", "create", big.toString(), "--expected", "84M", "--fpp", "0.01");
    assertThat(r.exit()).as(r.toString()).isZero();
    assertThat(Files.size(big)).isGreaterThan(100_000_000L);
    bigCrc = crc(big);
  }

  private static long crc(Path p) throws IOException {
    CRC32 c = new CRC32();
    byte[] buf = new byte[1 << 20];
    try (InputStream in = Files.newInputStream(p)) {
      for (int n; (n = in.read(buf)) > 0; ) {
        c.update(buf, 0, n);
      }
    }
    return c.getValue();
  }

  private static String key(int writer, int i) {
    return "w" + writer + ":" + i;
  }

  private List<Path> keyFiles() throws IOException {
    List<Path> files = new ArrayList<>();
    for (int w = 0; w < WRITERS; w++) {
      Path p = dir.resolve("keys" + w + ".txt");
      try (BufferedWriter out = Files.newBufferedWriter(p)) {
        for (int i = 0; i < KEYS_EACH; i++) {
          out.write(key(w, i));
          out.write('\n');
        }
      }
      files.add(p);
    }
    return files;
  }

  /** Starts one writer per key file, all at once, and checks that each succeeds. */
  private static void writeAtOnce(List<Path> keyFiles, String... argsBeforeFile) throws Exception {
    List<Process> running = new ArrayList<>();
    for (Path k : keyFiles) {
      String[] args = java.util.Arrays.copyOf(argsBeforeFile, argsBeforeFile.length + 1);
      args[args.length - 1] = k.toString();
      running.add(Probkit.builder(List.of(), args).start());
    }
    for (Process p : running) {
      Probkit.Result r = Probkit.finish(p);
      assertThat(r.exit()).as(String.join(" ", argsBeforeFile) + ": " + r).isZero();
      // A writer that waited more than a second says so, once.
      assertThat(r.err())
          .matches("(probkit: waiting for process [0-9]+, which is writing \\S+\n)?");
    }
  }

  /**
   * 8 processes add 25,000 distinct keys each to one Bloom filter, cuckoo filter, HyperLogLog and
   * count-min sketch at once: every key is in the filters, and the Bloom filter, the HyperLogLog's
   * registers and the count-min sketch are exactly those of the 200,000 keys added in one go.
   */
  @Test
  void eightWritersAtOnceLoseNothing() throws Exception {
    List<Path> keyFiles = keyFiles();
    int n = WRITERS * KEYS_EACH;
    String bloom = dir.resolve("b.bin").toString();
    String cuckoo = dir.resolve("c.bin").toString();
    String hll = dir.resolve("h.hll").toString();
    String cms = dir.resolve("s.cms").toString();
    assertThat(Cli.run("filter", "create", bloom, "--expected", "" + n, "--fpp", "0.01").exit)
        .isZero();
    assertThat(
            Cli.run(
                    "filter",
                    "create",
                    cuckoo,
                    "--type",
                    "cuckoo",
                    "--expected",
                    "" + n,
                    "--fpp",
                    "0.01")
                .exit)
        .isZero();
    assertThat(Cli.run("hll", "create", hll).exit).isZero();
    assertThat(Cli.run("cms", "create", cms, "--width", "2719", "--depth", "5").exit).isZero();

    writeAtOnce(keyFiles, "filter", "add", bloom, "--keys");
    writeAtOnce(keyFiles, "filter", "add", cuckoo, "--keys");
    writeAtOnce(keyFiles, "hll", "add", hll, "--items");
    writeAtOnce(keyFiles, "cms", "add", cms, "--items");

    BloomFilter expectedBloom = BloomFilter.create(n, 0.01);
    HyperLogLog expectedHll = HyperLogLog.create(14);
    CountMinSketch expectedCms = CountMinSketch.withDimensions(2719, 5);
    BloomFilter b = SketchFiles.read(Path.of(bloom), BloomFilter::readFrom);
    CuckooFilter c = SketchFiles.read(Path.of(cuckoo), CuckooFilter::readFrom);
    int bloomAbsent = 0;
    int cuckooAbsent = 0;
    for (int w = 0; w < WRITERS; w++) {
      for (int i = 0; i < KEYS_EACH; i++) {
        String k = key(w, i);
        bloomAbsent += b.mightContain(k) ? 0 : 1;
        cuckooAbsent += c.mightContain(k) ? 0 : 1;
        expectedBloom.add(k);
        expectedHll.add(k);
        expectedCms.add(k);
      }
    }
    assertThat(bloomAbsent).as("keys the Bloom filter lost").isZero();
    assertThat(cuckooAbsent).as("keys the cuckoo filter lost").isZero();
    assertThat(bytes(b)).as("the Bloom filter of all keys").isEqualTo(bytes(expectedBloom));
    // Keys are added only when absent: the few that were false positives when they came are not
    // stored.
    long fpBound =
        new BinomialDistribution(null, n, CuckooFilter.falsePositiveRate(c.fingerprintBits(), 1.0))
            .inverseCumulativeProbability(0.999);
    assertThat(c.size()).isBetween(n - fpBound, (long) n);

    HyperLogLog h = SketchFiles.read(Path.of(hll), HyperLogLog::readFrom);
    assertThat(h.registers())
        .as("the HyperLogLog registers of all keys")
        .isEqualTo(expectedHll.registers());
    assertThat(h.estimate()).isEqualTo(expectedHll.estimate());

    CountMinSketch s = SketchFiles.read(Path.of(cms), CountMinSketch::readFrom);
    assertThat(s.totalCount()).isEqualTo(n);
    assertThat(bytes(s::writeTo))
        .as("the count-min sketch of all keys")
        .isEqualTo(bytes(expectedCms::writeTo));

    assertThat(temporaries(dir)).isEmpty();
  }

  private static byte[] bytes(BloomFilter f) throws IOException {
    return bytes(f::writeTo);
  }

  private static byte[] bytes(SketchFiles.Content w) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    w.write(out);
    return out.toByteArray();
  }

  private static List<Path> temporaries(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(p -> p.getFileName().toString().endsWith(".tmp")).toList();
    }
  }

  /**
   * Starts {@code filter add FILE KEY} that pauses once its first MiB is written; returns when it
   * has.
   */
  private static Process pausedWriter(Path file, String key, Path marker) throws Exception {
    // From a keys file: a key given as an argument would be written in place (RedoLogCrashTest),
    // and this is the test of the whole rewrite.
    Path keys = marker.resolveSibling(marker.getFileName() + ".keys");
    Files.writeString(keys, key + "\n");
    Process p =
        Probkit.builder(
                List.of("-Dprobkit.test.pauseWrite=" + marker),
                "filter",
                "add",
                file.toString(),
                "--keys",
                keys.toString())
            .redirectErrorStream(true)
            .start();
    Probkit.awaitMarker(
        p,
        marker,
        Duration.ofMinutes(2),
        5,
        () ->
            "the writer ended before it paused: "
                + new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8),
        "paused within 2 minutes");
    return p;
  }

  private static void signal(Process p, String signal) throws Exception {
    assertThat(new ProcessBuilder("kill", "-s", signal, Long.toString(p.pid())).start().waitFor())
        .isZero();
  }

  /**
   * SIGINT, SIGTERM or SIGHUP while a writer is in the middle of writing a 100 MB filter: it exits
   * with 128 + the signal, its temporary file is gone and the filter is as it was. The writer is
   * paused at a known point of its write (a test hook), so that the signal cannot come too early or
   * too late: the partly written temporary file is checked before the signal.
   */
  @ParameterizedTest
  @CsvSource({"INT, 130", "TERM, 143", "HUP, 129"})
  void aSignalDuringTheWriteLeavesNoTemporaryAndTheFileAsItWas(String signal, int exit)
      throws Exception {
    Path marker = dir.resolve("paused");
    Process p = pausedWriter(big, "new-key", marker);
    List<Path> tmp = temporaries(shared);
    assertThat(tmp).hasSize(1);
    assertThat(Files.size(tmp.get(0)))
        .as("written in part")
        .isBetween(1L << 20, Files.size(big) - 1);
    signal(p, signal);
    assertThat(p.waitFor(1, TimeUnit.MINUTES)).isTrue();
    assertThat(p.exitValue())
        .as(new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
        .isEqualTo(exit);
    assertThat(temporaries(shared)).isEmpty();
    assertThat(crc(big)).as("the filter as it was").isEqualTo(bigCrc);
  }

  /**
   * After a SIGKILL, which nothing can catch, the next write into the directory, of any file,
   * removes the temporary.
   */
  @Test
  void theNextWriteRemovesWhatASigkillLeft() throws Exception {
    Process p = pausedWriter(big, "new-key", dir.resolve("paused"));
    p.destroyForcibly().waitFor();
    assertThat(temporaries(shared)).hasSize(1);
    Cli r = Cli.run("hll", "create", shared.resolve("other.hll").toString());
    assertThat(r.exit).as(r.toString()).isZero();
    assertThat(temporaries(shared)).isEmpty();
    assertThat(crc(big)).isEqualTo(bigCrc);
  }

  /**
   * While a writer holds a file, {@code --no-wait} fails at once naming it; another writer waits,
   * says once whom for, and goes on when the holder ends.
   */
  @Test
  void aWriterWaitsSayingForWhomOrFailsAtOnceWithNoWait() throws Exception {
    Path f = dir.resolve("f.bin");
    assertThat(Cli.run("filter", "create", f.toString(), "--expected", "2M", "--fpp", "0.01").exit)
        .isZero();
    Process holder = pausedWriter(f, "held", dir.resolve("paused"));

    Probkit.Result noWait = Probkit.run("filter", "add", f.toString(), "--no-wait", "refused");
    assertThat(noWait.exit()).isEqualTo(Main.EXIT_RUNTIME);
    assertThat(noWait.err())
        .isEqualTo("probkit: " + f + ": process " + holder.pid() + " is writing it (--no-wait)\n");

    Process waiter = Probkit.builder(List.of(), "filter", "add", f.toString(), "waited").start();
    BufferedReader err =
        new BufferedReader(new InputStreamReader(waiter.getErrorStream(), StandardCharsets.UTF_8));
    assertThat(err.readLine())
        .isEqualTo("probkit: waiting for process " + holder.pid() + ", which is writing " + f);
    assertThat(waiter.isAlive()).isTrue();
    signal(holder, "TERM");
    assertThat(holder.waitFor(1, TimeUnit.MINUTES)).isTrue();
    assertThat(waiter.waitFor(1, TimeUnit.MINUTES)).isTrue();
    assertThat(waiter.exitValue()).isZero();
    assertThat(err.readLine()).as("said once").isNull();
    assertThat(Cli.run("filter", "query", f.toString(), "held", "refused", "waited").out)
        .isEqualTo("held\tabsent\nrefused\tabsent\nwaited\tpresent\n");
  }

  /** Output to a full device is an error of one line and exit code 1, whatever prints it. */
  @Test
  void aFullDeviceIsAnErrorOfOneLine() throws Exception {
    File full = new File("/dev/full");
    assumeTrue(full.exists(), "/dev/full exists (Linux)");
    Path f = dir.resolve("f.bin");
    assertThat(Cli.run("filter", "create", f.toString(), "--expected", "100", "--fpp", "0.01").exit)
        .isZero();
    Path lines = Files.writeString(dir.resolve("lines.txt"), "a\nb\na\n");
    String[][] commands = {
      {"filter", "query", f.toString(), "k1", "k2"},
      {"filter", "info", f.toString()},
      {"top", lines.toString()},
      {"distinct", lines.toString()},
      {"--help"},
      {"filter", "add", "--help"},
    };
    for (String[] c : commands) {
      Process p = Probkit.builder(List.of(), c).redirectOutput(full).start();
      Probkit.Result r = Probkit.finish(p);
      assertThat(r.exit()).as(String.join(" ", c) + ": " + r).isEqualTo(Main.EXIT_RUNTIME);
      assertThat(r.err())
          .as(String.join(" ", c))
          .isEqualTo("probkit: cannot write to standard output: No space left on device\n");
    }
  }

  /**
   * A query whose reader goes away after one line ends at once, quietly, with exit code 141: its
   * input never ends, so that only the closed pipe can end it.
   */
  @Test
  void aClosedPipeEndsTheWorkAtOnceAndQuietly() throws Exception {
    Path f = dir.resolve("f.bin");
    assertThat(Cli.run("filter", "create", f.toString(), "--expected", "100", "--fpp", "0.01").exit)
        .isZero();
    Process p =
        Probkit.builder(List.of(), "filter", "query", f.toString())
            .redirectInput(ProcessBuilder.Redirect.PIPE)
            .start();
    Thread feeder =
        new Thread(
            () -> {
              byte[] block = "some-key\n".repeat(10_000).getBytes(StandardCharsets.US_ASCII);
              try (OutputStream in = p.getOutputStream()) {
                while (true) {
                  in.write(block);
                }
              } catch (IOException e) {
                // the process ended: its standard input is closed
              }
            });
    feeder.setDaemon(true);
    feeder.start();
    BufferedReader out =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    assertThat(out.readLine()).isEqualTo("some-key\tabsent");
    out.close();
    assertThat(p.waitFor(2, TimeUnit.MINUTES)).as("ended by the closed pipe").isTrue();
    assertThat(p.exitValue()).isEqualTo(Stdout.EXIT_BROKEN_PIPE);
    assertThat(new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8)).isEmpty();
  }

  /**
   * {@code probkit filter query big.bin --keys 100MB.txt | head -1} takes a fraction of the work of
   * the whole query: the work stops when head exits. A ratio of the CPU time of two runs on one
   * machine (wall time would measure the load of the machine as much: at a load average of 19, a
   * JVM took a second to start), with a margin of 2.5 over what was measured (0.18 to 0.2: 0.4 of
   * 2.1 to 2.2 CPU seconds); without the stop the ratio is about 1.
   */
  @Test
  void headOfAQueryTakesAFractionOfTheWholeQuery() throws Exception {
    // The 100 MB filter: a cache miss per key makes the whole query long beside the JVM's start.
    Path f = big;
    Path keys = dir.resolve("keys.txt");
    try (BufferedWriter w = Files.newBufferedWriter(keys)) {
      for (int i = 0; i < 8_000_000; i++) {
        w.write("user:");
        w.write(Integer.toString(i));
        w.write('\n');
      }
    }
    String query =
        String.join(
            " ",
            Probkit.command(List.of(), "filter", "query", f.toString(), "--keys", keys.toString()));
    double whole = cpuSeconds(query + " > /dev/null");
    double head = cpuSeconds(query + " | head -1 > /dev/null");
    assertThat(head / whole).as("CPU seconds: head %.2f, whole %.2f", head, whole).isLessThan(0.5);
  }

  /** The user + system CPU seconds of a shell command and its children, as bash's time says. */
  private static double cpuSeconds(String shell) throws Exception {
    Process p =
        new ProcessBuilder("bash", "-c", "TIMEFORMAT='%3U %3S'; time { " + shell + "; }")
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    String[] times =
        new String(p.getErrorStream().readAllBytes(), StandardCharsets.US_ASCII).strip().split(" ");
    assertThat(p.waitFor(2, TimeUnit.MINUTES)).isTrue();
    return Double.parseDouble(times[times.length - 2])
        + Double.parseDouble(times[times.length - 1]);
  }
}
