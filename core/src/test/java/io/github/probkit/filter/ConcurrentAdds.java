package io.github.probkit.filter;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.testing.Threads;

/** The race of writers that the lock-free Bloom filters' tests share. */
final class ConcurrentAdds {
  private ConcurrentAdds() {}

  /**
   * {@link Threads#COUNT} writers add the keys {@code "t:i"} ({@code i < perThread}) to {@code
   * shared} at once, each reading its key back right after its add (the add happened-before that
   * query, whatever the others do); then every key must still be present, and is added to {@code
   * serial}, whose state the caller compares with {@code shared}'s: a lost atomic OR would show.
   */
  static void raceAndReplay(MutableFilter shared, MutableFilter serial, int perThread)
      throws Exception {
    Threads.run(
        Threads.COUNT,
        t -> {
          for (int i = 0; i < perThread; i++) {
            shared.add("t" + t + ":" + i);
            if (!shared.mightContain("t" + t + ":" + i)) {
              throw new AssertionError("t" + t + ":" + i + " absent right after its add");
            }
          }
        });
    for (int t = 0; t < Threads.COUNT; t++) {
      for (int i = 0; i < perThread; i++) {
        assertThat(shared.mightContain("t" + t + ":" + i)).isTrue();
        serial.add("t" + t + ":" + i);
      }
    }
  }
}
