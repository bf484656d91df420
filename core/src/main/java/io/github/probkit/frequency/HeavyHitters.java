package io.github.probkit.frequency;

import static io.github.probkit.frequency.CountMinSketch.checkCount;
import static io.github.probkit.frequency.CountMinSketch.saturatedAdd;
import static io.github.probkit.internal.Preconditions.checkAllocatable;
import static io.github.probkit.internal.Preconditions.checkArgument;
import static io.github.probkit.internal.Preconditions.checkOpenUnit;

import com.dynatrace.hash4j.hashing.Hasher64;
import io.github.probkit.hash.HashStrategy;
import io.github.probkit.hash.KeyEncoder;
import io.github.probkit.internal.Compatibility;
import io.github.probkit.internal.KeyBuffer;
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
import java.util.stream.Collector;

/**
 * The most frequent items of a stream in fixed memory: the Space-Saving algorithm (Metwally,
 * Agrawal and El Abbadi 2005). It monitors at most {@code capacity} items, each with a count and an
 * error; unlike a count-min sketch it keeps the items themselves, so it can list them.
 *
 * <p>Guarantees, for a stream of total count N and a summary of capacity m (they also hold after
 * {@link #merge}, with N the total of both streams):
 *
 * <ul>
 *   <li>Each monitored item's true count lies in {@code [count - error, count]} ({@link
 *       Entry#lowerBound()}, {@link Entry#count()}).
 *   <li>{@code error <= maxError() <= N / m}: every count is within N/m of the truth.
 *   <li>An item that is not monitored occurred at most {@link #maxError()} times; so every item
 *       occurring more than N/m times is monitored, and listed by {@link #entries()}.
 *   <li>In {@link #top(int) top(k)}, an entry is {@linkplain Entry#isCertain() certain} when its
 *       lower bound exceeds the count of every item outside the list: it is then truly among the k
 *       most frequent. While fewer than m distinct items have been seen, every count is exact.
 * </ul>
 *
 * <p>Which item is replaced among those of the smallest count: the one with the largest error (the
 * smallest lower bound, the least evidence), then the smallest XXH3-64 hash (seed 0, unsigned) of
 * its bytes, then the smallest bytes (unsigned). The order is total and public, so the same stream
 * gives the same summary, and the same bytes from {@link #writeTo}, in every run and after a read.
 *
 * <p>Cheat sheet: capacity {@code m = ceil(1 / epsilon)} bounds every error by epsilon * N; for the
 * top k of a skewed stream, a capacity of 10 to 100 times k is typical. Memory is 60 to 100 bytes
 * per monitored item plus the item's own, allocated as items arrive ({@link #byteSize()}). An add
 * of count 1 costs amortized O(1) (O(log m) at worst), a larger count expected O(log m); {@code
 * top(k)} reads the k entries it lists and those tied with the last of them.
 *
 * <p>Items are bytes, as everywhere in probkit: a CharSequence is its UTF-8 bytes, a long its 8
 * little-endian bytes. Counts saturate at {@link Long#MAX_VALUE} rather than wrap.
 *
 * <p>Thread safety: not thread-safe. Guard an instance with a lock, or give each thread its own and
 * {@link #merge} them.
 */
public final class HeavyHitters implements FrequencySketch {
  /** The largest capacity. */
  public static final int MAX_CAPACITY = 1 << 28;

  private static final int INITIAL_SLOTS = 16;

  /** The longest String (in chars) that add(CharSequence, long) encodes itself. */
  private static final int SCRATCH = 64;

  private static final int SLOT_BYTES = ItemTable.SLOT_BYTES + CountBuckets.SLOT_BYTES;

  /*
   * Design notes.
   *
   * Space-Saving [1]: a new item, when all m counters are taken, replaces the item with the smallest
   * count c_min and inherits c_min + its count, with error c_min. An unmonitored item can have
   * occurred at most c_min times, so the newcomer's count stays an upper bound. Because every add of
   * count c raises the sum of the counters by exactly c, the counters sum to N and c_min <= N/m.
   *
   * The classes: ItemTable finds an item's slot, CountBuckets orders the slots by count (the
   * paper's Stream-Summary, with a treap [4] for weighted adds), HeavyHittersMerge combines two
   * summaries, HeavyHittersFormat writes and reads them.
   *
   * Flooding: items are placed in the table by a hash keyed with random bits of the summary
   * (Placement: vector multiply-shift, strongly universal, for items up to 64 bytes; PolymurHash 2.0
   * [5], almost pairwise independent, beyond), so nobody without the key can choose items that
   * share a probe run. A public hash would not do, not even remixed with a key: XXH3 with a known
   * seed has full 64-bit collisions for the asking (32-byte items whose bytes 0-7 and 16-23 equal
   * its secret's all hash alike), which put every item in one probe run and made adds quadratic.
   * The key is never written and no result depends on it: ties are broken by the public hash and
   * the bytes, and lists are sorted.
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
   * [4] Seidel, Aragon. Randomized search trees. Algorithmica 16, 1996.
   * [5] Peters, Wojcik. PolymurHash 2.0, 2023 (github.com/orlp/polymur-hash).
   */

  private final int capacity;
  private final Placement placement;
  private final long prioritySeed;
  private int size;
  private long total;
  private ItemTable table;
  private CountBuckets buckets;
  private final byte[] scratch = new byte[SCRATCH];

  private HeavyHitters(int capacity, Placement placement) {
    this.capacity = capacity;
    this.placement = placement;
    this.prioritySeed = placement.prioritySeed();
    allocate(Math.min(capacity, INITIAL_SLOTS));
  }

  private void allocate(int slots) {
    table = new ItemTable(placement, slots);
    buckets = new CountBuckets(table, slots, prioritySeed);
  }

  /** A summary that monitors up to {@code capacity} items; every count is within N / capacity. */
  public static HeavyHitters withCapacity(int capacity) {
    checkArgument(
        capacity >= 1 && capacity <= MAX_CAPACITY,
        "capacity must be in [1, %d], was %d",
        MAX_CAPACITY,
        capacity);
    return newChecked(capacity);
  }

  /**
   * A summary whose counts are all within {@code epsilon * N} of the truth and which monitors every
   * item occurring more than {@code epsilon * N} times: capacity {@code ceil(1 / epsilon)}.
   */
  public static HeavyHitters create(double epsilon) {
    checkOpenUnit("epsilon", epsilon);
    double m = Math.ceil(1 / epsilon);
    checkArgument(
        m <= MAX_CAPACITY, "epsilon must be at least 1/%d, was %s", MAX_CAPACITY, epsilon);
    return newChecked((int) m);
  }

  /**
   * A new summary, refused up front when its arrays could not all fit in the heap once the stream
   * has {@code capacity} distinct items (they grow as items arrive; the items' own bytes come on
   * top).
   */
  private static HeavyHitters newChecked(int capacity) {
    checkAllocatable(
        (long) capacity * SLOT_BYTES + 4L * ItemTable.tableLength(capacity),
        "a heavy-hitters summary of capacity " + capacity);
    return new HeavyHitters(capacity, Placement.random());
  }

  /** A summary placing every item with {@code placement} (tests give a fixed or a public one). */
  static HeavyHitters withPlacement(int capacity, Hasher64 placement) {
    return new HeavyHitters(capacity, Placement.of(placement));
  }

  /** A summary placing its items as usual, with the given keys (see Placement.keyed). */
  static HeavyHitters withPlacementKeys(int capacity, long[] keys) {
    return new HeavyHitters(capacity, Placement.keyed(keys));
  }

  // ---- adding

  /**
   * Adds {@code count} occurrences (count &gt;= 0) of the item made of {@code len} bytes of {@code
   * item} from {@code off}. The bytes are copied only when the item becomes monitored. The other
   * forms (String, long, encoded object) are this one on the item's bytes.
   */
  @Override
  public void add(byte[] item, int off, int len, long count) {
    checkCount(count);
    Objects.checkFromIndexSize(off, len, item.length);
    if (count == 0) {
      return;
    }
    total = saturatedAdd(total, count);
    int place = table.place(item, off, len);
    int s = table.find(item, off, len, place);
    if (s >= 0) {
      buckets.increment(s, count);
    } else if (size < capacity) {
      s = freeSlot();
      table.insert(s, item, off, len, place);
      buckets.insert(s, count, 0);
    } else {
      s = buckets.evict();
      table.remove(s);
      table.insert(s, item, off, len, place);
      buckets.restart(s, count);
    }
  }

  /**
   * Adds {@code count} occurrences of the UTF-8 bytes of {@code item}. An all-ASCII String of up to
   * 64 chars is its own UTF-8, copied into this summary's scratch array: one add at a time uses it
   * (the summary is not thread-safe anyway), which spares the lookup of the per-thread buffer the
   * other keys take, about a tenth of a short item's add. Same bytes either way.
   */
  @Override
  @SuppressWarnings("deprecation") // getBytes(int, int, byte[], int) is right for ASCII chars
  public void add(CharSequence item, long count) {
    if (item instanceof String && item.length() <= SCRATCH) {
      String s = (String) item;
      int n = s.length();
      byte[] b = scratch;
      s.getBytes(0, n, b, 0);
      int seen = 0;
      for (int i = 0; i < n; i++) {
        seen |= s.charAt(i);
      }
      if (seen < 0x80) {
        add(b, 0, n, count);
        return;
      }
    }
    FrequencySketch.super.add(item, count);
  }

  /** A slot that holds no item yet (size < capacity), growing the arrays when all are taken. */
  private int freeSlot() {
    if (size == table.slots()) {
      int slots = (int) Math.min(capacity, 2L * size);
      table.grow(slots, size);
      buckets.grow(slots);
    }
    return size++;
  }

  /**
   * A collector of items (their UTF-8 bytes) into a summary of {@link #withCapacity(int)}; a
   * parallel stream fills one per thread and merges them, which keeps every guarantee but may list
   * other counts than one summary of the whole stream in order would: {@code
   * terms.stream().collect(HeavyHitters.toHeavyHitters(1000)).top(10)}.
   */
  public static Collector<CharSequence, ?, HeavyHitters> toHeavyHitters(int capacity) {
    withCapacity(capacity); // checks the argument now
    return Collector.of(
        () -> withCapacity(capacity),
        HeavyHitters::add,
        HeavyHitters::merge,
        Collector.Characteristics.IDENTITY_FINISH);
  }

  // ---- queries

  /**
   * An upper bound on the item's count: its count when monitored, otherwise {@link #maxError()}
   * (the most an unmonitored item can have occurred). Never below the true count.
   */
  @Override
  public long estimate(byte[] item, int off, int len) {
    int s = table.find(item, off, len, table.place(item, off, len));
    return s >= 0 ? buckets.count(s) : maxError();
  }

  /** A lower bound on the item's count: {@code count - error} when monitored, otherwise 0. */
  public long lowerBound(byte[] item, int off, int len) {
    int s = table.find(item, off, len, table.place(item, off, len));
    return s >= 0 ? buckets.count(s) - buckets.error(s) : 0;
  }

  public long lowerBound(byte[] item) {
    return lowerBound(item, 0, item.length);
  }

  /** The lower bound of the UTF-8 bytes of {@code item}. */
  public long lowerBound(CharSequence item) {
    return lowerBound(KeyBuffer.utf8(item));
  }

  /** The lower bound of the 8 little-endian bytes of {@code item}. */
  public long lowerBound(long item) {
    return lowerBound(KeyBuffer.ofLong(item));
  }

  /** The lower bound of the bytes {@code encoder} writes for {@code item}. */
  public <T> long lowerBound(T item, KeyEncoder<? super T> encoder) {
    return lowerBound(KeyBuffer.encode(item, encoder));
  }

  private long lowerBound(KeyBuffer b) {
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
    int n = Math.min(k, size);
    // One more than listed, when there is one: the largest count outside the list.
    int[] order = buckets.listing((int) Math.min(k + 1L, size));
    long outside = k < size ? buckets.count(order[k]) : maxError();
    List<Entry> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      int s = order[i];
      long count = buckets.count(s);
      long error = buckets.error(s);
      out.add(new Entry(table.copy(s), count, error, count - error > outside));
    }
    return Collections.unmodifiableList(out);
  }

  /** Every monitored item, as {@link #top(int) top(size())}; empty when nothing was added. */
  public List<Entry> entries() {
    return size == 0 ? List.of() : top(size);
  }

  /**
   * The largest error of any count, and the most an unmonitored item can have occurred: the
   * smallest count once all {@code capacity} items are monitored, 0 before. At most N / capacity.
   */
  public long maxError() {
    return size == capacity ? buckets.lowestCount() : 0;
  }

  /** N, the sum of all counts added (saturating at Long.MAX_VALUE). */
  @Override
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
   * The bytes of the arrays now allocated (they grow with the items): per slot an item reference,
   * its length, two hashes, a count's bucket and error, list and tree links, plus the hash table
   * and the items' bytes, and a scratch array for String items; references counted as 4 bytes
   * (compressed oops), object headers excluded.
   */
  @Override
  public long byteSize() {
    return table.byteSize(size) + buckets.byteSize() + SCRATCH;
  }

  /**
   * XXH3 with seed 0: the public hash that orders tied items (items are placed by a secret one).
   */
  @Override
  public HashStrategy hashStrategy() {
    return ItemTable.ORDER_HASH;
  }

  @Override
  public StructureType type() {
    return StructureType.HEAVY_HITTERS;
  }

  // ---- combining

  /**
   * Adds the counts of {@code other}, a heavy-hitters summary, to this one; afterwards it has the
   * guarantees of a summary of the two streams together (see the class comment), with N the sum of
   * both totals. The other summary's capacity must be at least this one's, which this summary
   * keeps: a smaller one's counts could be off by more than N / capacity. {@code other} is
   * unchanged.
   */
  @Override
  public HeavyHitters merge(FrequencySketch other) {
    compatibility(other).orThrow();
    HeavyHittersMerge.merge(this, (HeavyHitters) other);
    return this;
  }

  /** Whether {@link #merge} would accept {@code other}. */
  @Override
  public boolean isCompatible(FrequencySketch other) {
    return compatibility(other).ok();
  }

  private Compatibility compatibility(FrequencySketch other) {
    HeavyHitters o = other instanceof HeavyHitters ? (HeavyHitters) other : this;
    return Compatibility.ofSelfAllowed("merge", this, other, HeavyHitters.class)
        .require(
            o.capacity >= capacity,
            "a heavy-hitters summary of capacity %d into one of capacity %d: its counts are only within N/%d",
            o.capacity,
            capacity,
            o.capacity);
  }

  /** An independent copy. */
  @Override
  public HeavyHitters copy() {
    HeavyHitters h = new HeavyHitters(capacity, placement);
    Entries e = new Entries(size);
    for (int s = 0; s < size; s++) {
      e.add(table.copy(s), table.length(s), table.orderHash(s), buckets.count(s), buckets.error(s));
    }
    h.refill(e, total);
    return h;
  }

  /** Replaces the contents with the {@code capacity} first of the entries in listing order. */
  void refill(Entries e, long newTotal) {
    int kept = Math.min(e.size, capacity);
    int[] order = e.first(kept);
    allocate(Math.max(kept, Math.min(capacity, INITIAL_SLOTS)));
    for (int i = 0; i < kept; i++) {
      int j = order[i];
      table.insertOwned(i, e.items[j], e.lengths[j], e.orderHashes[j]);
      buckets.insert(i, e.counts[j], e.errors[j]);
    }
    size = kept;
    total = newTotal;
  }

  // ---- for the merge and the format

  ItemTable table() {
    return table;
  }

  CountBuckets buckets() {
    return buckets;
  }

  /** Slots in listing order: larger count, then larger lower bound, then smaller bytes. */
  int[] listing() {
    return buckets.listing(size);
  }

  /** Whether two slots hold the same bytes (possible only in a summary read from a file). */
  boolean hasDuplicates() {
    for (int s = 0; s < size; s++) {
      if (table.find(table, s) != s) {
        return true;
      }
    }
    return false;
  }

  /** Lookups of every monitored item would read this many table entries (see ItemTable). */
  long probesToFindAll() {
    return table.probesToFindAll();
  }

  /** A summary of the given fields, for the format's reader, which has checked them. */
  static HeavyHitters of(int capacity, long total, Entries e) {
    HeavyHitters h = new HeavyHitters(capacity, Placement.random());
    h.refill(e, total);
    return h;
  }

  // ---- serialization

  /**
   * Parameters: capacity (u32), size (u32), total count (u64), item bytes (u64, the sum of the item
   * lengths). Payload: per monitored item, in listing order: count (u64), error (u64), length
   * (u32), the item's bytes. docs/FORMAT.md has the layout.
   */
  @Override
  public void writeTo(OutputStream out) throws IOException {
    HeavyHittersFormat.write(this, out);
  }

  /** Reads a summary written by {@link #writeTo}; corrupt input throws SketchFormatException. */
  public static HeavyHitters readFrom(InputStream in) throws IOException {
    return HeavyHittersFormat.read(in);
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
      int t = h.table.find(table, s);
      if (t < 0
          || h.buckets.count(t) != buckets.count(s)
          || h.buckets.error(t) != buckets.error(s)) {
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

  /** One monitored item: its true count lies in {@code [lowerBound(), count()]}. Immutable. */
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
      return itemAsString()
          + "="
          + count
          + (error == 0 ? "" : " (error " + error + ")")
          + (certain ? ", certain" : "");
    }
  }
}
