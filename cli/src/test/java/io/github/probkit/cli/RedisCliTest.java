package io.github.probkit.cli;

import static io.github.probkit.cli.Cli.ok;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The commands on redis:// URIs, against a real redis-server (skipped without one, as the redis
 * module's tests).
 */
class RedisCliTest extends WithRedisServer {

  @TempDir Path dir;

  /**
   * A merge whose source names the destination by another URI (localhost for 127.0.0.1, db 0
   * spelled out) is refused: it would add every counter twice.
   */
  @Test
  void aMergeSourceThatIsTheDestinationUnderAnotherUriIsRefused() {
    String port = server.uri().substring(server.uri().lastIndexOf(':') + 1);
    String dest = "redis://127.0.0.1:" + port + "/merge-terms";
    String same = "redis://localhost:" + port + "/0/merge-terms";
    String other = "redis://localhost:" + port + "/1/merge-terms";
    ok("cms", "create", dest, "--width", "64", "--depth", "3");
    ok("cms", "add", dest, "rain", "rain");
    ok("cms", "create", other, "--width", "64", "--depth", "3");
    ok("cms", "add", other, "rain");
    Cli twice = Cli.run("cms", "merge", dest, same);
    assertThat(twice.exit).as(twice.toString()).isEqualTo(1);
    assertThat(twice.err)
        .isEqualTo(
            "probkit: "
                + same
                + ": is the destination, which merge includes already"
                + " (--replace merges the sources alone)\n");
    assertThat(ok("cms", "query", dest, "rain").out).isEqualTo("rain\t2\n");
    // The same key in another database is another structure: merged.
    ok("cms", "merge", dest, other);
    assertThat(ok("cms", "query", dest, "rain").out).isEqualTo("rain\t3\n");
  }

  /** {@code probkit info} on a URI describes what the family's own info describes. */
  @Test
  void infoDescribesAStructureInRedisAsItsFamilysInfo() {
    ok("filter", "create", uri("info-bloom"), "--expected", "1000", "--fpp", "0.01");
    ok("filter", "add", uri("info-bloom"), "alice", "bob");
    ok("cms", "create", uri("info-cms"), "--width", "64", "--depth", "3");
    ok("cms", "add", uri("info-cms"), "rain", "rain");
    ok("hll", "create", uri("info-hll"));
    ok("hll", "add", uri("info-hll"), "alice", "bob");
    for (String[] family :
        List.of(
            new String[] {"filter", "info-bloom"},
            new String[] {"cms", "info-cms"},
            new String[] {"hll", "info-hll"})) {
      String own = ok(family[0], "info", uri(family[1]), "--json").out;
      assertThat(own).contains(family[1]);
      assertThat(ok("info", uri(family[1]), "--json").out).isEqualTo(own);
    }
    Cli notTop = Cli.run("top", "--from", uri("info-cms"));
    assertThat(notTop.exit).as(notTop.toString()).isEqualTo(1);
    assertThat(notTop.err).startsWith("probkit: " + uri("info-cms") + ": ");
    assertThat(notTop.err.split("\n")).hasSize(1);
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
  void countingFiltersRemoveAndCountOnceWithIfAbsent() {
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
    ok("filter", "add", uri("sessions"), "--if-absent", "s-1", "s-1", "s-2");
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

  /**
   * Creates FILE (a filter of TYPE, or a count-min sketch) holding the keys k{from} ... k{to-1}.
   */
  private static void build(Path file, String type, int from, int to) {
    StringBuilder keys = new StringBuilder();
    for (int i = from; i < to; i++) {
      keys.append('k').append(i).append('\n');
    }
    if (type.equals("cms")) {
      ok("cms", "create", file.toString(), "--width", "3000", "--depth", "4");
      assertThat(Cli.runWithInput(keys.toString(), "cms", "add", file.toString()).exit).isZero();
    } else {
      ok("filter", "create", file.toString(), "--type", type, "--expected", "5000");
      assertThat(Cli.runWithInput(keys.toString(), "filter", "add", file.toString()).exit).isZero();
    }
  }

  private static byte[] export(String key, Path dir) throws IOException {
    Path out = dir.resolve(key + ".exported");
    ok("export", uri(key), out.toString(), "--force");
    return Files.readAllBytes(out);
  }

  /**
   * merge into a redis:// DEST, from files and from redis:// SRCs, and from redis:// SRCs into a
   * file: the result is the file-built union's bytes.
   */
  @ParameterizedTest
  @ValueSource(strings = {"bloom", "blocked", "counting", "cms"})
  void mergesIntoAndFromRedisGiveTheFilesUnion(String type) throws IOException {
    String cmd = type.equals("cms") ? "cms" : "filter";
    Path a = dir.resolve("a.bin");
    Path b = dir.resolve("b.bin");
    build(a, type, 0, 3000);
    build(b, type, 2000, 4500);
    Path union = dir.resolve("union.bin");
    ok(cmd, "merge", union.toString(), a.toString(), b.toString());
    byte[] expected = Files.readAllBytes(union);

    // A missing DEST is created from the first merge; the second merges into it in place.
    String dest = "merged-" + type;
    ok(cmd, "merge", uri(dest), a.toString());
    assertThat(export(dest, dir)).isEqualTo(Files.readAllBytes(a));
    ok(cmd, "merge", uri(dest), b.toString());
    assertThat(export(dest, dir)).isEqualTo(expected);

    // redis:// SRCs, into Redis and into a file.
    ok("import", b.toString(), uri("src-" + type));
    ok(cmd, "merge", uri("both-" + type), a.toString(), uri("src-" + type));
    assertThat(export("both-" + type, dir)).isEqualTo(expected);
    Path file = dir.resolve("from-redis.bin");
    ok(cmd, "merge", file.toString(), a.toString(), uri("src-" + type));
    assertThat(Files.readAllBytes(file)).isEqualTo(expected);

    // --replace: DEST becomes the union of the SRCs alone (DEST may be one of them).
    ok(cmd, "merge", "--replace", uri(dest), b.toString());
    assertThat(export(dest, dir)).isEqualTo(Files.readAllBytes(b));
    ok(cmd, "merge", "--replace", uri(dest), uri(dest), a.toString());
    assertThat(export(dest, dir)).isEqualTo(expected);
    // Without it, DEST among the SRCs would count it twice: refused, as for files.
    Cli twice = Cli.run(cmd, "merge", uri(dest), uri(dest));
    assertThat(twice.exit).isEqualTo(1);
    assertThat(twice.err)
        .isEqualTo(
            "probkit: "
                + uri(dest)
                + ": is the destination, which merge includes already"
                + " (--replace merges the sources alone)\n");
  }

  /**
   * Keys another client adds while filter merge ORs a 12 MB filter into Redis are all there
   * afterwards: the result is the library's filter of the source and every added key.
   */
  @Test
  void keysAddedDuringACommandLineMergeAreKept() throws Exception {
    io.github.probkit.filter.BlockedBloomFilter source =
        io.github.probkit.filter.BlockedBloomFilter.create(10_000_000, 0.01);
    io.github.probkit.filter.BlockedBloomFilter all =
        io.github.probkit.filter.BlockedBloomFilter.create(10_000_000, 0.01);
    for (int i = 0; i < 100_000; i++) {
      source.add("src" + i);
      all.add("src" + i);
    }
    Path file = dir.resolve("source.bin");
    try (java.io.OutputStream out = Files.newOutputStream(file)) {
      source.writeTo(out);
    }
    ok("filter", "create", uri("live"), "--type", "blocked", "--expected", "10000000");
    java.util.concurrent.atomic.AtomicBoolean merging =
        new java.util.concurrent.atomic.AtomicBoolean(true);
    java.util.concurrent.atomic.AtomicInteger batches =
        new java.util.concurrent.atomic.AtomicInteger();
    List<String> added = new java.util.ArrayList<>();
    java.util.concurrent.CompletableFuture<Void> adder =
        java.util.concurrent.CompletableFuture.runAsync(
            () -> {
              try (io.github.probkit.redis.RedisStore store =
                  io.github.probkit.redis.RedisStore.connect(server.uri())) {
                io.github.probkit.redis.RedisBloomFilter f =
                    io.github.probkit.redis.RedisBloomFilter.open(store, "live");
                while (merging.get()) {
                  List<String> batch = new java.util.ArrayList<>();
                  for (int i = 0; i < 500; i++) {
                    batch.add("live" + batches.get() + "-" + i);
                  }
                  f.addAll(batch);
                  added.addAll(batch);
                  batches.incrementAndGet();
                }
              }
            });
    while (batches.get() < 3 && !adder.isDone()) {
      Thread.sleep(1);
    }
    int before = batches.get();
    ok("filter", "merge", uri("live"), file.toString());
    int after = batches.get();
    merging.set(false);
    adder.get();
    assertThat(after - before - 1).as("batches added wholly during the merge").isGreaterThan(0);
    added.forEach(all::add);
    java.io.ByteArrayOutputStream expected = new java.io.ByteArrayOutputStream();
    all.writeTo(expected);
    assertThat(java.util.Arrays.equals(export("live", dir), expected.toByteArray()))
        .as(
            "the export equals the library's filter of the source and the %d keys added",
            added.size())
        .isTrue();
  }

  /** Another shape, type or structure: one line naming both, exit 1, DEST unchanged. */
  @Test
  void mismatchedMergesAreRefusedLeavingRedisUnchanged() throws IOException {
    Path small = dir.resolve("small.bin");
    Path big = dir.resolve("big.bin");
    ok("filter", "create", small.toString(), "--expected", "1000");
    ok("filter", "create", big.toString(), "--expected", "2000");
    ok("filter", "add", small.toString(), "a", "b");
    ok("filter", "merge", uri("shaped"), small.toString());
    byte[] before = export("shaped", dir);
    Cli size = Cli.run("filter", "merge", uri("shaped"), big.toString());
    assertThat(size.exit).isEqualTo(1);
    assertThat(size.err.lines()).hasSize(1);
    assertThat(size.err)
        .startsWith("probkit: " + big + ": cannot merge a bloom filter of 19171 bits, 7 hashes")
        .contains("into 'shaped', a bloom filter of 9586 bits, 7 hashes")
        .endsWith("; nothing was changed\n");
    Path counting = dir.resolve("counting.bin");
    ok("filter", "create", counting.toString(), "--type", "counting", "--expected", "1000");
    Cli type = Cli.run("filter", "merge", uri("shaped"), counting.toString());
    assertThat(type.exit).isEqualTo(1);
    assertThat(type.err).startsWith("probkit: " + counting + ": cannot merge a counting filter");
    assertThat(export("shaped", dir)).isEqualTo(before);

    ok("cms", "create", uri("cons"), "--width", "100", "--depth", "3", "--conservative");
    ok("cms", "add", uri("cons"), "x");
    Path standard = dir.resolve("standard.cms");
    ok("cms", "create", standard.toString(), "--width", "100", "--depth", "3");
    byte[] cons = export("cons", dir);
    Cli rule = Cli.run("cms", "merge", uri("cons"), standard.toString());
    assertThat(rule.exit).isEqualTo(1);
    assertThat(rule.err)
        .isEqualTo(
            "probkit: "
                + standard
                + ": cannot merge a count-min sketch of 100 x 3, standard, xxh3(seed=0x0) into"
                + " 'cons', a count-min sketch of 100 x 3, conservative, xxh3(seed=0x0), 1 shard"
                + " (slot); nothing was changed\n");
    assertThat(export("cons", dir)).isEqualTo(cons);

    // Structures merge cannot take in Redis.
    ok("hll", "create", uri("hll-dest"));
    Cli hll = Cli.run("cms", "merge", uri("hll-dest"), standard.toString());
    assertThat(hll.exit).isEqualTo(1);
    assertThat(hll.err).startsWith("probkit: " + uri("hll-dest") + ": a hyperloglog");
    ok("filter", "create", uri("scal"), "--type", "scalable", "--expected", "100");
    Cli scalable = Cli.run("filter", "merge", uri("scal"), small.toString());
    assertThat(scalable.exit).isEqualTo(1);
    assertThat(scalable.err)
        .contains("merging into Redis is supported for bloom, blocked and counting filters");
  }

  @Test
  void mergesWithBadUrisAreOneLine() throws IOException {
    Path a = dir.resolve("a.bin");
    ok("filter", "create", a.toString(), "--expected", "100");
    int port = RedisServerPorts.free();
    // No retries (badUrisAndUnreachableServersAreOneLine waits through them once).
    String down = "redis://127.0.0.1:" + port + "/x?retries=0";
    for (String[] args :
        List.of(
            new String[] {"filter", "merge", down, a.toString()},
            new String[] {"filter", "merge", dir.resolve("out.bin").toString(), a.toString(), down},
            new String[] {"cms", "merge", down, a.toString()})) {
      Cli c = Cli.run(args);
      assertThat(c.exit).as(c.toString()).isEqualTo(1);
      assertThat(c.err.lines()).as(c.toString()).hasSize(1);
      assertThat(c.err).as(c.toString()).isNotEmpty();
    }
    assertThat(Cli.run("filter", "merge", down, a.toString()).err)
        .startsWith("probkit: redis 127.0.0.1:" + port + ": unreachable or timed out");
    assertThat(Files.exists(dir.resolve("out.bin"))).isFalse();
    Cli noKey = Cli.run("filter", "merge", server.uri(), a.toString());
    assertThat(noKey.exit).isEqualTo(2);
    assertThat(noKey.err).startsWith("probkit: a redis URI names the structure after the host");
    Cli missing = Cli.run("filter", "merge", uri("m"), a.toString(), uri("no-such"));
    assertThat(missing.exit).isEqualTo(1);
    assertThat(missing.err)
        .isEqualTo(
            "probkit: redis "
                + server.hostPort()
                + ": no probkit structure named 'no-such' (key '{no-such}' does not exist)\n");
    Cli notThere = Cli.run("filter", "query", "-q", uri("m"), "k");
    assertThat(notThere.exit).as("nothing was created").isEqualTo(2);
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
        .contains("io.github.probkit.cli.command.FilterCommand")
        .doesNotContain("redis.clients")
        .doesNotContain("io.github.probkit.redis");
    // merge, whose SRCs and DEST may be URIs, on files too.
    Path cms = dir.resolve("c.cms");
    ok("cms", "create", cms.toString(), "--width", "10", "--depth", "2");
    // The window commands, which ask a location for its structure's type, on files too.
    Path windowed = dir.resolve("w.hll");
    ok("hll", "create", windowed.toString(), "--window", "1h");
    for (List<String> args :
        List.of(
            List.of("filter", "merge", dir.resolve("u.bin").toString(), file.toString()),
            List.of("cms", "merge", dir.resolve("u.cms").toString(), cms.toString()),
            List.of("hll", "count", windowed.toString(), "--last", "10m"))) {
      Probkit.Result m =
          Probkit.finish(
              Probkit.builder(List.of("-verbose:class"), args.toArray(new String[0])).start());
      assertThat(m.exit()).as(m.toString()).isZero();
      assertThat(m.out())
          .as(String.join(" ", args))
          .contains("io.github.probkit.cli.location.SketchFiles")
          .doesNotContain("redis.clients")
          .doesNotContain("io.github.probkit.redis");
    }
  }

  /**
   * The README's command-line example of a HyperLogLog in Redis, run as written (its host replaced
   * by this server): each command succeeds, and the count is the example's.
   */
  @Test
  void theReadmeHyperLogLogExampleRunsAsWritten() throws IOException {
    String host = "redis://cache:6380";
    List<String> commands = new ArrayList<>();
    for (String line : Files.readAllLines(Path.of("..", "README.md"))) {
      if (line.strip().startsWith("probkit hll ") && line.contains(host + "/")) {
        for (String command : line.strip().split(" && ")) {
          commands.add(command.replace(host, server.uri()));
        }
      }
    }
    assertThat(commands).isNotEmpty();
    Cli last = null;
    for (String command : commands) {
      String[] words = command.split(" +");
      assertThat(words[0]).isEqualTo("probkit");
      last = Cli.run(Arrays.copyOfRange(words, 1, words.length));
      assertThat(last.exit).as(command + "\n" + last).isZero();
    }
    assertThat(commands.get(commands.size() - 1)).contains("hll count");
    assertThat(last.out).isEqualTo("2\n");
  }

  // ---- issue 29: the command line over Redis

  /** Help text without its white space, which wrapping changes. */
  private static String help(String... command) {
    List<String> args = new ArrayList<>(List.of(command));
    args.add("--help");
    return ok(args.toArray(new String[0])).out.replaceAll("\\s+", "");
  }

  @Test
  void everyCommandThatTakesAFileSaysItTakesARedisUriAndWhichTypes() {
    String uri =
        "Orredis://[user@]host[:port][/db]/KEY(rediss://forTLS;redis+cluster://h1:p1,h2:p2/KEY,"
            + "redis+sentinel://MASTER@h1:p1,h2:p2/KEY):";
    for (String command : List.of("create", "add", "remove", "query", "merge")) {
      assertThat(help("filter", command))
          .as("filter " + command)
          .contains(uri + "abloom,blocked,counting,scalableorwindowfilterkeptinRedis.");
    }
    for (String command : List.of("create", "add", "query", "merge")) {
      assertThat(help("cms", command))
          .as("cms " + command)
          .contains(uri + "acount-minsketch,windowedornot,keptinRedis.");
    }
    for (String command : List.of("create", "add", "count", "merge")) {
      assertThat(help("hll", command))
          .as("hll " + command)
          .contains(uri + "aHyperLogLogorUltraLogLog,windowedornot,keptinRedis.");
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
