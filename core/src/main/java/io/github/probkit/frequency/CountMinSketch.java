package io.github.probkit.frequency;

import static io.github.probkit.internal.Preconditions.checkAllocatable;
import static io.github.probkit.internal.Preconditions.checkArgument;
import static io.github.probkit.internal.Preconditions.checkNotForeign;
import static io.github.probkit.internal.Preconditions.checkOpenUnit;

import io.github.probkit.Concurrency;
import io.github.probkit.hash.DoubleHashing;
import io.github.probkit.hash.HashAlgorithm;
import io.github.probkit.hash.HashStrategy;
import io.github.probkit.internal.Compatibility;
import io.github.probkit.internal.KeyBuffer;
import io.github.probkit.internal.Mix;
import io.github.probkit.io.SketchFormatException;
import io.github.probkit.io.SketchReader;
import io.github.probkit.io.SketchWriter;
import io.github.probkit.io.StructureType;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;
import java.util.stream.Collector;

/**
 * The count-min sketch (Cormode and Muthukrishnan 2005): d rows of w counters, one counter per row
 * for each item. Adding an item adds its count to its counter in every row; its estimate is the
 * smallest of its d counters. Estimates are never below the true count.
 *
 * <p>Cheat sheet, for a stream of total count N:
 *
 * <pre>
 *   width     w = ceil(e / epsilon)        2,719 at epsilon = 0.001
 *   depth     d = ceil(ln(1 / delta))      5 at delta = 0.01
 *   guarantee estimate(x) &gt;= count(x), and estimate(x) &lt;= count(x) + epsilon * N
 *             except with probability at most delta, for each x
 *   memory    8 * w * d bytes              106.2 KiB at 5 x 2,719, whatever the number of items
 * </pre>
 *
 * <p>{@link #epsilon()} and {@link #delta()} give the guarantee the dimensions actually provide
 * ({@code e / w} and {@code e^-d}), which is at least as good as the one asked for.
 *
 * <p>Counters are 64-bit and saturate: a counter (and the total) that would pass {@link
 * Long#MAX_VALUE} stays at {@code Long.MAX_VALUE}, which then reads as "at least {@code
 * Long.MAX_VALUE}". Nothing ever wraps around to a small or negative count.
 *
 * <p><b>Conservative update</b> ({@link UpdateRule#CONSERVATIVE}; Estan and Varghese 2002) raises
 * only the counters that are below the item's new minimum, instead of adding to all d. Estimates
 * are still never below the true count and are often much closer to it on skewed streams. What it
 * gives up: a merged sketch is still an upper bound on the combined stream, but no longer the
 * sketch that stream would have built; rows no longer sum to the total count, so that is kept
 * separately; and adds take a lock.
 *
 * <p>Thread safety: it depends on the {@link Concurrency} the sketch is created or read with; both
 * write the same file.
 *
 * <ul>
 *   <li>{@link Concurrency#CONCURRENT CONCURRENT}, the default: in the standard update mode, {@code
 *       add} and {@code merge} are lock-free and may run from many threads at once without losing a
 *       count (each counter is raised by an atomic compare-and-set, so the total of concurrent adds
 *       is exact). In conservative mode, {@code add} and {@code merge} synchronize on the sketch,
 *       because reading the minimum and raising the counters must be one step; a merge takes the
 *       other sketch's counters and total under the other's lock, then adds them under its own
 *       (never holding both), so it sees the other as it was between two adds. In both modes {@code
 *       estimate} may run concurrently with adds and sees every add that happened-before it; {@code
 *       writeTo} run during concurrent adds writes a valid sketch that includes some of them.
 *   <li>{@link Concurrency#SINGLE_WRITER SINGLE_WRITER}: {@code add} and {@code merge} raise the
 *       counters with plain stores and take no lock, so one thread at a time may call them, and no
 *       other method may run beside them. Faster where one thread fills the sketch, the common case
 *       (the benchmarks in docs/BENCHMARKS.md give the difference).
 * </ul>
 */
public final class CountMinSketch implements FrequencySketch {
  /** The most rows: {@code delta = e^-64} is already far below any useful failure probability. */
  public static final int MAX_DEPTH = 64;

  /** The most counters in a sketch ({@code width * depth}): the largest long[] a JVM allocates. */
  public static final long MAX_COUNTERS = Integer.MAX_VALUE - 8;

  private static final VarHandle CELLS = MethodHandles.arrayElementVarHandle(long[].class);

  /** How an add raises an item's counters. */
  public enum UpdateRule {
    /** Adds the count to the item's counter in every row. */
    STANDARD("standard"),
    /**
     * Raises only the item's counters that are below its new estimate (Estan and Varghese 2002):
     * closer estimates on skewed streams; see the class comment for what it gives up.
     */
    CONSERVATIVE("conservative");

    private final String label;

    UpdateRule(String label) {
      this.label = label;
    }

    /** {@code "standard"} or {@code "conservative"}. */
    public String label() {
      return label;
    }

    @Override
    public String toString() {
      return label;
    }
  }

  /*
   * Design notes.
   *
   * Layout: one long[] of depth * width counters, row-major, so row r's counter c is at r*w + c.
   *
   * Hashing: with XXH3 each item is hashed once; row r uses column reduce(mix64(h1 + r*h2), w),
   * where h2 is derived from h1 and reduce is Lemire's multiply-high [4]. The mix matters: with
   * plain double hashing (Kirsch and Mitzenmacher [3]) two items whose (h1, h2) are close share a
   * counter in every row at once, with probability about 1/w^2 rather than 1/w^d, which the
   * benchmarks saw as one item overestimated by 18,273 at w = 2719, d = 5 (stream-lib's worst: 822). With FNV-1a the sketch follows the specification's
   * walkthrough exactly: row r uses fnv1a64(item, SEEDS[r]) mod w with SEEDS[0] the strategy's seed
   * and SEEDS[1] the seed with its halves swapped (for the default, 0xCBF29CE484222325 and
   * 0x84222325CBF29CE4). The walkthrough defines no further seeds, so FNV-1a sketches are limited to
   * two rows rather than inventing seeds no other implementation would share.
   *
   * Why the bound holds [1]: an item's counter in one row holds its own count plus the counts of the
   * items that share it, N/w of them in expectation; by Markov's inequality that excess passes
   * e*N/w = epsilon*N with probability at most 1/e, and with independent rows all d do so with
   * probability at most e^-d = delta.
   *
   * Total count: in the standard mode every add puts its count once into every row, so the sum of
   * any row is N; totalCount() sums row 0 instead of keeping a shared counter that every thread would
   * contend for. Conservative update breaks that identity, so it keeps the total in a field [2].
   *
   * [1] Cormode, Muthukrishnan. An improved data stream summary: the count-min sketch and its
   *     applications. J. Algorithms 55(1), 2005.
   * [2] Estan, Varghese. New directions in traffic measurement and accounting. SIGCOMM 2002
   *     (conservative update).
   * [3] Kirsch, Mitzenmacher. Less hashing, same performance: building a better Bloom filter. 2006.
   * [4] Lemire. Fast random integer generation in an interval. 2019.
   */

  private final long[] cells;
  private final int width;
  private final int depth;
  private final HashStrategy hash;
  private final boolean exact;
  private final boolean conservative;
  private final boolean concurrent;

  /**
   * A single-writer sketch's own buffer for the bytes of a String key being added, or null: the
   * thread's buffer (KeyBuffer) costs a thread-local look-up and its taking and giving back on
   * every add, and a single-writer sketch is added to by one thread at a time.
   */
  private final byte[] keyBytes;

  /** The total count; kept only in conservative mode (guarded by this). */
  private volatile long total;

  private CountMinSketch(
      long[] cells,
      int width,
      int depth,
      HashStrategy hash,
      boolean conservative,
      Concurrency concurrency,
      long total) {
    this.cells = cells;
    this.width = width;
    this.depth = depth;
    this.hash = hash;
    this.exact = hash.exactModulo();
    this.conservative = conservative;
    this.concurrent = Objects.requireNonNull(concurrency, "concurrency") == Concurrency.CONCURRENT;
    this.total = total;
    this.keyBytes = concurrent ? null : new byte[KEY_BYTES];
  }

  /** The longest String key (in chars) an add copies into {@link #keyBytes}. */
  private static final int KEY_BYTES = 64;

  /**
   * A sketch whose estimates exceed the true count by more than {@code epsilon * N} with
   * probability at most {@code delta}: {@code ceil(e / epsilon)} counters by {@code ceil(ln(1 /
   * delta))} rows, hashed with XXH3. {@code create(0.001, 0.01)} has 5 rows of 2,719 counters.
   */
  public static CountMinSketch create(double epsilon, double delta) {
    return create(epsilon, delta, HashStrategy.xxh3());
  }

  /** As {@link #create(double, double)}, written in the given mode (see the class comment). */
  public static CountMinSketch create(double epsilon, double delta, Concurrency concurrency) {
    return create(epsilon, delta, HashStrategy.xxh3(), UpdateRule.STANDARD, concurrency);
  }

  public static CountMinSketch create(double epsilon, double delta, HashStrategy hash) {
    return create(epsilon, delta, hash, UpdateRule.STANDARD);
  }

  /** As {@link #create(double, double, HashStrategy)}, updating by {@code rule}. */
  public static CountMinSketch create(
      double epsilon, double delta, HashStrategy hash, UpdateRule rule) {
    return create(epsilon, delta, hash, rule, Concurrency.CONCURRENT);
  }

  /**
   * As {@link #create(double, double, HashStrategy, UpdateRule)}, written in the given mode (see
   * the class comment).
   */
  public static CountMinSketch create(
      double epsilon, double delta, HashStrategy hash, UpdateRule rule, Concurrency concurrency) {
    return allocate(widthFor(epsilon, delta), depthFor(delta), hash, rule, concurrency);
  }

  /** A sketch of exactly {@code depth} rows of {@code width} counters, hashed with XXH3. */
  public static CountMinSketch withDimensions(int width, int depth) {
    return withDimensions(width, depth, HashStrategy.xxh3());
  }

  public static CountMinSketch withDimensions(int width, int depth, HashStrategy hash) {
    return withDimensions(width, depth, hash, UpdateRule.STANDARD);
  }

  /** As {@link #withDimensions(int, int, HashStrategy)}, updating by {@code rule}. */
  public static CountMinSketch withDimensions(
      int width, int depth, HashStrategy hash, UpdateRule rule) {
    return withDimensions(width, depth, hash, rule, Concurrency.CONCURRENT);
  }

  /**
   * As {@link #withDimensions(int, int, HashStrategy, UpdateRule)}, written in the given mode (see
   * the class comment).
   */
  public static CountMinSketch withDimensions(
      int width, int depth, HashStrategy hash, UpdateRule rule, Concurrency concurrency) {
    return allocate(width, depth, hash, rule, concurrency);
  }

  /**
   * A collector of items (their UTF-8 bytes) into a sketch of {@link #create(double, double)}; a
   * parallel stream fills one per thread and merges them: {@code
   * terms.stream().collect(CountMinSketch.toCountMinSketch(0.001, 0.01))}.
   */
  public static Collector<CharSequence, ?, CountMinSketch> toCountMinSketch(
      double epsilon, double delta) {
    widthFor(epsilon, delta); // checks the arguments now
    return Collector.of(
        () -> create(epsilon, delta),
        CountMinSketch::add,
        CountMinSketch::merge,
        Collector.Characteristics.UNORDERED,
        Collector.Characteristics.IDENTITY_FINISH);
  }

  /**
   * The width for {@code epsilon}: {@code ceil(e / epsilon)}, 2,719 at 0.001. ({@code delta} only
   * completes the message when the sketch would be too large.)
   */
  public static int widthFor(double epsilon, double delta) {
    checkOpenUnit("epsilon", epsilon);
    checkOpenUnit("delta", delta);
    double w = Math.ceil(Math.E / epsilon);
    long d = depthFor(delta);
    checkArgument(
        w * d <= MAX_COUNTERS,
        "epsilon %s and delta %s need %d rows of %.0f counters, more than the maximum of %d counters",
        epsilon,
        delta,
        d,
        w,
        MAX_COUNTERS);
    return (int) w;
  }

  /** The depth for {@code delta}: {@code ceil(ln(1 / delta))}, 5 at 0.01. */
  public static int depthFor(double delta) {
    checkOpenUnit("delta", delta);
    double d = Math.max(1, Math.ceil(StrictMath.log(1 / delta)));
    checkArgument(
        d <= MAX_DEPTH,
        "delta must be at least e^-%d (%s rows at most), was %s",
        MAX_DEPTH,
        MAX_DEPTH,
        delta);
    return (int) d;
  }

  private static CountMinSketch allocate(
      int w, int d, HashStrategy hash, UpdateRule rule, Concurrency concurrency) {
    Objects.requireNonNull(rule, "rule");
    Objects.requireNonNull(concurrency, "concurrency");
    checkDimensions(w, d, hash);
    checkAllocatable(8L * w * d, "a count-min sketch of " + d + " x " + w + " counters");
    return new CountMinSketch(
        new long[w * d], w, d, hash, rule == UpdateRule.CONSERVATIVE, concurrency, 0);
  }

  private static void checkDimensions(int w, int d, HashStrategy hash) {
    checkNotForeign(hash, "a count-min sketch");
    checkArgument(w >= 1, "width must be positive, was %d", w);
    checkArgument(d >= 1 && d <= MAX_DEPTH, "depth must be in [1, %d], was %d", MAX_DEPTH, d);
    checkArgument(
        (long) w * d <= MAX_COUNTERS,
        "width * depth must be at most %d counters, was %d x %d",
        MAX_COUNTERS,
        w,
        d);
    checkArgument(
        hash.algorithm() != HashAlgorithm.FNV1A_64 || d <= 2,
        "the fnv1a strategy has row seeds for depth 1 or 2 only (the specification's scheme), "
            + "was depth %d; use xxh3 for deeper sketches",
        d);
  }

  /**
   * A new, empty sketch of the same dimensions and hashing that uses conservative update; this
   * sketch and its counts are unchanged.
   *
   * @deprecated the name suggested that it switched this sketch's rule; create the sketch with its
   *     rule instead: {@link #create(double, double, HashStrategy, UpdateRule)} or {@link
   *     #withDimensions(int, int, HashStrategy, UpdateRule)}.
   */
  @Deprecated(forRemoval = true)
  public CountMinSketch withConservativeUpdate() {
    return withDimensions(width, depth, hash, UpdateRule.CONSERVATIVE, concurrency());
  }

  // ---- adding

  /**
   * Adds {@code count} occurrences (count &gt;= 0) of the {@code len} bytes of {@code item} from
   * {@code off}.
   */
  @Override
  public void add(byte[] item, int off, int len, long count) {
    checkCount(count);
    long h1 = hash.hash64(item, off, len);
    addHashes(h1, secondHash(item, off, len, h1), count);
  }

  /**
   * Adds {@code count} occurrences of the 8 little-endian bytes of {@code item}, hashed without
   * going through bytes.
   */
  @Override
  public void add(long item, long count) {
    checkCount(count);
    long h1 = hash.hash64(item);
    addHashes(h1, secondHash(item, h1), count);
  }

  /** Adds {@code count} occurrences of the UTF-8 bytes of {@code item}. */
  @Override
  public void add(CharSequence item, long count) {
    if (exact) {
      FrequencySketch.super.add(item, count);
      return;
    }
    checkCount(count);
    long h1 =
        keyBytes != null && item instanceof String ? hashOwn((String) item) : hash.hash64(item);
    addHashes(h1, derivedSecondHash(h1), count);
  }

  /**
   * The hash of a String key's UTF-8 bytes, as {@code hash.hash64(s)}, copied into this sketch's
   * own buffer. Keys of at most 8 chars are hashed from their chars by the strategy already, and
   * keys not all ASCII or too long go through the thread's buffer as before.
   */
  private long hashOwn(String s) {
    int n = s.length();
    byte[] b = keyBytes;
    if (n > 8 && n <= b.length && KeyBuffer.copyAscii(s, b, 0)) {
      return hash.hash64(b, 0, n);
    }
    return hash.hash64(s);
  }

  /**
   * With XXH3 the second hash is derived from the first alone, so a String key is hashed by the
   * strategy's String path without its bytes being kept.
   */
  private long derivedSecondHash(long h1) {
    return hash.secondHash(0L, h1);
  }

  /**
   * The second hash: with XXH3 derived from the first; with FNV-1a the specification's row 1, the
   * key hashed with the strategy's second seed as it is (only sketches of 2 rows use it).
   */
  private long secondHash(byte[] item, int off, int len, long h1) {
    if (exact) {
      return depth > 1 ? hash.secondSeedHash64(item, off, len) : 0;
    }
    return hash.secondHash(item, off, len, h1);
  }

  private long secondHash(long item, long h1) {
    if (exact) {
      return depth > 1 ? hash.secondSeedHash64(item) : 0;
    }
    return hash.secondHash(item, h1);
  }

  static void checkCount(long count) {
    // Not checkArgument: its varargs would allocate on every add.
    if (count < 0) {
      throw new IllegalArgumentException("count must be non-negative, was " + count);
    }
  }

  /** Row r's counter for the hash pair: the index into {@code cells}. */
  private int index(long h1, long h2, int r) {
    return r * width + column(exact, width, h1, h2, r);
  }

  /** Row r's column for the hash pair. */
  private static int column(boolean exact, int width, long h1, long h2, int r) {
    return (int)
        (exact
            ? DoubleHashing.unsignedMod(r == 0 ? h1 : h2, width)
            : DoubleHashing.reduce(Mix.mix64(h1 + r * h2), width));
  }

  private void addHashes(long h1, long h2, long count) {
    if (count == 0) {
      return;
    }
    if (conservative) {
      if (concurrent) {
        addConservativeLocked(h1, h2, count);
      } else {
        addConservative(h1, h2, count);
      }
      return;
    }
    if (exact) {
      for (int r = 0; r < depth; r++) {
        addToCell(index(h1, h2, r), count);
      }
      return;
    }
    // index() for every row, computed incrementally: h1 + r * h2 and r * width by addition.
    long x = h1;
    if (concurrent) {
      for (int base = 0, end = depth * width; base < end; base += width, x += h2) {
        addToCell(base + (int) DoubleHashing.reduce(Mix.mix64(x), width), count);
      }
    } else if (depth == 5) {
      addPlain(x, h2, count, 5);
    } else {
      addPlain(x, h2, count, depth);
    }
  }

  /**
   * The single-writer standard add; depth 5 (delta = 1 %, the default) is passed as a constant, so
   * that the JIT unrolls the rows and overlaps their hashing.
   */
  private void addPlain(long x, long h2, long count, int depth) {
    long[] c = cells;
    int w = width;
    for (int r = 0, base = 0; r < depth; r++, base += w, x += h2) {
      int i = base + (int) DoubleHashing.reduce(Mix.mix64(x), w);
      c[i] = saturatedAdd(c[i], count);
    }
  }

  /** Saturating atomic add; count is positive. */
  private void addToCell(int i, long count) {
    long v = (long) CELLS.getOpaque(cells, i);
    while (v != Long.MAX_VALUE) {
      long next = saturatedAdd(v, count);
      long seen = (long) CELLS.compareAndExchange(cells, i, v, next);
      if (seen == v) {
        return;
      }
      v = seen;
    }
  }

  private synchronized void addConservativeLocked(long h1, long h2, long count) {
    addConservative(h1, h2, count);
  }

  private void addConservative(long h1, long h2, long count) {
    long min = Long.MAX_VALUE;
    for (int r = 0; r < depth; r++) {
      min = Math.min(min, cells[index(h1, h2, r)]);
    }
    long target = saturatedAdd(min, count);
    for (int r = 0; r < depth; r++) {
      int i = index(h1, h2, r);
      if (cells[i] < target) {
        CELLS.setOpaque(cells, i, target);
      }
    }
    total = saturatedAdd(total, count);
  }

  /** {@code a + b} for non-negative a and b, or Long.MAX_VALUE when that overflows. */
  static long saturatedAdd(long a, long b) {
    long s = a + b;
    return s < 0 ? Long.MAX_VALUE : s;
  }

  // ---- estimating

  /**
   * The estimated count of the item made of {@code len} bytes of {@code item} from {@code off}: the
   * smallest of its counters. Never below the true count; above it by more than {@code epsilon() *
   * totalCount()} with probability at most {@code delta()}.
   */
  @Override
  public long estimate(byte[] item, int off, int len) {
    long h1 = hash.hash64(item, off, len);
    return estimateHashes(h1, secondHash(item, off, len, h1));
  }

  /** The estimated count of the 8 little-endian bytes of {@code item}. */
  @Override
  public long estimate(long item) {
    long h1 = hash.hash64(item);
    return estimateHashes(h1, secondHash(item, h1));
  }

  /** The estimated count of the UTF-8 bytes of {@code item}. */
  @Override
  public long estimate(CharSequence item) {
    if (exact) {
      return FrequencySketch.super.estimate(item);
    }
    long h1 = hash.hash64(item);
    return estimateHashes(h1, derivedSecondHash(h1));
  }

  private long estimateHashes(long h1, long h2) {
    long min = Long.MAX_VALUE;
    if (exact) {
      for (int r = 0; r < depth; r++) {
        min = Math.min(min, (long) CELLS.getOpaque(cells, index(h1, h2, r)));
      }
      return min;
    }
    long x = h1;
    for (int base = 0, end = depth * width; base < end; base += width, x += h2) {
      min =
          Math.min(
              min,
              (long)
                  CELLS.getOpaque(cells, base + (int) DoubleHashing.reduce(Mix.mix64(x), width)));
    }
    return min;
  }

  /** The column of the item's counter in each row, row 0 first (for explaining and teaching). */
  public int[] columns(CharSequence item) {
    KeyBuffer b = KeyBuffer.utf8(item);
    try {
      int[] out = new int[depth];
      columns(hash, width, depth, b.bytes(), 0, b.length(), out);
      return out;
    } finally {
      b.release();
    }
  }

  /**
   * Writes into {@code out[0..depth)} the column of the item's counter in each row, row 0 first,
   * for a sketch of {@code width} x {@code depth} hashed with {@code hash}, without allocating the
   * sketch: for stores that keep the counters elsewhere (probkit-redis). Counter {@code (r,
   * out[r])} is counter number {@code r * width + out[r]} of the serialized payload
   * (docs/FORMAT.md).
   */
  public static void columns(
      HashStrategy hash, int width, int depth, byte[] item, int off, int len, int[] out) {
    boolean exact = hash.exactModulo();
    long h1 = hash.hash64(item, off, len);
    long h2 =
        exact
            ? (depth > 1 ? hash.secondSeedHash64(item, off, len) : 0)
            : hash.secondHash(item, off, len, h1);
    for (int r = 0; r < depth; r++) {
      out[r] = column(exact, width, h1, h2, r);
    }
  }

  /** The counter in {@code row} at {@code column}. */
  public long counter(int row, int column) {
    checkArgument(row >= 0 && row < depth, "row must be in [0, %d), was %d", depth, row);
    checkArgument(
        column >= 0 && column < width, "column must be in [0, %d), was %d", width, column);
    return (long) CELLS.getOpaque(cells, row * width + column);
  }

  // ---- combining

  /**
   * Adds every count of {@code other} to this sketch, counter by counter: afterwards this sketch
   * estimates the concatenation of both streams, with the guarantee of a sketch that counted it
   * (exactly that sketch in the standard mode). Both must have the same width, depth, hashing and
   * update rule. Counters saturate as in {@link #add}. A conservative sketch takes the other's
   * counters and total together, under the other's lock, so the result never has a counter above
   * its total even while the other is being added to.
   */
  @Override
  public CountMinSketch merge(FrequencySketch other) {
    compatibility(other).orThrow();
    CountMinSketch o = (CountMinSketch) other;
    if (conservative) {
      long[] snapshot;
      long otherTotal;
      synchronized (o) {
        snapshot = o.cells.clone();
        otherTotal = o.total;
      }
      mergeLocked(snapshot, otherTotal);
    } else {
      long[] c = o == this ? cells.clone() : o.cells;
      for (int i = 0; i < cells.length; i++) {
        long v = (long) CELLS.getOpaque(c, i);
        if (v != 0) {
          if (concurrent) {
            addToCell(i, v);
          } else {
            cells[i] = saturatedAdd(cells[i], v);
          }
        }
      }
    }
    return this;
  }

  private synchronized void mergeLocked(long[] o, long otherTotal) {
    for (int i = 0; i < cells.length; i++) {
      CELLS.setOpaque(cells, i, saturatedAdd(cells[i], o[i]));
    }
    total = saturatedAdd(total, otherTotal);
  }

  /** Whether {@link #merge} would accept {@code other}. */
  @Override
  public boolean isCompatible(FrequencySketch other) {
    return compatibility(other).ok();
  }

  private Compatibility compatibility(FrequencySketch other) {
    CountMinSketch o = other instanceof CountMinSketch ? (CountMinSketch) other : this;
    return Compatibility.ofSelfAllowed("merge", this, other, CountMinSketch.class)
        .require(
            width == o.width && depth == o.depth,
            "count-min sketches of different dimensions: %d x %d and %d x %d",
            depth,
            width,
            o.depth,
            o.width)
        .require(
            hash.equals(o.hash),
            "count-min sketches with different hashing: %s and %s",
            hash,
            o.hash)
        .require(
            conservative == o.conservative,
            "count-min sketches with different update rules: %s and %s",
            updateRule(),
            o.updateRule());
  }

  /** An independent copy, written in the same mode. */
  @Override
  public CountMinSketch copy() {
    if (conservative) {
      synchronized (this) {
        return new CountMinSketch(cells.clone(), width, depth, hash, true, concurrency(), total);
      }
    }
    return new CountMinSketch(cells.clone(), width, depth, hash, false, concurrency(), 0);
  }

  // ---- introspection

  /**
   * N, the sum of all counts added (saturating at Long.MAX_VALUE). In the standard mode this is the
   * sum of row 0, a scan of {@code width} counters.
   */
  @Override
  public long totalCount() {
    return conservative ? total : rowSum(cells, 0, width);
  }

  private static long rowSum(long[] a, int from, int width) {
    long s = 0;
    for (int i = from, end = from + width; i < end; i++) {
      s = saturatedAdd(s, (long) CELLS.getOpaque(a, i));
    }
    return s;
  }

  public int width() {
    return width;
  }

  public int depth() {
    return depth;
  }

  /** The error factor these dimensions guarantee: {@code e / width}. */
  public double epsilon() {
    return Math.E / width;
  }

  /** The failure probability these dimensions guarantee: {@code e^-depth}. */
  public double delta() {
    return Math.exp(-depth);
  }

  /** How the sketch may be written: by many threads at once, or by one (see the class comment). */
  public Concurrency concurrency() {
    return concurrent ? Concurrency.CONCURRENT : Concurrency.SINGLE_WRITER;
  }

  /** Whether adds use conservative update. */
  public boolean isConservative() {
    return conservative;
  }

  /**
   * How adds raise the counters; its {@code toString} is {@code "standard"} or {@code
   * "conservative"}.
   */
  public UpdateRule updateRule() {
    return conservative ? UpdateRule.CONSERVATIVE : UpdateRule.STANDARD;
  }

  /** The bytes of the counter table: {@code 8 * width * depth}. */
  @Override
  public long byteSize() {
    return 8L * cells.length;
  }

  @Override
  public HashStrategy hashStrategy() {
    return hash;
  }

  @Override
  public StructureType type() {
    return StructureType.COUNT_MIN_SKETCH;
  }

  // ---- serialization

  /**
   * Parameters: width (u32), depth (u32), update rule (u8: 0 standard, 1 conservative), total count
   * (u64). Payload: the depth * width counters (u64), row by row. docs/FORMAT.md has the layout.
   */
  @Override
  public void writeTo(OutputStream out) throws IOException {
    if (conservative) {
      synchronized (this) {
        write(out, cells.clone(), total);
      }
      return;
    }
    // Row 0 is copied so that the total written is exactly its sum even while adds continue.
    long[] row0 = new long[width];
    for (int i = 0; i < width; i++) {
      row0[i] = (long) CELLS.getOpaque(cells, i);
    }
    SketchWriter w =
        SketchWriter.begin(
            out,
            StructureType.COUNT_MIN_SKETCH,
            hash,
            params(rowSum(row0, 0, width)).array(),
            byteSize());
    w.writeLongs(row0, 0, width);
    w.writeLongs(cells, width, cells.length - width);
    w.finish();
  }

  private void write(OutputStream out, long[] snapshot, long totalCount) throws IOException {
    SketchWriter w =
        SketchWriter.begin(
            out, StructureType.COUNT_MIN_SKETCH, hash, params(totalCount).array(), byteSize());
    w.writeLongs(snapshot, 0, snapshot.length);
    w.finish();
  }

  private ByteBuffer params(long totalCount) {
    ByteBuffer p = SketchWriter.params(17);
    p.putInt(width).putInt(depth).put((byte) (conservative ? 1 : 0)).putLong(totalCount);
    return p;
  }

  /**
   * Reads a sketch written by {@link #writeTo}, for concurrent writing; corrupt input throws
   * SketchFormatException.
   */
  public static CountMinSketch readFrom(InputStream in) throws IOException {
    return readFrom(in, Concurrency.CONCURRENT);
  }

  /**
   * As {@link #readFrom(InputStream)}, written afterwards in the given mode (see the class
   * comment).
   */
  public static CountMinSketch readFrom(InputStream in, Concurrency concurrency)
      throws IOException {
    Objects.requireNonNull(concurrency, "concurrency");
    return read(SketchReader.open(in, StructureType.COUNT_MIN_SKETCH), concurrency);
  }

  static CountMinSketch read(SketchReader r, Concurrency concurrency) throws IOException {
    int w = r.paramInt("width");
    r.check(w >= 1, "width", w, "positive");
    int d = r.paramInt("depth");
    r.check(d >= 1 && d <= MAX_DEPTH, "depth", d, "in [1, " + MAX_DEPTH + "]");
    r.check((long) w * d <= MAX_COUNTERS, "width * depth", (long) w * d, "at most " + MAX_COUNTERS);
    r.check(
        r.hash().algorithm() != HashAlgorithm.FNV1A_64 || d <= 2,
        "depth",
        d,
        "1 or 2 with the fnv1a hash");
    int rule = r.paramByte("update rule");
    r.check(rule == 0 || rule == 1, "update rule", rule, "0 (standard) or 1 (conservative)");
    long n = r.paramLong("total count");
    r.check(n >= 0, "total count", n, "non-negative");
    r.expectPayloadLength(8L * w * d);
    long[] cells = r.readLongs(w * d, "counters");
    r.finish();
    for (int i = 0; i < cells.length; i++) {
      if (cells[i] < 0 || (rule == 1 && cells[i] > n)) {
        throw new SketchFormatException(
            "count-min counter "
                + i
                + " is "
                + cells[i]
                + ", must be in [0, total count "
                + n
                + "]");
      }
    }
    if (rule == 0 && rowSum(cells, 0, w) != n) {
      throw new SketchFormatException(
          "count-min row 0 sums to " + rowSum(cells, 0, w) + ", the total count is " + n);
    }
    return new CountMinSketch(cells, w, d, r.hash(), rule == 1, concurrency, rule == 1 ? n : 0);
  }

  // ---- identity

  /**
   * Equal when the dimensions, hashing, update rule, counters and total are (whatever their write
   * modes).
   */
  @Override
  public boolean equals(Object o) {
    if (!(o instanceof CountMinSketch)) {
      return false;
    }
    CountMinSketch s = (CountMinSketch) o;
    return width == s.width
        && depth == s.depth
        && hash.equals(s.hash)
        && conservative == s.conservative
        && totalCount() == s.totalCount()
        && Arrays.equals(cells, s.cells);
  }

  @Override
  public int hashCode() {
    return Objects.hash(width, depth, hash, conservative);
  }

  @Override
  public String toString() {
    return "CountMinSketch{width="
        + width
        + ", depth="
        + depth
        + ", update="
        + updateRule()
        + ", hash="
        + hash
        + "}";
  }
}
