package io.github.probkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.redis.RedisServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command line's side of issue 29 against a real redis-server: --help says where a command
 * takes a redis:// URI; hll merge creates a missing DEST; incompatible merges exit 1; URIs are
 * echoed as typed; a scalable filter's info reports its layers.
 */
class RedisCommandLineTest {
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

  /** Help text without its white space, which wrapping changes. */
  private static String help(String... command) {
    List<String> args = new ArrayList<>(List.of(command));
    args.add("--help");
    return ok(args.toArray(new String[0])).out.replaceAll("\\s+", "");
  }

  @Test
  void everyCommandThatTakesAFileSaysItTakesARedisUriAndWhichTypes() {
    String uri = "Orredis://[user@]host[:port][/db]/KEY(rediss://forTLS):";
    for (String command : List.of("create", "add", "remove", "query", "merge")) {
      assertThat(help("filter", command))
          .as("filter " + command)
          .contains(uri + "abloom,blocked,countingorscalablefilterkeptinRedis.");
    }
    for (String command : List.of("create", "add", "query", "merge")) {
      assertThat(help("cms", command))
          .as("cms " + command)
          .contains(uri + "acount-minsketchkeptinRedis.");
    }
    for (String command : List.of("create", "add", "count", "merge")) {
      assertThat(help("hll", command))
          .as("hll " + command)
          .contains(uri + "aHyperLogLogorUltraLogLogkeptinRedis.");
    }
    for (String group : List.of("filter", "cms", "hll")) {
      assertThat(help(group, "info")).as(group + " info").contains(uri + "astructurekeptinRedis");
    }
    for (String group : List.of("filter", "cms", "hll")) {
      assertThat(help(group, "merge"))
          .as(group + " merge")
          .contains("Filesorredis://URIs(readwhole).");
    }
  }

  /** As --help says: "The sketch to merge into (created if missing)", a URI too. */
  @Test
  void hllMergeIntoAMissingRedisDestCreatesItAsTheUnion() throws IOException {
    Path a = dir.resolve("a.hll");
    Path b = dir.resolve("b.hll");
    ok("hll", "create", a.toString(), "--precision", "12");
    ok("hll", "create", b.toString(), "--precision", "12");
    List<String> addA = new ArrayList<>(List.of("hll", "add", a.toString()));
    List<String> addB = new ArrayList<>(List.of("hll", "add", b.toString()));
    for (int i = 0; i < 300; i++) {
      addA.add("a" + i);
      addB.add("b" + i);
    }
    ok(addA.toArray(new String[0]));
    ok(addB.toArray(new String[0]));
    String dest = uri("hll-made-by-merge");
    ok("hll", "merge", dest, a.toString(), b.toString());
    // 600 distinct items: HyperLogLog at precision 12 counts them within a few percent.
    long merged = Long.parseLong(ok("hll", "count", dest).out.strip());
    assertThat(merged).isBetween(560L, 640L);
    assertThat(merged)
        .isEqualTo(Long.parseLong(ok("hll", "count", a.toString(), b.toString()).out.strip()));
    // A merge into the DEST it made merges in place.
    ok("hll", "merge", dest, a.toString());
    assertThat(ok("hll", "count", dest).out.strip()).isEqualTo(Long.toString(merged));
  }

  @Test
  void anIncompatibleHllMergeIntoRedisExitsOneAndChangesNothing() throws IOException {
    String dest = uri("hll-p14");
    ok("hll", "create", dest, "--precision", "14");
    ok("hll", "add", dest, "alice", "bob", "carol");
    Path other = dir.resolve("p10.hll");
    ok("hll", "create", other.toString(), "--precision", "10");
    ok("hll", "add", other.toString(), "dave");
    Path before = dir.resolve("before.hll");
    ok("export", dest, before.toString());
    Cli merge = Cli.run("hll", "merge", dest, other.toString());
    assertThat(merge.exit).as(merge.toString()).isEqualTo(1);
    assertThat(merge.err)
        .startsWith("probkit: " + other + ": cannot merge a hyperloglog of precision 10")
        .endsWith("; nothing was changed\n");
    assertThat(merge.err.lines()).hasSize(1);
    Path after = dir.resolve("after.hll");
    ok("export", dest, after.toString());
    assertThat(Files.readAllBytes(after)).isEqualTo(Files.readAllBytes(before));
  }

  /** A message names a URI as it was typed, not as the Path it passed through (redis:/host). */
  @Test
  void mergeErrorsEchoTheUriAsTyped() {
    Path bloom = dir.resolve("bloom.bin");
    ok("filter", "create", bloom.toString(), "--expected", "100");
    String counting = uri("echo-counting");
    ok("filter", "create", counting, "--type", "counting", "--expected", "100");
    Cli filter =
        Cli.run("filter", "merge", dir.resolve("u.bin").toString(), bloom.toString(), counting);
    assertThat(filter.exit).as(filter.toString()).isEqualTo(1);
    assertThat(filter.err)
        .isEqualTo(
            "probkit: " + counting + ": cannot merge a counting filter into a bloom filter\n");

    Path p10 = dir.resolve("p10.hll");
    ok("hll", "create", p10.toString(), "--precision", "10");
    String ull = uri("echo-ull");
    ok("hll", "create", ull, "--type", "ultraloglog");
    Cli hll = Cli.run("hll", "count", p10.toString(), ull);
    assertThat(hll.exit).as(hll.toString()).isEqualTo(1);
    assertThat(hll.err).startsWith("probkit: " + ull + ": cannot combine an ultraloglog sketch");
  }

  /**
   * A scalable filter in Redis reserves 64 layer shards but holds only the layers it grew: info
   * reports those, and the bytes they take, as the same filter's file does.
   */
  @Test
  void scalableFilterInfoInRedisReportsItsLayersAndBytes() throws IOException {
    String scalable = uri("grown");
    ok("filter", "create", scalable, "--type", "scalable", "--expected", "100", "--fpp", "0.01");
    List<String> add = new ArrayList<>(List.of("filter", "add", scalable));
    for (int i = 0; i < 3000; i++) {
      add.add("user:" + i);
    }
    ok(add.toArray(new String[0]));
    Path file = dir.resolve("grown.bin");
    ok("export", scalable, file.toString());
    String fileInfo = ok("filter", "info", file.toString(), "--json").out;
    String redisInfo = ok("filter", "info", scalable, "--json").out;
    // The file's description (layers, bytes, ...) is where the Redis one starts.
    assertThat(fileInfo).contains("\"layers\": [{").contains("}, {");
    assertThat(redisInfo).startsWith(fileInfo.strip().substring(0, fileInfo.strip().length() - 1));
    assertThat(redisInfo).contains("\"redisKeys\"").doesNotContain("grown}:63");
    // Text: a line per layer, not "64 shards".
    String text = ok("filter", "info", scalable).out;
    assertThat(text).contains("layer 2").doesNotContain("64 shards");
  }
}
