package io.github.probkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.hash.Funnels;
import io.github.probkit.redis.RedisServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongPredicate;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;
import org.apache.datasketches.hll.HllSketch;
import org.apache.datasketches.hll.TgtHllType;
import org.apache.spark.util.sketch.CountMinSketch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * Files and keys the other libraries made themselves (Guava, Spark's sketch jar, DataSketches, a
 * real redis-server's PFADD), queried and converted through the command line: every answer is the
 * library's own, key for key.
 */
class ForeignFormatsCliTest {
  private static final int N = 10_000;

  @TempDir Path dir;

  private static Cli ok(String... args) {
    Cli c = Cli.run(args);
    assertThat(c.exit).as(c.toString()).isZero();
    return c;
  }

  /** One line on stderr, no stack trace, exit 1; returns it. */
  private static String refused(String... args) {
    Cli c = Cli.run(args);
    assertThat(c.exit).as(c.toString()).isEqualTo(1);
    assertThat(c.err.trim().lines().count()).as(c.err).isEqualTo(1);
    assertThat(c.err).doesNotContain("\tat ");
    return c.err;
  }

  private Path write(String name, byte[] bytes) throws IOException {
    Path p = dir.resolve(name);
    Files.write(p, bytes);
    return p;
  }

  private Path writeWith(String name, StructureFiles.Content w) throws IOException {
    return StructureFiles.write(dir.resolve(name), w);
  }

  /** N present keys then N absent ones, one per line. */
  private Path keys(String name, List<String> keys) throws IOException {
    return Files.write(dir.resolve(name), keys);
  }

  private static List<String> strings(String prefix) {
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < N; i++) {
      keys.add(prefix + i);
    }
    return keys;
  }

  private static List<String> longs(long from, long step) {
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < N; i++) {
      keys.add(Long.toString(from + i * step));
    }
    return keys;
  }

  private static List<String> both(List<String> a, List<String> b) {
    List<String> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }

  /** Checks every KEY TAB present|absent line against {@code library}; returns how many present. */
  private static int assertFilterAnswers(
      Cli c, List<String> keys, Predicate<String> library, List<String> added) {
    List<String> lines = c.out.lines().toList();
    assertThat(lines).hasSize(keys.size());
    int present = 0;
    for (int i = 0; i < keys.size(); i++) {
      String key = keys.get(i);
      boolean answer = library.test(key);
      assertThat(lines.get(i)).isEqualTo(key + "\t" + (answer ? "present" : "absent"));
      present += answer ? 1 : 0;
    }
    for (String k : added) {
      assertThat(library.test(k)).isTrue();
    }
    return present;
  }

  /**
   * Queries {@code file}, a {@code format} filter, for {@code added} and then {@code others} as
   * longs: every line answers as the library does, and the library has every added key.
   */
  private void assertLongAnswers(
      String format, Path file, List<String> added, List<String> others, LongPredicate library)
      throws IOException {
    List<String> keys = both(added, others);
    Cli c =
        ok(
            "filter",
            "query",
            "--file-format",
            format,
            "--long",
            file.toString(),
            "--keys",
            keys(format + "-longs.txt", keys).toString());
    assertFilterAnswers(c, keys, k -> library.test(Long.parseLong(k)), added);
  }

  @Test
  void aGuavaFilterAnswersAsGuavaForStringsAndLongs() throws IOException {
    com.google.common.hash.BloomFilter<CharSequence> strings =
        com.google.common.hash.BloomFilter.create(
            Funnels.stringFunnel(StandardCharsets.UTF_8), N, 0.01);
    List<String> added = strings("user:");
    added.forEach(strings::put);
    Path file = writeWith("strings.guava", strings::writeTo);
    List<String> keys = both(added, strings("other:é"));
    Cli c =
        ok(
            "filter",
            "query",
            "--file-format",
            "guava",
            file.toString(),
            "--keys",
            keys("s.txt", keys).toString());
    int present = assertFilterAnswers(c, keys, strings::mightContain, added);
    assertThat(present).isGreaterThan(N).isLessThan(N + N / 20);

    com.google.common.hash.BloomFilter<Long> longs =
        com.google.common.hash.BloomFilter.create(Funnels.longFunnel(), N, 0.01);
    List<String> addedLongs = longs(-5_000_000_000L, 7919);
    addedLongs.forEach(k -> longs.put(Long.parseLong(k)));
    assertLongAnswers(
        "guava",
        writeWith("longs.guava", longs::writeTo),
        addedLongs,
        longs(1, 3),
        longs::mightContain);

    assertThat(ok("filter", "info", "--format", "guava", file.toString()).out)
        .contains("MURMUR128_MITZ_64")
        .contains("none in the format");
  }

  @Test
  void guavaFilesAreRefusedInOneLineWhereTheyCannotBeRead() throws IOException {
    com.google.common.hash.BloomFilter<CharSequence> g =
        com.google.common.hash.BloomFilter.create(
            Funnels.stringFunnel(StandardCharsets.UTF_8), 100, 0.01);
    g.put("a");
    Path file = writeWith("f.guava", g::writeTo);
    Path out = dir.resolve("f.bin");
    Path bad = dir.resolve("bad.guava");
    Files.write(bad, new byte[] {2, 3, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0});
    assertThat(refused("filter", "import", "--format", "guava", bad.toString(), out.toString()))
        .contains("strategy ordinal 2 is not one probkit reads");
    assertThat(out).doesNotExist();
    // Unnamed, it has no mark of its own: probkit's reader names the bytes.
    assertThat(refused("filter", "query", file.toString(), "a")).contains("not a probkit file");
    Path missing = dir.resolve("missing.guava");
    assertThat(refused("filter", "query", "--file-format", "guava", missing.toString(), "a"))
        .contains("missing.guava: no such file");
    // A strategy Guava may add later, which probkit does not know.
    byte[] bytes = Files.readAllBytes(file);
    bytes[0] = 2;
    Path unknown = write("unknown.guava", bytes);
    assertThat(refused("filter", "query", "--file-format", "guava", unknown.toString(), "a"))
        .contains("strategy ordinal 2");
    // A probkit file named as Guava's.
    Path probkit = dir.resolve("p.bin");
    assertThat(
            Cli.runWithInput("a\n", "filter", "create", probkit.toString(), "--expected", "100")
                .exit)
        .isZero();
    assertThat(refused("filter", "query", "--file-format", "guava", probkit.toString(), "a"))
        .contains("not a guava file (its first bytes are a probkit file's)");
    assertThat(refused("filter", "export", "--format", "guava", probkit.toString(), out.toString()))
        .contains("is not a Guava filter");
    assertThat(out).doesNotExist();
    Cli longOnProbkit = Cli.run("filter", "query", "--long", probkit.toString(), "1");
    assertThat(longOnProbkit.exit).isEqualTo(2);
    assertThat(longOnProbkit.err).contains("--long").contains("probkit filter");
    Cli notALong =
        Cli.run("filter", "query", "--file-format", "guava", "--long", file.toString(), "x1");
    assertThat(notALong.exit).isEqualTo(2);
    assertThat(notALong.err).contains("key 'x1' is not a decimal long");
  }

  /** Imports {@code foreign} in {@code format}, checks its answers and exports it back. */
  private Path importAndExport(
      String format, Path foreign, List<String> keys, Predicate<String> library, boolean longs)
      throws IOException {
    Path bin = dir.resolve(foreign.getFileName() + ".bin");
    ok("filter", "import", "--format", format, foreign.toString(), bin.toString());
    assertThat(ok("filter", "info", bin.toString()).out).contains(format);
    List<String> args =
        new ArrayList<>(
            List.of("filter", "query", bin.toString(), "--keys", keys("q.txt", keys).toString()));
    if (longs) {
      args.add("--long");
    }
    int present = assertFilterAnswers(ok(args.toArray(String[]::new)), keys, library, List.of());
    assertThat(present).isGreaterThanOrEqualTo(N).isLessThan(N + N / 10);
    Path back = dir.resolve(foreign.getFileName() + ".back");
    ok("filter", "export", "--format", format, bin.toString(), back.toString());
    assertThat(Files.readAllBytes(back)).isEqualTo(Files.readAllBytes(foreign));
    return bin;
  }

  @Test
  void guavaAndSparkFiltersImportToProbkitAndExportBackByteForByte() throws IOException {
    com.google.common.hash.BloomFilter<CharSequence> gs =
        com.google.common.hash.BloomFilter.create(
            Funnels.stringFunnel(StandardCharsets.UTF_8), N, 0.01);
    List<String> added = strings("user:é");
    added.forEach(gs::put);
    List<String> keys = both(added, strings("other:"));
    Path guavaBin =
        importAndExport("guava", writeWith("s.guava", gs::writeTo), keys, gs::mightContain, false);

    com.google.common.hash.BloomFilter<Long> gl =
        com.google.common.hash.BloomFilter.create(Funnels.longFunnel(), N, 0.01);
    List<String> addedLongs = longs(-5_000_000_000L, 7919);
    addedLongs.forEach(k -> gl.put(Long.parseLong(k)));
    importAndExport(
        "guava",
        writeWith("l.guava", gl::writeTo),
        both(addedLongs, longs(1, 3)),
        k -> gl.mightContain(Long.parseLong(k)),
        true);

    org.apache.spark.util.sketch.BloomFilter ss =
        org.apache.spark.util.sketch.BloomFilter.create(N, 0.01);
    added.forEach(ss::putString);
    importAndExport(
        "spark", writeWith("s.spark", ss::writeTo), keys, ss::mightContainString, false);
    org.apache.spark.util.sketch.BloomFilter sl =
        org.apache.spark.util.sketch.BloomFilter.create(N, 0.03);
    addedLongs.forEach(k -> sl.putLong(Long.parseLong(k)));
    importAndExport(
        "spark",
        writeWith("l.spark", sl::writeTo),
        both(addedLongs, longs(1, 3)),
        k -> sl.mightContainLong(Long.parseLong(k)),
        true);

    // A flipped byte in the probkit file: refused before any answer.
    byte[] bytes = Files.readAllBytes(guavaBin);
    bytes[bytes.length / 2] ^= 0x10;
    Path flipped = write("flipped.bin", bytes);
    assertThat(refused("filter", "query", flipped.toString(), "user:é1")).contains("flipped.bin");
    // A Guava filter is not a Spark one: one line, no file.
    Path out = dir.resolve("no.spark");
    assertThat(
            refused("filter", "export", "--format", "spark", guavaBin.toString(), out.toString()))
        .contains("is not a Spark filter");
    assertThat(out).doesNotExist();
  }

  @Test
  void aSparkFilterIsRecognizedAndAnswersAsSpark() throws IOException {
    org.apache.spark.util.sketch.BloomFilter s =
        org.apache.spark.util.sketch.BloomFilter.create(N, 0.01);
    List<String> added = strings("spark-ключ-");
    added.forEach(s::putString);
    Path file = writeWith("f.spark", s::writeTo);
    List<String> keys = both(added, strings("absent-"));
    Cli c = ok("filter", "query", file.toString(), "--keys", keys("k.txt", keys).toString());
    assertFilterAnswers(c, keys, s::mightContainString, added);

    org.apache.spark.util.sketch.BloomFilter l =
        org.apache.spark.util.sketch.BloomFilter.create(N, 0.03);
    List<String> addedLongs = longs(Long.MIN_VALUE / 2, 104729);
    addedLongs.forEach(k -> l.putLong(Long.parseLong(k)));
    assertLongAnswers(
        "spark", writeWith("l.spark", l::writeTo), addedLongs, longs(0, 1), l::mightContainLong);

    // No checksum: a cut-off file is refused by its length; a Spark sketch is not a filter.
    byte[] bytes = Files.readAllBytes(file);
    Path cut = write("cut.spark", java.util.Arrays.copyOf(bytes, bytes.length - 3));
    assertThat(refused("filter", "query", cut.toString(), "a")).contains("cut.spark");
    assertThat(refused("hll", "count", file.toString())).contains("spark");
  }

  @Test
  void aSparkCountMinSketchEstimatesAsSpark() throws IOException {
    CountMinSketch s = CountMinSketch.create(0.001, 0.99, 42);
    List<String> added = strings("term-");
    for (int i = 0; i < added.size(); i++) {
      s.add(added.get(i), 1 + i % 4);
    }
    CountMinSketch l = CountMinSketch.create(0.002, 0.95, 7);
    List<String> addedLongs = longs(-1_000_000, 31);
    for (String k : addedLongs) {
      l.add(Long.parseLong(k), 3);
    }
    Path file = writeWith("t.cms", s::writeTo);
    Path longFile = writeWith("l.cms", l::writeTo);
    List<String> items = both(added, strings("never-"));
    Cli c = ok("cms", "query", file.toString(), "--items", keys("i.txt", items).toString());
    assertEstimates(c, items, s::estimateCount);
    List<String> longItems = both(addedLongs, longs(5, 17));
    Cli lc =
        ok(
            "cms",
            "query",
            "--file-format",
            "spark",
            "--long",
            longFile.toString(),
            "--items",
            keys("li.txt", longItems).toString());
    assertEstimates(lc, longItems, k -> l.estimateCount(Long.parseLong(k)));

    assertThat(ok("cms", "info", "--format", "spark", file.toString()).out)
        .contains("count-min")
        .contains(Long.toString(s.totalCount()));
    // probkit info, which is not told the family, says it is Spark's count-min sketch.
    assertThat(ok("info", file.toString()).out)
        .contains("spark")
        .contains("count-min")
        .contains(Long.toString(s.totalCount()));
    assertThat(ok("info", "--json", longFile.toString()).out)
        .contains("\"format\": \"spark\"")
        .contains("\"type\": \"count-min\"");
    Path out = dir.resolve("t.bin");
    assertThat(refused("cms", "import", "--format", "spark", file.toString(), out.toString()))
        .contains("Murmur3");
    assertThat(out).doesNotExist();
  }

  /**
   * Spark's Bloom filter and count-min sketch both start with version 1: each given to the other
   * family's commands (and Guava's and unknown bytes to the wrong command) is refused in one line
   * naming the file, what it is and the command that reads it; no file is written.
   */
  @Test
  void filesOfTheOtherFamilyAreRefusedNamingWhatTheyAre() throws IOException {
    CountMinSketch cms = CountMinSketch.create(0.01, 0.99, 1);
    cms.add("x", 3);
    Path cmsFile = writeWith("c.spark", cms::writeTo);
    org.apache.spark.util.sketch.BloomFilter bloom =
        org.apache.spark.util.sketch.BloomFilter.create(100, 0.01);
    bloom.putString("x");
    Path bloomFile = writeWith("b.spark", bloom::writeTo);
    com.google.common.hash.BloomFilter<CharSequence> g =
        com.google.common.hash.BloomFilter.create(
            Funnels.stringFunnel(StandardCharsets.UTF_8), 100, 0.01);
    g.put("x");
    Path guava = writeWith("g.guava", g::writeTo);
    Path garbage = write("garbage.txt", "hello, not a sketch\n".getBytes(StandardCharsets.UTF_8));
    Path out = dir.resolve("out.bin");

    String c = cmsFile.toString();
    for (String[] args :
        List.of(
            new String[] {"filter", "import", "--format", "spark", c, out.toString()},
            new String[] {"filter", "query", c, "x"},
            new String[] {"filter", "query", "--file-format", "spark", c, "x"},
            new String[] {"filter", "info", c})) {
      assertThat(refused(args))
          .as(String.join(" ", args))
          .contains(c + ": a Spark count-min sketch, not a filter")
          .contains("cms query")
          .doesNotContain("hash functions");
    }
    String b = bloomFile.toString();
    for (String[] args :
        List.of(
            new String[] {"cms", "import", "--format", "spark", b, out.toString()},
            new String[] {"cms", "query", b, "x"},
            new String[] {"cms", "query", "--file-format", "spark", b, "x"},
            new String[] {"cms", "info", b})) {
      assertThat(refused(args))
          .as(String.join(" ", args))
          .contains(b + ": a Spark Bloom filter, not a count-min sketch")
          .contains("filter import --format spark");
    }
    assertThat(refused("hll", "import", "--format", "spark", b, out.toString()))
        .contains(b + ": a Spark Bloom filter, not a cardinality sketch");
    assertThat(refused("filter", "import", "--format", "guava", c, out.toString()))
        .contains(c + ": not a guava file (it is a Spark count-min sketch)");
    assertThat(refused("cms", "import", "--format", "guava", guava.toString(), out.toString()))
        .contains(guava + ": guava: Guava's writeTo form holds a Bloom filter, not a count-min")
        .contains("filter import --format guava");
    assertThat(refused("cms", "query", "--file-format", "guava", guava.toString(), "x"))
        .contains(guava + ": guava: Guava's writeTo form holds a Bloom filter");
    assertThat(refused("filter", "import", "--format", "spark", garbage.toString(), out.toString()))
        .contains(garbage + ": not a spark file (its first bytes, 68 65 6c 6c, are no known");
    assertThat(refused("cms", "import", "--format", "spark", garbage.toString(), out.toString()))
        .contains(garbage + ": not a spark file");
    assertThat(refused("filter", "import", "--format", "guava", garbage.toString(), out.toString()))
        .contains(garbage + ": guava BloomFilter: strategy ordinal 104");
    assertThat(out).doesNotExist();
    // Each is still read by its own family.
    assertThat(ok("cms", "query", c, "x").out).isEqualTo("x\t" + cms.estimateCount("x") + "\n");
    assertThat(ok("filter", "query", b, "x").out).isEqualTo("x\tpresent\n");
  }

  private static void assertEstimates(Cli c, List<String> items, ToLongFunction<String> library) {
    List<String> lines = c.out.lines().toList();
    assertThat(lines).hasSize(items.size());
    for (int i = 0; i < items.size(); i++) {
      assertThat(lines.get(i)).isEqualTo(items.get(i) + "\t" + library.applyAsLong(items.get(i)));
    }
  }

  @Test
  void redisHyperLogLogsCountAsPfcountAndConvertBothWays() throws IOException {
    try (RedisServer server = RedisServer.start();
        Jedis jedis = new Jedis("127.0.0.1", port(server))) {
      List<String> items = strings("visitor:");
      List<String> others = strings("other:");
      for (int i = 0; i < N; i += 1000) {
        jedis.pfadd("visitors", items.subList(i, i + 1000).toArray(String[]::new));
        jedis.pfadd("others", others.subList(i, i + 1000).toArray(String[]::new));
      }
      jedis.pfadd("few", "a", "b", "c", "d", "e"); // sparse
      long pfcount = jedis.pfcount("visitors");
      String uri = server.uri() + "/visitors";

      // The key PFADD built, read in place.
      assertThat(ok("hll", "count", uri).out).isEqualTo(pfcount + "\n");
      assertThat(ok("hll", "count", server.uri() + "/few").out)
          .isEqualTo(jedis.pfcount("few") + "\n");
      assertThat(ok("hll", "info", uri).out).contains("HYLL").contains(Long.toString(pfcount));

      // Its string, as GET returns it, imported to a probkit file.
      Path hyll = write("visitors.hyll", jedis.get("visitors".getBytes(StandardCharsets.UTF_8)));
      assertThat(ok("hll", "count", hyll.toString()).out).isEqualTo(pfcount + "\n");
      Path imported = dir.resolve("visitors.hll");
      ok("hll", "import", "--format", "redis", hyll.toString(), imported.toString());
      assertThat(ok("hll", "count", imported.toString()).out).isEqualTo(pfcount + "\n");
      Path fromKey = dir.resolve("key.hll");
      ok("hll", "import", "--format", "redis", uri, fromKey.toString());
      assertThat(Files.readAllBytes(fromKey)).isEqualTo(Files.readAllBytes(imported));

      // A probkit sketch of Redis's hashing, exported: the very bytes PFADD made.
      Path mine = dir.resolve("mine.hll");
      ok(
          "hll",
          "create",
          mine.toString(),
          "--hash",
          "redis",
          "--items",
          keys("v.txt", items).toString());
      Path exported = dir.resolve("mine.hyll");
      ok("hll", "export", "--format", "redis", mine.toString(), exported.toString());
      // (Byte for byte but for the cached count of bytes 8..15, which PFCOUNT above filled in.)
      byte[] ours = Files.readAllBytes(exported);
      byte[] redis = Files.readAllBytes(hyll);
      assertThat(ours).hasSize(16 + 12288);
      assertThat(java.util.Arrays.copyOfRange(ours, 16, ours.length))
          .isEqualTo(java.util.Arrays.copyOfRange(redis, 16, redis.length));
      assertThat(java.util.Arrays.copyOf(ours, 8)).isEqualTo(java.util.Arrays.copyOf(redis, 8));
      jedis.set("mine".getBytes(StandardCharsets.UTF_8), Files.readAllBytes(exported));
      assertThat(jedis.pfcount("mine")).isEqualTo(pfcount);

      // Merged with a probkit sketch of the same hashing: PFCOUNT's answer for the union.
      Path theirs = dir.resolve("others.hll");
      ok(
          "hll",
          "create",
          theirs.toString(),
          "--hash",
          "redis",
          "--items",
          keys("o.txt", others).toString());
      assertThat(ok("hll", "count", uri, theirs.toString()).out)
          .isEqualTo(jedis.pfcount("visitors", "others") + "\n");
      Path union = dir.resolve("union.hll");
      ok("hll", "merge", union.toString(), hyll.toString(), theirs.toString());
      assertThat(ok("hll", "count", union.toString()).out)
          .isEqualTo(jedis.pfcount("visitors", "others") + "\n");

      // Merged and added into the key itself: PFMERGE and PFADD, the key stays Redis's own.
      long both = jedis.pfcount("visitors", "others");
      ok("hll", "merge", uri, theirs.toString());
      assertThat(jedis.pfcount("visitors")).isEqualTo(both);
      assertThat(jedis.type("visitors")).isEqualTo("string");
      assertThat(Cli.runWithInput("f\ng\n", "hll", "add", server.uri() + "/few").exit).isZero();
      jedis.pfadd("sameFew", "a", "b", "c", "d", "e", "f", "g");
      byte[] few = jedis.get("few".getBytes(StandardCharsets.UTF_8));
      byte[] sameFew = jedis.get("sameFew".getBytes(StandardCharsets.UTF_8));
      // The registers (past the header's cached count, which a PFCOUNT above filled in).
      assertThat(java.util.Arrays.copyOfRange(few, 16, few.length))
          .isEqualTo(java.util.Arrays.copyOfRange(sameFew, 16, sameFew.length));

      // Refused in one line: another hashing, a file that is not the named format.
      Path xxh3 = dir.resolve("x.hll");
      assertThat(Cli.runWithInput("a\nb\n", "hll", "create", xxh3.toString()).exit).isZero();
      assertThat(
              refused(
                  "hll",
                  "export",
                  "--format",
                  "redis",
                  xxh3.toString(),
                  dir.resolve("x.hyll").toString()))
          .contains("redis HYLL");
      assertThat(dir.resolve("x.hyll")).doesNotExist();
      assertThat(refused("hll", "merge", uri, xxh3.toString())).contains("hash");
      assertThat(jedis.pfcount("visitors")).isEqualTo(both);
      assertThat(refused("hll", "count", "--format", "redis", xxh3.toString()))
          .contains("not a redis file (its first bytes are a probkit file's)");
      assertThat(refused("hll", "count", "--format", "datasketches", hyll.toString()))
          .contains("not a datasketches file (its first bytes are a redis file's)");
      // No checksum: a register no Redis writes (63 > 51) is refused.
      byte[] bad = Files.readAllBytes(hyll);
      bad[16] |= 0x3f;
      assertThat(refused("hll", "count", write("bad.hyll", bad).toString())).contains("register");
    }
  }

  private static int port(RedisServer server) {
    String hp = server.hostPort();
    return Integer.parseInt(hp.substring(hp.lastIndexOf(':') + 1));
  }

  @Test
  void dataSketchesConvertBothWaysWithItsRegisters() throws IOException {
    HllSketch ds = new HllSketch(12, TgtHllType.HLL_4);
    for (int i = 0; i < N; i++) {
      ds.update("item-" + i);
    }
    Path file = write("s.ds", ds.toCompactByteArray());
    Path imported = dir.resolve("s.hll");
    ok("hll", "import", "--format", "datasketches", file.toString(), imported.toString());
    Path back = dir.resolve("back.ds");
    ok("hll", "export", "--format", "datasketches", imported.toString(), back.toString());
    HllSketch read = HllSketch.heapify(Files.readAllBytes(back));
    assertThat(read.getLgConfigK()).isEqualTo(12);
    // The same registers: DataSketches' union of the two is the original's registers again.
    org.apache.datasketches.hll.Union u = new org.apache.datasketches.hll.Union(12);
    u.update(read);
    HllSketch justBack = u.getResult(TgtHllType.HLL_8);
    u.update(ds);
    assertThat(registers(u.getResult(TgtHllType.HLL_8))).isEqualTo(registers(justBack));
    assertThat(read.getEstimate())
        .isCloseTo(ds.getEstimate(), org.assertj.core.data.Percentage.withPercentage(2));

    // Items probkit adds with DataSketches' hashing land where DataSketches puts them.
    Path mine = dir.resolve("mine.hll");
    List<String> items = new ArrayList<>();
    for (int i = 0; i < N; i++) {
      items.add("item-" + i);
    }
    ok(
        "hll",
        "create",
        mine.toString(),
        "-p",
        "12",
        "--hash",
        "datasketches",
        "--items",
        keys("i.txt", items).toString());
    Path mineDs = dir.resolve("mine.ds");
    ok("hll", "export", "--format", "datasketches", mine.toString(), mineDs.toString());
    org.apache.datasketches.hll.Union v = new org.apache.datasketches.hll.Union(12);
    v.update(HllSketch.heapify(Files.readAllBytes(mineDs)));
    v.update(ds);
    assertThat(registers(v.getResult(TgtHllType.HLL_8))).isEqualTo(registers(justBack));
  }

  /** An HLL_8 sketch's preamble without its HIP accumulator (bytes 8..15), and its slots. */
  private static byte[] registers(HllSketch s) {
    byte[] b = s.toCompactByteArray();
    java.util.Arrays.fill(b, 8, 16, (byte) 0);
    return b;
  }
}
