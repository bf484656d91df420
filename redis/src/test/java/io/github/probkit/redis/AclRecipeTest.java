package io.github.probkit.redis;

import static io.github.probkit.redis.StoreTest.keys;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.frequency.HeavyHitters;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * The least-privilege ACL recipe of docs/REDIS.md, read from the doc itself and run as written on a
 * real redis-server: as that user every structure is created, added to, queried, exported (and
 * imported) and deleted, each windowed one rotated through many slices (every slot cleared, a
 * summary evicting) and its memory read as {@code info} reads it; a structure outside the user's
 * keys is refused with {@code NOPERM}.
 */
class AclRecipeTest {
  private static final String PASSWORD = "crawler-pw";
  private static final long MINUTE = 60_000L;

  static RedisServer server;

  @BeforeAll
  static void start() throws IOException {
    server = RedisServer.start();
    List<String> rules = recipe();
    try (Jedis j = new Jedis("127.0.0.1", server.port())) {
      j.aclSetUser(rules.get(0), rules.subList(1, rules.size()).toArray(new String[0]));
    }
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  /**
   * The user and rules of the doc's one {@code ACL SETUSER} line, its password placeholder set: the
   * test runs what a reader would paste.
   */
  static List<String> recipe() throws IOException {
    List<String> found = new ArrayList<>();
    for (String line : Files.readAllLines(Path.of("..", "docs", "REDIS.md"))) {
      if (line.startsWith("ACL SETUSER ")) {
        found.add(line);
      }
    }
    assertThat(found).as("ACL SETUSER lines in docs/REDIS.md").hasSize(1);
    List<String> words = new ArrayList<>(Arrays.asList(found.get(0).trim().split(" +")));
    assertThat(words).contains(">PASSWORD");
    words.replaceAll(w -> w.equals(">PASSWORD") ? ">" + PASSWORD : w);
    return words.subList(2, words.size());
  }

  /** Adds {@code k}, then asks for it: every key is found. */
  private static void assertFindsWhatItAdds(
      Consumer<List<Object>> add, Function<List<Object>, boolean[]> query, List<Object> k) {
    add.accept(k);
    assertThat(query.apply(k)).containsOnly(true);
  }

  private static RedisStore asCrawler() {
    return RedisStore.connect("redis://crawler:" + PASSWORD + "@127.0.0.1:" + server.port() + "/");
  }

  @Test
  void theRecipeCreatesAddsAndQueriesEveryPlainType() {
    try (RedisStore s = asCrawler()) {
      List<Object> k = keys("u", 300);
      RedisBloomFilter b =
          RedisBloomFilter.create(s, "crawl-bloom", 1000, 0.01, RedisOptions.defaults());
      assertFindsWhatItAdds(b::addAll, b::mightContainAll, k);
      RedisBloomFilter spread =
          RedisBloomFilter.create(
              s,
              "crawl-spread",
              1000,
              0.01,
              RedisOptions.defaults().layout(Layout.SPREAD).shards(3));
      assertFindsWhatItAdds(spread::addAll, spread::mightContainAll, k);
      RedisCountingBloomFilter c =
          RedisCountingBloomFilter.create(s, "crawl-counting", 1000, 0.01, RedisOptions.defaults());
      assertFindsWhatItAdds(c::addAll, c::mightContainAll, k);
      RedisScalableBloomFilter sc =
          RedisScalableBloomFilter.create(
              s, "crawl-scalable", 100, 0.01, 2, 0.8, RedisOptions.defaults());
      assertFindsWhatItAdds(sc::addAll, sc::mightContainAll, k);
      RedisCountMinSketch cms =
          RedisCountMinSketch.create(s, "crawl-cms", 1000, 4, false, RedisOptions.defaults());
      cms.addAll(k);
      assertThat(cms.estimate("u1")).isGreaterThanOrEqualTo(1);
      for (String name :
          new String[] {
            "crawl-bloom", "crawl-spread", "crawl-counting", "crawl-scalable", "crawl-cms"
          }) {
        assertThat(s.delete(name)).isTrue();
      }
      assertThatThrownBy(
              () -> RedisBloomFilter.create(s, "other", 1000, 0.01, RedisOptions.defaults()))
          .hasMessageContaining("not allowed: NOPERM")
          .hasMessageContaining("docs/REDIS.md");
    }
  }

  /**
   * Events over five hours, a minute apart, into windows of an hour: each window's slots are
   * cleared many times over, late events included (every tenth event an hour back).
   */
  private record Events(List<Object> keys, long[] times, long latest) {
    static Events of(String prefix) {
      int n = 300;
      List<Object> k = StoreTest.keys(prefix, n);
      long[] t = new long[n];
      long start = 1_764_633_600_000L; // 2025-12-02T00:00:00Z
      long latest = Long.MIN_VALUE;
      for (int i = 0; i < n; i++) {
        t[i] = start + i * MINUTE - (i % 10 == 9 ? 60 * MINUTE : 0);
        latest = Math.max(latest, t[i]);
      }
      return new Events(k, t, latest);
    }

    /** The keys of events within the last {@code minutes} before the latest. */
    List<Object> lastMinutes(long minutes) {
      List<Object> out = new ArrayList<>();
      for (int i = 0; i < keys.size(); i++) {
        if (times[i] > latest - minutes * MINUTE) {
          out.add(keys.get(i));
        }
      }
      return out;
    }
  }

  private static byte[] export(RedisStructure r) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    r.exportTo(out);
    return out.toByteArray();
  }

  /** Exports {@code r}, imports the file as {@code copy}, exports that: the same bytes. */
  private static void exportImport(RedisStore s, RedisStructure r, String copy) throws IOException {
    byte[] file = export(r);
    RedisStructure imported =
        s.importFrom(copy, new ByteArrayInputStream(file), RedisOptions.defaults());
    assertThat(export(imported)).isEqualTo(file);
    assertThat(r.memoryUsage()).isPositive();
    assertThat(s.delete(copy)).isTrue();
    assertThat(s.delete(r.name())).isTrue();
  }

  /** Without the recipe's {@code +zrem}, an evicting top-k add is refused as not allowed. */
  @Test
  void aRuleLeftOutIsReportedAsNotAllowed() throws IOException {
    List<String> rules = new ArrayList<>(recipe());
    rules.set(0, "short");
    assertThat(rules.remove("+zrem")).isTrue();
    try (Jedis j = new Jedis("127.0.0.1", server.port())) {
      j.aclSetUser(rules.get(0), rules.subList(1, rules.size()).toArray(new String[0]));
    }
    try (RedisStore s =
        RedisStore.connect("redis://short:" + PASSWORD + "@127.0.0.1:" + server.port() + "/")) {
      RedisWindowedHeavyHitters top =
          RedisWindowedHeavyHitters.create(
              s,
              "crawl-short",
              Duration.ofHours(1),
              Duration.ofMinutes(5),
              2,
              RedisOptions.defaults());
      assertThatThrownBy(() -> top.addAll(StoreTest.keys("t", 10), 1_764_633_600_000L))
          .hasMessageContaining("not allowed: NOPERM")
          .hasMessageContaining("docs/REDIS.md");
    }
  }

  @Test
  void theRecipeRunsEveryWindowedStructure() throws IOException {
    try (RedisStore s = asCrawler()) {
      Events e = Events.of("w");
      RedisOptions skew = RedisOptions.defaults().maxSkew(Duration.ofMinutes(5));

      RedisWindowedBloomFilter f =
          RedisWindowedBloomFilter.create(s, "crawl-wbf", Duration.ofHours(1), 100, 0.01, skew);
      f.addAll(e.keys(), e.times());
      assertThat(f.mightContainAll(e.lastMinutes(60), e.latest())).containsOnly(true);
      exportImport(s, f, "crawl-wbf-copy");

      RedisWindowedCardinality h =
          RedisWindowedCardinality.create(
              s, "crawl-whll", Duration.ofHours(1), Duration.ofMinutes(5), false, 10, skew);
      h.addAll(e.keys(), e.times());
      double exact = e.lastMinutes(60).size();
      assertThat(h.count(Duration.ofHours(1), e.latest())).isBetween(exact * 0.8, exact * 1.4);
      exportImport(s, h, "crawl-whll-copy");

      long[] ones = new long[e.keys().size()];
      Arrays.fill(ones, 1);
      RedisWindowedCountMin cms =
          RedisWindowedCountMin.create(
              s, "crawl-wcms", Duration.ofHours(1), Duration.ofMinutes(5), 200, 4, skew);
      cms.addAll(e.keys(), ones, e.times());
      List<Object> recent = e.lastMinutes(55);
      for (long estimate : cms.estimateAll(recent, Duration.ofMinutes(55), e.latest())) {
        assertThat(estimate).isGreaterThanOrEqualTo(1);
      }
      RedisWindowedCountMin merged =
          RedisWindowedCountMin.create(
              s, "crawl-wcms-merged", Duration.ofHours(1), Duration.ofMinutes(5), 200, 4, skew);
      merged.merge(cms.toWindowed());
      assertThat(export(merged)).isEqualTo(export(cms));
      assertThat(s.delete(merged.name())).isTrue();
      exportImport(s, cms, "crawl-wcms-copy");

      // A capacity far below the distinct items: every slice evicts.
      RedisWindowedHeavyHitters top =
          RedisWindowedHeavyHitters.create(
              s, "crawl-top", Duration.ofHours(1), Duration.ofMinutes(5), 4, skew);
      List<Object> items = new ArrayList<>();
      Map<Object, Long> exactTop = new HashMap<>();
      for (int i = 0; i < e.keys().size(); i++) {
        // A heavy item every other event, the rest distinct.
        Object item = i % 2 == 0 ? "heavy" : e.keys().get(i);
        items.add(item);
        if (e.times()[i] > e.latest() - 55 * MINUTE) {
          exactTop.merge(item, 1L, Long::sum);
        }
      }
      top.addAll(items, ones, e.times());
      List<HeavyHitters.Entry> listed = top.top(1, Duration.ofMinutes(55), e.latest());
      assertThat(listed).hasSize(1);
      assertThat(listed.get(0).itemAsString()).isEqualTo("heavy");
      assertThat(listed.get(0).count()).isGreaterThanOrEqualTo(exactTop.get("heavy"));
      assertThat(top.byteSize()).isPositive();
      exportImport(s, top, "crawl-top-copy");
    }
  }
}
