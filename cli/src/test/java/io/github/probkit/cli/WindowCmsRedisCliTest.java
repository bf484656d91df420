package io.github.probkit.cli;

import static io.github.probkit.cli.WindowCmsCliTest.ok;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code cms create --window} on a redis:// key against a real redis-server, filled by several
 * probkit processes at once, beside the same events added to a file by one: the key's windowed
 * estimates are never below the exact counts of their slices, and are the file's.
 */
class WindowCmsRedisCliTest extends WithRedisServer {
  @TempDir Path dir;

  @Test
  void concurrentWritersToAWindowInRedisNeverUnderestimateAndAgreeWithTheFile() throws Exception {
    WindowCmsCliTest.Events e = WindowCmsCliTest.Events.of(30_000, 2_000);
    String file = dir.resolve("terms.cms").toString();
    String key = server.uri() + "/terms";
    for (String where : List.of(file, key)) {
      WindowCmsCliTest.create(where, "12h");
    }
    WindowCmsCliTest.addAtOnce(e, key, 4, dir, file);
    Path queries = dir.resolve("queries.txt");
    Files.write(queries, e.queries());
    for (long hours : new long[] {12, 3}) {
      String fromRedis = WindowCmsCliTest.checkWindow(e, key, queries, hours, e.latest());
      String fromFile = WindowCmsCliTest.checkWindow(e, file, queries, hours, e.latest());
      assertThat(fromRedis).as("--last %dh", hours).isEqualTo(fromFile);
    }
    assertThat(ok(Cli.run("info", key)).out).contains("window-count-min");
    assertThat(ok(Cli.run("cms", "info", key)).out).contains("window-count-min");

    // Redis's slices take standard adds only: a conservative window is refused, nothing made.
    Cli conservative =
        Cli.run(
            "cms",
            "create",
            server.uri() + "/c",
            "--window",
            "1h",
            "--width",
            "100",
            "--depth",
            "3",
            "--conservative");
    assertThat(conservative.exit).as(conservative.toString()).isEqualTo(2);
    assertThat(conservative.err.strip().lines()).hasSize(1);
    assertThat(conservative.err).contains("--conservative");
  }
}
