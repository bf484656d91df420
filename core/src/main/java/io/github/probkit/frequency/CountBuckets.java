package io.github.probkit.frequency;

import static io.github.probkit.frequency.CountMinSketch.saturatedAdd;

import java.util.Arrays;

/**
 * The counts and errors of the monitored slots of a {@link HeavyHitters} summary, kept in the
 * Stream-Summary of Space-Saving: one bucket per distinct count, in a list ordered by count, each
 * holding its slots in a list of their own.
 *
 * <p>Adding one to a count moves the slot to the next bucket, or gives its bucket the new count
 * when it is alone there: O(1), whatever the ties. A larger addition walks a few buckets, then
 * looks the target count up in a treap over the buckets (expected O(log buckets)), so no weight can
 * make an add cost more. The lowest bucket is ordered lazily: when an eviction first needs it, its
 * list is sorted in eviction order, and the first is evicted. No slot can join the lowest bucket of
 * a full summary (every new or raised count exceeds it), so the list stays sorted.
 *
 * <p>Orders (all counts equal within a bucket):
 *
 * <ul>
 *   <li>eviction: larger error first (the least evidence), then the smaller public order hash
 *       (unsigned), then the smaller bytes (unsigned);
 *   <li>listing: smaller error first (the larger lower bound), then the smaller bytes.
 * </ul>
 */
final class CountBuckets {
  /**
   * At most, per slot: an error, a bucket, two links, two places in the sort's arrays; and a bucket
   * (up to one per slot, and one more): a count, a first slot, five links and a priority. Bucket
   * and sort arrays grow as they are used.
   */
  static final int SLOT_BYTES = 8 + 4 * 3 + 4 * 2 + 8 + 4 * 7;

  private static final int INITIAL_BUCKETS = 16;

  private static final int NIL = -1;

  /** Buckets walked before a weighted add asks the treap. */
  private static final int WALK = 8;

  /** Below this many slots the lowest bucket is sorted by comparisons alone. */
  private static final int RADIX_MIN = 64;

  /** The bits of a slot number, and of a prefix, in sortPacked's ints. */
  private static final int PACKED_BITS = 16;

  private final ItemTable items;
  private final IndexSort.Order evictionOrder = this::evictsBefore;
  private final IndexSort.Order listingOrder = this::listsBefore;
  private long priorities;

  // Per slot.
  private long[] errors;
  private int[] bucketOf;
  private int[] nextInBucket;
  private int[] prevInBucket;

  // Per bucket: at most slots + 1 exist at once (a move makes its target before emptying its
  // source).
  private long[] count = new long[0];
  private int[] first = new int[0];
  private int[] next = new int[0];
  private int[] prev = new int[0];
  private int[] left = new int[0];
  private int[] right = new int[0];
  private int[] parent = new int[0];
  private int[] priority = new int[0];
  private int lowest = NIL;
  private int highest = NIL;
  private int root = NIL;
  private int freeBuckets = NIL;
  private int usedBuckets;

  /**
   * The bucket whose list is in eviction order, or NIL: the lowest, from its first eviction on (no
   * slot joins the lowest bucket of a full summary; those that leave unlink themselves).
   */
  private int sortedBucket = NIL;

  /** Scratch of the sort. */
  private int[] sorted = new int[0];

  private int[] spare = new int[0];
  // The prefix of the eviction order that sortLowest radix-sorts: maxError - error in spreadBits,
  // then the top hashBits of the order hash.
  private long prefixError;
  private int spreadBits;
  private int hashBits;
  private final int[] digits = new int[257];

  CountBuckets(ItemTable items, int slots, long prioritySeed) {
    this.items = items;
    this.priorities = prioritySeed;
    errors = new long[slots];
    bucketOf = new int[slots];
    nextInBucket = new int[slots];
    prevInBucket = new int[slots];
    allocateBuckets(Math.min(slots + 1, INITIAL_BUCKETS));
  }

  void grow(int slots) {
    errors = Arrays.copyOf(errors, slots);
    bucketOf = Arrays.copyOf(bucketOf, slots);
    nextInBucket = Arrays.copyOf(nextInBucket, slots);
    prevInBucket = Arrays.copyOf(prevInBucket, slots);
  }

  private void allocateBuckets(int buckets) {
    count = Arrays.copyOf(count, buckets);
    first = Arrays.copyOf(first, buckets);
    next = Arrays.copyOf(next, buckets);
    prev = Arrays.copyOf(prev, buckets);
    left = Arrays.copyOf(left, buckets);
    right = Arrays.copyOf(right, buckets);
    parent = Arrays.copyOf(parent, buckets);
    priority = Arrays.copyOf(priority, buckets);
  }

  long count(int s) {
    return count[bucketOf[s]];
  }

  long error(int s) {
    return errors[s];
  }

  /** The smallest count; there must be one. */
  long lowestCount() {
    return count[lowest];
  }

  // ---- changing counts

  /** Monitors slot {@code s}, which held no item, with count {@code c} and error {@code e}. */
  void insert(int s, long c, long e) {
    errors[s] = e;
    int b = lowest == NIL || count[lowest] > c ? newBucketAfter(NIL, c) : locate(lowest, c);
    link(s, b);
  }

  /** Adds {@code w} (positive) to the count of slot {@code s}, saturating. */
  void increment(int s, long w) {
    int b = bucketOf[s];
    long t = saturatedAdd(count[b], w);
    if (t == count[b]) {
      return;
    }
    int n = next[b];
    if (first[b] == s && nextInBucket[s] == NIL && (n == NIL || count[n] > t)) {
      count[b] = t; // alone, and no count in between: the bucket keeps its place
      return;
    }
    int to = locate(b, t);
    unlink(s, b);
    link(s, to);
    if (first[b] == NIL) {
      deleteBucket(b);
    }
  }

  /**
   * The slot to evict when a new item arrives at a full summary: the first of the lowest bucket in
   * eviction order. It stays in its bucket until {@link #restart}.
   */
  int evict() {
    if (sortedBucket != lowest) {
      sortLowest();
    }
    return first[lowest];
  }

  /**
   * Gives the slot {@link #evict} returned, now holding a new item, the evicted count plus {@code
   * w} and the evicted count as its error.
   */
  void restart(int s, long w) {
    int b = bucketOf[s];
    errors[s] = count[b];
    increment(s, w);
    if (bucketOf[s] == sortedBucket) {
      // Still in the lowest bucket (alone there, or saturated): back to its place in the order.
      unlink(s, b);
      int p = NIL;
      for (int x = first[b]; x != NIL && evictsBefore(x, s); x = nextInBucket[x]) {
        p = x;
      }
      linkAfter(s, p, b);
    }
  }

  /**
   * Relinks the slots of the lowest bucket in eviction order: a radix sort on a prefix of the order
   * (the error, then the top bits of the order hash), then a comparison sort of each run of equal
   * prefixes. O(n) for the usual few distinct errors, O(n log n) at worst.
   */
  private void sortLowest() {
    int n = 0;
    long maxError = 0;
    long minError = Long.MAX_VALUE;
    for (int s = first[lowest]; s != NIL; s = nextInBucket[s]) {
      if (n == sorted.length) {
        sorted = Arrays.copyOf(sorted, Math.max(16, 2 * n));
      }
      sorted[n++] = s;
      maxError = Math.max(maxError, errors[s]);
      minError = Math.min(minError, errors[s]);
    }
    // A small bucket is one run of equal (empty) prefixes.
    spreadBits = n < RADIX_MIN ? 0 : 64 - Long.numberOfLeadingZeros(maxError - minError);
    prefixError = maxError;
    if (spare.length < n) {
      spare = new int[sorted.length];
    }
    if (n >= RADIX_MIN && spreadBits < PACKED_BITS && bucketOf.length <= 1 << PACKED_BITS) {
      hashBits = PACKED_BITS - spreadBits;
      sortPacked(n);
    } else {
      hashBits = n < RADIX_MIN ? 0 : Math.min(16, 64 - spreadBits);
      for (int shift = 0; shift < spreadBits + hashBits; shift += 8) {
        radixPass(n, shift);
      }
      for (int i = 0, j; i < n; i = j) {
        long p = prefix(sorted[i]);
        for (j = i + 1; j < n && prefix(sorted[j]) == p; j++) {}
        if (j - i > 1) {
          IndexSort.sort(sorted, i, j, evictionOrder);
        }
      }
    }
    first[lowest] = NIL;
    for (int i = n - 1; i >= 0; i--) {
      link(sorted[i], lowest);
    }
    sortedBucket = lowest;
  }

  /**
   * sortLowest when the slot numbers and a prefix fit in an int together, 16 bits each: each slot
   * is sorted with its prefix beside it, so the radix passes read the scattered errors and hashes
   * once, not twice per pass.
   */
  private void sortPacked(int n) {
    int[] a = sorted;
    for (int i = 0; i < n; i++) {
      a[i] = (int) prefix(a[i]) << PACKED_BITS | a[i];
    }
    for (int shift = PACKED_BITS; shift < 32; shift += 8) {
      int[] at = digits;
      Arrays.fill(at, 0);
      int[] from = sorted;
      int[] to = spare;
      for (int i = 0; i < n; i++) {
        at[(from[i] >>> shift & 0xff) + 1]++;
      }
      for (int d = 0; d < 256; d++) {
        at[d + 1] += at[d];
      }
      for (int i = 0; i < n; i++) {
        int x = from[i];
        to[at[x >>> shift & 0xff]++] = x;
      }
      sorted = to;
      spare = from;
    }
    a = sorted;
    int slotMask = (1 << PACKED_BITS) - 1;
    for (int i = 0, j; i < n; i = j) {
      int p = a[i] >>> PACKED_BITS;
      a[i] &= slotMask;
      for (j = i + 1; j < n && a[j] >>> PACKED_BITS == p; j++) {
        a[j] &= slotMask;
      }
      if (j - i > 1) {
        IndexSort.sort(a, i, j, evictionOrder);
      }
    }
  }

  private long prefix(int s) {
    long top = hashBits == 0 ? 0 : items.orderHash(s) >>> (64 - hashBits);
    return spreadBits == 0 ? top : (prefixError - errors[s]) << hashBits | top;
  }

  /** A stable counting sort of sorted[0, n) on the 8 bits of the prefix from {@code shift}. */
  private void radixPass(int n, int shift) {
    int[] at = digits;
    Arrays.fill(at, 0);
    for (int i = 0; i < n; i++) {
      at[((int) (prefix(sorted[i]) >>> shift) & 0xff) + 1]++;
    }
    for (int d = 0; d < 256; d++) {
      at[d + 1] += at[d];
    }
    for (int i = 0; i < n; i++) {
      int s = sorted[i];
      spare[at[(int) (prefix(s) >>> shift) & 0xff]++] = s;
    }
    int[] t = sorted;
    sorted = spare;
    spare = t;
  }

  private boolean evictsBefore(int s, int t) {
    if (errors[s] != errors[t]) {
      return errors[s] > errors[t];
    }
    long hs = items.orderHash(s);
    long ht = items.orderHash(t);
    if (hs != ht) {
      return Long.compareUnsigned(hs, ht) < 0;
    }
    return items.compareItems(s, t) < 0;
  }

  private boolean listsBefore(int s, int t) {
    return errors[s] != errors[t] ? errors[s] < errors[t] : items.compareItems(s, t) < 0;
  }

  // ---- listing

  /** The first {@code k} monitored slots (at most as many as there are) in listing order. */
  int[] listing(int k) {
    int[] out = new int[k];
    int[] bucket = new int[16];
    int n = 0;
    for (int b = highest; n < k; b = prev[b]) {
      int m = 0;
      for (int s = first[b]; s != NIL; s = nextInBucket[s]) {
        if (m == bucket.length) {
          bucket = Arrays.copyOf(bucket, 2 * m);
        }
        bucket[m++] = s;
      }
      int take = Math.min(m, k - n);
      IndexSort.selectFirst(bucket, 0, m, take, listingOrder);
      System.arraycopy(bucket, 0, out, n, take);
      n += take;
    }
    return out;
  }

  // ---- the buckets

  /**
   * The bucket of count {@code t}, made if there is none; {@code from} is a bucket of count at most
   * {@code t}.
   */
  private int locate(int from, long t) {
    int a = from;
    for (int step = 0; step < WALK; step++) {
      if (count[a] == t) {
        return a;
      }
      int n = next[a];
      if (n == NIL || count[n] > t) {
        return newBucketAfter(a, t);
      }
      a = n;
    }
    a = floor(t);
    return count[a] == t ? a : newBucketAfter(a, t);
  }

  private void link(int s, int b) {
    if (b == sortedBucket) {
      sortedBucket = NIL; // cannot happen once full, when the order is needed; but then it is safe
    }
    linkAfter(s, NIL, b);
  }

  /** Links slot s into bucket b's list after slot p (first when NIL). */
  private void linkAfter(int s, int p, int b) {
    int n = p == NIL ? first[b] : nextInBucket[p];
    nextInBucket[s] = n;
    prevInBucket[s] = p;
    if (n != NIL) {
      prevInBucket[n] = s;
    }
    if (p == NIL) {
      first[b] = s;
    } else {
      nextInBucket[p] = s;
    }
    bucketOf[s] = b;
  }

  private void unlink(int s, int b) {
    int p = prevInBucket[s];
    int n = nextInBucket[s];
    if (p == NIL) {
      first[b] = n;
    } else {
      nextInBucket[p] = n;
    }
    if (n != NIL) {
      prevInBucket[n] = p;
    }
  }

  /** A new, empty bucket of count {@code t} right after bucket {@code a} (first when NIL). */
  private int newBucketAfter(int a, long t) {
    int b;
    if (freeBuckets != NIL) {
      b = freeBuckets;
      freeBuckets = next[b];
    } else {
      if (usedBuckets == count.length) {
        // A bucket per slot at most, and one more while a move has made its target.
        allocateBuckets((int) Math.min(bucketOf.length + 1L, 2L * usedBuckets));
      }
      b = usedBuckets++;
    }
    count[b] = t;
    first[b] = NIL;
    int n = a == NIL ? lowest : next[a];
    prev[b] = a;
    next[b] = n;
    if (a == NIL) {
      lowest = b;
    } else {
      next[a] = b;
    }
    if (n == NIL) {
      highest = b;
    } else {
      prev[n] = b;
    }
    treapInsert(b);
    return b;
  }

  private void deleteBucket(int b) {
    int p = prev[b];
    int n = next[b];
    if (p == NIL) {
      lowest = n;
    } else {
      next[p] = n;
    }
    if (n == NIL) {
      highest = p;
    } else {
      prev[n] = p;
    }
    treapRemove(b);
    if (b == sortedBucket) {
      sortedBucket = NIL;
    }
    next[b] = freeBuckets;
    freeBuckets = b;
  }

  // ---- the treap over the buckets (a binary search tree by count, a heap by random priority)

  /** Enters bucket b, already in the list, into the treap beside its list neighbours. */
  private void treapInsert(int b) {
    left[b] = NIL;
    right[b] = NIL;
    priority[b] = nextPriority();
    if (root == NIL) {
      root = b;
      parent[b] = NIL;
      return;
    }
    // Of two neighbours in key order, either the lower has no right child or the higher no left.
    int p = prev[b];
    if (p != NIL && right[p] == NIL) {
      right[p] = b;
      parent[b] = p;
    } else {
      int q = next[b];
      left[q] = b;
      parent[b] = q;
    }
    while (parent[b] != NIL && priority[b] < priority[parent[b]]) {
      rotateUp(b);
    }
  }

  private void treapRemove(int b) {
    while (left[b] != NIL || right[b] != NIL) {
      int l = left[b];
      int r = right[b];
      rotateUp(l == NIL ? r : r == NIL ? l : priority[l] < priority[r] ? l : r);
    }
    int p = parent[b];
    if (p == NIL) {
      root = NIL;
    } else if (left[p] == b) {
      left[p] = NIL;
    } else {
      right[p] = NIL;
    }
  }

  /** Rotates {@code x} above its parent. */
  private void rotateUp(int x) {
    int p = parent[x];
    int g = parent[p];
    if (left[p] == x) {
      int c = right[x];
      left[p] = c;
      if (c != NIL) {
        parent[c] = p;
      }
      right[x] = p;
    } else {
      int c = left[x];
      right[p] = c;
      if (c != NIL) {
        parent[c] = p;
      }
      left[x] = p;
    }
    parent[p] = x;
    parent[x] = g;
    if (g == NIL) {
      root = x;
    } else if (left[g] == p) {
      left[g] = x;
    } else {
      right[g] = x;
    }
  }

  /** The bucket of the largest count at most {@code t}; there must be one. */
  private int floor(long t) {
    int best = NIL;
    for (int x = root; x != NIL; ) {
      if (count[x] <= t) {
        best = x;
        x = right[x];
      } else {
        x = left[x];
      }
    }
    return best;
  }

  private int nextPriority() {
    // SplitMix64 over a per-summary seed: the tree's shape, never a result, depends on it.
    long z = priorities += 0x9e3779b97f4a7c15L;
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return (int) (z ^ (z >>> 31));
  }

  /** Bytes of the arrays: per slot, per bucket, and the sort's. */
  long byteSize() {
    return (long) errors.length * (8 + 4 * 3)
        + (long) count.length * (8 + 4 * 7)
        + 4L * (sorted.length + spare.length);
  }
}
