package io.github.probkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every structure file the command line reads, with bytes flipped at random offsets (header,
 * middle, trailer), truncated or with bytes appended, through every command that reads it: each run
 * is one line naming the file, exit 1, and the file left as it was — never an answer. The one
 * exception is by design: a query of a mapped filter of 1 MiB and more (format version 2) checks
 * only the 64 KiB chunks it reads, so a one-key query may answer, from checked chunks, when the
 * flip lies in a chunk it does not read; that answer must then be the true one (the key was added).
 */
class CorruptFilesCliTest {
  @TempDir static Path dir;

  private static List<String> keys;
  private static Path keyFile;

  /** A structure built from the keys, and the commands that read it ({@code F}: its file). */
  private static final class Structure {
    final String name;
    final boolean chunkedAndMapped;
    final List<String[]> commands;
    byte[] bytes;

    Structure(String name, boolean chunkedAndMapped, List<String[]> commands) {
      this.name = name;
      this.chunkedAndMapped = chunkedAndMapped;
      this.commands = commands;
    }

    @Override
    public String toString() {
      return name;
    }
  }

  private static final List<Structure> STRUCTURES = new ArrayList<>();

  private static String[] cmd(String... args) {
    return args;
  }

  @BeforeAll
  static void build() throws IOException {
    Path words = Path.of("/usr/share/dict/words");
    keys =
        Files.isReadable(words)
            ? Files.readAllLines(words, StandardCharsets.UTF_8).stream()
                .filter(w -> !w.isEmpty())
                .distinct()
                .limit(3000)
                .collect(Collectors.toList())
            : java.util.stream.IntStream.range(0, 3000)
                .mapToObj(i -> "user" + i + "@example.com")
                .collect(Collectors.toList());
    keyFile = dir.resolve("keys.txt");
    Files.write(keyFile, keys, StandardCharsets.UTF_8);
    String k = keyFile.toString();
    String key = keys.get(17);
    List<String[]> filterReads =
        List.of(
            cmd("filter", "query", "F", key),
            cmd("filter", "query", "F", "--keys", k),
            cmd("filter", "info", "F"),
            cmd("filter", "add", "F", "new-key"));
    for (String type :
        new String[] {
          "bloom", "blocked", "counting", "cuckoo", "scalable", "binary-fuse8", "binary-fuse16"
        }) {
      List<String[]> reads = new ArrayList<>(filterReads);
      if (type.startsWith("binary")) {
        reads.remove(3); // add: a static filter
      }
      if (type.equals("counting") || type.equals("cuckoo")) {
        reads.add(cmd("filter", "remove", "F", key));
      }
      if (!type.equals("scalable") && !type.startsWith("binary")) {
        reads.add(cmd("filter", "merge", "--replace", "OUT", "F"));
      }
      String[] create =
          type.startsWith("binary")
              ? cmd("filter", "create", "F", "--type", type, "--keys", k)
              : cmd("filter", "create", "F", "--type", type, "--expected", "3000", "--keys", k);
      add(type, false, create, reads);
    }
    // Over 1 MiB: written with a checksum per chunk, and mapped by query and info.
    add(
        "bloom-1MiB",
        true,
        cmd("filter", "create", "F", "--expected", "1000000", "--keys", k),
        filterReads);
    add(
        "blocked-1MiB",
        true,
        cmd("filter", "create", "F", "--type", "blocked", "--expected", "1000000", "--keys", k),
        filterReads);
    List<String[]> cmsReads =
        List.of(
            cmd("cms", "query", "F", key),
            cmd("cms", "info", "F"),
            cmd("cms", "merge", "--replace", "OUT", "F"),
            cmd("cms", "add", "F", "new-key"));
    add(
        "count-min",
        false,
        cmd("cms", "create", "F", "--width", "2000", "--depth", "4", "--items", k),
        cmsReads);
    add(
        "count-min-1MiB",
        false,
        cmd("cms", "create", "F", "--width", "40000", "--depth", "4", "--items", k),
        cmsReads);
    for (String type : new String[] {"hyperloglog", "ultraloglog"}) {
      add(
          type,
          false,
          cmd("hll", "create", "F", "--type", type, "--items", k),
          List.of(
              cmd("hll", "count", "F"),
              cmd("hll", "info", "F"),
              cmd("hll", "merge", "--replace", "OUT", "F"),
              cmd("hll", "add", "F", "new-key")));
    }
  }

  private static void add(String name, boolean chunked, String[] create, List<String[]> reads)
      throws IOException {
    Path file = dir.resolve(name + ".bin");
    Cli c = Cli.run(with(create, file));
    assertThat(c.exit).as("%s", c).isZero();
    Structure s = new Structure(name, chunked, reads);
    s.bytes = Files.readAllBytes(file);
    Files.delete(file);
    STRUCTURES.add(s);
  }

  private static String[] with(String[] command, Path file) {
    return Arrays.stream(command)
        .map(
            a ->
                a.equals("F")
                    ? file.toString()
                    : a.equals("OUT") ? dir.resolve("out.bin").toString() : a)
        .toArray(String[]::new);
  }

  static Stream<String> structures() {
    return Stream.of(
        "bloom",
        "blocked",
        "counting",
        "cuckoo",
        "scalable",
        "binary-fuse8",
        "binary-fuse16",
        "bloom-1MiB",
        "blocked-1MiB",
        "count-min",
        "count-min-1MiB",
        "hyperloglog",
        "ultraloglog");
  }

  /** A damaged copy of the file: a description, and its bytes. */
  private static final class Damage {
    final String what;
    final byte[] bytes;
    final boolean payloadFlip;
    final int at; // the flipped byte, or -1

    Damage(String what, byte[] bytes, boolean payloadFlip, int at) {
      this.what = what;
      this.bytes = bytes;
      this.payloadFlip = payloadFlip;
      this.at = at;
    }
  }

  private static List<Damage> damages(byte[] good, long seed) {
    Random random = new Random(seed);
    List<Damage> out = new ArrayList<>();
    int payloadStart = 28 + (good[16] & 0xFF) + ((good[17] & 0xFF) << 8);
    for (int i = 0; i < 36; i++) {
      int at =
          i < 8
              ? random.nextInt(Math.min(good.length, 64)) // the header and parameters
              : i < 16
                  ? good.length - 1 - random.nextInt(Math.min(good.length, 64)) // the trailer
                  : random.nextInt(good.length); // anywhere, mostly the middle
      byte[] b = good.clone();
      b[at] ^= (byte) (1 + random.nextInt(255)); // never unchanged
      out.add(new Damage("byte " + at + " flipped", b, at >= payloadStart, at));
    }
    for (int cut : new int[] {0, 1, 27, good.length / 2, good.length - 5, good.length - 1}) {
      out.add(new Damage("truncated to " + cut, Arrays.copyOf(good, cut), false, -1));
    }
    for (int more : new int[] {1, 4, 100}) {
      byte[] b = Arrays.copyOf(good, good.length + more);
      for (int i = good.length; i < b.length; i++) {
        b[i] = (byte) random.nextInt(256);
      }
      out.add(new Damage(more + " bytes appended", b, false, -1));
    }
    return out;
  }

  @ParameterizedTest
  @MethodSource("structures")
  void aDamagedFileIsAnErrorThroughEveryCommandThatReadsIt(String name) throws IOException {
    Structure s = STRUCTURES.stream().filter(x -> x.name.equals(name)).findFirst().orElseThrow();
    Path file = dir.resolve("damaged-" + name + ".bin");
    String key = keys.get(17);
    for (String[] command : s.commands) {
      Files.write(file, s.bytes);
      Files.deleteIfExists(dir.resolve("out.bin"));
      Cli c = Cli.run(with(command, file));
      assertThat(c.exit).as("the intact file: %s\n%s", String.join(" ", command), c).isZero();
    }
    for (Damage d : damages(s.bytes, 0xDA3A6E00L + name.hashCode())) {
      for (String[] command : s.commands) {
        Files.write(file, d.bytes);
        Files.deleteIfExists(dir.resolve("out.bin"));
        Cli c = Cli.run(with(command, file));
        String what = name + ", " + d.what + ": " + String.join(" ", command) + "\n" + c;
        boolean oneKey = command[1].equals("query") && command.length == 4;
        if (c.exit == 0 && s.chunkedAndMapped && d.payloadFlip && command[1].equals("add")) {
          // An add in place (RedoLog) verifies the header, the chunk sums and the chunks it
          // changes, not the whole payload: a flip in another chunk stays, and is still reported.
          byte[] after = Files.readAllBytes(file);
          assertThat(after[d.at]).as("the damage left alone: %s", what).isEqualTo(d.bytes[d.at]);
          Cli info = Cli.run(with(cmd("filter", "info", "F"), file));
          assertThat(info.exit).as("the damage still reported: %s\n%s", what, info).isEqualTo(1);
          continue;
        }
        assertThat(Files.readAllBytes(file)).as("left as it was: %s", what).isEqualTo(d.bytes);
        if (c.exit == 0 && s.chunkedAndMapped && d.payloadFlip && oneKey) {
          assertThat(c.out).as(what).isEqualTo(key + "\tpresent\n");
          continue;
        }
        assertThat(c.exit).as(what).isEqualTo(1);
        assertThat(c.err.lines()).as(what).hasSize(1);
        assertThat(c.err).as(what).startsWith("probkit: ").contains(file.toString());
        assertThat(c.err).as(what).doesNotContain("Exception", "\tat ", "Error");
        if (command[1].equals("query") && command[0].equals("filter")) {
          // Answers printed before the error (from checked chunks) are true ones.
          assertThat(c.out.lines()).as(what).allMatch(l -> l.endsWith("\tpresent"));
        } else {
          assertThat(c.out).as(what).isEmpty();
        }
      }
    }
  }

  /**
   * A mapped filter truncated in place while {@code filter query} reads keys from a pipe: one line
   * naming the file, exit 1 — not the JVM's InternalError for the SIGBUS.
   */
  @org.junit.jupiter.api.Test
  void aFilterTruncatedWhileAQueryReadsIsAnError() throws IOException {
    Structure s = STRUCTURES.stream().filter(x -> x.name.equals("bloom")).findFirst().orElseThrow();
    Path file = dir.resolve("truncated.bin");
    Files.write(file, s.bytes);
    byte[] lines = (String.join("\n", keys) + "\n").repeat(20).getBytes(StandardCharsets.UTF_8);
    java.io.InputStream slowly =
        new BulkInputStream() {
          int at;

          @Override
          public int read(byte[] b, int off, int len) {
            if (at >= lines.length) {
              return -1;
            }
            if (at >= lines.length / 2 && at - len < lines.length / 2) {
              try (java.nio.channels.FileChannel ch =
                  java.nio.channels.FileChannel.open(
                      file, java.nio.file.StandardOpenOption.WRITE)) {
                ch.truncate(0);
              } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            }
            int n = Math.min(Math.min(len, 512), lines.length - at);
            System.arraycopy(lines, at, b, off, n);
            at += n;
            return n;
          }
        };
    Cli c = Cli.runWithInput(slowly, "filter", "query", file.toString());
    assertThat(c.exit).as("%s", c).isEqualTo(1);
    assertThat(c.err.lines()).as("%s", c).hasSize(1);
    assertThat(c.err).as("%s", c).startsWith("probkit: " + file + ": truncated while mapped");
  }
}
