package io.github.probkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link RedoLogCrashTest}'s kills, races and flipped bytes, on a blocked Bloom file. */
class BlockedRedoLogCrashTest extends RedoLogCrashTest {
  @Override
  List<String> typeOptions() {
    return List.of("--type", "blocked");
  }

  @Test
  void theFileIsBlocked() throws Exception {
    Probkit.Result info = Probkit.run("filter", "info", dir.resolve("f.bin").toString());
    assertThat(info.exit()).as(info.toString()).isZero();
    assertThat(info.out()).contains("blocked");
  }
}
