package io.github.probkit.frequency;

import io.github.probkit.hash.HashStrategy;
import java.util.Arrays;

/**
 * The monitored items of a {@link HeavyHitters} summary, one per slot, and the open-addressing
 * table (linear probing, backward-shift deletion) that finds an item's slot from its bytes.
 *
 * <p>An item's home in the table comes from {@code placement}, a hash keyed by a secret of the
 * summary, so that nobody who does not know the secret can choose items that crowd one probe run.
 * Each item also keeps its public {@link #ORDER_HASH}, which breaks ties in the eviction order:
 * results depend on that hash, never on the secret.
 */
final class ItemTable {
  /** XXH3-64, seed 0: the hash written in the file header and used to order tied items. */
  static final HashStrategy ORDER_HASH = HashStrategy.xxh3();

  /** Per slot: an item reference, its length, placement and order hash. */
  static final int SLOT_BYTES = 4 + 4 + 4 + 8;

  private final Placement placement;

  // Per slot; items[s] may be longer than lengths[s] (arrays are reused when an item is replaced).
  private byte[][] items;
  private int[] lengths;
  private int[] places;
  private long[] orderHashes;

  /** Slot + 1 per entry, 0 when empty; a power of two at least twice the slots. */
  private int[] table;

  private int mask;

  ItemTable(Placement placement, int slots) {
    this.placement = placement;
    items = new byte[slots][];
    lengths = new int[slots];
    places = new int[slots];
    orderHashes = new long[slots];
    table = new int[tableLength(slots)];
    mask = table.length - 1;
  }

  static int tableLength(int slots) {
    return Integer.highestOneBit(Math.max(2, slots) * 2 - 1) << 1;
  }

  int slots() {
    return items.length;
  }

  /** Grows to {@code slots} slots, of which the first {@code used} hold items. */
  void grow(int slots, int used) {
    items = Arrays.copyOf(items, slots);
    lengths = Arrays.copyOf(lengths, slots);
    places = Arrays.copyOf(places, slots);
    orderHashes = Arrays.copyOf(orderHashes, slots);
    table = new int[tableLength(slots)];
    mask = table.length - 1;
    for (int s = 0; s < used; s++) {
      link(s);
    }
  }

  int place(byte[] item, int off, int len) {
    return placement.place(item, off, len);
  }

  /** The slot of the item, or -1. */
  int find(byte[] item, int off, int len, int place) {
    for (int i = place & mask; ; i = (i + 1) & mask) {
      int t = table[i];
      if (t == 0) {
        return -1;
      }
      int s = t - 1;
      if (places[s] == place
          && lengths[s] == len
          && Arrays.equals(items[s], 0, len, item, off, off + len)) {
        return s;
      }
    }
  }

  /** The slot holding the same bytes as slot {@code s} of {@code other}, or -1. */
  int find(ItemTable other, int s) {
    byte[] item = other.items[s];
    int len = other.lengths[s];
    return find(item, 0, len, place(item, 0, len));
  }

  /** Stores the item in slot {@code s}, which holds none, and enters it in the table. */
  void insert(int s, byte[] item, int off, int len, int place) {
    if (items[s] == null || items[s].length < len) {
      items[s] = new byte[len]; // else the replaced item's array is reused
    }
    System.arraycopy(item, off, items[s], 0, len);
    lengths[s] = len;
    places[s] = place;
    orderHashes[s] = ORDER_HASH.hash64(item, off, len);
    link(s);
  }

  /** Stores an item that is already owned, as read or merged, without copying it. */
  void insertOwned(int s, byte[] item, int len, long orderHash) {
    items[s] = item;
    lengths[s] = len;
    places[s] = place(item, 0, len);
    orderHashes[s] = orderHash;
    link(s);
  }

  private void link(int s) {
    int i = places[s] & mask;
    while (table[i] != 0) {
      i = (i + 1) & mask;
    }
    table[i] = s + 1;
  }

  /** Takes slot {@code s} out of the table; its bytes stay until the slot is reused. */
  void remove(int s) {
    int i = places[s] & mask;
    while (table[i] != s + 1) {
      i = (i + 1) & mask;
    }
    // Backward-shift deletion: pull later entries of the probe run into the hole when their home
    // position does not lie cyclically after it, so lookups never meet a false end of run.
    for (int j = (i + 1) & mask; table[j] != 0; j = (j + 1) & mask) {
      int home = places[table[j] - 1] & mask;
      if (((j - home) & mask) >= ((j - i) & mask)) {
        table[i] = table[j];
        i = j;
      }
    }
    table[i] = 0;
  }

  byte[] item(int s) {
    return items[s];
  }

  int length(int s) {
    return lengths[s];
  }

  long orderHash(int s) {
    return orderHashes[s];
  }

  /** A copy of the item's bytes. */
  byte[] copy(int s) {
    return Arrays.copyOf(items[s], lengths[s]);
  }

  /** Orders slots by their items' bytes, unsigned, a shorter prefix first. */
  int compareItems(int s, int t) {
    return Arrays.compareUnsigned(items[s], 0, lengths[s], items[t], 0, lengths[t]);
  }

  /**
   * The number of table entries a lookup of every stored item reads: the measure of probing work
   * that a flood of colliding items would make quadratic. Deterministic for a given placement.
   */
  long probesToFindAll() {
    long probes = 0;
    for (int i = 0; i < table.length; i++) {
      if (table[i] != 0) {
        probes += ((i - (places[table[i] - 1] & mask)) & mask) + 1;
      }
    }
    return probes;
  }

  /** Bytes of the arrays, items included (references counted as 4 bytes). */
  long byteSize(int used) {
    long b = (long) items.length * SLOT_BYTES + 4L * table.length;
    for (int s = 0; s < used; s++) {
      b += items[s].length;
    }
    return b;
  }
}
