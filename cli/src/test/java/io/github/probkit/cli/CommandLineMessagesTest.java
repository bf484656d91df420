package io.github.probkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The options and messages a new user meets first, each as that user tried it. */
class CommandLineMessagesTest {
  @TempDir Path dir;

  private String file(String name) {
    return dir.resolve(name).toString();
  }

  private String keysFile(String name, String... keys) throws IOException {
    Path p = dir.resolve(name);
    Files.writeString(p, String.join("\n", keys) + "\n");
    return p.toString();
  }

  private static Cli ok(Cli c) {
    assertThat(c.exit).as(c.toString()).isZero();
    return c;
  }

  private String filterOf(String... keys) throws IOException {
    String f = file("users.bin");
    ok(Cli.run("filter", "create", f, "--expected", "1000", "--keys", keysFile("added.txt", keys)));
    return f;
  }

  /** --keys before FILE takes one name, so FILE is not taken for a key file. */
  @Test
  void keysBeforeTheFileTakeOneName() throws IOException {
    String f = filterOf("alice", "bob", "carol");
    String a = keysFile("a.txt", "alice", "zed");
    String b = keysFile("b.txt", "carol");
    assertThat(ok(Cli.run("filter", "query", "--keys", a, f)).out)
        .isEqualTo("alice\tpresent\nzed\tabsent\n");
    assertThat(ok(Cli.run("filter", "query", "--keys", a, "--keys", b, f)).out)
        .isEqualTo("alice\tpresent\nzed\tabsent\ncarol\tpresent\n");
    assertThat(ok(Cli.run("filter", "query", "--keys=" + a, f, "bob")).out)
        .isEqualTo("bob\tpresent\nalice\tpresent\nzed\tabsent\n");
    // After FILE, as before: every name up to the next option.
    assertThat(ok(Cli.run("filter", "query", f, "--keys", a, b, "--count")).out).isEqualTo("2\n");
    // The sketches' --items likewise.
    String cms = file("t.cms");
    ok(Cli.run("cms", "create", cms, "--width", "100", "--depth", "3", "--items", a));
    assertThat(ok(Cli.run("cms", "query", "--items", a, cms)).out).isEqualTo("alice\t1\nzed\t1\n");
  }

  @Test
  void aKeyThatNamesAFileIsAnsweredWithAHint() throws IOException {
    String f = filterOf("alice");
    String log = keysFile("access.log", "alice");
    Cli c = Cli.run("filter", "query", f, "--count", log);
    assertThat(c.out).isEqualTo("0\n");
    assertThat(c.err)
        .isEqualTo(
            "probkit: the key '"
                + log
                + "' is the name of a file; did you mean --keys "
                + log
                + "? (taken as a key)\n");
    assertThat(Cli.run("filter", "query", f, "alice").err).isEmpty();
  }

  @Test
  void aBadTypeOrRateIsNamedBeforeAMissingSize() {
    Cli type = Cli.run("filter", "create", file("x.bin"), "--type", "nope");
    assertThat(type.exit).isEqualTo(2);
    assertThat(type.err)
        .isEqualTo(
            "probkit: --type must be one of bloom, counting, cuckoo, scalable, blocked,"
                + " split-block, binary-fuse8, binary-fuse16, fuse, window, was 'nope'\n");
    Cli fpp = Cli.run("filter", "create", file("x.bin"), "--fpp", "1.5");
    assertThat(fpp.exit).isEqualTo(2);
    assertThat(fpp.err).isEqualTo("probkit: --fpp must be in (0, 1), was 1.5\n");
    assertThat(dir.resolve("x.bin")).doesNotExist();
  }

  @Test
  void anUnknownCommandIsCalledSoWithTheCommands() {
    Cli c = Cli.run("nosuch");
    assertThat(c.exit).isEqualTo(2);
    assertThat(c.err)
        .isEqualTo(
            "probkit: unknown command 'nosuch': probkit has the subcommands demo, filter, cms,"
                + " top, distinct, dedupe, hll, info, export, import, lab, help,"
                + " generate-completion (see 'probkit --help')\n");
    assertThat(Cli.run("filter", "crate").err)
        .isEqualTo(
            "probkit: unknown command 'crate': probkit filter has the subcommands create, add,"
                + " remove, query, info, merge, import, export; did you mean create? (see"
                + " 'probkit filter --help')\n");
  }

  @Test
  void ratesAreEchoedAsTyped() {
    assertThat(
            Cli.run("filter", "create", file("x.bin"), "--expected", "10", "--fpp", "1e-300").err)
        .startsWith("probkit: --fpp 1e-300 is below ");
    assertThat(
            Cli.run("filter", "create", file("x.bin"), "--type", "binary-fuse8", "--fpp", "0.3%")
                .err)
        .endsWith("above --fpp 0.3%; use binary-fuse16\n");
    assertThat(Cli.run("dedupe", "--fpp", "2e0").err)
        .isEqualTo("probkit: --fpp must be in (0, 1), was 2e0\n");
  }

  @Test
  void aFileIsNamedOnce() throws IOException {
    String notADirectory = keysFile("k.txt", "a") + "/x";
    Cli c = Cli.run("filter", "query", notADirectory, "a");
    assertThat(c.exit).isEqualTo(1);
    assertThat(c.err).isEqualTo("probkit: " + notADirectory + ": Not a directory\n");
    Cli keys = Cli.run("filter", "query", filterOf("a"), "--keys", notADirectory);
    assertThat(keys.err).isEqualTo("probkit: " + notADirectory + ": Not a directory\n");
  }

  /**
   * The summary of a command (its first description line, in the parent's list and the man page's
   * NAME line) is a whole sentence, and so is every paragraph: picocli wraps each line of a
   * description on its own, so a sentence split over lines broke mid-line.
   */
  @Test
  void descriptionsAreWholeSentences() {
    List<String> broken = new ArrayList<>();
    check(Main.commandLine(), broken);
    assertThat(broken).isEmpty();
  }

  private static void check(CommandLine cl, List<String> broken) {
    String[] d = cl.getCommandSpec().usageMessage().description();
    for (String line : d) {
      String l = line.strip();
      if (!l.isEmpty() && !l.matches(".*[.?!:]$")) {
        broken.add(cl.getCommandSpec().qualifiedName() + ": " + l);
      }
    }
    for (CommandLine sub : cl.getSubcommands().values()) {
      // Picocli's own, whose second line is a shell command.
      if (!sub.getCommandName().equals("generate-completion")) {
        check(sub, broken);
      }
    }
  }

  @Test
  void createSaysHowManyKeysItReadFromStandardInput() throws IOException {
    String f = file("piped.bin");
    Cli c = Cli.runWithInput("alice\nbob\ncarol\n", "filter", "create", f, "--expected", "100");
    assertThat(c.exit).as(c.toString()).isZero();
    assertThat(c.err)
        .isEqualTo("probkit: read 3 keys from standard input (</dev/null reads none)\n");
    assertThat(ok(Cli.run("filter", "query", f, "alice", "bob", "carol")).out)
        .isEqualTo("alice\tpresent\nbob\tpresent\ncarol\tpresent\n");
    // Asked for, or nothing read: nothing said.
    String g = file("named.bin");
    assertThat(
            Cli.run("filter", "create", g, "--expected", "100", "--keys", keysFile("k", "a")).err)
        .isEmpty();
    assertThat(Cli.runWithInput("", "filter", "create", file("e.bin"), "--expected", "1").err)
        .isEmpty();
    assertThat(Cli.runAtTerminal("filter", "create", file("t.bin"), "--expected", "1").err)
        .isEmpty();
    assertThat(Cli.runWithInput("a\nb\n", "hll", "create", file("h.hll"), "--precision", "10").err)
        .isEqualTo("probkit: read 2 items from standard input (</dev/null reads none)\n");
  }

  @Test
  void aFilterTooLargeForTheFormatIsRefusedNamingItsSize() {
    Cli c = Cli.run("filter", "create", file("big.bin"), "--expected", "30G", "--type", "blocked");
    assertThat(c.exit).isEqualTo(2);
    assertThat(c.err)
        .isEqualTo(
            "probkit: 30000000000 keys at fpp 0.01 need at least 33.5 GiB, more than the largest"
                + " blocked Bloom filter (137438952448 bits, 16.0 GiB)\n");
    assertThat(dir.resolve("big.bin")).doesNotExist();
  }
}
