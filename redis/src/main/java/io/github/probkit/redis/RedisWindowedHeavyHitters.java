package io.github.probkit.redis;

import io.github.probkit.frequency.HeavyHitters;
import io.github.probkit.frequency.WindowedHeavyHitters;
import io.github.probkit.hash.HashStrategy;
import io.github.probkit.io.SketchWriter;
import io.github.probkit.io.StructureType;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * The most frequent items over sliding windows of time, kept in Redis and shared by many writers:
 * the library's {@link WindowedHeavyHitters} (one Space-Saving summary per slice of time, slices
 * aligned on the epoch). Rotation, clock skew, TTLs: {@link WindowedSlices}; each slice is three
 * keys (heavy.lua): its total, a hash of its items and a sorted set in the library's eviction
 * order.
 *
 * <p>Each slice is the library's {@link HeavyHitters}, run by the add script with the library's
 * public tie-breaking order, so it keeps the library's guarantee, per slice and, merged, for the
 * window (with N the window's total and m the capacity): every listed count is at least the item's
 * true count and at most N / m above it, and every item occurring more than N / m times is listed.
 * Events are applied in the order Redis runs the batches; the library fed the same events in that
 * order writes the same bytes as {@link #exportTo} (the grace slots aside). Writers racing one
 * another get some interleaving of their events, so a summary can differ from one of another order,
 * with the same guarantee. Flooding: items are found through Redis's own hash table (keyed SipHash)
 * and evicted through its skip list, so no chosen set of items makes an add cost more than O(log
 * m), as the library's secret placement does in memory.
 *
 * <p>Counts are exact up to 2^53 per slice (the script's numbers are doubles): an add that would
 * take a slice's total past it is refused whole, where the library saturates at 2^63 - 1.
 *
 * <p>Thread safety: safe for use by many threads and processes at once.
 */
public final class RedisWindowedHeavyHitters extends WindowedSlices implements TimedAdds.Counted {
  private static final byte[] ADD = bytes("add");
  private static final HashStrategy ORDER = HashStrategy.xxh3();
  private static final long TOP = 1L << 53;

  /** A slot's further keys (heavy.lua): its items, their eviction order. */
  static final List<String> SUFFIXES = List.of(":items", ":order");

  private final int capacity;

  RedisWindowedHeavyHitters(RedisStore store, String name, Meta meta) {
    super(store, name, meta, SUFFIXES);
    this.capacity = ByteBuffer.wrap(meta.params).order(ByteOrder.LITTLE_ENDIAN).getInt(PREFIX);
  }

  /**
   * Creates windows of up to {@code maxWindow} in slices of {@code slice}, each a summary of {@code
   * capacity} items, as {@link WindowedHeavyHitters#create} shapes them, tolerating clocks {@link
   * RedisOptions#maxSkew} apart.
   */
  public static RedisWindowedHeavyHitters create(
      RedisStore store,
      String name,
      Duration maxWindow,
      Duration slice,
      int capacity,
      RedisOptions o) {
    Objects.requireNonNull(maxWindow, "maxWindow");
    Objects.requireNonNull(slice, "slice");
    int[] s = slotsFor(maxWindow, slice, o);
    Meta meta = meta(slice.toMillis(), s[0], capacity, s[1], o);
    return new RedisWindowedHeavyHitters(
        store, name, store.create(name, meta, o.openIfExists(), null));
  }

  /** Opens the windowed heavy hitters {@code name}. */
  public static RedisWindowedHeavyHitters open(RedisStore store, String name) {
    return new RedisWindowedHeavyHitters(
        store, name, open(store, name, StructureType.WINDOWED_HEAVY_HITTERS));
  }

  /** Parameters: slice ms (u64), the library's slots (u32), capacity (u32). */
  static Meta meta(long sliceMillis, int ringSlots, int capacity, int slots, RedisOptions o) {
    if (capacity < 1 || capacity > HeavyHitters.MAX_CAPACITY) {
      throw new IllegalArgumentException(
          "capacity must be in [1, " + HeavyHitters.MAX_CAPACITY + "], was " + capacity);
    }
    ByteBuffer params = params(4, sliceMillis, ringSlots).putInt(capacity);
    // The hash is the public one that orders tied items, as in the library's file.
    return meta(StructureType.WINDOWED_HEAVY_HITTERS, params, 8, slots, o.hash(ORDER));
  }

  /** For Meta.describe. */
  static String shape(ByteBuffer p, int slots) {
    return WindowedSlices.shape(
        p, slots, "heavy-hitters summaries of capacity " + p.getInt(PREFIX));
  }

  @Override
  byte[] script() {
    return Scripts.HEAVY_SLICES;
  }

  // ---- adding

  @Override
  public boolean[] addAll(List<?> items, long[] counts, long[] timesMillis) {
    TimedAdds.Counted.checkLengths(items, counts, timesMillis);
    for (long c : counts) {
      if (c < 0 || c > TOP) {
        throw new IllegalArgumentException("count must be in [0, 2^53], was " + c);
      }
    }
    List<byte[]> ks = keyBytes(items);
    boolean[] out = new boolean[ks.size()];
    for (int from = 0; from < ks.size(); from += store.batchSize()) {
      int to = Math.min(ks.size(), from + store.batchSize());
      List<byte[]> args = args(ADD, 1 + 3 * (to - from));
      args.add(ascii(capacity));
      for (int i = from; i < to; i++) {
        byte[] item = ks.get(i);
        args.add(ascii(slice(timesMillis[i])));
        args.add(ascii(counts[i]));
        args.add(
            ByteBuffer.allocate(8 + item.length)
                .putLong(ORDER.hash64(item, 0, item.length))
                .put(item)
                .array());
      }
      List<?> reply = add(args, from, to - from);
      flags(reply.subList(1, reply.size()), out, from);
    }
    return out;
  }

  // ---- reading

  /**
   * The summary of the window of {@code last} ending at {@code now} (its slices merged oldest
   * first, as {@link WindowedHeavyHitters#summaryOfLast}), read in one script.
   */
  public HeavyHitters summaryOfLast(Duration last, long now) {
    long[] span = window(last, now);
    List<byte[]> args = args(WINDOW, 2);
    args.add(ascii(span[0]));
    args.add(ascii(span[1]));
    List<?> reply = (List<?>) store.read(() -> store.jedis().eval(script(), scriptKeys, args));
    HeavyHitters out = HeavyHitters.withCapacity(capacity);
    for (int i = 1; i + 1 < reply.size(); i += 2) {
      byte[] file = sliceOf(reply.get(i), reply.get(i + 1));
      if (file != null) {
        out.merge(summary(file));
      }
    }
    return out;
  }

  /** The {@code k} most frequent items of the window of {@code last} ending at {@code now}. */
  public List<HeavyHitters.Entry> top(int k, Duration last, long now) {
    if (k < 1) {
      throw new IllegalArgumentException("k must be positive, was " + k);
    }
    return summaryOfLast(last, now).top(k);
  }

  private static HeavyHitters summary(byte[] file) {
    try {
      return HeavyHitters.readFrom(new ByteArrayInputStream(file));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** One monitored item of a slice as the script keeps it. */
  private record Item(byte[] item, long count, long error) {}

  // The library's listing order: larger count, then smaller error, then smaller bytes.
  private static final Comparator<Item> LISTING =
      Comparator.comparingLong(Item::count)
          .reversed()
          .thenComparingLong(Item::error)
          .thenComparing(Item::item, Arrays::compareUnsigned);

  /**
   * The library's file (type 17) of a slice read by the script: its total string (null: a slot
   * freed by its TTL, empty) and its hash's fields and values.
   */
  private byte[] sliceOf(Object total, Object hash) {
    if (!(total instanceof byte[])) {
      return null;
    }
    byte[] t = (byte[]) total;
    if (t.length != 8 + ID_BYTES) {
      throw new RedisStoreException(
          store.server(),
          "structure '" + name + "' has a slice of " + t.length + " bytes, not " + (8 + ID_BYTES));
    }
    List<?> h = (List<?>) hash;
    List<Item> items = new ArrayList<>(h.size() / 2);
    long itemBytes = 0;
    for (int i = 0; i + 1 < h.size(); i += 2) {
      byte[] item = (byte[]) h.get(i);
      ByteBuffer v = ByteBuffer.wrap((byte[]) h.get(i + 1));
      items.add(new Item(item, v.getLong(0), TOP - v.getLong(8)));
      itemBytes += item.length;
    }
    items.sort(LISTING);
    return file(capacity, ByteBuffer.wrap(t).getLong(0), items, itemBytes);
  }

  /** The library's file of a summary (docs/FORMAT.md, type 17): its entries in listing order. */
  private static byte[] file(int capacity, long total, List<Item> items, long itemBytes) {
    byte[] params =
        ByteBuffer.allocate(24)
            .order(ByteOrder.LITTLE_ENDIAN)
            .putInt(capacity)
            .putInt(items.size())
            .putLong(total)
            .putLong(itemBytes)
            .array();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      SketchWriter w =
          SketchWriter.begin(
              out, StructureType.HEAVY_HITTERS, ORDER, params, 20L * items.size() + itemBytes);
      for (Item e : items) {
        w.writeLong(e.count);
        w.writeLong(e.error);
        w.writeInt(e.item.length);
        w.writeBytes(e.item, 0, e.item.length);
      }
      w.finish();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  // ---- export and import: a slice's payload is its library file

  @Override
  byte[] slotPayload(List<?> all, int slot) {
    return sliceOf(all.get(1 + 2 * slot), all.get(2 + 2 * slot));
  }

  @Override
  byte[] sliceFile(byte[] payload) {
    return payload != null ? payload : file(capacity, 0, List.of(), 0);
  }

  @Override
  byte[] slicePayload(byte[] file) {
    return file;
  }

  @Override
  void putArgs(List<byte[]> args, byte[] file) throws IOException {
    HeavyHitters h = summary(file);
    if (h.totalCount() > TOP) {
      throw new IllegalArgumentException(
          "a slice counts " + h.totalCount() + " occurrences, more than Redis keeps (2^53)");
    }
    args.add(ByteBuffer.allocate(8).putLong(h.totalCount()).array());
    for (HeavyHitters.Entry e : h.entries()) {
      byte[] item = e.item();
      args.add(
          ByteBuffer.allocate(8 + item.length)
              .putLong(ORDER.hash64(item, 0, item.length))
              .put(item)
              .array());
      args.add(ByteBuffer.allocate(16).putLong(e.count()).putLong(TOP - e.error()).array());
    }
  }

  @Override
  StructureType ringType() {
    return StructureType.WINDOWED_HEAVY_HITTERS;
  }

  /** The library's ring of these slices (one atomic read). */
  public WindowedHeavyHitters toWindowed() {
    return toLibrary(WindowedHeavyHitters::readFrom);
  }

  /**
   * Creates {@code name} from the library's file {@code file} (type 52, read whole by {@link
   * WindowedHeavyHitters#readFrom} first): readers see it only once every slice is in Redis.
   */
  static RedisWindowedHeavyHitters importFrom(
      RedisStore store, String name, byte[] file, RedisOptions o) throws IOException {
    WindowedHeavyHitters w = WindowedHeavyHitters.readFrom(new ByteArrayInputStream(file));
    Ring ring = Ring.read(file, StructureType.WINDOWED_HEAVY_HITTERS);
    RedisOptions ho = o.hash(ORDER);
    int slots = slotsOfRing(w.sliceMillis(), w.sliceCount(), ho);
    Meta wanted = meta(w.sliceMillis(), w.sliceCount(), w.capacity(), slots, ho);
    return create(store, name, wanted, ring, RedisWindowedHeavyHitters::new);
  }

  /** The capacity of each slice's summary. */
  public int capacity() {
    return capacity;
  }

  /**
   * The bytes its slices take in Redis: {@code MEMORY USAGE} summed over every slot's keys (its
   * total, items and eviction order), the metadata left out. A slice holds as many items as it has
   * seen, up to the capacity, so no figure fixed at creation says what it takes.
   */
  @Override
  public long byteSize() {
    return memoryUsage(dataKeys(name(), meta));
  }
}
