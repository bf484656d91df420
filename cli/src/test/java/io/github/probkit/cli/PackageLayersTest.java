package io.github.probkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The command line's packages form layers (docs/ARCHITECTURE.md): the entry point, then commands,
 * locations, formats, input, output. A class may use its own layer and the ones below it, never one
 * above, so that a location or a format can be read, tested and replaced without the commands. Read
 * from the sources (imports and fully qualified names), since a cycle compiles without complaint.
 */
class PackageLayersTest {
  private static final String CLI = "io.github.probkit.cli";

  /** Higher number, higher layer. */
  private static final Map<String, Integer> LAYER =
      Map.of("", 5, "command", 4, "lab", 4, "location", 3, "format", 2, "input", 1, "output", 0);

  /**
   * Upward uses that were in the flat package and are still to be moved down, as "file -> class".
   * Each is a debt: remove the line when its helper moves; a new upward use fails the test.
   */
  private static final Set<String> NOT_YET_MOVED =
      Set.of(
          "command/CmsCommand.java -> ProbkitCommand",
          "command/DedupeCommand.java -> ProbkitCommand",
          "command/DistinctCommand.java -> ProbkitCommand",
          "command/FilterCommand.java -> ProbkitCommand",
          "command/TopCommand.java -> ProbkitCommand",
          "input/KeyOptions.java -> ProbkitCommand",
          "location/FileLocation.java -> command.CmsCommand",
          "location/FileLocation.java -> command.FilterCommand",
          "location/FileLocation.java -> command.HllCommand",
          "location/RedisLocation.java -> command.CmsCommand",
          "location/RedisLocation.java -> command.FilterCommand",
          "location/RedisLocation.java -> command.HllCommand",
          "format/FilterTypes.java -> command.FilterCommand",
          "format/Format.java -> location.SketchFiles",
          "input/KeyOptions.java -> location.SketchFiles",
          "input/KeyOptions.java -> location.StreamCommits",
          "output/Stdout.java -> input.LineReader");

  private static final Pattern REFERENCE =
      Pattern.compile("\\b" + Pattern.quote(CLI) + "\\.(?:(\\w+)\\.)?([A-Z]\\w*)");
  private static final Pattern REDIS =
      Pattern.compile("\\b(io\\.github\\.probkit\\.redis|redis\\.clients)\\b");

  private static final Path MAIN = Path.of("src/main/java/io/github/probkit/cli");

  @Test
  void noPackageUsesOneAboveIt() throws IOException {
    List<String> wrong = new ArrayList<>();
    for (Path file : sources()) {
      String from = packageOf(file);
      Matcher m = REFERENCE.matcher(code(file));
      while (m.find()) {
        String to = m.group(1) == null ? "" : m.group(1);
        assertThat(LAYER).as("a layer for package %s.%s", CLI, to).containsKey(to);
        String edge = name(file) + " -> " + (to.isEmpty() ? "" : to + ".") + m.group(2);
        if (LAYER.get(to) > LAYER.get(from) && !NOT_YET_MOVED.contains(edge)) {
          wrong.add(
              edge
                  + " ("
                  + m.group()
                  + ": "
                  + show(from)
                  + " may not use "
                  + show(to)
                  + ", which is above it)");
        }
      }
    }
    assertThat(wrong).as("upward references").isEmpty();
  }

  /** A run on files loads no Redis class: only the Redis location knows probkit-redis and Jedis. */
  @Test
  void onlyTheLocationPackageReferencesRedisClients() throws IOException {
    List<String> wrong = new ArrayList<>();
    for (Path file : sources()) {
      Matcher m = REDIS.matcher(code(file));
      if (!packageOf(file).equals("location") && m.find()) {
        wrong.add(name(file) + " references " + m.group());
      }
    }
    assertThat(wrong).isEmpty();
  }

  /** The test reads real sources: an empty or misplaced tree would pass anything. */
  @Test
  void readsEveryPackage() throws IOException {
    assertThat(sources().stream().map(PackageLayersTest::packageOf).distinct())
        .containsExactlyInAnyOrderElementsOf(LAYER.keySet());
  }

  private static List<Path> sources() throws IOException {
    try (Stream<Path> s = Files.walk(MAIN)) {
      return s.filter(p -> p.toString().endsWith(".java")).sorted().toList();
    }
  }

  private static String packageOf(Path file) {
    Path dir = MAIN.relativize(file).getParent();
    return dir == null ? "" : dir.getName(0).toString();
  }

  private static String name(Path file) {
    return MAIN.relativize(file).toString().replace('\\', '/');
  }

  private static String show(String pkg) {
    return pkg.isEmpty() ? CLI : CLI + "." + pkg;
  }

  /** The file without comments and string literals, whose words are not references. */
  static String code(Path file) throws IOException {
    String s = Files.readString(file, StandardCharsets.UTF_8);
    StringBuilder out = new StringBuilder(s.length());
    int i = 0;
    while (i < s.length()) {
      if (s.startsWith("//", i)) {
        int end = s.indexOf('\n', i);
        i = end < 0 ? s.length() : end;
      } else if (s.startsWith("/*", i)) {
        int end = s.indexOf("*/", i + 2);
        i = end < 0 ? s.length() : end + 2;
      } else if (s.startsWith("\"\"\"", i)) {
        int end = s.indexOf("\"\"\"", i + 3);
        i = end < 0 ? s.length() : end + 3;
      } else if (s.charAt(i) == '"' || s.charAt(i) == '\'') {
        char q = s.charAt(i);
        int j = i + 1;
        while (j < s.length() && s.charAt(j) != q) {
          j += s.charAt(j) == '\\' ? 2 : 1;
        }
        i = j + 1;
      } else {
        out.append(s.charAt(i++));
      }
    }
    return out.toString();
  }
}
