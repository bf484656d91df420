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
}
