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

  /**
   * Per entry, 0 when empty: slot + 1 in the bits of {@code slotMask}, and above them the same bits
   * of the item's place ({@code tagMask}) when those include the home bits (see {@link #index}). A
   * power of two at least twice the slots.
   */
  private int[] table;

  private int mask;
  private int shift;
  private int slotMask;
  private int tagMask;

  ItemTable(Placement placement, int slots) {
    this.placement = placement;
    items = new byte[slots][];
    lengths = new int[slots];
    places = new int[slots];
    orderHashes = new long[slots];
    index(slots);
  }

  /**
   * An empty table for {@code slots} slots. An item's home is the top bits of its place, so that an
   * entry that carries the place's top bits beside the slot number carries its home too: a lookup
   * then passes other items' entries, and a deletion shifts them, without a dependent read of their
   * slots' places. That needs the slot number and the home to fit in 32 bits together (up to 2^15
   * slots); a larger table holds bare slot numbers and reads the places.
   */
  private void index(int slots) {
    table = new int[tableLength(slots)];
    mask = table.length - 1;
    int tableBits = Integer.numberOfTrailingZeros(table.length);
    int slotBits = 32 - Integer.numberOfLeadingZeros(slots);
    shift = 32 - tableBits;
    slotMask = (1 << slotBits) - 1;
    tagMask = slotBits + tableBits <= 32 ? ~slotMask : 0;
  }

  /** The home position of the item of a table entry. */
  private int home(int entry) {
    return (tagMask != 0 ? entry : places[(entry & slotMask) - 1]) >>> shift;
  }

  /** The table entry of slot {@code s}. */
  private int entry(int s) {
    return places[s] & tagMask | (s + 1);
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
    index(slots);
    for (int s = 0; s < used; s++) {
      link(s);
    }
  }

  int place(byte[] item, int off, int len) {
    return placement.place(item, off, len);
  }

  /** The slot of the item, or -1. */
  int find(byte[] item, int off, int len, int place) {
    int tag = place & tagMask;
    for (int i = place >>> shift; ; i = (i + 1) & mask) {
      int e = table[i];
      if (e == 0) {
        return -1;
      }
      if ((e & tagMask) == tag) {
        int s = (e & slotMask) - 1;
        if (places[s] == place
            && lengths[s] == len
            && Arrays.equals(items[s], 0, len, item, off, off + len)) {
          return s;
        }
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
    int i = places[s] >>> shift;
    while (table[i] != 0) {
      i = (i + 1) & mask;
    }
    table[i] = entry(s);
  }

  /** Takes slot {@code s} out of the table; its bytes stay until the slot is reused. */
  void remove(int s) {
    int e = entry(s);
    int i = places[s] >>> shift;
    while (table[i] != e) {
      i = (i + 1) & mask;
    }
    // Backward-shift deletion: pull later entries of the probe run into the hole when their home
    // position does not lie cyclically after it, so lookups never meet a false end of run.
    for (int j = (i + 1) & mask; table[j] != 0; j = (j + 1) & mask) {
      int home = home(table[j]);
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
        probes += ((i - home(table[i])) & mask) + 1;
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
