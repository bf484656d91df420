package io.github.probkit.cardinality;

import static io.github.probkit.internal.Preconditions.checkArgument;
import static io.github.probkit.internal.Preconditions.checkUniformHash;

import io.github.probkit.hash.HashStrategy;
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
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Objects;
import java.util.OptionalDouble;

/**
 * HyperLogLog (Flajolet, Fusy, Gandouet, Meunier 2007): the number of distinct keys from 2^p
 * registers of 6 bits, with a sparse form for small counts.
 *
 * <p>Cheat sheet, for precision p and m = 2^p registers:
 *
 * <pre>
 *   memory (dense)        6m/8 bytes               12,288 bytes at p = 14 (and 249 bytes more
 *                         for the estimator's register histogram and a pad byte)
 *   error of estimate()   1.04/sqrt(m)             0.81 % at p = 14, 1.6 % at p = 12
 *   martingale error      0.83/sqrt(m)             0.65 % at p = 14 (a sketch never merged)
 *   memory (sparse)       4 bytes per distinct key in a hash table at most 3/4 full, while
 *                         smaller than the dense form: up to 1,536 keys at p = 14
 *   error while sparse    below 0.02 %: counts up to a few hundred are exact
 * </pre>
 *
 * <p>A sketch starts sparse (when that is smaller than the dense form at its precision) and becomes
 * dense by itself. Sketches merge when they use the same hashing; a sketch of a higher precision
 * can be merged into one of a lower precision, and the result has exactly the registers of a sketch
 * built at the lower precision from the union of the keys.
 *
 * <p>Thread safety: not thread-safe. Confine a sketch to one thread or synchronize; to count in
 * parallel, fill one sketch per thread and merge them.
 */
public final class HyperLogLog implements CardinalitySketch {
  public static final int MIN_PRECISION = 4;
  public static final int MAX_PRECISION = 18;

  /*
   * Design notes.
   *
   * One 64-bit hash per key. Its top p bits choose the register and the number of leading zeros
   * of the remaining q = 64 - p bits, plus one, is the update value in [1, q + 1] (LogLogMath).
   * Dense registers are 6 bits, packed four to three bytes, little-endian: register i is bits
   * 6(i mod 4) .. 6(i mod 4) + 5 of the 24-bit group at byte 3(i div 4), that is bits 6i .. 6i + 5
   * of the array read as one little-endian number, which always lie within the two bytes from
   * byte 6i / 8. The array has one byte more than the registers take, always 0, so that those two
   * bytes can be read for the last register too: an add reads and writes two bytes, not three,
   * with no bounds test.
   *
   * Sparse form (after Heule, Nunkesser, Hall [2]): while few registers are set, the sketch keeps
   * the registers of a precision-25 sketch that are not zero, as 31-bit entries
   * (index << 6 | value) in an open-addressing table indexed by the top bits of the index (which
   * are uniform, so they need no further hashing) with linear probing, at most 3/4 full. Being
   * precision 25, the sparse form is almost exact; folding an entry down to precision p (see
   * LogLogMath.foldRank) gives exactly the dense register, so converting loses nothing. The table
   * doubles until the next doubling would be no smaller than the dense array, then the sketch
   * converts; the conversion happens right after an insertion, so it depends only on the state.
   *
   * Estimator: Ertl's improved raw estimator [3], no bias tables and no switch between ranges;
   * applied to the precision-25 registers while sparse, and corrected for its first-order bias.
   * Its asymptotic relative standard error is sqrt(3 ln 2 - 1)/sqrt(m) = 1.039/sqrt(m).
   *
   * The estimator reads the registers only through their histogram (how many hold each value),
   * which is kept up to date as registers change (an add changes at most one; a merge, a densify,
   * a downsize or a read recounts it), so estimate() costs O(q), not O(m), and allocates nothing.
   *
   * Martingale estimator (historic inverse probability, Ting [4], Cohen [5]): every change of
   * state adds 1/P, where P is the probability that a new key changes the state, kept as the sum
   * over registers of 2^-value (0 for a register at q + 1) divided by m. Each distinct key adds 1
   * in expectation, so the estimate is unbiased; its relative standard error is
   * sqrt(ln 2)/sqrt(m) = 0.833/sqrt(m). It stays valid through the sparse-to-dense switch and
   * through downsizing, because both coarsen the tracked state at a moment that depends only on
   * the state; a merge brings in keys it never saw, so it ends the estimate.
   *
   * [1] Flajolet, Fusy, Gandouet, Meunier. HyperLogLog: the analysis of a near-optimal cardinality
   *     estimation algorithm. AofA 2007.
   * [2] Heule, Nunkesser, Hall. HyperLogLog in practice. EDBT 2013.
   * [3] Ertl. New cardinality estimation algorithms for HyperLogLog sketches. arXiv:1702.01284,
   *     2017.
   * [4] Ting. Streamed approximate counting of distinct elements. KDD 2014.
   * [5] Cohen. All-distances sketches, revisited: HIP estimators for massive graphs analysis.
   *     PODS 2014.
   */

  /** The precision of the sparse entries. */
  static final int SPARSE_PRECISION = 25;

  private static final int SPARSE_Q = 64 - SPARSE_PRECISION;
  private static final int INITIAL_CAPACITY = 8;
  private static final double RSE = Math.sqrt(LogLogMath.HARMONIC_VARIANCE);
  private static final double MARTINGALE_RSE = Math.sqrt(Math.log(2));

  private final int p;
  private final HashStrategy hash;

  /** The packed registers, or null while sparse. */
  private byte[] dense;

  /** The sparse table (0 = free slot), or null when dense. */
  private int[] table;

  private int entries;

  /** Sum over the tracked registers of the probability that a new key raises each. */
  private double changeSum;

  /**
   * {@code histogram[v]}: the tracked registers (dense, or the precision-25 ones while sparse)
   * holding value v, for v in [0, q + 1].
   */
  private final int[] histogram = new int[64 - MIN_PRECISION + 2];

  /** The martingale estimate, NaN once ended by a merge. */
  private double martingale;

  private HyperLogLog(int p, HashStrategy hash) {
    this.p = p;
    this.hash = hash;
    if (maxSparseCapacity(p) >= INITIAL_CAPACITY) {
      table = new int[INITIAL_CAPACITY];
      changeSum = 1 << SPARSE_PRECISION;
      histogram[0] = 1 << SPARSE_PRECISION;
    } else {
      dense = denseArray(p);
      changeSum = 1 << p;
      histogram[0] = 1 << p;
    }
  }

  /** An empty sketch of 2^precision registers hashing keys with XXH3. */
  public static HyperLogLog create(int precision) {
    return create(precision, HashStrategy.xxh3());
  }

  /**
   * As {@link #create(int)}, hashed with {@code hash}. Refuses a hash that {@link
   * HashStrategy#needsMixing() needs mixing} (FNV-1a), whose similar keys would crowd a few
   * registers (89 % low at a million keys).
   */
  public static HyperLogLog create(int precision, HashStrategy hash) {
    checkPrecision(precision);
    return new HyperLogLog(precision, checkUniformHash(hash, "a HyperLogLog sketch"));
  }

  private static void checkPrecision(int precision) {
    checkArgument(
        precision >= MIN_PRECISION && precision <= MAX_PRECISION,
        "precision must be in [%d, %d], was %d",
        MIN_PRECISION,
        MAX_PRECISION,
        precision);
  }

  /** The bytes of the dense registers at {@code precision}: {@code 6 * 2^p / 8}. */
  public static int denseBytes(int precision) {
    checkPrecision(precision);
    return 3 << (precision - 2);
  }

  /** A dense register array: the registers' bytes and the pad byte (see the design notes). */
  private static byte[] denseArray(int precision) {
    return new byte[denseBytes(precision) + 1];
  }

  /**
   * The largest sparse table at precision p: the biggest power of two whose ints are fewer bytes
   * than the dense form.
   */
  private static int maxSparseCapacity(int p) {
    int dense = 3 << (p - 2);
    int c = Integer.highestOneBit((dense - 1) / 4);
    return c < INITIAL_CAPACITY ? 0 : c;
  }

  // ---- adding

  @Override
  public boolean add(byte[] key, int off, int len) {
    return addHash(hash.hash64(key, off, len));
  }

  @Override
  public boolean addHash(long h) {
    if (dense != null) {
      return raise(LogLogMath.index(h, p), LogLogMath.rank(h, p));
    }
    boolean changed = put((int) (h >>> SPARSE_Q), LogLogMath.rank(h, SPARSE_PRECISION));
    if (entries > (table.length >>> 2) * 3) {
      grow();
    }
    return changed;
  }

  /** Raises dense register {@code i} to {@code r}; returns whether it was lower. */
  private boolean raise(int i, int r) {
    byte[] d = dense;
    int bit = 6 * i;
    int b = bit >>> 3;
    int shift = bit & 7;
    // The register's two bytes in one load (the pad byte makes b + 1 valid for the last one):
    // two byte loads, each with its bounds check, cost ~0.3 ns of an add that changes nothing.
    int word = (short) SHORT.get(d, b) & 0xFFFF;
    int old = (word >>> shift) & 63;
    if (r <= old) {
      return false;
    }
    word = (word & ~(63 << shift)) | (r << shift);
    SHORT.set(d, b, (short) word);
    changed(old, r, 64 - p, 1 << p);
    return true;
  }

  private static final VarHandle SHORT =
      MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);

  private int register(int i) {
    int bit = 6 * i;
    int b = bit >>> 3;
    return (((dense[b] & 0xFF) | (dense[b + 1] & 0xFF) << 8) >>> (bit & 7)) & 63;
  }

  /** The four 6-bit registers packed little-endian in bytes {@code g, g + 1, g + 2}. */
  private static int group(byte[] d, int g) {
    return (d[g] & 0xFF) | (d[g + 1] & 0xFF) << 8 | (d[g + 2] & 0xFF) << 16;
  }

  /** Stores sparse entry (index, rank) unless an entry of that index holds as much; no resizing. */
  private boolean put(int index, int rank) {
    int mask = table.length - 1;
    int slot = index >>> (SPARSE_PRECISION - Integer.numberOfTrailingZeros(table.length));
    while (true) {
      int e = table[slot];
      if (e == 0) {
        table[slot] = index << 6 | rank;
        entries++;
        changed(0, rank, SPARSE_Q, 1 << SPARSE_PRECISION);
        return true;
      }
      if (e >>> 6 == index) {
        int old = e & 63;
        if (rank <= old) {
          return false;
        }
        table[slot] = index << 6 | rank;
        changed(old, rank, SPARSE_Q, 1 << SPARSE_PRECISION);
        return true;
      }
      slot = (slot + 1) & mask;
    }
  }

  private void changed(int oldValue, int newValue, int q, int registers) {
    martingale += registers / changeSum;
    changeSum +=
        LogLogMath.exceedProbability(newValue, q) - LogLogMath.exceedProbability(oldValue, q);
    histogram[oldValue]--;
    histogram[newValue]++;
  }

  private void grow() {
    int capacity = table.length * 2;
    if (capacity > maxSparseCapacity(p)) {
      densify();
      return;
    }
    int[] old = table;
    table = new int[capacity];
    int mask = capacity - 1;
    int shift = SPARSE_PRECISION - Integer.numberOfTrailingZeros(capacity);
    for (int e : old) {
      if (e != 0) {
        int slot = (e >>> 6) >>> shift;
        while (table[slot] != 0) {
          slot = (slot + 1) & mask;
        }
        table[slot] = e;
      }
    }
  }

  private void densify() {
    dense = denseArray(p);
    foldEntries(table, this);
    table = null;
    entries = 0;
    recount();
  }

  /**
   * Raises the dense registers of {@code into} by the sparse {@code entries}, folded to its
   * precision.
   */
  private static void foldEntries(int[] entries, HyperLogLog into) {
    double saved = into.martingale;
    int d = SPARSE_PRECISION - into.p;
    for (int e : entries) {
      if (e != 0) {
        int index = e >>> 6;
        into.raiseQuietly(index >>> d, LogLogMath.foldRank(index, e & 63, d));
      }
    }
    into.martingale = saved;
  }

  /** Raises a register without counting it as a key arriving (rebuilding, merging). */
  private void raiseQuietly(int i, int r) {
    double saved = martingale;
    raise(i, r);
    martingale = saved;
  }

  /**
   * Counts the four registers of group {@code w} into {@code four}, a histogram for each position
   * in the group (one shared histogram would make each count wait for the previous one, which
   * mostly raises the same few values), and returns their share of the change sum. Summed group by
   * group in index order, as the change sum has always been: the martingale estimate, which files
   * store, divides by it.
   */
  private static double countGroup(int w, int q, int[] four) {
    four[w & 63]++;
    four[64 + ((w >>> 6) & 63)]++;
    four[128 + ((w >>> 12) & 63)]++;
    four[192 + (w >>> 18)]++;
    return LogLogMath.exceedProbability(w & 63, q)
        + LogLogMath.exceedProbability((w >>> 6) & 63, q)
        + LogLogMath.exceedProbability((w >>> 12) & 63, q)
        + LogLogMath.exceedProbability(w >>> 18, q);
  }

  /** Sets the histogram to the sum of countGroup's four. */
  private void fold(int[] four) {
    for (int v = 0; v < histogram.length; v++) {
      histogram[v] = four[v] + four[64 + v] + four[128 + v] + four[192 + v];
    }
  }

  /** Recounts the histogram and the change sum from the registers. */
  private void recount() {
    Arrays.fill(histogram, 0);
    double sum = 0;
    if (dense != null) {
      int q = 64 - p;
      int[] four = new int[4 * 64];
      for (int g = 0, end = denseBytes(p); g < end; g += 3) {
        sum += countGroup(group(dense, g), q, four);
      }
      fold(four);
    } else {
      histogram[0] = (1 << SPARSE_PRECISION) - entries;
      sum = histogram[0];
      for (int e : table) {
        if (e != 0) {
          histogram[e & 63]++;
          sum += LogLogMath.exceedProbability(e & 63, SPARSE_Q);
        }
      }
    }
    changeSum = sum;
  }

  // ---- estimating

  /**
   * Ertl's improved raw estimate, from the register histogram kept up to date: O(q), no allocation.
   */
  @Override
  public double estimate() {
    return dense == null
        ? LogLogMath.improvedEstimate(1 << SPARSE_PRECISION, SPARSE_Q, histogram)
        : LogLogMath.improvedEstimate(1 << p, 64 - p, histogram);
  }

  @Override
  public OptionalDouble martingaleEstimate() {
    return Double.isNaN(martingale) ? OptionalDouble.empty() : OptionalDouble.of(martingale);
  }

  /** 1.039/sqrt(m) when dense; while sparse that of 2^25 registers, an upper bound. */
  @Override
  public double relativeStandardError() {
    return RSE / Math.sqrt(trackedRegisters());
  }

  /** 0.833/sqrt(m) when dense; while sparse that of 2^25 registers, an upper bound. */
  @Override
  public double martingaleRelativeStandardError() {
    return MARTINGALE_RSE / Math.sqrt(trackedRegisters());
  }

  private double trackedRegisters() {
    return dense == null ? 1 << SPARSE_PRECISION : 1 << p;
  }

  // ---- combining

  /**
   * Adds the keys of {@code other} to this sketch: afterwards its registers are those of a sketch
   * of this precision built from the keys of both. {@code other} must use the same hashing and have
   * this precision or a higher one. Ends the martingale estimate unless one side is empty.
   */
  @Override
  public HyperLogLog merge(CardinalitySketch sketch) {
    LogLogMath.compatibility(this, sketch).orThrow();
    HyperLogLog other = (HyperLogLog) sketch;
    if (other == this || other.isEmpty()) {
      return this;
    }
    if (isEmpty()) {
      adopt(other.p == p ? other : other.downsize(p));
      return this;
    }
    martingale = Double.NaN;
    if (other.dense == null) {
      if (dense == null) {
        for (int e : other.table) {
          if (e != 0) {
            put(e >>> 6, e & 63);
            if (entries > (table.length >>> 2) * 3) {
              grow();
              if (dense != null) {
                foldEntries(other.table, this);
                return this;
              }
            }
          }
        }
      } else {
        foldEntries(other.table, this);
      }
      return this;
    }
    if (dense == null) {
      densify();
    }
    int d = other.p - p;
    if (d == 0) {
      // Register-wise maximum, a group of four at a time; the martingale has ended, so the
      // histogram and the change sum are counted afresh in the same pass.
      byte[] a = dense;
      byte[] b = other.dense;
      int[] four = new int[4 * 64];
      double sum = 0;
      int q = 64 - p;
      for (int g = 0, end = denseBytes(p); g < end; g += 3) {
        int x = group(a, g);
        int y = group(b, g);
        int z = 0;
        for (int shift = 0; shift < 24; shift += 6) {
          z |= Math.max((x >>> shift) & 63, (y >>> shift) & 63) << shift;
        }
        if (z != x) {
          a[g] = (byte) z;
          a[g + 1] = (byte) (z >>> 8);
          a[g + 2] = (byte) (z >>> 16);
        }
        sum += countGroup(z, q, four);
      }
      fold(four);
      changeSum = sum;
      return this;
    }
    for (int i = 0, m = 1 << other.p; i < m; i++) {
      int r = other.register(i);
      if (r != 0) {
        raise(i >>> d, d == 0 ? r : LogLogMath.foldRank(i, r, d));
      }
    }
    return this;
  }

  private void adopt(HyperLogLog source) {
    dense = source.dense == null ? null : source.dense.clone();
    table = source.table == null ? null : source.table.clone();
    entries = source.entries;
    changeSum = source.changeSum;
    System.arraycopy(source.histogram, 0, histogram, 0, histogram.length);
    martingale = source.martingale;
  }

  /**
   * A copy at the lower {@code precision}, with exactly the registers of a sketch built at that
   * precision from the same keys. The martingale estimate carries over.
   */
  @Override
  public HyperLogLog downsize(int precision) {
    checkArgument(
        precision >= MIN_PRECISION && precision <= p,
        "precision must be in [%d, %d], was %d",
        MIN_PRECISION,
        p,
        precision);
    HyperLogLog out = new HyperLogLog(precision, hash);
    out.martingale = martingale;
    if (dense == null) {
      if (table.length <= maxSparseCapacity(precision)) {
        out.table = table.clone();
        out.entries = entries;
        out.changeSum = changeSum;
        System.arraycopy(histogram, 0, out.histogram, 0, histogram.length);
        return out;
      }
      out.table = null;
      out.dense = denseArray(precision);
      foldEntries(table, out);
    } else {
      out.table = null;
      out.dense = denseArray(precision);
      int d = p - precision;
      for (int i = 0, m = 1 << p; i < m; i++) {
        int r = register(i);
        if (r != 0) {
          out.raiseQuietly(i >>> d, d == 0 ? r : LogLogMath.foldRank(i, r, d));
        }
      }
    }
    out.recount();
    return out;
  }

  @Override
  public HyperLogLog copy() {
    HyperLogLog out = new HyperLogLog(p, hash);
    out.adopt(this);
    return out;
  }

  @Override
  public boolean isCompatible(CardinalitySketch other) {
    return LogLogMath.compatibility(this, other).ok();
  }

  // ---- introspection

  @Override
  public int precision() {
    return p;
  }

  /** Whether the sketch is in its sparse form. */
  public boolean isSparse() {
    return dense == null;
  }

  /**
   * The number of sparse entries (registers of the precision-25 sketch that are set); 0 when dense.
   */
  public int sparseEntries() {
    return entries;
  }

  @Override
  public boolean isEmpty() {
    return dense == null ? entries == 0 : histogram[0] == 1 << p;
  }

  /**
   * The bytes of the register array: {@code 6 * 2^p / 8} when dense, 4 per table slot while sparse.
   */
  @Override
  public long byteSize() {
    return dense != null ? denseBytes(p) : 4L * table.length;
  }

  /**
   * The dense registers, one value per element (a sparse sketch is folded to its precision): for
   * tests and for explaining.
   */
  public int[] registers() {
    HyperLogLog d = this;
    if (dense == null) {
      d = copy();
      d.densify();
    }
    int[] out = new int[1 << p];
    for (int i = 0; i < out.length; i++) {
      out[i] = d.register(i);
    }
    return out;
  }

  /**
   * The dense registers packed as the design notes lay them out (register i in bits 6i .. 6i + 5 of
   * the array read as one little-endian number; {@link #denseBytes} bytes), the layout Redis's
   * dense {@code HYLL} strings share. A sparse sketch is folded to its precision.
   */
  public byte[] denseRegisters() {
    HyperLogLog d = this;
    if (dense == null) {
      d = copy();
      d.densify();
    }
    return Arrays.copyOf(d.dense, denseBytes(p));
  }

  /**
   * A dense sketch of the registers {@code packed} in the layout of {@link #denseRegisters()}, with
   * no martingale estimate, as after a merge.
   *
   * @throws IllegalArgumentException if {@code packed} is not {@link #denseBytes} long or a
   *     register exceeds 65 - precision
   */
  public static HyperLogLog fromDenseRegisters(int precision, HashStrategy hash, byte[] packed) {
    HyperLogLog s = create(precision, hash);
    checkArgument(
        packed.length == denseBytes(precision),
        "packed registers must be %d bytes at precision %d, were %d",
        denseBytes(precision),
        precision,
        packed.length);
    String bad = s.useDense(packed);
    checkArgument(bad == null, "%s", bad);
    s.martingale = Double.NaN;
    s.recount();
    return s;
  }

  /**
   * Makes {@code packed} (a copy) this sketch's dense registers; returns what is wrong with them,
   * or null.
   */
  private String useDense(byte[] packed) {
    table = null;
    entries = 0;
    dense = Arrays.copyOf(packed, packed.length + 1);
    int max = 65 - p;
    for (int i = 0, m = 1 << p; i < m; i++) {
      int v = register(i);
      if (v > max) {
        return "hyperloglog register "
            + i
            + " is "
            + v
            + ", must be at most "
            + max
            + " at precision "
            + p;
      }
    }
    return null;
  }

  @Override
  public HashStrategy hashStrategy() {
    return hash;
  }

  @Override
  public StructureType type() {
    return StructureType.HYPER_LOG_LOG;
  }

  // ---- serialization

  private static final int SPARSE = 0;
  private static final int DENSE = 1;
  private static final int MARTINGALE_FLAG = 1;

  private int[] sortedEntries() {
    int[] out = new int[entries];
    int n = 0;
    for (int e : table) {
      if (e != 0) {
        out[n++] = e;
      }
    }
    Arrays.sort(out);
    return out;
  }

  /**
   * Parameters: precision (u8), representation (u8: 0 sparse, 1 dense), flags (u8: bit 0 = the
   * martingale estimate is present), sparse entry count (u32), martingale estimate (f64, 0 when
   * absent). Payload: the sparse entries as ascending u32, or the packed dense registers.
   */
  @Override
  public void writeTo(OutputStream out) throws IOException {
    boolean hasMartingale = !Double.isNaN(martingale);
    ByteBuffer params = SketchWriter.params(15);
    params
        .put((byte) p)
        .put((byte) (dense == null ? SPARSE : DENSE))
        .put((byte) (hasMartingale ? MARTINGALE_FLAG : 0))
        .putInt(entries)
        .putDouble(hasMartingale ? martingale : 0);
    if (dense != null) {
      SketchWriter w = SketchWriter.begin(out, type(), hash, params.array(), denseBytes(p));
      w.writeBytes(dense, 0, denseBytes(p));
      w.finish();
      return;
    }
    SketchWriter w = SketchWriter.begin(out, type(), hash, params.array(), 4L * entries);
    for (int e : sortedEntries()) {
      w.writeInt(e);
    }
    w.finish();
  }

  /** Reads a sketch written by {@link #writeTo}; corrupt input throws SketchFormatException. */
  public static HyperLogLog readFrom(InputStream in) throws IOException {
    return read(SketchReader.open(in, StructureType.HYPER_LOG_LOG));
  }

  static HyperLogLog read(SketchReader r) throws IOException {
    int p = r.paramByte("precision");
    r.check(
        p >= MIN_PRECISION && p <= MAX_PRECISION,
        "precision",
        p,
        "in [" + MIN_PRECISION + ", " + MAX_PRECISION + "]");
    int representation = r.paramByte("representation");
    int maxEntries = maxSparseCapacity(p) / 4 * 3;
    r.check(
        representation == DENSE || representation == SPARSE && maxEntries > 0,
        "representation",
        representation,
        maxEntries > 0 ? "0 (sparse) or 1 (dense)" : "1 (dense) at precision " + p);
    int flags = r.paramByte("flags");
    r.check(flags == 0 || flags == MARTINGALE_FLAG, "flags", flags, "0 or 1");
    int entries = r.paramInt("entries");
    r.check(
        representation == SPARSE ? entries >= 0 && entries <= maxEntries : entries == 0,
        "entries",
        Integer.toUnsignedString(entries),
        representation == SPARSE ? "in [0, " + maxEntries + "] at precision " + p : "0 when dense");
    double martingale = r.paramDouble("martingale");
    r.check(
        flags == 0 ? martingale == 0 : martingale >= 0 && martingale < Double.POSITIVE_INFINITY,
        "martingale",
        martingale,
        flags == 0 ? "0 when absent" : "finite and non-negative");
    HyperLogLog s = new HyperLogLog(p, r.hash());
    if (representation == DENSE) {
      r.expectPayloadLength(denseBytes(p));
      byte[] registers = r.readBytes(denseBytes(p), "registers");
      r.finish();
      String bad = s.useDense(registers);
      if (bad != null) {
        throw new SketchFormatException(bad);
      }
    } else {
      r.expectPayloadLength(4L * entries);
      ByteBuffer b =
          ByteBuffer.wrap(r.readBytes(4 * entries, "entries")).order(ByteOrder.LITTLE_ENDIAN);
      r.finish();
      int capacity = INITIAL_CAPACITY;
      while (entries > capacity / 4 * 3) {
        capacity *= 2;
      }
      s.table = new int[capacity];
      int previous = 0;
      for (int i = 0; i < entries; i++) {
        int e = b.getInt();
        int rank = e & 63;
        if (e <= previous || rank < 1 || rank > SPARSE_Q + 1) {
          throw new SketchFormatException(
              "hyperloglog sparse entry "
                  + i
                  + " is 0x"
                  + Integer.toHexString(e)
                  + ", entries must ascend with values in [1, "
                  + (SPARSE_Q + 1)
                  + "]");
        }
        if (previous != 0 && e >>> 6 == previous >>> 6) {
          throw new SketchFormatException(
              "hyperloglog sparse entry " + i + " repeats register " + (e >>> 6));
        }
        previous = e;
        s.put(e >>> 6, rank);
      }
    }
    s.martingale = flags == 0 ? Double.NaN : martingale;
    s.recount();
    return s;
  }

  // ---- identity

  /**
   * Equal when the precision, hashing, form and registers are equal; the martingale estimate is not
   * compared.
   */
  @Override
  public boolean equals(Object o) {
    if (!(o instanceof HyperLogLog)) {
      return false;
    }
    HyperLogLog s = (HyperLogLog) o;
    if (p != s.p || !hash.equals(s.hash) || (dense == null) != (s.dense == null)) {
      return false;
    }
    return dense != null
        ? Arrays.equals(dense, s.dense)
        : Arrays.equals(sortedEntries(), s.sortedEntries());
  }

  @Override
  public int hashCode() {
    return Objects.hash(p, hash, dense == null ? entries : Arrays.hashCode(dense));
  }

  @Override
  public String toString() {
    return "HyperLogLog{precision="
        + p
        + (dense == null ? ", sparse, entries=" + entries : ", dense")
        + ", hash="
        + hash
        + "}";
  }
}
