package io.github.probkit.frequency;

import static io.github.probkit.frequency.CountMinSketch.checkCount;
import static io.github.probkit.frequency.CountMinSketch.saturatedAdd;
import static io.github.probkit.internal.Preconditions.checkAllocatable;
import static io.github.probkit.internal.Preconditions.checkArgument;
import static io.github.probkit.internal.Preconditions.checkOpenUnit;

import io.github.probkit.hash.HashStrategy;
import io.github.probkit.internal.KeyBuffer;
import io.github.probkit.io.SketchFormatException;
import io.github.probkit.io.SketchReader;
import io.github.probkit.io.SketchWriter;
import io.github.probkit.io.StructureType;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * The most frequent items of a stream in fixed memory: the Space-Saving algorithm (Metwally,
 * Agrawal and El Abbadi 2005). It monitors at most {@code capacity} items, each with a count and an
 * error; unlike a count-min sketch it keeps the items themselves, so it can list them.
 *
 * <p>Guarantees, for a stream of total count N and a summary of capacity m (they also hold after
 * {@link #merge}, with N the total of both streams):
 *
 * <ul>
 *   <li>Each monitored item's true count lies in {@code [count - error, count]}
 *       ({@link Entry#lowerBound()}, {@link Entry#count()}).
 *   <li>{@code error <= maxError() <= N / m}: every count is within N/m of the truth.
 *   <li>An item that is not monitored occurred at most {@link #maxError()} times; so every item
 *       occurring more than N/m times is monitored, and listed by {@link #entries()}.
 *   <li>In {@link #top(int) top(k)}, an entry is {@linkplain Entry#isCertain() certain} when its
 *       lower bound exceeds the count of every item outside the list: it is then truly among the k
 *       most frequent. While fewer than m distinct items have been seen, every count is exact.
 * </ul>
 *
 * <p>Cheat sheet: capacity {@code m = ceil(1 / epsilon)} bounds every error by epsilon * N; for the
 * top k of a skewed stream, a capacity of 10 to 100 times k is typical. Memory is about
 * {@code 50 + item length} bytes per monitored item, allocated as items arrive.
 *
 * <p>Items are bytes, as everywhere in probkit: a CharSequence is its UTF-8 bytes. Counts saturate
 * at {@link Long#MAX_VALUE} rather than wrap.
 *
 * <p>Thread safety: not thread-safe. Guard an instance with a lock, or give each thread its own and
 * {@link #merge} them.
 */
public final class HeavyHitters {
  /** The largest capacity. */
  public static final int MAX_CAPACITY = 1 << 28;

  private static final HashStrategy HASH = HashStrategy.xxh3();
  private static final int INITIAL_SLOTS = 16;
  /** The bytes of the per-slot arrays: two counts and a hash, four ints (references as 4 bytes). */
  private static final int SLOT_BYTES = 3 * 8 + 4 * 4;

  /*
   * Design notes.
   *
   * Space-Saving [1]: a new item, when all m counters are taken, replaces the item with the smallest
   * count c_min and inherits c_min + its count, with error c_min. An unmonitored item can have
   * occurred at most c_min times, so the newcomer's count stays an upper bound. Because every add of
   * count c raises the sum of the counters by exactly c, the counters sum to N and c_min <= N/m.
   *
   * The smallest counter is found with a binary min-heap of slots ordered by count, and items with an
   * open-addressing hash table (linear probing, backward-shift deletion). Counts may be any weight, so
   * the heap replaces the paper's unit-increment bucket list: raising a count sifts it down, which for
   * the frequent items (already near the leaves) is usually one comparison.
   *
   * Merge follows the mergeable-summaries construction [2], [3]: an item's merged count is its count
   * in each summary, or that summary's c_min where it is not monitored (the most it can have
   * occurred there), and likewise for errors; the m largest are kept. The kept counts sum to at most
   * N_a + N_b, so the new c_min is still at most N/m, and every item left out, or never monitored,
   * has a merged upper bound no larger than the new c_min.
   *
   * Slot arrays grow as items arrive, up to the capacity, so a large capacity costs memory only when
   * used, and reading a summary allocates in proportion to the bytes actually read.
   *
   * [1] Metwally, Agrawal, El Abbadi. Efficient computation of frequent and top-k elements in data
   *     streams. ICDT 2005.
   * [2] Agarwal, Cormode, Huang, Phillips, Wei, Yi. Mergeable summaries. PODS 2012.
   * [3] Cafaro, Pulimeno, Tempesta. A parallel space saving algorithm for frequent items and the
   *     Hurwitz zeta distribution. Information Sciences 329, 2016.
   */

  private final int capacity;
  private int size;
  private long total;

  // Per slot.
  private long[] counts;
  private long[] errors;
  private long[] hashes;
  private byte[][] keys;
  private int[] keyLengths;
  private int[] heapIndex;

  /** Min-heap of slots by count. */
  private int[] heap;
  /** Open-addressing table of slot + 1 (0 = empty); its length is a power of two, at least twice the slots. */
  private int[] table;
  private int mask;

  private HeavyHitters(int capacity) {
    this.capacity = capacity;
    allocate(Math.min(capacity, INITIAL_SLOTS));
  }

  /** A summary that monitors up to {@code capacity} items; every count is within N / capacity. */
  public static HeavyHitters withCapacity(int capacity) {
    checkArgument(
        capacity >= 1 && capacity <= MAX_CAPACITY,
        "capacity must be in [1, %d], was %d", MAX_CAPACITY, capacity);
    return newChecked(capacity);
  }

  /**
   * A summary whose counts are all within {@code epsilon * N} of the truth and which monitors every
   * item occurring more than {@code epsilon * N} times: capacity {@code ceil(1 / epsilon)}.
   */
  public static HeavyHitters create(double epsilon) {
    checkOpenUnit("epsilon", epsilon);
    double m = Math.ceil(1 / epsilon);
    checkArgument(m <= MAX_CAPACITY, "epsilon must be at least 1/%d, was %s", MAX_CAPACITY, epsilon);
    return newChecked((int) m);
  }

  /**
   * A new summary, refused up front when its arrays could not all fit in the heap once the stream
   * has {@code capacity} distinct items (they grow as items arrive; the items' own bytes come on top).
   */
  private static HeavyHitters newChecked(int capacity) {
    checkAllocatable(
        (long) capacity * SLOT_BYTES + 4L * tableLength(capacity),
        "a heavy-hitters summary of capacity " + capacity);
    return new HeavyHitters(capacity);
  }

  private void allocate(int slots) {
    counts = new long[slots];
    errors = new long[slots];
    hashes = new long[slots];
    keys = new byte[slots][];
    keyLengths = new int[slots];
    heapIndex = new int[slots];
    heap = new int[slots];
    table = new int[tableLength(slots)];
    mask = table.length - 1;
  }

  private static int tableLength(int slots) {
    return Integer.highestOneBit(Math.max(2, slots) * 2 - 1) << 1;
  }

  private void grow() {
    int slots = (int) Math.min(capacity, 2L * counts.length);
    counts = Arrays.copyOf(counts, slots);
    errors = Arrays.copyOf(errors, slots);
    hashes = Arrays.copyOf(hashes, slots);
    keys = Arrays.copyOf(keys, slots);
    keyLengths = Arrays.copyOf(keyLengths, slots);
    heapIndex = Arrays.copyOf(heapIndex, slots);
    heap = Arrays.copyOf(heap, slots);
    table = new int[tableLength(slots)];
    mask = table.length - 1;
    for (int s = 0; s < size; s++) {
      putInTable(s);
    }
  }

  // ---- adding

  /** Adds one occurrence of the item made of {@code len} bytes of {@code item} from {@code off}. */
  public void add(byte[] item, int off, int len) {
    add(item, off, len, 1);
  }

  /**
   * Adds {@code count} occurrences (count &gt;= 0) of the item made of {@code len} bytes of
   * {@code item} from {@code off}. The bytes are copied only when the item becomes monitored.
   */
  public void add(byte[] item, int off, int len, long count) {
    checkCount(count);
    Objects.checkFromIndexSize(off, len, item.length);
    if (count == 0) {
      return;
    }
    total = saturatedAdd(total, count);
    long h = HASH.hash64(item, off, len);
    int s = find(item, off, len, h);
    if (s >= 0) {
      counts[s] = saturatedAdd(counts[s], count);
      siftDown(heapIndex[s]);
      return;
    }
    if (size < capacity) {
      if (size == counts.length) {
        grow();
      }
      s = size++;
      store(s, item, off, len, h, count, 0);
      heap[size - 1] = s;
      heapIndex[s] = size - 1;
      siftUp(size - 1);
    } else {
      s = heap[0];
      long min = counts[s];
      removeFromTable(s);
      store(s, item, off, len, h, saturatedAdd(min, count), min);
      siftDown(0);
    }
  }

  public void add(byte[] item) {
    add(item, 0, item.length, 1);
  }

  public void add(byte[] item, long count) {
    add(item, 0, item.length, count);
  }

  /** Adds one occurrence of the UTF-8 bytes of {@code item}. */
  public void add(CharSequence item) {
    add(item, 1);
  }

  public void add(CharSequence item, long count) {
    KeyBuffer b = KeyBuffer.utf8(item);
    try {
      add(b.bytes(), 0, b.length(), count);
    } finally {
      b.release();
    }
  }

  private void store(int s, byte[] item, int off, int len, long h, long count, long error) {
    if (keys[s] == null || keys[s].length < len) {
      keys[s] = new byte[len];
    }
    System.arraycopy(item, off, keys[s], 0, len);
    keyLengths[s] = len;
    hashes[s] = h;
    counts[s] = count;
    errors[s] = error;
    putInTable(s);
  }

  // ---- the hash table

  /** The slot of the item, or -1. */
  private int find(byte[] item, int off, int len, long h) {
    for (int i = (int) h & mask; ; i = (i + 1) & mask) {
      int t = table[i];
      if (t == 0) {
        return -1;
      }
      int s = t - 1;
      if (hashes[s] == h && keyLengths[s] == len
          && Arrays.equals(keys[s], 0, len, item, off, off + len)) {
        return s;
      }
    }
  }

  private int find(HeavyHitters in, int s) {
    return find(in.keys[s], 0, in.keyLengths[s], in.hashes[s]);
  }

  private void putInTable(int s) {
    int i = (int) hashes[s] & mask;
    while (table[i] != 0) {
      i = (i + 1) & mask;
    }
    table[i] = s + 1;
  }

  private void removeFromTable(int s) {
    int i = (int) hashes[s] & mask;
    while (table[i] != s + 1) {
      i = (i + 1) & mask;
    }
    // Backward-shift deletion: pull later entries of the probe run into the hole when their home
    // position does not lie cyclically after it, so lookups never meet a false end of run.
    for (int j = (i + 1) & mask; table[j] != 0; j = (j + 1) & mask) {
      int home = (int) hashes[table[j] - 1] & mask;
      if (((j - home) & mask) >= ((j - i) & mask)) {
        table[i] = table[j];
        i = j;
      }
    }
    table[i] = 0;
  }

  // ---- the heap

  /**
   * The heap order: smaller count first; among equal counts, the larger error (the smaller lower
   * bound, so the item with the least evidence is replaced first); then hash and bytes. It is a
   * total order, so which item is replaced never depends on the heap's layout, and a summary read
   * back from its bytes evolves exactly as the original.
   */
  private boolean before(int s, int t) {
    if (counts[s] != counts[t]) {
      return counts[s] < counts[t];
    }
    if (errors[s] != errors[t]) {
      return errors[s] > errors[t];
    }
    if (hashes[s] != hashes[t]) {
      return Long.compareUnsigned(hashes[s], hashes[t]) < 0;
    }
    return Arrays.compareUnsigned(keys[s], 0, keyLengths[s], keys[t], 0, keyLengths[t]) < 0;
  }

  private void siftUp(int i) {
    int s = heap[i];
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      int p = heap[parent];
      if (!before(s, p)) {
        break;
      }
      heap[i] = p;
      heapIndex[p] = i;
      i = parent;
    }
    heap[i] = s;
    heapIndex[s] = i;
  }

  private void siftDown(int i) {
    int s = heap[i];
    int half = size >>> 1;
    while (i < half) {
      int child = 2 * i + 1;
      int cs = heap[child];
      int right = child + 1;
      if (right < size && before(heap[right], cs)) {
        child = right;
        cs = heap[right];
      }
      if (!before(cs, s)) {
        break;
      }
      heap[i] = cs;
      heapIndex[cs] = i;
      i = child;
    }
    heap[i] = s;
    heapIndex[s] = i;
  }

  // ---- queries

  /**
   * An upper bound on the item's count: its count when monitored, otherwise {@link #maxError()}
   * (the most an unmonitored item can have occurred). Never below the true count.
   */
  public long estimate(byte[] item, int off, int len) {
    int s = find(item, off, len, HASH.hash64(item, off, len));
    return s >= 0 ? counts[s] : maxError();
  }

  public long estimate(byte[] item) {
    return estimate(item, 0, item.length);
  }

  public long estimate(CharSequence item) {
    KeyBuffer b = KeyBuffer.utf8(item);
    try {
      return estimate(b.bytes(), 0, b.length());
    } finally {
      b.release();
    }
  }

  /** A lower bound on the item's count: {@code count - error} when monitored, otherwise 0. */
  public long lowerBound(byte[] item, int off, int len) {
    int s = find(item, off, len, HASH.hash64(item, off, len));
    return s >= 0 ? counts[s] - errors[s] : 0;
  }

  public long lowerBound(byte[] item) {
    return lowerBound(item, 0, item.length);
  }

  public long lowerBound(CharSequence item) {
    KeyBuffer b = KeyBuffer.utf8(item);
    try {
      return lowerBound(b.bytes(), 0, b.length());
    } finally {
      b.release();
    }
  }

  /**
   * The {@code k} items with the largest counts (fewer when fewer are monitored), largest first;
   * ties are ordered by the larger lower bound, then by the items' bytes. An entry is certain when
   * its lower bound exceeds the count of every item not in the list.
   */
  public List<Entry> top(int k) {
    checkArgument(k >= 1, "k must be positive, was %d", k);
    Integer[] order = sortedSlots();
    int n = Math.min(k, size);
    long outside = k < size ? counts[order[k]] : maxError();
    List<Entry> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      int s = order[i];
      out.add(new Entry(
          Arrays.copyOf(keys[s], keyLengths[s]), counts[s], errors[s], counts[s] - errors[s] > outside));
    }
    return Collections.unmodifiableList(out);
  }

  /** Every monitored item, as {@link #top(int) top(size())}; empty when nothing was added. */
  public List<Entry> entries() {
    return size == 0 ? List.of() : top(size);
  }

  private Integer[] sortedSlots() {
    return order(size, counts, errors, keys, keyLengths);
  }

  /**
   * Indices 0..n-1 of the given entries, larger count first, then larger lower bound, then the
   * items' bytes (unsigned): a deterministic order for listing and serializing.
   */
  private static Integer[] order(int n, long[] cs, long[] es, byte[][] ks, int[] ls) {
    Integer[] order = new Integer[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    Arrays.sort(order, (a, b) -> {
      int c = Long.compare(cs[b], cs[a]);
      if (c == 0) {
        c = Long.compare(cs[b] - es[b], cs[a] - es[a]);
      }
      if (c == 0) {
        c = Arrays.compareUnsigned(ks[a], 0, ls[a], ks[b], 0, ls[b]);
      }
      return c;
    });
    return order;
  }

  /**
   * The largest error of any count, and the most an unmonitored item can have occurred: the smallest
   * count once all {@code capacity} items are monitored, 0 before. At most N / capacity.
   */
  public long maxError() {
    return size == capacity ? counts[heap[0]] : 0;
  }

  /** N, the sum of all counts added (saturating at Long.MAX_VALUE). */
  public long totalCount() {
    return total;
  }

  /** The number of items monitored now. */
  public int size() {
    return size;
  }

  public int capacity() {
    return capacity;
  }

  /**
   * The bytes of the arrays now allocated (they grow with the items): per slot two counts, a hash,
   * four ints and the item's bytes, references counted as 4 bytes (compressed oops), plus the hash
   * table. Object headers are excluded.
   */
  public long byteSize() {
    long b = (long) counts.length * SLOT_BYTES + 4L * table.length;
    for (int s = 0; s < size; s++) {
      b += keys[s].length;
    }
    return b;
  }

  // ---- combining

  /**
   * Adds the counts of {@code other} to this summary; afterwards it has the guarantees of a summary
   * of the two streams together (see the class comment), with N the sum of both totals. The other
   * summary's capacity must be at least this one's, which this summary keeps: a smaller one's counts
   * could be off by more than N / capacity. {@code other} is unchanged.
   */
  public HeavyHitters merge(HeavyHitters other) {
    Objects.requireNonNull(other, "other");
    checkArgument(
        other.capacity >= capacity,
        "cannot merge a heavy-hitters summary of capacity %d into one of capacity %d: its counts "
            + "are only within N/%d", other.capacity, capacity, other.capacity);
    long minThis = maxError();
    long minOther = other.maxError();
    int n = 0;
    int most = size + other.size;
    byte[][] ks = new byte[most][];
    int[] ls = new int[most];
    long[] hs = new long[most];
    long[] cs = new long[most];
    long[] es = new long[most];
    for (int s = 0; s < size; s++) {
      int o = other.find(this, s);
      ks[n] = keys[s];
      ls[n] = keyLengths[s];
      hs[n] = hashes[s];
      cs[n] = saturatedAdd(counts[s], o >= 0 ? other.counts[o] : minOther);
      es[n] = saturatedAdd(errors[s], o >= 0 ? other.errors[o] : minOther);
      n++;
    }
    for (int o = 0; o < other.size; o++) {
      if (find(other, o) < 0) {
        ks[n] = Arrays.copyOf(other.keys[o], other.keyLengths[o]);
        ls[n] = other.keyLengths[o];
        hs[n] = other.hashes[o];
        cs[n] = saturatedAdd(other.counts[o], minThis);
        es[n] = saturatedAdd(other.errors[o], minThis);
        n++;
      }
    }
    long newTotal = saturatedAdd(total, other.total);
    rebuild(n, ks, ls, hs, cs, es);
    total = newTotal;
    return this;
  }

  /** Replaces the contents with the {@code capacity} largest of the n given entries. */
  private void rebuild(int n, byte[][] ks, int[] ls, long[] hs, long[] cs, long[] es) {
    Integer[] order = order(n, cs, es, ks, ls);
    int kept = Math.min(n, capacity);
    allocate(Math.max(kept, Math.min(capacity, INITIAL_SLOTS)));
    for (int i = 0; i < kept; i++) {
      int s = order[i];
      keys[i] = ks[s];
      keyLengths[i] = ls[s];
      hashes[i] = hs[s];
      counts[i] = cs[s];
      errors[i] = es[s];
      putInTable(i);
      heap[i] = i;
      heapIndex[i] = i;
    }
    size = kept;
    // In descending order the array is a max-heap; heapify it into a min-heap.
    for (int i = (kept >>> 1) - 1; i >= 0; i--) {
      siftDown(i);
    }
  }

  // ---- serialization

  /**
   * Parameters: capacity (u32), size (u32), total count (u64), item bytes (u64, the sum of the item
   * lengths). Payload: per monitored item, largest count first: count (u64), error (u64), length
   * (u32), the item's bytes. docs/FORMAT.md has the layout.
   */
  public void writeTo(OutputStream out) throws IOException {
    Integer[] order = sortedSlots();
    long itemBytes = 0;
    for (int s = 0; s < size; s++) {
      itemBytes += keyLengths[s];
    }
    byte[] params = SketchWriter.params(24).putInt(capacity).putInt(size).putLong(total)
        .putLong(itemBytes).array();
    SketchWriter w = SketchWriter.begin(
        out, StructureType.HEAVY_HITTERS, HASH, params, 20L * size + itemBytes);
    for (int s : order) {
      w.writeLong(counts[s]);
      w.writeLong(errors[s]);
      w.writeInt(keyLengths[s]);
      w.writeBytes(keys[s], 0, keyLengths[s]);
    }
    w.finish();
  }

  /** Reads a summary written by {@link #writeTo}; corrupt input throws SketchFormatException. */
  public static HeavyHitters readFrom(InputStream in) throws IOException {
    return read(SketchReader.open(in, StructureType.HEAVY_HITTERS));
  }

  static HeavyHitters read(SketchReader r) throws IOException {
    r.check(r.hash().equals(HASH), "hash", r.hash(), HASH.toString());
    int capacity = r.paramInt("capacity");
    r.check(capacity >= 1 && capacity <= MAX_CAPACITY, "capacity", capacity, "in [1, " + MAX_CAPACITY + "]");
    int size = r.paramInt("size");
    r.check(size >= 0 && size <= capacity, "size", size, "in [0, capacity " + capacity + "]");
    long total = r.paramLong("total count");
    r.check(total >= 0, "total count", total, "non-negative");
    long itemBytes = r.paramLong("item bytes");
    r.check(itemBytes >= 0 && itemBytes <= Long.MAX_VALUE - 20L * size, "item bytes", itemBytes,
        "non-negative");
    r.expectPayloadLength(20L * size + itemBytes);
    // Arrays grow with the entries actually read, so a corrupt size allocates nothing it cannot fill.
    int room = Math.min(size, INITIAL_SLOTS);
    byte[][] ks = new byte[room][];
    int[] ls = new int[room];
    long[] hs = new long[room];
    long[] cs = new long[room];
    long[] es = new long[room];
    for (int i = 0; i < size; i++) {
      if (i == room) {
        room = (int) Math.min(size, 2L * room);
        ks = Arrays.copyOf(ks, room);
        ls = Arrays.copyOf(ls, room);
        hs = Arrays.copyOf(hs, room);
        cs = Arrays.copyOf(cs, room);
        es = Arrays.copyOf(es, room);
      }
      cs[i] = r.readLong("count");
      es[i] = r.readLong("error");
      ls[i] = r.readInt("item length");
      r.check(ls[i] >= 0, "item length", ls[i], "non-negative");
      ks[i] = r.readBytes(ls[i], "item");
      hs[i] = HASH.hash64(ks[i], 0, ls[i]);
    }
    r.finish();
    long min = size == 0 ? 0 : cs[size - 1];
    long sum = 0;
    for (int i = 0; i < size; i++) {
      String entry = "heavy-hitters entry " + i;
      if (cs[i] < 0 || (i > 0 && cs[i] > cs[i - 1])) {
        throw new SketchFormatException(entry + " has count " + cs[i]
            + ", must be non-negative and no larger than the entry before it");
      }
      long maxError = size == capacity ? min : 0;
      if (es[i] < 0 || es[i] > maxError) {
        throw new SketchFormatException(entry + " has error " + es[i] + ", must be in [0, " + maxError + "]");
      }
      sum = saturatedAdd(sum, cs[i]);
    }
    if (sum > total) {
      throw new SketchFormatException(
          "heavy-hitters counts sum to " + sum + ", more than the total count " + total);
    }
    HeavyHitters h = new HeavyHitters(capacity);
    h.rebuild(size, ks, ls, hs, cs, es);
    h.total = total;
    if (h.size != size || h.hasDuplicates()) {
      throw new SketchFormatException("heavy-hitters summary lists an item twice");
    }
    return h;
  }

  private boolean hasDuplicates() {
    for (int s = 0; s < size; s++) {
      if (find(this, s) != s) {
        return true;
      }
    }
    return false;
  }

  // ---- identity

  /** Equal when the capacities, totals and monitored items with their counts and errors are. */
  @Override
  public boolean equals(Object o) {
    if (!(o instanceof HeavyHitters)) {
      return false;
    }
    HeavyHitters h = (HeavyHitters) o;
    if (capacity != h.capacity || size != h.size || total != h.total) {
      return false;
    }
    for (int s = 0; s < size; s++) {
      int t = h.find(this, s);
      if (t < 0 || h.counts[t] != counts[s] || h.errors[t] != errors[s]) {
        return false;
      }
    }
    return true;
  }

  @Override
  public int hashCode() {
    return Objects.hash(capacity, size, total);
  }

  @Override
  public String toString() {
    return "HeavyHitters{capacity=" + capacity + ", size=" + size + ", totalCount=" + total + "}";
  }

  /**
   * One monitored item: its true count lies in {@code [lowerBound(), count()]}. Immutable.
   */
  public static final class Entry {
    private final byte[] item;
    private final long count;
    private final long error;
    private final boolean certain;

    private Entry(byte[] item, long count, long error, boolean certain) {
      this.item = item;
      this.count = count;
      this.error = error;
      this.certain = certain;
    }

    /** The item's bytes (a copy). */
    public byte[] item() {
      return item.clone();
    }

    /** The item's bytes decoded as UTF-8 (malformed bytes become U+FFFD). */
    public String itemAsString() {
      return new String(item, StandardCharsets.UTF_8);
    }

    /** The estimated count: an upper bound on the true count. */
    public long count() {
      return count;
    }

    /** How much the count may exceed the true count. */
    public long error() {
      return error;
    }

    /** A lower bound on the true count: {@code count() - error()}. */
    public long lowerBound() {
      return count - error;
    }

    /**
     * Whether the item is certainly among the k most frequent of the list it came from: its lower
     * bound exceeds the count of every item outside the list.
     */
    public boolean isCertain() {
      return certain;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Entry
          && Arrays.equals(item, ((Entry) o).item)
          && count == ((Entry) o).count
          && error == ((Entry) o).error
          && certain == ((Entry) o).certain;
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(item) * 31 + Long.hashCode(count);
    }

    @Override
    public String toString() {
      return itemAsString() + "=" + count + (error == 0 ? "" : " (error " + error + ")")
          + (certain ? ", certain" : "");
    }
  }
}
