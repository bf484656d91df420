package io.github.probkit.filter;

import static io.github.probkit.internal.Preconditions.checkAccepted;
import static io.github.probkit.internal.Preconditions.checkAllocatable;
import static io.github.probkit.internal.Preconditions.checkArgument;
import static io.github.probkit.internal.Preconditions.checkOpenUnit;

import io.github.probkit.Concurrency;
import io.github.probkit.hash.DoubleHashing;
import io.github.probkit.hash.HashStrategy;
import io.github.probkit.internal.BatchPasses;
import io.github.probkit.internal.LongBitArray;
import io.github.probkit.internal.Probes;
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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.ToLongFunction;

/**
 * A scalable Bloom filter (Almeida, Baquero, Preguiça and Hutchison 2007): a Bloom filter that
 * grows. It starts as one layer sized for an initial capacity; when that layer holds as many keys
 * as it was sized for, a new layer {@code s} times larger and with an error {@code r} times smaller
 * is added, and so on. A key is present when any layer has it. Use it when the number of keys is
 * not known in advance ("size for the maximum" is not possible).
 *
 * <p>Cheat sheet, for an initial capacity n0, a requested rate P, growth s (default 2) and
 * tightening ratio r (default 0.5):
 *
 * <pre>
 *   layer i     capacity n0 s^i, rate p_i = P' (1 - r) r^i, sized as a {@link BloomFilter},
 *               where P' = 0.9 P: create() keeps a 10 % margin (below)
 *   compound    1 - prod(1 - p_i) &lt;= sum p_i &lt; P' (1 - r) / (1 - r) = P', for any number of layers
 *   bits/key    1.44 log2(1/p_i) in layer i: 11.0 in layer 0 at P = 1 %, r = 0.5 (9.6 for a plain
 *               filter), 1.44 log2(1/r) more in each later layer (1.44 at r = 0.5)
 *   layers      about log_s(n / n0) + 1 for n keys
 * </pre>
 *
 * <p>Growth s = 2 with r = 0.5 (RedisBloom's default) keeps few layers; Almeida et al. suggest r
 * between 0.8 and 0.9 for the least memory when many layers are expected (the first layers are then
 * looser, the later ones tighten more slowly). A query probes every layer, so it costs about as
 * many cache misses as the number of layers times k.
 *
 * <p>The margin, and a first layer of at least {@link #MIN_INITIAL_CAPACITY} keys, make the promise
 * hold as measured, not only by the formula: rounding k puts each layer 0.2-0.3 % above its own
 * rate, small layers' fill varies (their rate by 8 % at 1,000 keys), the layers that a key missed
 * are more likely than random ones to be full where it probes, and a layer stores only keys that no
 * layer reports present, so each stored key sets at least one new bit and the layer fills as if it
 * had taken more keys than it counts (its rate about 4 % above its own at P = 10 %, as {@code
 * probkit lab filters} models and measures). Measured compound rate after 10 full layers at P = 1
 * %: 0.917 P (standard deviation 0.013 P between filters) at n0 = 1,000; without the margin it was
 * 1.009 P, and 1.46 P for first layers of 10 keys.
 *
 * <p>{@link #add} counts a key only when no layer has it yet, so each layer fills with distinct
 * keys (a key that is a false positive is not stored again, and stays reported present).
 *
 * <p>Thread safety: chosen when the filter is created or read ({@link Concurrency}).
 *
 * <ul>
 *   <li>{@link Concurrency#CONCURRENT} (the default): {@code add} may be called from many threads
 *       at once; bits are set with atomic compare-and-exchange, a layer's key count is raised by
 *       compare-and-set (so no layer takes more keys than its capacity), and a new layer is added
 *       under a lock, the only one. {@code mightContain} may run concurrently with adds. Two
 *       threads adding the same new key at the same moment may both count it. {@code writeTo} is
 *       not atomic with respect to concurrent adds.
 *   <li>{@link Concurrency#SINGLE_WRITER}: plain stores and counts; one thread at a time may add,
 *       and queries from other threads need external synchronization with it.
 * </ul>
 *
 * Both modes give the same bits and bytes for the same keys added from one thread. Scalable filters
 * do not merge: two filters' layers hold different keys, and their union would not keep the
 * compound rate below P.
 */
public final class ScalableBloomFilter implements MutableFilter {
  public static final int DEFAULT_GROWTH = 2;
  public static final double DEFAULT_TIGHTENING = 0.5;
  public static final int MIN_GROWTH = 2;
  public static final int MAX_GROWTH = 1024;

  /**
   * The most layers a serialized filter may declare (with growth 2, 2^64 times the initial
   * capacity).
   */
  public static final int MAX_LAYERS = 64;

  /**
   * The fraction of the requested rate that {@link #create} sizes the layers for (see the class
   * comment).
   */
  public static final double SIZING_MARGIN = 0.9;

  /** The smallest first layer {@link #create} makes: smaller ones are too small for their rate. */
  public static final long MIN_INITIAL_CAPACITY = 1000;

  /*
   * Design notes.
   *
   * Each layer is a standard Bloom filter (m_i bits, k_i probes, BloomFilter's sizing formulas) over
   * the same hash: a key is hashed once and its probe sequence (internal.Probes) is reduced into each
   * layer's size. The positions of one key in different layers are therefore correlated. The
   * compound bound is a union bound, true whatever the dependence, but the dependence raises the
   * layers' own rates a little: a key stored in layer i missed layers 0..i-1, so layer i fills
   * where earlier layers are sparse, which is where absent keys that miss them probe (measured:
   * layers 1-4 at 1.02-1.06 times their formula). The sizing margin covers it; the layers' shape is
   * part of the format, so it is not changed.
   *
   * Almeida et al. use partitioned filters and detect "full" from the fill ratio; this follows
   * RedisBloom instead, counting the distinct keys stored in the newest layer and growing when it
   * reaches its capacity, so the layer shapes depend only on (n0, P, s, r, i). That makes the format
   * small: only the number of layers and each layer's key count are stored with the bit arrays.
   *
   * Rates are computed with StrictMath so every JVM derives the same layer sizes from a file.
   *
   * [1] Almeida, Baquero, Preguiça, Hutchison. Scalable Bloom filters. Information Processing
   *     Letters 101(6), 2007.
   * [2] RedisBloom, BF.RESERVE: growth ("EXPANSION") 2 and each new layer's error halved by default.
   */

  private static final class Layer {
    final LongBitArray bits;
    final long[] words;
    final long m;
    final int k;
    final long capacity;

    /** Keys stored; raised with {@link #KEYS} in the concurrent mode. */
    long keys;

    Layer(LongBitArray bits, int k, long capacity, long keys) {
      this.bits = bits;
      this.words = bits.words();
      this.m = bits.bitSize();
      this.k = k;
      this.capacity = capacity;
      this.keys = keys;
    }
  }

  private static final VarHandle KEYS;

  static {
    try {
      KEYS = MethodHandles.lookup().findVarHandle(Layer.class, "keys", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** One layer as {@link #layers()} describes it. */
  public record LayerInfo(long capacity, long keys, long bits, int hashes, double fpp) {}

  private final long initialCapacity;
  private final double fpp;
  private final int growth;
  private final double tightening;
  private final HashStrategy hash;
  private final boolean exact;
  private final boolean concurrent;

  /**
   * Oldest first; replaced by a longer copy when a layer is added (under the filter's lock when
   * concurrent).
   */
  private volatile Layer[] layers = new Layer[0];

  private ScalableBloomFilter(
      long initialCapacity,
      double fpp,
      int growth,
      double tightening,
      HashStrategy hash,
      Concurrency concurrency) {
    this.initialCapacity = initialCapacity;
    this.fpp = fpp;
    this.growth = growth;
    this.tightening = tightening;
    this.hash = hash;
    this.exact = hash.exactModulo();
    this.concurrent = Objects.requireNonNull(concurrency, "concurrency") == Concurrency.CONCURRENT;
  }

  /**
   * A filter starting at {@code initialCapacity} keys (at least {@link #MIN_INITIAL_CAPACITY}),
   * compound rate below {@code fpp}, growth 2, ratio 0.5, XXH3.
   */
  public static ScalableBloomFilter create(long initialCapacity, double fpp) {
    return create(initialCapacity, fpp, DEFAULT_GROWTH, DEFAULT_TIGHTENING, HashStrategy.xxh3());
  }

  /**
   * A filter whose first layer holds {@code initialCapacity} keys, raised to {@link
   * #MIN_INITIAL_CAPACITY} when smaller, each next layer {@code growth} times more at a rate {@code
   * tightening} times lower, the compound rate staying below {@code fpp}: the layers are sized for
   * {@code SIZING_MARGIN * fpp}, which {@link #targetFpp()} then reports.
   */
  public static ScalableBloomFilter create(
      long initialCapacity, double fpp, int growth, double tightening) {
    return create(initialCapacity, fpp, growth, tightening, HashStrategy.xxh3());
  }

  public static ScalableBloomFilter create(
      long initialCapacity, double fpp, int growth, double tightening, HashStrategy hash) {
    return create(initialCapacity, fpp, growth, tightening, hash, Concurrency.CONCURRENT);
  }

  /** As {@link #create(long, double)}, in the given write mode. */
  public static ScalableBloomFilter create(
      long initialCapacity, double fpp, Concurrency concurrency) {
    return create(
        initialCapacity, fpp, DEFAULT_GROWTH, DEFAULT_TIGHTENING, HashStrategy.xxh3(), concurrency);
  }

  public static ScalableBloomFilter create(
      long initialCapacity,
      double fpp,
      int growth,
      double tightening,
      HashStrategy hash,
      Concurrency concurrency) {
    checkArgument(initialCapacity > 0, "initialCapacity must be positive, was %d", initialCapacity);
    checkOpenUnit("fpp", fpp);
    checkArgument(
        growth >= MIN_GROWTH && growth <= MAX_GROWTH,
        "growth must be in [%d, %d], was %d",
        MIN_GROWTH,
        MAX_GROWTH,
        growth);
    checkOpenUnit("tightening", tightening);
    checkAccepted(hash, StructureType.SCALABLE_BLOOM_FILTER, "a scalable Bloom filter");
    ScalableBloomFilter f =
        new ScalableBloomFilter(
            Math.max(MIN_INITIAL_CAPACITY, initialCapacity),
            SIZING_MARGIN * fpp,
            growth,
            tightening,
            hash,
            concurrency);
    f.layers = new Layer[] {f.newLayer(0, null, 0)};
    return f;
  }

  /** The capacity of layer {@code i}: {@code n0 * s^i}, or -1 past {@code Long.MAX_VALUE}. */
  private static long capacityOf(long initialCapacity, int growth, int i) {
    long c = initialCapacity;
    for (int j = 0; j < i; j++) {
      if (c > Long.MAX_VALUE / growth) {
        return -1;
      }
      c *= growth;
    }
    return c;
  }

  /** The rate of layer {@code i}: {@code P (1 - r) r^i}. */
  private double fppOf(int i) {
    return fpp * (1 - tightening) * StrictMath.pow(tightening, i);
  }

  /**
   * The shape of layer {@code layer} (0-based) of a filter created with these parameters, with 0
   * keys, without allocating anything: for stores that keep the layers elsewhere (probkit-redis).
   * docs/FORMAT.md gives the formulas.
   *
   * @throws IllegalArgumentException when the layer cannot exist (its capacity overflows, its bits
   *     exceed the maximum, or its rate underflows to 0)
   */
  public static LayerInfo layerShape(
      long initialCapacity, double fpp, int growth, double tightening, int layer) {
    long capacity = capacityOf(initialCapacity, growth, layer);
    checkArgument(capacity > 0, "layer %d would hold more than %d keys", layer, Long.MAX_VALUE);
    double p = fpp * (1 - tightening) * StrictMath.pow(tightening, layer);
    checkArgument(
        p > 0, "layer %d would need a false-positive rate below the smallest double", layer);
    long m = BloomFilter.optimalBits(capacity, p);
    return new LayerInfo(capacity, 0, m, BloomFilter.optimalHashes(m, capacity), p);
  }

  /**
   * Layer {@code i} over {@code words} (or fresh); throws IllegalArgumentException when it cannot
   * exist (its capacity overflows, its bits exceed the maximum, or its rate underflows to 0).
   */
  private Layer newLayer(int i, long[] words, long keys) {
    LayerInfo shape = layerShape(initialCapacity, fpp, growth, tightening, i);
    long m = shape.bits();
    if (words == null) {
      checkAllocatable(
          8L * LongBitArray.wordsFor(m),
          "layer " + i + " of a scalable Bloom filter (" + m + " bits)");
      return new Layer(new LongBitArray(m), shape.hashes(), shape.capacity(), keys);
    }
    return new Layer(new LongBitArray(m, words), shape.hashes(), shape.capacity(), keys);
  }

  // ---- keys

  /**
   * Adds the key to the newest layer unless some layer already has it; adds a layer first when the
   * newest is full. Returns whether the key was added (false: it was probably present already).
   *
   * @throws IllegalStateException when a new layer is needed but cannot be allocated
   */
  @Override
  public boolean add(byte[] key, int off, int len) {
    long h1 = hash.hash64(key, off, len);
    return addHashes(h1, hash.secondHash(key, off, len, h1));
  }

  /** True unless hashed with FNV-1a, whose second hash is a second pass over the key. */
  @Override
  public boolean hashSuffices() {
    return !exact;
  }

  @Override
  public long addAllHashes(long[] hashes, int from, int to) {
    if (exact) {
      return MutableFilter.super.addAllHashes(hashes, from, to);
    }
    // XXH3's second hash comes from the first alone (the key is not read).
    return BatchPasses.eachHash(hashes, from, to, h -> addHashes(h, hash.secondHash(0L, h)));
  }

  @Override
  public int mightContainAllHashes(long[] hashes, int from, int to, boolean[] present) {
    if (exact) {
      return MutableFilter.super.mightContainAllHashes(hashes, from, to, present);
    }
    return BatchPasses.eachHash(
        hashes, from, to, present, h -> contains(h, hash.secondHash(0L, h)));
  }

  private boolean addHashes(long h1, long h2) {
    if (contains(h1, h2)) {
      return false;
    }
    Layer top = concurrent ? reserveConcurrently() : reserve();
    long m = top.m;
    long step = Probes.stride(h2, m, exact);
    long s = Probes.start(h1, m, exact);
    for (int i = 0; i < top.k; i++, s = Probes.next(s, step, m, exact)) {
      long p = Probes.position(s, m, exact);
      if (concurrent) {
        LongBitArray.orWord(top.words, (int) (p >>> 6), 1L << p);
      } else {
        top.bits.setPlain(p);
      }
    }
    return true;
  }

  /** The newest layer, with one key counted in it; a new layer first when it is full. */
  private Layer reserve() {
    Layer[] ls = layers;
    Layer top = ls[ls.length - 1];
    if (top.keys >= top.capacity) {
      top = grow(ls);
    }
    top.keys++;
    return top;
  }

  /**
   * {@link #reserve} for many threads: the count is raised by compare-and-set, never past capacity.
   */
  private Layer reserveConcurrently() {
    for (Layer[] ls = layers; ; ls = layers) {
      Layer top = ls[ls.length - 1];
      long c = (long) KEYS.getVolatile(top);
      if (c >= top.capacity) {
        synchronized (this) {
          if (layers == ls) {
            grow(ls);
          }
        }
      } else if (KEYS.compareAndSet(top, c, c + 1)) {
        return top;
      }
    }
  }

  /** Appends a new layer to {@code ls} and publishes the longer array; returns the new layer. */
  private Layer grow(Layer[] ls) {
    Layer top;
    try {
      top = newLayer(ls.length, null, 0);
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException("cannot grow the scalable filter: " + e.getMessage(), e);
    }
    Layer[] grown = Arrays.copyOf(ls, ls.length + 1);
    grown[ls.length] = top;
    layers = grown;
    return top;
  }

  @Override
  public boolean mightContain(byte[] key, int off, int len) {
    long h1 = hash.hash64(key, off, len);
    return contains(h1, hash.secondHash(key, off, len, h1));
  }

  private boolean contains(long h1, long h2) {
    Layer[] ls = layers;
    // Newest first: the newest layer is the largest and holds most of the keys.
    for (int l = ls.length - 1; l >= 0; l--) {
      if (exact ? layerHasExact(ls[l], h1, h2) : layerHas(ls[l], h1, h2)) {
        return true;
      }
    }
    return false;
  }

  private static boolean layerHas(Layer layer, long h1, long h2) {
    long[] w = layer.words;
    long m = layer.m;
    long all = 1;
    // Branch-free, as in BloomFilter: no misprediction at the first clear bit.
    for (int i = 0; i < layer.k; i++, h1 += h2) {
      long p = DoubleHashing.reduce(h1, m);
      all &= w[(int) (p >>> 6)] >>> p;
    }
    return (all & 1) != 0;
  }

  private static boolean layerHasExact(Layer layer, long h1, long h2) {
    long m = layer.m;
    long step = Probes.stride(h2, m, true);
    long s = Probes.start(h1, m, true);
    for (int i = 0; i < layer.k; i++, s = Probes.next(s, step, m, true)) {
      if (!layer.bits.get(s)) {
        return false;
      }
    }
    return true;
  }

  /** An independent filter with the same layers, in the same write mode. */
  @Override
  public ScalableBloomFilter copy() {
    ScalableBloomFilter c =
        new ScalableBloomFilter(initialCapacity, fpp, growth, tightening, hash, concurrency());
    Layer[] ls = layers;
    Layer[] copies = new Layer[ls.length];
    for (int i = 0; i < ls.length; i++) {
      copies[i] = new Layer(ls[i].bits.copy(), ls[i].k, ls[i].capacity, ls[i].keys);
    }
    c.layers = copies;
    return c;
  }

  /** The write mode this filter was created or read in. */
  public Concurrency concurrency() {
    return concurrent ? Concurrency.CONCURRENT : Concurrency.SINGLE_WRITER;
  }

  // ---- introspection

  /**
   * The keys of the first layer (create() raises a smaller request to {@link
   * #MIN_INITIAL_CAPACITY}).
   */
  public long initialCapacity() {
    return initialCapacity;
  }

  /**
   * The compound rate the layers are sized for, which the filter stays below however many keys
   * arrive: {@link #SIZING_MARGIN} times the rate asked of {@link #create} (a filter written before
   * the margin keeps the rate it was created with).
   */
  public double targetFpp() {
    return fpp;
  }

  public int growth() {
    return growth;
  }

  public double tightening() {
    return tightening;
  }

  public int layerCount() {
    return layers.length;
  }

  /**
   * The layers, oldest first: capacity, keys stored, bits, probes and the rate each was sized for.
   */
  public List<LayerInfo> layers() {
    List<LayerInfo> out = new ArrayList<>(layers.length);
    Layer[] ls = layers;
    for (int i = 0; i < ls.length; i++) {
      Layer l = ls[i];
      out.add(new LayerInfo(l.capacity, l.keys, l.m, l.k, fppOf(i)));
    }
    return out;
  }

  /**
   * The sum over the current layers, read once so that a layer added meanwhile is not half-counted.
   */
  private long sum(ToLongFunction<Layer> f) {
    long total = 0;
    for (Layer l : layers) {
      total += f.applyAsLong(l);
    }
    return total;
  }

  /** The keys the current layers hold before another is added. */
  public long capacity() {
    return sum(l -> l.capacity);
  }

  /** The bits of all layers. */
  @Override
  public long bitSize() {
    return sum(l -> l.m);
  }

  /** The bytes of all layers' bit arrays: the sum of {@code 8 * ceil(m_i / 64)}. */
  @Override
  public long byteSize() {
    return sum(l -> 8L * l.bits.words().length);
  }

  /** {@code 1 - prod(1 - (X_i/m_i)^k_i)} for X_i bits set in layer i: the rate now. */
  @Override
  public double expectedFpp() {
    double none = 1;
    for (Layer l : layers) {
      none *= 1 - Math.pow((double) l.bits.cardinality() / l.m, l.k);
    }
    return 1 - none;
  }

  /** The number of keys added (exact: each layer counts the distinct keys stored in it). */
  @Override
  public long approximateCount() {
    return sum(l -> l.keys);
  }

  @Override
  public HashStrategy hashStrategy() {
    return hash;
  }

  @Override
  public StructureType type() {
    return StructureType.SCALABLE_BLOOM_FILTER;
  }

  // ---- serialization

  /**
   * Parameters: initialCapacity (u64), fpp (f64), growth (u32), tightening (f64), layers L (u32).
   * Payload: L key counts (u64), then each layer's ceil(m_i/64) words, oldest layer first; layer
   * shapes are derived from the parameters.
   */
  @Override
  public void writeTo(OutputStream out) throws IOException {
    ByteBuffer p = SketchWriter.params(32);
    Layer[] ls = layers;
    p.putLong(initialCapacity)
        .putDouble(fpp)
        .putInt(growth)
        .putDouble(tightening)
        .putInt(ls.length);
    long payload = 8L * ls.length;
    for (Layer l : ls) {
      payload += 8L * l.words.length;
    }
    SketchWriter w = SketchWriter.begin(out, type(), hash, p.array(), payload);
    for (Layer l : ls) {
      w.writeLong(l.keys);
    }
    for (Layer l : ls) {
      long[] words = l.bits.words();
      w.writeLongs(words, 0, words.length);
    }
    w.finish();
  }

  /** Reads a filter written by {@link #writeTo}; corrupt input throws SketchFormatException. */
  public static ScalableBloomFilter readFrom(InputStream in) throws IOException {
    return readFrom(in, Concurrency.CONCURRENT);
  }

  /** As {@link #readFrom(InputStream)}, the filter then written in the given mode. */
  public static ScalableBloomFilter readFrom(InputStream in, Concurrency concurrency)
      throws IOException {
    Objects.requireNonNull(concurrency, "concurrency");
    return read(SketchReader.open(in, StructureType.SCALABLE_BLOOM_FILTER), concurrency);
  }

  static ScalableBloomFilter read(SketchReader r, Concurrency concurrency) throws IOException {
    long n0 = r.paramLong("initialCapacity");
    r.check(n0 >= 1, "initialCapacity", n0, "positive");
    double p = r.paramDouble("fpp");
    r.check(p > 0 && p < 1, "fpp", p, "in (0, 1)");
    int s = r.paramInt("growth");
    r.check(
        s >= MIN_GROWTH && s <= MAX_GROWTH,
        "growth",
        s,
        "in [" + MIN_GROWTH + ", " + MAX_GROWTH + "]");
    double t = r.paramDouble("tightening");
    r.check(t > 0 && t < 1, "tightening", t, "in (0, 1)");
    int count = r.paramInt("layers");
    r.check(count >= 1 && count <= MAX_LAYERS, "layers", count, "in [1, " + MAX_LAYERS + "]");
    ScalableBloomFilter f = new ScalableBloomFilter(n0, p, s, t, r.hash(), concurrency);
    long[] capacities = new long[count];
    int[] words = new int[count];
    long payload = 8L * count;
    for (int i = 0; i < count; i++) {
      LayerInfo shape;
      try {
        shape = layerShape(n0, p, s, t, i);
      } catch (IllegalArgumentException e) {
        throw new SketchFormatException("scalable layer " + i + " cannot exist: " + e.getMessage());
      }
      capacities[i] = shape.capacity();
      words[i] = LongBitArray.wordsFor(shape.bits());
      payload += 8L * words[i];
    }
    r.expectPayloadLength(payload);
    long[] keys = new long[count];
    for (int i = 0; i < count; i++) {
      keys[i] = r.readLong("keys of layer " + i);
      // Every layer but the newest was full when the next was added.
      boolean ok =
          i < count - 1 ? keys[i] == capacities[i] : keys[i] >= 0 && keys[i] <= capacities[i];
      r.check(
          ok,
          "keys of layer " + i,
          keys[i],
          i < count - 1 ? "its capacity " + capacities[i] : "in [0, " + capacities[i] + "]");
    }
    long[][] data = new long[count][];
    for (int i = 0; i < count; i++) {
      data[i] = r.readLongs(words[i], "bits of layer " + i);
    }
    r.finish();
    Layer[] ls = new Layer[count];
    for (int i = 0; i < count; i++) {
      Layer l = f.newLayer(i, data[i], keys[i]);
      if ((l.m & 63) != 0 && (data[i][words[i] - 1] >>> (l.m & 63)) != 0) {
        throw new SketchFormatException(
            "scalable layer " + i + " has bits set beyond its " + l.m + " bits");
      }
      ls[i] = l;
    }
    f.layers = ls;
    return f;
  }

  // ---- identity

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof ScalableBloomFilter)) {
      return false;
    }
    ScalableBloomFilter g = (ScalableBloomFilter) o;
    if (initialCapacity != g.initialCapacity
        || Double.compare(fpp, g.fpp) != 0
        || growth != g.growth
        || Double.compare(tightening, g.tightening) != 0
        || !hash.equals(g.hash)
        || layers.length != g.layers.length) {
      return false;
    }
    Layer[] mine = layers;
    Layer[] theirs = g.layers;
    for (int i = 0; i < mine.length; i++) {
      if (mine[i].keys != theirs[i].keys || !Arrays.equals(mine[i].words, theirs[i].words)) {
        return false;
      }
    }
    return true;
  }

  @Override
  public int hashCode() {
    return Objects.hash(initialCapacity, fpp, growth, tightening, hash, layers.length);
  }

  @Override
  public String toString() {
    return "ScalableBloomFilter{initialCapacity="
        + initialCapacity
        + ", fpp="
        + fpp
        + ", growth="
        + growth
        + ", tightening="
        + tightening
        + ", layers="
        + layers.length
        + ", hash="
        + hash
        + "}";
  }
}
