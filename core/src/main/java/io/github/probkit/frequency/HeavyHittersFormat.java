package io.github.probkit.frequency;

import static io.github.probkit.frequency.CountMinSketch.saturatedAdd;

import io.github.probkit.io.SketchFormatException;
import io.github.probkit.io.SketchReader;
import io.github.probkit.io.SketchWriter;
import io.github.probkit.io.StructureType;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * The file format of {@link HeavyHitters} (type 17, docs/FORMAT.md). The header names XXH3 with
 * seed 0, the public hash that orders tied items; the placement key is not written, since no result
 * depends on it, and a summary read back gets a new one.
 */
final class HeavyHittersFormat {
  private HeavyHittersFormat() {}

  /**
   * Parameters: capacity (u32), size (u32), total count (u64), item bytes (u64, the sum of the item
   * lengths). Payload: per monitored item, in listing order: count (u64), error (u64), length
   * (u32), the item's bytes.
   */
  static void write(HeavyHitters h, OutputStream out) throws IOException {
    ItemTable items = h.table();
    CountBuckets counts = h.buckets();
    int[] order = h.listing();
    long itemBytes = 0;
    for (int s : order) {
      itemBytes += items.length(s);
    }
    byte[] params =
        SketchWriter.params(24)
            .putInt(h.capacity())
            .putInt(h.size())
            .putLong(h.totalCount())
            .putLong(itemBytes)
            .array();
    SketchWriter w =
        SketchWriter.begin(
            out,
            StructureType.HEAVY_HITTERS,
            ItemTable.ORDER_HASH,
            params,
            20L * order.length + itemBytes);
    for (int s : order) {
      w.writeLong(counts.count(s));
      w.writeLong(counts.error(s));
      w.writeInt(items.length(s));
      w.writeBytes(items.item(s), 0, items.length(s));
    }
    w.finish();
  }

  static HeavyHitters read(InputStream in) throws IOException {
    SketchReader r = SketchReader.open(in, StructureType.HEAVY_HITTERS);
    r.check(
        r.hash().equals(ItemTable.ORDER_HASH), "hash", r.hash(), ItemTable.ORDER_HASH.toString());
    int capacity = r.paramInt("capacity");
    r.check(
        capacity >= 1 && capacity <= HeavyHitters.MAX_CAPACITY,
        "capacity",
        capacity,
        "in [1, " + HeavyHitters.MAX_CAPACITY + "]");
    int size = r.paramInt("size");
    r.check(size >= 0 && size <= capacity, "size", size, "in [0, capacity " + capacity + "]");
    long total = r.paramLong("total count");
    r.check(total >= 0, "total count", total, "non-negative");
    long itemBytes = r.paramLong("item bytes");
    r.check(
        itemBytes >= 0 && itemBytes <= Long.MAX_VALUE - 20L * size,
        "item bytes",
        itemBytes,
        "non-negative");
    r.expectPayloadLength(20L * size + itemBytes);
    // The entries grow with those actually read, so a corrupt size allocates nothing it cannot
    // fill.
    Entries e = new Entries(size);
    for (int i = 0; i < size; i++) {
      long count = r.readLong("count");
      long error = r.readLong("error");
      int len = r.readInt("item length");
      r.check(len >= 0, "item length", len, "non-negative");
      byte[] item = r.readBytes(len, "item");
      e.add(item, len, ItemTable.ORDER_HASH.hash64(item, 0, len), count, error);
    }
    r.finish();
    long min = size == 0 ? 0 : e.counts[size - 1];
    long maxError = size == capacity ? min : 0;
    long sum = 0;
    for (int i = 0; i < size; i++) {
      String entry = "heavy-hitters entry " + i;
      long c = e.counts[i];
      if (c < 0 || (i > 0 && c > e.counts[i - 1])) {
        throw new SketchFormatException(
            entry
                + " has count "
                + c
                + ", must be non-negative and no larger than the entry before it");
      }
      if (e.errors[i] < 0 || e.errors[i] > maxError) {
        throw new SketchFormatException(
            entry + " has error " + e.errors[i] + ", must be in [0, " + maxError + "]");
      }
      sum = saturatedAdd(sum, c);
    }
    if (sum > total) {
      throw new SketchFormatException(
          "heavy-hitters counts sum to " + sum + ", more than the total count " + total);
    }
    HeavyHitters h = HeavyHitters.of(capacity, total, e);
    if (h.hasDuplicates()) {
      throw new SketchFormatException("heavy-hitters summary lists an item twice");
    }
    return h;
  }
}
