package io.github.probkit.frequency;

import java.util.Arrays;

/**
 * Monitored items gathered to build a summary from, by a merge or a read: each with its bytes,
 * public order hash, count and error. Arrays grow with the entries added, so a corrupt size read
 * from a file allocates nothing it cannot fill.
 */
final class Entries {
  private static final int INITIAL = 16;

  byte[][] items;
  int[] lengths;
  long[] orderHashes;
  long[] counts;
  long[] errors;
  int size;

  Entries(int expected) {
    int room = Math.max(1, Math.min(expected, INITIAL));
    items = new byte[room][];
    lengths = new int[room];
    orderHashes = new long[room];
    counts = new long[room];
    errors = new long[room];
  }

  /** Adds an entry; {@code item} is kept, not copied. */
  void add(byte[] item, int len, long orderHash, long count, long error) {
    if (size == items.length) {
      int room = 2 * size;
      items = Arrays.copyOf(items, room);
      lengths = Arrays.copyOf(lengths, room);
      orderHashes = Arrays.copyOf(orderHashes, room);
      counts = Arrays.copyOf(counts, room);
      errors = Arrays.copyOf(errors, room);
    }
    items[size] = item;
    lengths[size] = len;
    orderHashes[size] = orderHash;
    counts[size] = count;
    errors[size] = error;
    size++;
  }

  /**
   * The indices of the first {@code k} entries in listing order: the larger count first, then the
   * larger lower bound, then the smaller bytes (unsigned).
   */
  int[] first(int k) {
    int[] order = new int[size];
    for (int i = 0; i < size; i++) {
      order[i] = i;
    }
    IndexSort.selectFirst(order, 0, size, k, this::listsBefore);
    return Arrays.copyOf(order, k);
  }

  private boolean listsBefore(int a, int b) {
    if (counts[a] != counts[b]) {
      return counts[a] > counts[b];
    }
    if (errors[a] != errors[b]) {
      return errors[a] < errors[b];
    }
    return Arrays.compareUnsigned(items[a], 0, lengths[a], items[b], 0, lengths[b]) < 0;
  }
}
