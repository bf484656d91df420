package io.github.probkit.cli;

import static io.github.probkit.cli.Cli.ok;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The one promise over the command line, as a user meets it: seeded random sequences of {@code
 * filter add} (keys that repeat, within one command and across commands), {@code filter remove} of
 * a key held and {@code filter query}, each a command of its own that opens the structure and
 * writes it back, on counting and cuckoo files and on a counting filter in a real redis-server. A
 * key added more often than removed is never absent. The filters are small, so that keys share
 * counters and buckets; the add-if-absent rule the command line once had fails every type here.
 */
class DeletePromiseCliTest extends WithRedisServer {
  private static final int SEQUENCES = 2;
  private static final int STEPS = 30;

  private static List<String> words;

  @TempDir Path dir;

  @BeforeAll
  static void readWords() throws IOException {
    words = new ArrayList<>();
    for (String s : Words.lines()) {
      if (!s.isEmpty() && !s.startsWith("-") && s.chars().noneMatch(Character::isWhitespace)) {
        words.add(s);
      }
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"counting", "cuckoo", "redis"})
  void aKeyAddedMoreOftenThanRemovedIsNeverAbsent(String where) {
    for (int seq = 0; seq < SEQUENCES; seq++) {
      SplittableRandom r = new SplittableRandom(0x9e0_3152L * 31 + seq * 7919L + where.hashCode());
      String target =
          where.equals("redis")
              ? server.uri() + "/promise-" + seq
              : dir.resolve(where + "-" + seq + ".bin").toString();
      String type = where.equals("cuckoo") ? "cuckoo" : "counting";
      // 40 words, each held at most 3 times: a cuckoo filter sized for 200 keys has room for all
      // 120 copies; a counting filter sized for 40 at 5 % shares counters between keys.
      String expected = type.equals("cuckoo") ? "200" : "40";
      List<String> pool = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        pool.add(words.get(r.nextInt(words.size())));
      }
      ok(null, "filter", "create", target, "--type", type, "--expected", expected, "--fpp", "0.05");
      Map<String, Integer> held = new HashMap<>();
      List<String> log = new ArrayList<>();
      for (int step = 0; step < STEPS; step++) {
        int op = r.nextInt(3);
        if (op == 0 || held.isEmpty()) {
          List<String> args = new ArrayList<>(List.of("filter", "add", target));
          for (int n = 1 + r.nextInt(4); n > 0; n--) {
            String k = pool.get(r.nextInt(pool.size()));
            if (held.getOrDefault(k, 0) < 3) {
              held.merge(k, 1, Integer::sum);
              args.add(k);
            }
          }
          if (args.size() > 3) {
            log.add(String.join(" ", args.subList(1, args.size())));
            ok(log, args.toArray(String[]::new));
          }
        } else if (op == 1) {
          List<String> live = new ArrayList<>(held.keySet());
          live.sort(null);
          String k = live.get(r.nextInt(live.size()));
          if (held.merge(k, -1, Integer::sum) == 0) {
            held.remove(k);
          }
          log.add("remove " + k);
          assertThat(ok(log, "filter", "remove", target, k).out)
              .as("%s, sequence %d: %s held, after:\n%s", where, seq, k, String.join("\n", log))
              .startsWith("removed 1 of 1 keys (0 certainly absent");
        } else {
          noneAbsent(target, held, log);
        }
      }
      noneAbsent(target, held, log);
    }
  }

  private static void noneAbsent(String target, Map<String, Integer> held, List<String> log) {
    if (held.isEmpty()) {
      return;
    }
    List<String> args = new ArrayList<>(List.of("filter", "query", target, "--absent"));
    args.addAll(held.keySet());
    log.add("query");
    Cli q = Cli.run(args.toArray(String[]::new));
    assertThat(q.out)
        .as(
            "%s: kept keys reported absent (held %s) after:\n%s",
            target, held, String.join("\n", log))
        .isEmpty();
    assertThat(q.err).as(q.toString()).isEmpty();
  }

  private static Cli ok(List<String> log, String... args) {
    Cli c = Cli.run(args);
    assertThat(c.exit).as("%s\nafter:\n%s", c, log == null ? "" : String.join("\n", log)).isZero();
    return c;
  }
}
