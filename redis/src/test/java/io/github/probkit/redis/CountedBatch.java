package io.github.probkit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;
import java.util.function.IntToLongFunction;

/**
 * Counted events {@code from} on, given to the library one at a time and kept for one {@code
 * addAll} of a Redis structure, with the library's flags: what the windowed count-min and
 * heavy-hitters tests compare batch by batch.
 */
record CountedBatch(List<Object> items, long[] counts, long[] times, boolean[] libraryFlags) {
  /** The library structure's add of one counted event: whether it changed anything. */
  interface LibraryAdd {
    boolean add(String item, long count, long timeMillis);
  }

  /**
   * Events {@code from .. from + size - 1} at times {@code t}: for each, {@code item} and then
   * {@code count} are asked, in that order (a test's random draws keep their sequence).
   */
  static CountedBatch of(
      int from,
      int size,
      long[] t,
      IntFunction<String> item,
      IntToLongFunction count,
      LibraryAdd library) {
    List<Object> items = new ArrayList<>();
    long[] counts = new long[size];
    long[] times = new long[size];
    boolean[] flags = new boolean[size];
    for (int i = from; i < from + size; i++) {
      String it = item.apply(i);
      items.add(it);
      counts[i - from] = count.applyAsLong(i);
      times[i - from] = t[i];
      flags[i - from] = library.add(it, counts[i - from], t[i]);
    }
    return new CountedBatch(items, counts, times, flags);
  }

  /** {@code r} takes the batch with the library's flags and then exports the library's file. */
  <R extends RedisStructure & TimedAdds.Counted> void assertTakenAsTheLibrary(
      R r, int from, byte[] libraryFile) throws IOException {
    assertThat(r.addAll(items, counts, times))
        .as("flags of events %d..", from)
        .isEqualTo(libraryFlags);
    assertThat(WindowedCardinalityTest.exportOf(r))
        .as("after %d events", from + counts.length)
        .isEqualTo(libraryFile);
  }
}
