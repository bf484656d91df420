package io.github.probkit.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every command that reads keys or a structure file, given inputs that are empty, binary, one
 * enormous line, unreadable (a directory, a dangling symbolic link, /proc/self/mem, which fails
 * with EIO even for root), a FIFO, or not a structure at all. Each either works or fails with one
 * line on stderr naming the input and exit code 1; none prints a stack trace, and a failed command
 * leaves the structure file as it was.
 */
class HostileInputTest {
  /** 65 MiB of 'a' and no newline: a line past LineReader.MAX_LINE. */
  private static Path enormous;

  /** The same gzipped, 64 KiB that decompress to 65 MiB. */
  private static Path enormousGz;

  private static Path binary;
  private static Path empty;
  private static Path dangling;
  private static Path directory;
  private static final Path PROC_MEM = Path.of("/proc/self/mem");
  private static final String HLL_EXPECTED =
      "expected a cardinality sketch, found a bloom structure";

  @TempDir static Path inputs;
  @TempDir Path dir;
  private Path bloom;
  private Path counting;
  private Path cms;
  private Path hll;

  @BeforeAll
  static void writeInputs() throws IOException {
    enormous = inputs.resolve("enormous.txt");
    enormousGz = inputs.resolve("enormous.txt.gz");
    try (OutputStream out = Files.newOutputStream(enormous);
        OutputStream gz = new GZIPOutputStream(Files.newOutputStream(enormousGz), 1 << 16)) {
      byte[] chunk = new byte[1 << 20];
      Arrays.fill(chunk, (byte) 'a');
      for (int i = 0; i < 65; i++) {
        out.write(chunk);
        gz.write(chunk);
      }
    }
    // Every byte value, NUL, tab, CR and invalid UTF-8 included, then random bytes.
    byte[] b = new byte[8192];
    for (int i = 0; i < 256; i++) {
      b[i] = (byte) i;
    }
    SplittableRandom r = new SplittableRandom(0xb1a5edL);
    for (int i = 256; i < b.length; i++) {
      b[i] = (byte) r.nextInt(256);
    }
    binary = Files.write(inputs.resolve("binary.dat"), b);
    empty = Files.write(inputs.resolve("empty.txt"), new byte[0]);
    dangling = Files.createSymbolicLink(inputs.resolve("dangling"), inputs.resolve("nowhere"));
    directory = Files.createDirectory(inputs.resolve("a-directory"));
  }

  @BeforeEach
  void writeStructures() {
    bloom = dir.resolve("f.bin");
    counting = dir.resolve("c.bin");
    cms = dir.resolve("s.cms");
    assertThat(
            Cli.run("filter", "create", bloom.toString(), "--expected", "1000", "--fpp", "0.01")
                .exit)
        .isZero();
    assertThat(
            Cli.run(
                    "filter",
                    "create",
                    counting.toString(),
                    "--type",
                    "counting",
                    "--expected",
                    "1000",
                    "--fpp",
                    "0.01")
                .exit)
        .isZero();
    assertThat(Cli.run("cms", "create", cms.toString(), "--width", "100", "--depth", "3").exit)
        .isZero();
    hll = dir.resolve("v.hll");
    assertThat(Cli.run("hll", "create", hll.toString(), "--precision", "10").exit).isZero();
  }

  /** A command that reads keys from a file, and the structure file it rewrites (or null). */
  private record Family(String name, Path rewrites, Function<String, String[]> args) {}

  private List<Family> families() {
    String f = bloom.toString();
    String c = counting.toString();
    String s = cms.toString();
    String h = hll.toString();
    String created = dir.resolve("new.bin").toString();
    return List.of(
        new Family("filter add", bloom, in -> new String[] {"filter", "add", f, "--keys", in}),
        new Family(
            "filter remove", counting, in -> new String[] {"filter", "remove", c, "--keys", in}),
        new Family("filter query", null, in -> new String[] {"filter", "query", f, "--keys", in}),
        new Family(
            "filter create",
            null,
            in ->
                new String[] {
                  "filter",
                  "create",
                  created,
                  "--expected",
                  "100",
                  "--fpp",
                  "0.01",
                  "--keys",
                  in,
                  "--force"
                }),
        new Family(
            "filter create binary-fuse8",
            null,
            in ->
                new String[] {
                  "filter", "create", created, "--type", "binary-fuse8", "--keys", in, "--force"
                }),
        new Family("cms add", cms, in -> new String[] {"cms", "add", s, "--items", in}),
        new Family(
            "cms add --counts",
            cms,
            in -> new String[] {"cms", "add", s, "--counts", "--items", in}),
        new Family("cms query", null, in -> new String[] {"cms", "query", s, "--items", in}),
        new Family("top", null, in -> new String[] {"top", in}),
        new Family("hll add", hll, in -> new String[] {"hll", "add", h, "--items", in}),
        new Family("distinct", null, in -> new String[] {"distinct", in}));
  }

  /** Runs the family on {@code input}: checks exit code 1 and the one-line error, and the file. */
  private static void failsNamingTheInput(Family family, Path input, String error)
      throws IOException {
    byte[] before = family.rewrites() == null ? null : Files.readAllBytes(family.rewrites());
    Cli r = Cli.run(family.args().apply(input.toString()));
    assertThat(r.exit).as("%s on %s: %s", family.name(), input, r).isEqualTo(Main.EXIT_RUNTIME);
    assertOneLine(r, "probkit: " + input + ": " + error);
    if (before != null) {
      assertThat(Files.readAllBytes(family.rewrites()))
          .as("%s left its file as it was", family.name())
          .isEqualTo(before);
    }
  }

  private static void assertOneLine(Cli r, String error) {
    assertThat(r.err).as(r.toString()).isEqualTo(error + "\n");
  }

  private static void works(Family family, Path input) {
    Cli r = Cli.run(family.args().apply(input.toString()));
    assertThat(r.exit).as("%s on %s: %s", family.name(), input, r).isZero();
    assertThat(r.err).as("%s on %s", family.name(), input).isEmpty();
  }

  @Test
  void emptyInputsWork() {
    for (Family f : families()) {
      works(f, empty);
    }
  }

  @Test
  void binaryInputsWorkOrFailOnOneLine() throws IOException {
    for (Family f : families()) {
      if (f.name().equals("cms add --counts")) {
        // Line 1 is bytes 0 to 9: the tab is its last byte, so the count is empty.
        byte[] before = Files.readAllBytes(cms);
        Cli r = Cli.run(f.args().apply(binary.toString()));
        assertThat(r.exit).isEqualTo(Main.EXIT_RUNTIME);
        assertOneLine(
            r,
            "probkit: --counts: item 1 has count '', must be an integer in [0, "
                + Long.MAX_VALUE
                + "]");
        assertThat(Files.readAllBytes(cms)).isEqualTo(before);
      } else {
        works(f, binary);
      }
    }
  }

  @Test
  void anEnormousLineIsRefused() throws IOException {
    for (Family f : families()) {
      failsNamingTheInput(f, enormous, "the line at byte 0 is longer than 64 MiB");
    }
    // Gzipped, from a file and from standard input.
    failsNamingTheInput(families().get(0), enormousGz, "the line at byte 0 is longer than 64 MiB");
    Cli r = Cli.runWithInput(Files.newInputStream(enormousGz), "filter", "add", bloom.toString());
    assertThat(r.exit).isEqualTo(Main.EXIT_RUNTIME);
    assertOneLine(r, "probkit: <stdin>: the line at byte 0 is longer than 64 MiB");
  }

  @Test
  void unreadableInputsAreNamed() throws IOException {
    for (Family f : families()) {
      failsNamingTheInput(f, directory, "is a directory");
      failsNamingTheInput(f, dangling, "no such file");
    }
  }

  @Test
  void aReadErrorAfterTheOpenIsNamed() throws IOException {
    // /proc/self/mem opens, but reading its first page fails with EIO: a disk error, for the test.
    try (InputStream in = Files.newInputStream(PROC_MEM)) {
      in.read();
      assumeTrue(false, "/proc/self/mem was readable here");
    } catch (IOException expected) {
      // the failure the commands must report
    }
    for (Family f : families()) {
      failsNamingTheInput(f, PROC_MEM, "Input/output error");
    }
    for (String[] args :
        new String[][] {
          {"filter", "info", PROC_MEM.toString()},
          {"cms", "info", PROC_MEM.toString()},
          {"hll", "info", PROC_MEM.toString()}
        }) {
      assertOneLine(Cli.run(args), "probkit: " + PROC_MEM + ": Input/output error");
    }
  }

  @Test
  void binaryAndEmptyStandardInputWork() {
    byte[] b = new byte[4096];
    new SplittableRandom(0x57d1L).nextBytes(b);
    for (String[] args :
        new String[][] {
          {"filter", "add", bloom.toString()},
          {"filter", "query", bloom.toString()},
          {"cms", "add", cms.toString()},
          {"cms", "query", cms.toString()},
          {"top"},
          {"hll", "add", hll.toString()},
          {"distinct"}
        }) {
      for (byte[] in : new byte[][] {b, new byte[0]}) {
        Cli r = Cli.runWithInput(new ByteArrayInputStream(in), args);
        assertThat(r.exit).as("%s: %s", String.join(" ", args), r).isZero();
        assertThat(r.err).isEmpty();
      }
    }
  }

  @Test
  void aFifoIsReadLikeAStream() throws Exception {
    Path fifo = inputs.resolve("keys.fifo");
    Process mk = new ProcessBuilder("mkfifo", fifo.toString()).start();
    assumeTrue(mk.waitFor(10, TimeUnit.SECONDS) && mk.exitValue() == 0, "mkfifo is not available");
    // Keys from a FIFO (as from a process substitution, <(zcat log.gz)).
    Cli r =
        throughFifo(
            fifo,
            "fifo-1\nfifo-2\r\nfifo-3".getBytes(StandardCharsets.UTF_8),
            "filter",
            "add",
            bloom.toString(),
            "--keys",
            fifo.toString());
    assertThat(r.exit).as(r.toString()).isZero();
    assertThat(Cli.run("filter", "query", bloom.toString(), "fifo-1", "fifo-2", "fifo-3").out)
        .isEqualTo("fifo-1\tpresent\nfifo-2\tpresent\nfifo-3\tpresent\n");
    // A structure file from a FIFO.
    Cli info =
        throughFifo(fifo, Files.readAllBytes(bloom), "filter", "info", fifo.toString(), "--json");
    assertThat(info.exit).as(info.toString()).isZero();
    assertThat(info.out).contains("\"approximateCount\": 3");
    Cli top =
        throughFifo(fifo, "x\ny\nx\n".getBytes(StandardCharsets.UTF_8), "top", fifo.toString());
    assertThat(top.out).isEqualTo("2\t2\tx\n1\t1\ty\n");
  }

  /**
   * Runs {@code args} while a thread writes {@code bytes} into the FIFO. Opening a FIFO blocks
   * until the other end is opened too; the timeout guard turns a command that never returns into a
   * failure instead of a hung build.
   */
  private static Cli throughFifo(Path fifo, byte[] bytes, String... args) throws Exception {
    Thread writer =
        new Thread(
            () -> {
              try (OutputStream out = Files.newOutputStream(fifo)) {
                out.write(bytes);
              } catch (IOException e) {
                // The command closed its end early; its result says why.
              }
            });
    writer.setDaemon(true);
    writer.start();
    try {
      return assertTimeoutPreemptively(Duration.ofSeconds(30), () -> Cli.run(args));
    } finally {
      writer.join(10_000);
      if (writer.isAlive()) {
        // The command never opened the FIFO: open its read end so the writer can finish.
        Files.newInputStream(fifo).close();
      }
    }
  }

  /**
   * The commands of {@code tool} that read a structure FILE: each of {@code subs} (with a key, but
   * info and count), then a merge of FILE with itself into {@code mergeOut}.
   */
  private List<Function<String, String[]>> readers(String tool, String mergeOut, String... subs) {
    List<Function<String, String[]>> readers = new ArrayList<>();
    for (String sub : subs) {
      boolean keyless = sub.equals("info") || sub.equals("count");
      readers.add(
          file -> keyless ? new String[] {tool, sub, file} : new String[] {tool, sub, file, "k"});
    }
    readers.add(file -> new String[] {tool, "merge", dir.resolve(mergeOut).toString(), file, file});
    return readers;
  }

  @Test
  void structureFilesThatAreNotStructuresAreNamed() throws IOException {
    Path truncated = dir.resolve("truncated.bin");
    byte[] whole = Files.readAllBytes(bloom);
    Files.write(truncated, Arrays.copyOf(whole, whole.length / 2));
    Path text = Files.writeString(dir.resolve("notes.txt"), "hello\n");
    // Each command that reads a structure file, given FILE.
    List<Function<String, String[]>> readers = new ArrayList<>();
    readers.addAll(readers("filter", "out.bin", "add", "query", "info", "remove"));
    readers.addAll(readers("cms", "out.cms", "add", "query", "info"));
    readers.addAll(readers("hll", "out.hll", "add", "count", "info"));
    String[][] cases = {
      {empty.toString(), "empty input: not a probkit file"},
      {text.toString(), "not a probkit file (bad magic 0x68656c6c)"},
      {binary.toString(), "not a probkit file (bad magic 0x00010203)"},
      {
        truncated.toString(),
        "truncated bloom payload: input ended "
            + (whole.length - whole.length / 2 - 4)
            + " bytes early"
      },
      {directory.toString(), "is a directory"},
      {dangling.toString(), "no such file"},
    };
    for (Function<String, String[]> command : readers) {
      for (String[] c : cases) {
        String[] args = command.apply(c[0]);
        String error =
            !c[0].equals(truncated.toString()) || args[0].equals("filter")
                ? c[1]
                : args[0].equals("cms")
                    ? "expected a count-min structure, found a bloom structure"
                    : HLL_EXPECTED;
        Path p = Path.of(c[0]);
        byte[] before = Files.isRegularFile(p) ? Files.readAllBytes(p) : null;
        Cli r = Cli.run(args);
        assertThat(r.exit).as("%s: %s", String.join(" ", args), r).isEqualTo(Main.EXIT_RUNTIME);
        assertOneLine(r, "probkit: " + c[0] + ": " + error);
        if (before != null) {
          assertThat(Files.readAllBytes(p)).isEqualTo(before);
        }
      }
    }
    // A count-min sketch where a filter is expected, and the other way round.
    assertOneLine(
        Cli.run("filter", "add", cms.toString(), "k"),
        "probkit: " + cms + ": expected a filter, found a count-min structure");
    assertOneLine(
        Cli.run("cms", "add", bloom.toString(), "k"),
        "probkit: " + bloom + ": expected a count-min structure, found a bloom structure");
  }

  @Test
  void readingAFileThatIsNotProbkitsLeavesNothingBeside() throws IOException {
    // Only an add in place can explain a failed read (RacingReads), and no add writes a text
    // file in place: a reader must not take (and so create) the file's lock to read it again.
    Path alone = Files.createDirectory(dir.resolve("alone"));
    Path words = alone.resolve("words.txt");
    Files.writeString(words, "hello\nworld\n");
    String w = words.toString();
    String[][] reads = {
      {"filter", "query", w, "hello"},
      {"filter", "info", w},
      {"cms", "query", w, "hello"},
      {"hll", "count", w},
    };
    for (String[] args : reads) {
      Cli r = Cli.run(args);
      assertThat(r.exit).as("%s: %s", String.join(" ", args), r).isEqualTo(Main.EXIT_RUNTIME);
      try (var listed = Files.list(alone)) {
        assertThat(listed.map(p -> p.getFileName().toString()))
            .as(String.join(" ", args))
            .containsExactly("words.txt");
      }
    }
  }

  @Test
  void unwritableOutputsAreNamed() {
    String[] create = {"filter", "create", "OUT", "--expected", "10", "--fpp", "0.1"};
    String[][] cases = {
      {directory.toString(), directory + ": is a directory"},
      {
        dir.resolve("missing/x.bin").toString(),
        dir.resolve("missing/x.bin") + ": directory does not exist"
      },
      // /proc exists but nothing can be created in it.
      {"/proc/x.bin", "/proc/x.bin: cannot write: /proc/.x.bin."},
    };
    for (String[] c : cases) {
      String[] args = create.clone();
      args[2] = c[0];
      Cli r = Cli.run(args);
      assertThat(r.exit).as(r.toString()).isEqualTo(Main.EXIT_RUNTIME);
      assertThat(r.err).startsWith("probkit: " + c[1]).hasLineCount(1).doesNotContain("\tat ");
    }
  }
}
