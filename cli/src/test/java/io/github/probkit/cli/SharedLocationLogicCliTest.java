package io.github.probkit.cli;

import static io.github.probkit.cli.Cli.ok;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.filter.BloomFilter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What a file and a redis:// URI answer through one piece of code they share: a Bloom filter's info
 * fields, a window filter's refusal of --multiset and --if-absent, and the longest window a sliced
 * sketch answers. Each is checked on both kinds of place, against what the library itself says or
 * what the user asked for, so that a slip in the shared code shows on either.
 */
class SharedLocationLogicCliTest extends WithRedisServer {
  @TempDir Path dir;

  /** Keys of the dictionary, distinct and real. */
  private static List<String> words(int n) throws IOException {
    return Words.lines().stream().distinct().limit(n).toList();
  }

  private String place(String where, String name) {
    return where.equals("file") ? dir.resolve(name).toString() : uri(name);
  }

  /**
   * A Bloom filter's info, of a file and of a Redis key, has the library's own hashes, sizing and
   * bits set for the same keys.
   */
  @ParameterizedTest
  @ValueSource(strings = {"file", "redis"})
  void bloomInfoHasTheLibrarysOwnFields(String where) throws IOException {
    List<String> keys = words(3_000);
    Path list = dir.resolve("keys.txt");
    Files.write(list, keys, StandardCharsets.UTF_8);
    String f = place(where, "info-fields-bloom");
    ok("filter", "create", f, "--expected", "5000", "--fpp", "0.02", "--keys", list.toString());
    BloomFilter same = BloomFilter.create(5_000, 0.02);
    for (String k : keys) {
      same.add(k.getBytes(StandardCharsets.UTF_8));
    }
    String info = ok("filter", "info", f, "--json").out;
    assertThat(info)
        .contains(
            "\"hashes\": "
                + same.hashCount()
                + ", \"expectedKeys\": 5000, \"fpp\": 0.02, \"bitsSet\": "
                + same.bitCount()
                + ",");
    // Every key added is still there: the fields were read, not the filter changed.
    assertThat(ok("filter", "query", f, "--count", "--keys", list.toString()).out)
        .isEqualTo(keys.size() + "\n");
  }

  /** --multiset and --if-absent are refused for a window filter, in a file as in Redis. */
  @ParameterizedTest
  @ValueSource(strings = {"file", "redis"})
  void aWindowFilterRefusesMultisetAndIfAbsent(String where) {
    String f = place(where, "window-refuses");
    for (String option : new String[] {"--multiset", "--if-absent"}) {
      Cli c =
          Cli.run(
              "filter",
              "create",
              f,
              "--type",
              "window",
              "--window",
              "7d",
              "--expected",
              "1000",
              option);
      assertThat(c.exit).as(c.toString()).isEqualTo(2);
      assertThat(c.err)
          .isEqualTo(
              "probkit: "
                  + option
                  + " applies to counting and cuckoo filters, not to --type window\n");
    }
    // Nothing was created: a later create without the option succeeds.
    ok("filter", "create", f, "--type", "window", "--window", "7d", "--expected", "1000");
  }

  /**
   * A sketch with a window of 1 h in slices of 10 min answers over the last hour and not over 61
   * minutes, in a file as in Redis; Redis's info names the window asked for.
   */
  @ParameterizedTest
  @ValueSource(strings = {"file", "redis"})
  void aSlicedWindowAnswersOverTheWindowAskedForAndNoMore(String where) {
    String cms = place(where, "sliced-cms");
    String hll = place(where, "sliced-hll");
    ok("cms", "create", cms, "--window", "1h", "--slice", "10m", "--width", "64", "--depth", "3");
    ok("hll", "create", hll, "--window", "1h", "--slice", "10m");
    ok("cms", "add", cms, "rain", "rain");
    ok("hll", "add", hll, "alice", "bob");
    assertThat(ok("cms", "query", cms, "--last", "1h", "rain").out).isEqualTo("rain\t2\n");
    assertThat(ok("hll", "count", hll, "--last", "1h").out).isEqualTo("2\n");
    Cli longerCms = Cli.run("cms", "query", cms, "--last", "61m", "rain");
    Cli longerHll = Cli.run("hll", "count", hll, "--last", "61m");
    for (Cli longer : new Cli[] {longerCms, longerHll}) {
      assertThat(longer.exit).as(longer.toString()).isEqualTo(2);
      assertThat(longer.err).startsWith("probkit: ").contains("61m");
      assertThat(longer.err.split("\n")).hasSize(1);
    }
    if (where.equals("redis")) {
      assertThat(ok("cms", "info", cms, "--json").out).contains("\"window\": \"1h\"");
      assertThat(ok("hll", "info", hll, "--json").out).contains("\"window\": \"1h\"");
    }
  }
}
