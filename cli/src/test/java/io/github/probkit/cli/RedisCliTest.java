package io.github.probkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.redis.RedisServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The commands on redis:// URIs, against a real redis-server (skipped without one, as the redis
 * module's tests).
 */
class RedisCliTest {
  private static RedisServer server;

  @TempDir Path dir;

  @BeforeAll
  static void start() throws IOException {
    server = RedisServer.start();
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  private static String uri(String key) {
    return server.uri() + "/" + key;
  }

  private static Cli ok(String... args) {
    Cli c = Cli.run(args);
    assertThat(c.exit).as(c.toString()).isZero();
    return c;
  }

  @Test
  void filtersAreCreatedFilledQueriedAndExportedAsTheirFiles() throws IOException {
    ok("filter", "create", uri("urls"), "--expected", "1000", "--fpp", "0.01");
    ok("filter", "add", uri("urls"), "alice", "bob", "carol");
    assertThat(ok("filter", "query", uri("urls"), "alice", "carol", "zed").out)
        .isEqualTo("alice\tpresent\ncarol\tpresent\nzed\tabsent\n");
    assertThat(ok("filter", "info", uri("urls")).out)
        .contains("bloom")
        .contains("memoryUsage")
        .contains("{urls}:0");

    // The same keys through a file: export writes that file's bytes.
    Path file = dir.resolve("urls.bin");
    ok("filter", "create", file.toString(), "--expected", "1000", "--fpp", "0.01");
    ok("filter", "add", file.toString(), "alice", "bob", "carol");
    Path exported = dir.resolve("exported.bin");
    ok("export", uri("urls"), exported.toString());
    assertThat(Files.readAllBytes(exported)).isEqualTo(Files.readAllBytes(file));

    // A file published to Redis answers as the file does.
    ok("import", file.toString(), uri("published"));
    assertThat(ok("filter", "query", uri("published"), "bob", "zed").out)
        .isEqualTo("bob\tpresent\nzed\tabsent\n");
    Cli again = Cli.run("import", file.toString(), uri("published"));
    assertThat(again.exit).isEqualTo(1);
    assertThat(again.err)
        .startsWith("probkit: redis " + server.hostPort() + ": structure 'published' exists");
    ok("import", file.toString(), uri("published"), "--force");
  }

  /** cms add --counts adds each line's count to a Redis sketch as to a file, repeats included. */
  @Test
  void countsAreAddedToARedisSketchAsToAFile() throws IOException {
    StringBuilder tsv = new StringBuilder();
    for (int i = 0; i < 2500; i++) {
      tsv.append("term").append(i % 700).append('\t').append(1 + i % 13).append('\n');
    }
    Path counts = dir.resolve("counts.tsv");
    Files.writeString(counts, tsv);
    Path file = dir.resolve("terms.cms");
    ok("cms", "create", file.toString(), "--width", "64", "--depth", "3");
    ok("cms", "create", uri("counted"), "--width", "64", "--depth", "3");
    ok("cms", "add", file.toString(), "--counts", "--items", counts.toString());
    ok("cms", "add", uri("counted"), "--counts", "--items", counts.toString());
    Path exported = dir.resolve("exported.cms");
    ok("export", uri("counted"), exported.toString());
    assertThat(Files.readAllBytes(exported)).isEqualTo(Files.readAllBytes(file));
    assertThat(ok("cms", "query", uri("counted"), "term5").out)
        .isEqualTo(ok("cms", "query", file.toString(), "term5").out);

    Files.writeString(counts, "fine\t3\nno-tab-here\n");
    Cli bad = Cli.run("cms", "add", uri("counted"), "--counts", "--items", counts.toString());
    assertThat(bad.exit).isEqualTo(1);
    assertThat(bad.err).contains("--counts: item 2 has no tab");
  }

  /** The grep-style modes and JSON Lines answer from Redis as from a file, over several batches. */
  @Test
  void queriesAnswerLikeGrepFromRedisToo() {
    ok("filter", "create", uri("seen"), "--expected", "10000");
    StringBuilder seen = new StringBuilder();
    StringBuilder log = new StringBuilder();
    for (int i = 0; i < 5000; i++) {
      seen.append("user-").append(2 * i).append('\n');
      log.append(i).append("\tuser-").append(i).append("\tGET /").append(i).append('\n');
    }
    assertThat(Cli.runWithInput(seen.toString(), "filter", "add", uri("seen")).exit).isZero();
    assertThat(Cli.run("filter", "query", "-q", uri("seen"), "user-2").exit).isZero();
    assertThat(Cli.run("filter", "query", "-q", uri("seen"), "user-1").exit).isEqualTo(1);
    assertThat(Cli.run("filter", "query", "-q", uri("no-such-filter"), "user-1").exit).isEqualTo(2);

    Cli absent =
        Cli.runWithInput(
            log.toString(), "filter", "query", uri("seen"), "--absent", "--field", "2");
    String[] lines = absent.out.split("\n");
    // Every odd user is absent, and false positives among them are rare (1 %): about 2,500 lines.
    assertThat(lines.length).isBetween(2400, 2500);
    assertThat(lines[0]).isEqualTo("1\tuser-1\tGET /1");
    Cli count =
        Cli.runWithInput(log.toString(), "filter", "query", uri("seen"), "--count", "--field", "2");
    assertThat(Long.parseLong(count.out.strip())).isEqualTo(5000 - lines.length);
    assertThat(ok("filter", "query", "--json", uri("seen"), "user-0", "user-1").out)
        .isEqualTo(
            "{\"key\": \"user-0\", \"present\": true}\n{\"key\": \"user-1\", \"present\": false}\n");

    ok("cms", "create", uri("words"), "--width", "100", "--depth", "3");
    ok("cms", "add", uri("words"), "rain", "rain");
    assertThat(ok("cms", "query", "--json", uri("words"), "rain", "sun").out)
        .isEqualTo("{\"item\": \"rain\", \"estimate\": 2}\n{\"item\": \"sun\", \"estimate\": 0}\n");
  }

  @Test
  void countingFiltersRemoveAndCountOnceWithoutMultiset() {
    ok(
        "filter",
        "create",
        uri("sessions"),
        "--type",
        "counting",
        "--expected",
        "1000",
        "--fpp",
        "0.01");
    ok("filter", "add", uri("sessions"), "s-1", "s-1", "s-2");
    assertThat(ok("filter", "remove", uri("sessions"), "s-1", "never").out)
        .isEqualTo("removed 1 of 2 keys (1 certainly absent)\n");
    assertThat(ok("filter", "query", uri("sessions"), "s-1", "s-2").out)
        .isEqualTo("s-1\tabsent\ns-2\tpresent\n");
    Cli bloom = Cli.run("filter", "remove", uri("urls-missing"), "x");
    assertThat(bloom.exit).isEqualTo(1);
    assertThat(bloom.err).contains("no probkit structure named 'urls-missing'");
  }

  @Test
  void countMinAndHyperLogLog() throws IOException {
    ok("cms", "create", uri("terms"), "--width", "100", "--depth", "3");
    ok("cms", "add", uri("terms"), "cricket", "rain", "cricket");
    assertThat(ok("cms", "query", uri("terms"), "cricket", "rain", "chess").out)
        .isEqualTo("cricket\t2\nrain\t1\nchess\t0\n");

    ok("hll", "create", uri("visitors"), "--precision", "12");
    ok("hll", "add", uri("visitors"), "alice", "bob", "alice", "carol");
    assertThat(ok("hll", "count", uri("visitors")).out).isEqualTo("3\n");
    Path other = dir.resolve("other.hll");
    ok("hll", "create", other.toString(), "--precision", "12");
    ok("hll", "add", other.toString(), "dave", "erin");
    ok("hll", "merge", uri("visitors"), other.toString());
    assertThat(ok("hll", "count", uri("visitors")).out).isEqualTo("5\n");
    assertThat(ok("hll", "count", uri("visitors"), other.toString()).out).isEqualTo("5\n");

    // --replace: DEST becomes the union of the sources alone, as for a file.
    Path third = dir.resolve("third.hll");
    ok("hll", "create", third.toString(), "--precision", "12");
    ok("hll", "add", third.toString(), "frank");
    ok("hll", "merge", "--replace", uri("visitors"), other.toString(), third.toString());
    assertThat(ok("hll", "count", uri("visitors")).out).isEqualTo("3\n");
    Path file = dir.resolve("week.hll");
    ok("hll", "merge", "--replace", file.toString(), other.toString(), third.toString());
    Path exported = dir.resolve("week-exported.hll");
    ok("export", uri("visitors"), exported.toString());
    // Redis keeps the registers dense, the file may stay sparse: the same registers either way.
    assertThat(registers(exported)).isEqualTo(registers(file));
  }

  private static int[] registers(Path hll) throws IOException {
    try (java.io.InputStream in = Files.newInputStream(hll)) {
      return io.github.probkit.cardinality.HyperLogLog.readFrom(in).registers();
    }
  }

  @Test
  void badUrisAndUnreachableServersAreOneLine() throws IOException {
    Cli noKey = Cli.run("filter", "query", server.uri(), "x");
    assertThat(noKey.exit).isEqualTo(2);
    assertThat(noKey.err).startsWith("probkit: a redis URI names the structure after the host");
    Cli badName = Cli.run("filter", "create", uri("a%20b"), "--expected", "10", "--fpp", "0.1");
    assertThat(badName.exit).isEqualTo(2);
    assertThat(badName.err).startsWith("probkit: name must be").contains("'a b'");
    Cli badUri = Cli.run("filter", "create", uri("a{b}"), "--expected", "10", "--fpp", "0.1");
    assertThat(badUri.exit).isEqualTo(2);
    assertThat(badUri.err).startsWith("probkit: not a redis URI: '" + uri("a{b}") + "'");
    int port = RedisServerPorts.free();
    Cli down = Cli.run("filter", "query", "redis://127.0.0.1:" + port + "/x", "k");
    assertThat(down.exit).isEqualTo(1);
    assertThat(down.err)
        .startsWith("probkit: redis 127.0.0.1:" + port + ": unreachable or timed out");
    assertThat(down.err.lines()).hasSize(1);
  }

  /** A run on a URI, as its own process, says nothing on stderr (Jedis's logging included). */
  @Test
  void aRunOnRedisWritesOnlyItsAnswers() throws Exception {
    ok("filter", "create", uri("quiet"), "--expected", "100", "--fpp", "0.01");
    Probkit.Result r = Probkit.run("filter", "query", uri("quiet"), "k");
    assertThat(r.exit()).as(r.toString()).isZero();
    assertThat(r.out()).isEqualTo("k\tabsent\n");
    assertThat(r.err()).as(r.toString()).isEmpty();
  }

  @Test
  void aRunOnFilesLoadsNoRedisClass() throws Exception {
    Path file = dir.resolve("f.bin");
    ok("filter", "create", file.toString(), "--expected", "100", "--fpp", "0.01");
    Process p =
        Probkit.builder(List.of("-verbose:class"), "filter", "query", file.toString(), "k").start();
    Probkit.Result r = Probkit.finish(p);
    assertThat(r.exit()).as(r.toString()).isZero();
    assertThat(r.out())
        .contains("io.github.probkit.cli.FilterCommand")
        .doesNotContain("redis.clients")
        .doesNotContain("io.github.probkit.redis");
  }
}
