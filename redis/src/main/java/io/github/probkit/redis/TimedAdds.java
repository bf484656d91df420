package io.github.probkit.redis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;

/**
 * The adds of a windowed structure whose keys carry an event time: each comes down to {@link
 * #addAll(List, long[])}, one batch with one time per key, so that a single key, a key at the
 * clock's time and keys sharing one time take the same path to Redis.
 */
interface TimedAdds {
  /**
   * Adds {@code keys.get(i)} as of event time {@code timesMillis[i]}, in order; returns for each
   * whether the structure changed.
   */
  boolean[] addAll(List<?> keys, long[] timesMillis);

  /** Adds the key at the system clock's time. */
  default boolean add(Object key) {
    return add(key, System.currentTimeMillis());
  }

  /** Adds the key as of event time {@code timeMillis}; see {@link #addAll(List, long[])}. */
  default boolean add(Object key, long timeMillis) {
    return addAll(List.of(key), new long[] {timeMillis})[0];
  }

  /** Adds the keys, all as of event time {@code timeMillis}. */
  default boolean[] addAll(Collection<?> keys, long timeMillis) {
    long[] times = new long[keys.size()];
    Arrays.fill(times, timeMillis);
    return addAll(new ArrayList<>(keys), times);
  }

  /** The keys' bytes for {@link #addAll(List, long[])}, refused unless each has one time. */
  static List<byte[]> keyBytes(List<?> keys, long[] timesMillis) {
    if (keys.size() != timesMillis.length) {
      throw new IllegalArgumentException(
          keys.size() + " keys and " + timesMillis.length + " times: one time per key");
    }
    return RedisStructure.keyBytes(keys);
  }

  /**
   * The adds of a windowed structure whose items carry a count and an event time: each comes down
   * to {@link #addAll(List, long[], long[])}, one batch with one count and one time per item.
   */
  interface Counted {
    /**
     * Adds {@code counts[i]} occurrences of {@code items.get(i)} as of event time {@code
     * timesMillis[i]}, in order, as the library's {@code add(item, count, time)} would. Returns for
     * each whether its slice was still kept (false for an event older than every slot).
     */
    boolean[] addAll(List<?> items, long[] counts, long[] timesMillis);

    /** Adds one occurrence of the item at the system clock's time. */
    default boolean add(Object item) {
      return add(item, 1, System.currentTimeMillis());
    }

    /** Adds {@code count} occurrences of the item as of event time {@code timeMillis}. */
    default boolean add(Object item, long count, long timeMillis) {
      return addAll(List.of(item), new long[] {count}, new long[] {timeMillis})[0];
    }

    /** Adds one occurrence of each item (a repeated item counts each time), all as of one time. */
    default boolean[] addAll(Collection<?> items, long timeMillis) {
      long[] ones = new long[items.size()];
      Arrays.fill(ones, 1);
      long[] times = new long[items.size()];
      Arrays.fill(times, timeMillis);
      return addAll(new ArrayList<>(items), ones, times);
    }

    /** Refuses a batch without one count and one time per item. */
    static void checkLengths(List<?> items, long[] counts, long[] timesMillis) {
      if (items.size() != timesMillis.length || items.size() != counts.length) {
        throw new IllegalArgumentException(
            items.size()
                + " items, "
                + counts.length
                + " counts and "
                + timesMillis.length
                + " times: one count and one time per item");
      }
    }
  }
}
