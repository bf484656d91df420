package io.github.probkit.cli;

import static io.github.probkit.cli.Cli.ok;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.cli.location.RedisUri;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Counting and cuckoo filters on the command line count every add, so that removing keys never
 * takes a kept key with them: 20,000 distinct keys, half removed, the other half all present, in a
 * file and in Redis. And what the command says when a key repeats beyond what the filter holds.
 */
class DeletableFilterCliTest extends WithRedisServer {

  @TempDir Path dir;

  private String f(String name) {
    return dir.resolve(name).toString();
  }

  /** Writes k1 ... k20000 to "in", the first half to "del", the second to "keep" (as seq does). */
  private void keys() throws IOException {
    List<String> all = new ArrayList<>();
    for (int i = 1; i <= 20_000; i++) {
      all.add("k" + i);
    }
    Files.write(dir.resolve("in"), all);
    Files.write(dir.resolve("del"), all.subList(0, 10_000));
    Files.write(dir.resolve("keep"), all.subList(10_000, 20_000));
    Files.write(dir.resolve("first"), all.subList(0, 15_000));
    Files.write(dir.resolve("last"), all.subList(15_000, 20_000));
  }

  /** Removes "del" from {@code filter} and checks that every key of "keep" is still present. */
  private void removeHalfAndKeepTheRest(String filter) {
    assertThat(ok("filter", "remove", filter, "--keys", f("del")).out)
        .isEqualTo("removed 10000 of 10000 keys (0 certainly absent)\n");
    assertThat(Cli.run("filter", "query", filter, "--absent", "--count", "--keys", f("keep")).out)
        .as("kept keys reported absent")
        .isEqualTo("0\n");
    assertThat(ok("filter", "query", filter, "--present", "--count", "--keys", f("keep")).out)
        .isEqualTo("10000\n");
  }

  /**
   * The reproduction: with the old add-if-absent default, 30 kept keys (counting) and 34
   * (cuckoo) read absent, and cuckoo's remove reported 11 keys certainly absent.
   */
  @ParameterizedTest
  @ValueSource(strings = {"counting", "cuckoo"})
  void removingHalfOfTheKeysKeepsEveryOtherKey(String type) throws IOException {
    removeHalfOfKeysCreatedAndAdded(type, f("c.bin"), f("a.bin"));
  }

  @Test
  void removingHalfOfTheKeysKeepsEveryOtherKeyInRedis() throws IOException {
    removeHalfOfKeysCreatedAndAdded(
        "counting", server.uri() + "/half", server.uri() + "/half-added");
  }

  /**
   * The keys given to {@code created} by its create, and to {@code added} (created empty) by two
   * add commands, the second overlapping nothing: in each, removing half keeps every other key.
   */
  private void removeHalfOfKeysCreatedAndAdded(String type, String created, String added)
      throws IOException {
    keys();
    ok(
        "filter",
        "create",
        created,
        "--type",
        type,
        "--expected",
        "20000",
        "--fpp",
        "0.01",
        "--keys",
        f("in"));
    removeHalfAndKeepTheRest(created);
    ok("filter", "create", added, "--type", type, "--expected", "20000", "--fpp", "0.01");
    ok("filter", "add", added, "--keys", f("first"));
    ok("filter", "add", added, "--keys", f("last"));
    removeHalfAndKeepTheRest(added);
  }

  /**
   * A key added n times takes n removes; --if-absent (opt-in) adds it once; --multiset is a no-op.
   */
  @ParameterizedTest
  @ValueSource(strings = {"counting", "cuckoo", "redis"})
  void aKeyAddedThriceTakesThreeRemoves(String type) {
    String c = type.equals("redis") ? server.uri() + "/thrice" : f(type + ".bin");
    String t = type.equals("redis") ? "counting" : type;
    ok("filter", "create", c, "--type", t, "--expected", "1000", "--fpp", "0.01");
    ok("filter", "add", c, "k", "k");
    ok("filter", "add", c, "--multiset", "k");
    for (int i = 0; i < 2; i++) {
      assertThat(ok("filter", "remove", c, "k").out)
          .isEqualTo("removed 1 of 1 keys (0 certainly absent)\n");
      assertThat(ok("filter", "query", c, "k").out).isEqualTo("k\tpresent\n");
    }
    ok("filter", "remove", c, "k");
    assertThat(ok("filter", "query", c, "k").out).isEqualTo("k\tabsent\n");

    ok("filter", "add", c, "--if-absent", "j", "j", "j");
    ok("filter", "remove", c, "j");
    assertThat(ok("filter", "query", c, "j").out).isEqualTo("j\tabsent\n");
    Cli both = Cli.run("filter", "add", c, "--if-absent", "--multiset", "j");
    assertThat(both.exit).isEqualTo(2);
    assertThat(both.err).isEqualTo("probkit: --multiset and --if-absent exclude each other\n");
  }

  @Test
  void ifAbsentIsRefusedForAFilterThatCannotRemove() {
    ok("filter", "create", f("b.bin"), "--expected", "100");
    Cli add = Cli.run("filter", "add", f("b.bin"), "--if-absent", "k");
    assertThat(add.exit).isEqualTo(2);
    assertThat(add.err)
        .isEqualTo(
            "probkit: --if-absent applies to counting and cuckoo filters, not to a bloom filter\n");
    Cli create =
        Cli.run(
            "filter", "create", f("s.bin"), "--type", "scalable", "--expected", "9", "--if-absent");
    assertThat(create.exit).isEqualTo(2);
    assertThat(create.err)
        .isEqualTo(
            "probkit: --if-absent applies to counting and cuckoo filters, not to --type scalable\n");
  }

  /**
   * A cuckoo filter holds a key 8 times (its two buckets of 4): the 9th add is one line naming the
   * key, exit 1, the file unchanged, where it said "full after adding 8 keys (load 0.6 %)".
   */
  @Test
  void aCuckooFilterGivenAKeyANinthTimeSaysSo() throws IOException {
    String q = f("q.bin");
    ok("filter", "create", q, "--type", "cuckoo", "--expected", "100", "--fpp", "0.01");
    ok("filter", "add", q, "other");
    byte[] before = Files.readAllBytes(Path.of(q));
    Cli nine = Cli.run("filter", "add", q, "k", "k", "k", "k", "k", "k", "k", "k", "k");
    assertThat(nine.exit).isEqualTo(1);
    assertThat(nine.err)
        .isEqualTo(
            "probkit: "
                + q
                + ": key 'k' comes a 9th time and finds no room: a cuckoo filter holds a key at"
                + " most 8 times, fewer when keys that repeat share its two buckets; for repeated"
                + " keys use --type counting, de-duplicate them first (sort -u), or add with"
                + " --if-absent; the file was left as it was\n");
    assertThat(Files.readAllBytes(Path.of(q))).isEqualTo(before);
    // Eight fit, and --if-absent takes any number (once).
    ok("filter", "add", q, "k", "k", "k", "k", "k", "k", "k", "k");
    ok(
        "filter",
        "add",
        q,
        "--if-absent",
        "k",
        "k",
        "k",
        "j",
        "j",
        "j",
        "j",
        "j",
        "j",
        "j",
        "j",
        "j");
    assertThat(ok("filter", "info", q, "--json").out).contains("\"keys\": 10,");
  }

  /** A table filled with distinct keys keeps its message. */
  @Test
  void aFullCuckooFilterStillSaysItIsFull() throws IOException {
    String q = f("full.bin");
    ok("filter", "create", q, "--type", "cuckoo", "--expected", "100", "--fpp", "0.01");
    List<String> many = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      many.add("key-" + i);
    }
    Files.write(dir.resolve("many"), many);
    Cli full = Cli.run("filter", "add", q, "--keys", f("many"));
    assertThat(full.exit).isEqualTo(1);
    assertThat(full.err).startsWith("probkit: " + q + ": the cuckoo filter is full after adding ");
    assertThat(full.err).endsWith("; the file was left as it was\n");
  }

  /**
   * A key added 20 times saturates its 7 counters: the add says so, and the removes report that it
   * stays, where they said "removed 20 of 20 keys" and the key stayed present.
   */
  @ParameterizedTest
  @ValueSource(strings = {"file", "redis"})
  void aCountingFilterSaysWhichKeysSaturateItsCounters(String where) {
    String c = where.equals("redis") ? server.uri() + "/saturated" : f("s.bin");
    ok("filter", "create", c, "--type", "counting", "--expected", "1000", "--fpp", "0.01");
    String[] twenty = new String[24];
    twenty[0] = "filter";
    twenty[1] = "add";
    twenty[2] = c;
    twenty[3] = "once";
    for (int i = 4; i < 24; i++) {
      twenty[i] = "k";
    }
    Cli add = ok(twenty);
    assertThat(add.err)
        .isEqualTo(
            "probkit: "
                + c
                + ": warning: key 'k' has saturated its counters (at 15, after as many adds): it"
                + " will read present however often it is removed\n");
    twenty[1] = "remove";
    Cli remove = ok(twenty);
    assertThat(remove.out)
        .isEqualTo(
            "removed 1 of 21 keys (0 certainly absent, 20 stay present: saturated counters)\n");
    assertThat(remove.err)
        .isEqualTo(
            "probkit: "
                + c
                + ": warning: key 'k' stays present: its counters are saturated (at 15), so no"
                + " remove takes it out\n");
    assertThat(ok("filter", "query", c, "k", "once").out).isEqualTo("k\tpresent\nonce\tabsent\n");
  }

  @Test
  void aWarningNamesARedisStructureWithoutItsPassword() {
    assertThat(RedisUri.withoutPassword("redis://app:s3cret@cache:6379/0/seen"))
        .isEqualTo("redis://app@cache:6379/0/seen");
    assertThat(RedisUri.withoutPassword("rediss://:s3cret@cache/seen"))
        .isEqualTo("rediss://@cache/seen");
    assertThat(RedisUri.withoutPassword("redis://cache/seen")).isEqualTo("redis://cache/seen");
  }

  /** Past ten keys, one line says how many more saturated. */
  @Test
  void saturatedKeysAreNamedUpToTen() throws IOException {
    String c = f("many.bin");
    ok("filter", "create", c, "--type", "counting", "--expected", "1000", "--fpp", "0.01");
    List<String> lines = new ArrayList<>();
    for (int round = 0; round < 15; round++) {
      for (int i = 0; i < 12; i++) {
        lines.add("key-" + i);
      }
    }
    Files.write(dir.resolve("repeats"), lines);
    Cli add = ok("filter", "add", c, "--keys", f("repeats"));
    String[] err = add.err.split("\n");
    assertThat(err).hasSize(11);
    assertThat(err[0]).contains("key 'key-0' has saturated its counters");
    assertThat(err[9]).contains("key 'key-9' has saturated its counters");
    assertThat(err[10])
        .isEqualTo(
            "probkit: "
                + c
                + ": warning: 2 more keys have saturated counters (only the first 10 are named)");
  }
}
