package io.github.probkit.cli;

import java.util.ArrayList;
import java.util.List;

/** Command lines many tests start from, so that a test names only what is its own. */
final class Commands {
  private Commands() {}

  /** {@code filter create FILE --type TYPE} and then {@code more}. */
  static String[] filterCreate(String file, String type, String... more) {
    List<String> a = new ArrayList<>(List.of("filter", "create", file, "--type", type));
    a.addAll(List.of(more));
    return a.toArray(String[]::new);
  }

  /** {@code filter create FILE --type TYPE --expected N --fpp P} and then {@code more}. */
  static String[] sizedFilterCreate(
      String file, String type, String expected, String fpp, String... more) {
    List<String> a = new ArrayList<>(List.of("--expected", expected, "--fpp", fpp));
    a.addAll(List.of(more));
    return filterCreate(file, type, a.toArray(String[]::new));
  }

  /** {@code filter create} of a time window of one day for 3,000 keys, and then {@code more}. */
  static String[] windowFilterCreate(String where, String... more) {
    List<String> a = new ArrayList<>(List.of("--window", "1d", "--expected", "3000"));
    a.addAll(List.of(more));
    return filterCreate(where, "window", a.toArray(String[]::new));
  }
}
