package io.github.probkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.cli.location.SketchFiles;
import io.github.probkit.filter.Filters;
import io.github.probkit.filter.MembershipFilter;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Writes through a symbolic link reach the real file; a file of several hard links, and a read-only
 * file, are refused with one line and left as they were. Writers run as separate processes at once,
 * as two shells would.
 */
class LinkedTargetsTest {
  private static final int KEYS_EACH = 20_000;

  @TempDir Path dir;

  private Path keys(String name) throws IOException {
    Path p = dir.resolve(name + ".txt");
    try (BufferedWriter out = Files.newBufferedWriter(p)) {
      for (int i = 0; i < KEYS_EACH; i++) {
        out.write(name + ":" + i + "\n");
      }
    }
    return p;
  }

  private static MembershipFilter read(Path p) {
    return SketchFiles.read(p, Filters::readFrom);
  }

  private static int absent(MembershipFilter f, String name) {
    int n = 0;
    for (int i = 0; i < KEYS_EACH; i++) {
      n += f.mightContain(name + ":" + i) ? 0 : 1;
    }
    return n;
  }

  private Path bloom(Path file) {
    Cli c = Cli.run("filter", "create", file.toString(), "--expected", "50000", "--fpp", "0.01");
    assertThat(c.exit).as(c.toString()).isZero();
    return file;
  }

  /** Runs one probkit process per argument list, all at once; returns their results. */
  /**
   * {@code filter add} of keys "a" through {@code a} and of keys "b" through {@code b}, at once.
   */
  private List<Probkit.Result> addAtOnce(Path a, Path b) throws Exception {
    Path ka = keys("a");
    Path kb = keys("b");
    return atOnce(
        List.of(
            new String[] {"filter", "add", a.toString(), "--keys", ka.toString()},
            new String[] {"filter", "add", b.toString(), "--keys", kb.toString()}));
  }

  private static List<Probkit.Result> atOnce(List<String[]> runs) throws Exception {
    List<Process> ps = new ArrayList<>();
    for (String[] args : runs) {
      ps.add(Probkit.builder(List.of(), args).start());
    }
    List<Probkit.Result> rs = new ArrayList<>();
    for (Process p : ps) {
      rs.add(Probkit.finish(p));
    }
    return rs;
  }

  @Test
  void anAddThroughASymlinkAddsToTheRealFileAndKeepsTheLink() throws Exception {
    Path real = bloom(Files.createDirectory(dir.resolve("data")).resolve("f.bin"));
    Path links = Files.createDirectory(dir.resolve("links"));
    Path link = Files.createSymbolicLink(links.resolve("link.bf"), Path.of("../data/f.bin"));

    Cli c = Cli.run("filter", "add", link.toString(), "bob");

    assertThat(c.exit).as(c.toString()).isZero();
    assertThat(Files.isSymbolicLink(link)).as("still a link").isTrue();
    assertThat(read(real).mightContain("bob")).as("bob in the real file").isTrue();
    try (Stream<Path> s = Files.list(links)) {
      assertThat(s).as("nothing beside the link").containsExactly(link);
    }
  }

  @Test
  void createForceThroughADanglingSymlinkCreatesItsTarget() throws Exception {
    Path link = Files.createSymbolicLink(dir.resolve("link.bf"), Path.of("new.bin"));
    Cli c =
        Cli.run(
            "filter", "create", link.toString(), "--expected", "100", "--fpp", "0.01", "--force");
    assertThat(c.exit).as(c.toString()).isZero();
    assertThat(Files.isSymbolicLink(link)).isTrue();
    assertThat(Files.isRegularFile(dir.resolve("new.bin"))).isTrue();
  }

  /** Two writers through two symbolic links to one file, at once: both writers' keys are kept. */
  @Test
  void twoWritersThroughTwoSymlinksKeepEveryKey() throws Exception {
    Path real = bloom(dir.resolve("f.bin"));
    Path a = Files.createSymbolicLink(dir.resolve("a.bf"), real);
    Path b = Files.createSymbolicLink(dir.resolve("b.bf"), Path.of("a.bf")); // a link to a link
    List<Probkit.Result> rs = addAtOnce(a, b);

    for (Probkit.Result r : rs) {
      assertThat(r.exit()).as(r.toString()).isZero();
    }
    MembershipFilter f = read(real);
    assertThat(absent(f, "a")).as("a's keys absent").isZero();
    assertThat(absent(f, "b")).as("b's keys absent").isZero();
    assertThat(Files.isSymbolicLink(a) && Files.isSymbolicLink(b)).isTrue();
  }

  /**
   * Two writers through two hard links of one file, at once: both are refused with one line naming
   * the file and its link count, and the file keeps both names and its contents.
   */
  @Test
  void twoWritersThroughTwoHardLinksAreRefused() throws Exception {
    Path a = bloom(dir.resolve("a.bin"));
    Path b = Files.createLink(dir.resolve("b.bin"), a);
    byte[] before = Files.readAllBytes(a);
    List<Probkit.Result> rs = addAtOnce(a, b);

    assertThat(rs.get(0).exit()).as(rs.get(0).toString()).isEqualTo(1);
    assertThat(rs.get(0).err())
        .isEqualTo(
            "probkit: "
                + a
                + ": has 2 hard links, which probkit's replace-by-rename would split (each name"
                + " keeping other contents); give it a copy of its own first, as in 'cp "
                + a
                + " "
                + a
                + ".copy && mv "
                + a
                + ".copy "
                + a
                + "'\n");
    assertThat(rs.get(0).err().lines()).hasSize(1);
    assertThat(rs.get(1).exit()).as(rs.get(1).toString()).isEqualTo(1);
    assertThat(rs.get(1).err()).startsWith("probkit: " + b + ": has 2 hard links");
    assertThat(Files.getAttribute(a, "unix:nlink")).isEqualTo(2);
    assertThat(Files.isSameFile(a, b)).isTrue();
    assertThat(Files.readAllBytes(a)).isEqualTo(before);
  }

  /** The copy the refusal suggests makes the file writable again. */
  @Test
  void theSuggestedCopyMakesAHardLinkedFileWritable() throws Exception {
    Path a = bloom(dir.resolve("a.bin"));
    Files.createLink(dir.resolve("b.bin"), a);
    Path copy = dir.resolve("a.bin.copy");
    Files.copy(a, copy);
    Files.move(copy, a, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    Cli c = Cli.run("filter", "add", a.toString(), "carol");
    assertThat(c.exit).as(c.toString()).isZero();
    assertThat(read(a).mightContain("carol")).isTrue();
  }

  /**
   * A read-only file of each kind is not replaced by add, merge into it, or create --force, even by
   * root (whom the permission bits do not stop): one line, exit 1, the file as it was.
   */
  @ParameterizedTest
  @ValueSource(strings = {"bloom", "cuckoo", "cms", "hll"})
  void aReadOnlyFileIsNotReplaced(String kind) throws Exception {
    Path f = dir.resolve("ro." + kind);
    Path other = dir.resolve("other." + kind);
    List<String[]> writes = new ArrayList<>();
    for (Path p : List.of(f, other)) {
      String[] create =
          switch (kind) {
            case "bloom" -> new String[] {"filter", "create", p.toString(), "--expected", "1000"};
            case "cuckoo" ->
                new String[] {
                  "filter", "create", p.toString(), "--type", "cuckoo", "--expected", "1000"
                };
            case "cms" ->
                new String[] {"cms", "create", p.toString(), "--width", "64", "--depth", "3"};
            default -> new String[] {"hll", "create", p.toString()};
          };
      Cli c = Cli.run(create);
      assertThat(c.exit).as(c.toString()).isZero();
    }
    String command = kind.equals("bloom") || kind.equals("cuckoo") ? "filter" : kind;
    writes.add(new String[] {command, "add", f.toString(), "bob"});
    writes.add(new String[] {command, "merge", f.toString(), other.toString()});
    if (command.equals("hll")) {
      writes.add(new String[] {command, "create", f.toString(), "--force"});
    } else if (command.equals("cms")) {
      writes.add(
          new String[] {
            command, "create", f.toString(), "--width", "64", "--depth", "3", "--force"
          });
    } else {
      writes.add(new String[] {command, "create", f.toString(), "--expected", "1000", "--force"});
    }
    Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("r--r--r--"));
    byte[] before = Files.readAllBytes(f);

    for (String[] w : writes) {
      Cli c = Cli.run(w);
      assertThat(c.exit).as(String.join(" ", w) + ": " + c).isEqualTo(1);
      assertThat(c.err)
          .as(String.join(" ", w))
          .isEqualTo(
              "probkit: "
                  + f
                  + ": is read-only (r--r--r--); probkit does not replace it"
                  + " (chmod u+w makes it writable)\n");
      assertThat(Files.readAllBytes(f)).isEqualTo(before);
    }
  }
}
