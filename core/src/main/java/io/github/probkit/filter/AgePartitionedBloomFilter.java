package io.github.probkit.filter;

import static io.github.probkit.internal.Preconditions.checkAllocatable;
import static io.github.probkit.internal.Preconditions.checkArgument;
import static io.github.probkit.internal.Preconditions.checkOpenUnit;
import static io.github.probkit.internal.Preconditions.checkUniformHash;

import io.github.probkit.Concurrency;
import io.github.probkit.hash.DoubleHashing;
import io.github.probkit.hash.HashStrategy;
import io.github.probkit.internal.KeyBuffer;
import io.github.probkit.internal.LongBitArray;
import io.github.probkit.io.SketchReader;
import io.github.probkit.io.SketchWriter;
import io.github.probkit.io.StructureType;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;

/**
 * A sliding-window filter: "was this key added among the last N keys?" or "in the last T of time?".
 * An Age-Partitioned Bloom Filter (Shtul, Baquero, Almeida 2020): k + l slices of m bits, newest
 * first; a key sets one bit in each of the k newest slices, and is present when some k consecutive
 * slices all hold its bit. Every generation (g adds, or a fixed span of time) the oldest slice is
 * cleared and becomes the newest, so keys age out without any per-key state.
 *
 * <p>Guarantees, for a filter created with window W and rate p:
 *
 * <ul>
 *   <li><b>No false negative inside the window.</b> By count: a key is reported present while at
 *       most {@link #window()} adds have followed it. By time: a key added at time t is reported
 *       present at every time now with {@code now - t < window}, now being the query's time (or the
 *       latest event time seen, if later).
 *   <li><b>False-positive rate at most p</b> for keys never added, and for keys that left the
 *       window more than the slack ago ({@link #slack()}: {@code k} generations, {@code k/l} of the
 *       window): their bits have then all been cleared. Between the window and the slack an expired
 *       key is forgotten gradually: one of its slices is cleared each generation, and with j of its
 *       k slices left it is reported present with probability about {@code p + 2^-(k-j)} (one
 *       generation past the window, about 1/2). By count, the rate holds at any stream of adds; by
 *       time, while no k consecutive generations take more than k times the keys per generation it
 *       was sized for ({@link #expectedFpp()} gives the rate of the current fill).
 *   <li><b>Time comes from the caller</b>: {@code add(key, timeMillis)} and {@code
 *       mightContain(key, timeMillis)}; the overloads without a time use the filter's clock.
 *       Replaying a log with its event times gives the same bits as live use. Generations are
 *       aligned on the epoch ({@code floor(t / generationMillis)}), so two time-based filters of
 *       the same shape line up.
 *   <li><b>Out-of-order events</b> up to the window late are added to the slices they would have
 *       gone to in order, with the same result; an event later than that is outside the window
 *       already and is ignored ({@code add} returns false). Times going backwards never shift.
 * </ul>
 *
 * <p>Cheat sheet (sizing picks k and l to minimise memory for the rate, with {@code l <= 4k} so a
 * query reads a few slices; see {@link #falsePositiveRate(int, int)}):
 *
 * <pre>
 *   slice bits  m = ceil(k g / ln 2), rounded up to 64: a slice with k generations is half full
 *   memory      (k + l) m bits, about (k + l) k / (l ln 2) bits per key in the window
 *   p = 1 %     k = 11, l = 44: 19.8 bits per window key (a standard Bloom filter 9.6; two rotated
 *               filters sized for the window 22.1), slack a quarter of the window
 *   p = 0.1 %   k = 15, l = 60: 27.1 bits per window key (rotated pair 31.6)
 * </pre>
 *
 * <p>Thread safety: chosen when the filter is created or read ({@link Concurrency}); both modes
 * write the same bytes.
 *
 * <ul>
 *   <li>{@link Concurrency#SINGLE_WRITER} (the default): {@code add}, {@code advanceTo} and {@code
 *       merge} must be called by one thread at a time, and queries from other threads need external
 *       synchronization with it (a shift clears a slice in place). Queries alone may run from many
 *       threads.
 *   <li>{@link Concurrency#CONCURRENT}: {@code add}, {@code advanceTo}, {@code merge} and {@code
 *       mightContain} may all run from many threads at once. Bits are set by compare-and-exchange;
 *       a shift (once a generation) takes the filter's lock. The window's promise holds for every
 *       add that has returned: by count, a key is present while at most {@code window()} adds have
 *       started after its add returned; by time, as in order. A query sees every key still inside
 *       the window when it returns (shifts may run during it). An add that overlaps a shift is
 *       written again to the generation it ends in, so a shift never costs it a generation. {@code
 *       writeTo} and {@code copy} need the writers to pause.
 * </ul>
 *
 * <p>Only time-based filters merge ({@link #merge}): their generations are the same spans of time.
 * Two count-based windows over different streams have no common notion of "the last N".
 */
public final class AgePartitionedBloomFilter implements MergeableFilter {
  /** The most slices a key is written to. */
  public static final int MAX_K = 64;

  /** The most slices a key may survive in after its k (the sizing keeps l at most 4k). */
  public static final int MAX_L = 4 * MAX_K;

  private static final double LN2 = StrictMath.log(2);

  /**
   * Where a key's k bits lie. Both layouts have the same shape, parameters and guarantees; they
   * differ in the bytes (type 48 or 51) and in speed.
   */
  public enum Layout {
    /**
     * Each slice one region of m bits (type 48): a slice is a contiguous range, the form that
     * probkit-redis keeps as one key per generation. A query reads bits in separate regions.
     */
    SLICED,
    /**
     * The m bits of each slice split into 64-bit words, one per block, and the h words of a block
     * side by side (type 51): a key picks one block and reads only it, h words in a few cache
     * lines. The uneven load of blocks costs some bits at the same rate (the sizing adds them).
     */
    BLOCKED
  }

  /** In the blocked layout, the bit of physical slice s is the top 6 bits of h2 * BIT_MIX[s]. */
  private static final long[] BIT_MIX = new long[MAX_K + MAX_L];

  static {
    for (int s = 0; s < BIT_MIX.length; s++) {
      BIT_MIX[s] = mix64((s + 1) * 0x9E3779B97F4A7C15L) | 1;
    }
  }

  /** SplitMix64's finalizer. */
  private static long mix64(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** Written as the generation of a time-based filter that has seen no event yet. */
  private static final long NO_GENERATION = Long.MIN_VALUE;

  /*
   * Design notes.
   *
   * APBF against the Time-limited Bloom Filter (Rodrigues, Shtul, Baquero, Almeida 2023): TLBF
   * follows a variable rate by adding slices as they fill and keeping a timestamp per slice, so its
   * memory grows with bursts and its shape is not fixed. APBF has a fixed shape (k + l slices of m
   * bits), which is what a file, a Redis key per slice and a merge need, and time-based windows
   * come from driving its generation shifts by the event time instead of by a count. A burst then
   * raises the rate (reported by expectedFpp) but never forgets a key inside the window; shifting
   * early on a burst would keep the rate and break the promise, which comes first.
   *
   * A slice's physical index is floorMod(G, h) for the generation G in which it was the newest, and
   * the bit a key sets in physical slice s is reduce(h1 + s*h2, m). So the layout follows from the
   * generation number alone: no rotating base is stored, and the slice of a given generation is in
   * the same place in every filter of the same shape (merge, and Redis keys per generation).
   *
   * The rate formula is the paper's (a run of k set bits among the k + l slices, a Markov chain over
   * the run length), with each young slice's fill 1 - 2^-(i+1)/k instead of the paper's linear
   * (i+1)/2k, which underestimates it (the fill is concave in the keys): it is the rate at the end
   * of a generation, the worst moment.
   *
   * The blocked layout (type 51) keeps a key's slices together: block reduce(h1, m / 64), and in
   * it one word per slice, the bit of physical slice s being the top 6 bits of h2 * BIT_MIX[s] (a
   * different odd multiplier per slice, so that two keys of a block that share a bit in one slice
   * are no likelier to share one in the next, as they would be with h2 + s * h3). A query then
   * reads one span of h words instead of bits in h regions. Blocks take uneven loads (Poisson), and
   * a crowded block crowds all its slices at once, so the rate at the same bits is higher: the
   * sizing grows m until the rate averaged over a block's load, all slices of a block taken as
   * equally loaded (which overstates it), is at most p. Clearing a slice strides over the blocks.
   *
   * [1] Shtul, Baquero, Almeida. Age-Partitioned Bloom Filters. arXiv 2001.03147, 2020.
   * [2] Rodrigues, Shtul, Baquero, Almeida. Time-limited Bloom Filter. ACM SAC 2023, arXiv
   *     2306.06742.
   */

  private final int k;
  private final int l;
  private final int h;
  private final long generationKeys;
  private final long sliceBits;
  private final int sliceWords;
  private final long generationMillis;
  private final long window;
  private final double fpp;
  private final HashStrategy hash;
  private final Clock clock;

  /** h slices of sliceWords words each, physical order. */
  private final long[] words;

  /** Whether words are in the blocked layout: word w of physical slice s at w * h + s. */
  private final boolean blocked;

  /** Adds made while each physical slice was the newest. */
  private final long[] adds;

  /** The current generation: shifts so far by count; floor(t / generationMillis) by time. */
  private long generation;

  /** {@code physical(generation)}, kept so that adds and queries need no 64-bit division. */
  private int newest;

  private final boolean concurrent;

  private static final VarHandle GENERATION;
  private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);

  static {
    try {
      GENERATION =
          MethodHandles.lookup()
              .findVarHandle(AgePartitionedBloomFilter.class, "generation", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private AgePartitionedBloomFilter(
      int k,
      int l,
      long generationKeys,
      long sliceBits,
      long generationMillis,
      long window,
      double fpp,
      HashStrategy hash,
      Clock clock,
      long[] words,
      long[] adds,
      long generation,
      Concurrency concurrency,
      Layout layout) {
    this.blocked = Objects.requireNonNull(layout, "layout") == Layout.BLOCKED;
    this.concurrent = Objects.requireNonNull(concurrency, "concurrency") == Concurrency.CONCURRENT;
    this.k = k;
    this.l = l;
    this.h = k + l;
    this.generationKeys = generationKeys;
    this.sliceBits = sliceBits;
    this.sliceWords = (int) (sliceBits >>> 6);
    this.generationMillis = generationMillis;
    this.window = window;
    this.fpp = fpp;
    this.hash = hash;
    this.clock = clock;
    this.words = words;
    this.adds = adds;
    setGeneration(generation);
  }

  // ---- creation

  /** A filter of the last {@code window} keys added, at false-positive rate {@code fpp}, XXH3. */
  public static AgePartitionedBloomFilter create(long window, double fpp) {
    return create(window, fpp, HashStrategy.xxh3());
  }

  public static AgePartitionedBloomFilter create(long window, double fpp, HashStrategy hash) {
    return create(window, fpp, hash, Concurrency.SINGLE_WRITER);
  }

  /** As {@link #create(long, double, HashStrategy)}, written in the given mode. */
  public static AgePartitionedBloomFilter create(
      long window, double fpp, HashStrategy hash, Concurrency concurrency) {
    return create(window, fpp, hash, concurrency, Layout.SLICED);
  }

  /** As {@link #create(long, double, HashStrategy, Concurrency)}, in the given layout. */
  public static AgePartitionedBloomFilter create(
      long window, double fpp, HashStrategy hash, Concurrency concurrency, Layout layout) {
    checkArgument(window > 0, "window must be positive, was %d", window);
    checkOpenUnit("fpp", fpp);
    int[] kl = optimalSlices(fpp);
    long g = ceilDiv(window, kl[1]);
    return allocate(kl[0], kl[1], g, 0, window, fpp, hash, Clock.systemUTC(), concurrency, layout);
  }

  /**
   * A filter of the keys added in the last {@code window} of time, sized for {@code expectedKeys}
   * adds per window (the expected rate times the window), at rate {@code fpp}, XXH3, times from the
   * system clock unless given.
   */
  public static AgePartitionedBloomFilter create(Duration window, long expectedKeys, double fpp) {
    return create(window, expectedKeys, fpp, HashStrategy.xxh3(), Clock.systemUTC());
  }

  public static AgePartitionedBloomFilter create(
      Duration window, long expectedKeys, double fpp, HashStrategy hash, Clock clock) {
    return create(window, expectedKeys, fpp, hash, clock, Concurrency.SINGLE_WRITER);
  }

  /** As {@link #create(Duration, long, double, HashStrategy, Clock)}, written in the given mode. */
  public static AgePartitionedBloomFilter create(
      Duration window,
      long expectedKeys,
      double fpp,
      HashStrategy hash,
      Clock clock,
      Concurrency concurrency) {
    return create(window, expectedKeys, fpp, hash, clock, concurrency, Layout.SLICED);
  }

  /**
   * As {@link #create(Duration, long, double, HashStrategy, Clock, Concurrency)}, in the given
   * layout.
   */
  public static AgePartitionedBloomFilter create(
      Duration window,
      long expectedKeys,
      double fpp,
      HashStrategy hash,
      Clock clock,
      Concurrency concurrency,
      Layout layout) {
    Objects.requireNonNull(window, "window");
    long millis = window.toMillis();
    checkArgument(millis > 0, "window must be at least 1 ms, was %s", window);
    checkArgument(expectedKeys > 0, "expectedKeys must be positive, was %d", expectedKeys);
    checkOpenUnit("fpp", fpp);
    int[] kl = optimalSlices(fpp);
    long g = ceilDiv(expectedKeys, kl[1]);
    long d = ceilDiv(millis, kl[1]);
    return allocate(
        kl[0],
        kl[1],
        g,
        d,
        millis,
        fpp,
        hash,
        Objects.requireNonNull(clock, "clock"),
        concurrency,
        layout);
  }

  /**
   * A filter of exactly {@code k + l} slices, each sized for {@code generationKeys} keys per
   * generation; by time when {@code generationMillis > 0}, else by count. The window is {@code l}
   * generations.
   */
  public static AgePartitionedBloomFilter withShape(
      int k, int l, long generationKeys, long generationMillis, HashStrategy hash, Clock clock) {
    checkArgument(k >= 1 && k <= MAX_K, "k must be in [1, %d], was %d", MAX_K, k);
    checkArgument(l >= 1 && l <= MAX_L, "l must be in [1, %d], was %d", MAX_L, l);
    checkArgument(generationKeys > 0, "generationKeys must be positive, was %d", generationKeys);
    checkArgument(generationMillis >= 0, "generationMillis must be >= 0, was %d", generationMillis);
    long w = generationMillis > 0 ? generationMillis * l : generationKeys * l;
    return allocate(
        k,
        l,
        generationKeys,
        generationMillis,
        w,
        falsePositiveRate(k, l),
        hash,
        Objects.requireNonNull(clock, "clock"),
        Concurrency.SINGLE_WRITER,
        Layout.SLICED);
  }

  private static AgePartitionedBloomFilter allocate(
      int k,
      int l,
      long g,
      long d,
      long window,
      double p,
      HashStrategy hash,
      Clock clock,
      Concurrency concurrency,
      Layout layout) {
    checkUniformHash(hash, "an age-partitioned Bloom filter");
    Objects.requireNonNull(layout, "layout");
    long m = layout == Layout.BLOCKED ? blockedSliceBits(k, l, g, p) : sliceBits(k, g);
    checkArgument(
        m / 64 <= (Integer.MAX_VALUE - 8) / (k + l),
        "%d keys per generation need %d bits per slice, too many for %d slices",
        g,
        m,
        k + l);
    long total = (m / 64) * (k + l);
    checkAllocatable(8 * total, "an age-partitioned Bloom filter of " + (k + l) + " slices");
    return new AgePartitionedBloomFilter(
        k,
        l,
        g,
        m,
        d,
        window,
        p,
        hash,
        clock,
        new long[(int) total],
        new long[k + l],
        d > 0 ? NO_GENERATION : 0,
        concurrency,
        layout);
  }

  /** {@code ceil(k g / ln 2)} rounded up to a multiple of 64: a slice half full after k g keys. */
  public static long sliceBits(int k, long generationKeys) {
    double m = Math.ceil(k * (double) generationKeys / LN2);
    checkArgument(m <= LongBitArray.MAX_BITS, "slices of %.0f bits are too large", m);
    return Math.max(64, ((long) m + 63) & ~63L);
  }

  /**
   * The bits per slice of a blocked filter: the fewest, a multiple of 64, whose {@link
   * #blockedFalsePositiveRate} is at most {@code fpp}, and never fewer than {@link #sliceBits}.
   */
  public static long blockedSliceBits(int k, int l, long generationKeys, double fpp) {
    long m = sliceBits(k, generationKeys);
    // Keys per word after k generations: 64 k g / m, the rate falls as it does.
    double lo = 0;
    double hi = 64.0 * k * generationKeys / m;
    if (blockedFalsePositiveRate(k, l, hi) > fpp) {
      for (int i = 0; i < 40; i++) {
        double mid = (lo + hi) / 2;
        if (blockedFalsePositiveRate(k, l, mid) <= fpp) {
          lo = mid;
        } else {
          hi = mid;
        }
      }
      double bits = Math.ceil(64.0 * k * generationKeys / lo);
      checkArgument(bits <= LongBitArray.MAX_BITS, "slices of %.0f bits are too large", bits);
      m = Math.max(m, ((long) bits + 63) & ~63L);
    }
    return m;
  }

  /**
   * The rate of a blocked filter at the end of a generation, when a block's word of a slice that
   * took all its k generations holds {@code keysPerWord} keys on average: the run probability
   * averaged over a block's Poisson load N, each slice of the block holding {@code N min(i+1, k) /
   * k} of them.
   */
  public static double blockedFalsePositiveRate(int k, int l, double keysPerWord) {
    double[] fill = new double[k + l];
    double total = 0;
    double mass = 0;
    double pn = Math.exp(-keysPerWord);
    double keep = Math.log1p(-1.0 / 64);
    for (int n = 0; mass < 1 - 1e-12 && n < 64 * 64; n++) {
      for (int i = 0; i < fill.length; i++) {
        fill[i] = -Math.expm1(keep * n * Math.min(i + 1, k) / k);
      }
      total += pn * runProbability(fill, k);
      mass += pn;
      pn *= keysPerWord / (n + 1);
    }
    return total + (1 - mass);
  }

  /**
   * The (k, l) of least memory per window key, {@code (k + l) k / l}, whose rate is at most {@code
   * fpp}, with {@code l <= 4k}.
   */
  public static int[] optimalSlices(double fpp) {
    checkOpenUnit("fpp", fpp);
    int[] best = null;
    double bestBits = Double.MAX_VALUE;
    for (int k = 1; k <= MAX_K; k++) {
      // The rate grows with l and the bits per key fall with it: the largest l that keeps the rate
      // is this k's best.
      int lo = 0;
      int hi = 4 * k;
      while (lo < hi) {
        int mid = (lo + hi + 1) >>> 1;
        if (falsePositiveRate(k, mid) <= fpp) {
          lo = mid;
        } else {
          hi = mid - 1;
        }
      }
      if (lo >= 1) {
        double bits = (double) (k + lo) * k / lo;
        if (bits < bestBits) {
          bestBits = bits;
          best = new int[] {k, lo};
        }
      }
    }
    checkArgument(best != null, "fpp %s is below what %d slices per key reach", fpp, MAX_K);
    return best;
  }

  /**
   * The rate of a never-added key at the end of a generation, when a slice that took i + 1 of its k
   * generations of keys is {@code 1 - 2^-(i+1)/k} full and older ones are half full: the
   * probability of a run of k set bits among the k + l slices.
   */
  public static double falsePositiveRate(int k, int l) {
    double[] fill = new double[k + l];
    for (int i = 0; i < fill.length; i++) {
      fill[i] = -Math.expm1(-LN2 * Math.min(i + 1, k) / k);
    }
    return runProbability(fill, k);
  }

  /** The probability that independent bits with these chances hold a run of k ones. */
  static double runProbability(double[] fill, int k) {
    // run[a]: probability of a current run of exactly a ones and no run of k yet.
    double[] run = new double[k];
    double[] next = new double[k];
    run[0] = 1;
    double found = 0;
    for (double r : fill) {
      Arrays.fill(next, 0);
      for (int a = 0; a < k; a++) {
        next[0] += run[a] * (1 - r);
        if (a + 1 == k) {
          found += run[a] * r;
        } else {
          next[a + 1] += run[a] * r;
        }
      }
      double[] t = run;
      run = next;
      next = t;
    }
    return found;
  }

  private static long ceilDiv(long a, long b) {
    return -Math.floorDiv(-a, b);
  }

  // ---- time

  /** Whether generations are spans of time (else counts of adds). */
  public boolean timeBased() {
    return generationMillis > 0;
  }

  private void requireTime() {
    if (generationMillis == 0) {
      throw new IllegalStateException("a count-based window takes no event time");
    }
  }

  /**
   * Moves a time-based filter to the generation of {@code timeMillis}, clearing the slices that
   * leave the window; an earlier time changes nothing.
   */
  public void advanceTo(long timeMillis) {
    requireTime();
    long e = Math.floorDiv(timeMillis, generationMillis);
    if (concurrent) {
      long g = (long) GENERATION.getAcquire(this);
      if (g != NO_GENERATION && e <= g) {
        return;
      }
      synchronized (this) {
        moveTo(e);
      }
    } else {
      moveTo(e);
    }
  }

  private void moveTo(long e) {
    if (generation == NO_GENERATION) {
      setGeneration(e);
    } else if (e > generation) {
      shift(e - generation);
    }
  }

  /** Clears the {@code n} oldest slices (all of them from h on) and makes them the newest. */
  private void shift(long n) {
    long clear = Math.min(n, h);
    for (long i = 1; i <= clear; i++) {
      int s = physical(generation + i);
      if (blocked) {
        for (int w = s; w < words.length; w += h) {
          words[w] = 0;
        }
      } else {
        Arrays.fill(words, s * sliceWords, (s + 1) * sliceWords, 0L);
      }
      adds[s] = 0;
    }
    setGeneration(generation + n);
  }

  private void setGeneration(long g) {
    // The slices are cleared before the new generation is published: an add or query that reads
    // it finds them ready.
    newest = physical(g);
    GENERATION.setRelease(this, g);
  }

  /** The current generation, as a concurrent add or query must read it. */
  private long generationNow() {
    return concurrent ? (long) GENERATION.getAcquire(this) : generation;
  }

  private int physical(long gen) {
    return (int) Math.floorMod(gen, (long) h);
  }

  // ---- keys

  /**
   * Adds the key: by count, to the current generation (shifting first when it holds g keys); by
   * time, at the clock's time. Returns whether any bit changed.
   */
  @Override
  public boolean add(byte[] key, int off, int len) {
    if (generationMillis > 0) {
      return add(key, off, len, clock.millis());
    }
    long h1 = hash.hash64(key, off, len);
    return addByCount(h1, hash.secondHash(key, off, len, h1));
  }

  @Override
  public boolean add(long key) {
    if (generationMillis > 0) {
      return add(key, clock.millis());
    }
    long h1 = hash.hash64(key);
    return addByCount(h1, hash.secondHash(key, h1));
  }

  private boolean addByCount(long h1, long h2) {
    if (concurrent) {
      return addByCountConcurrently(h1, h2);
    }
    if (adds[newest] >= generationKeys) {
      shift(1);
    }
    return insert(h1, h2, 0);
  }

  /**
   * Takes one of the newest slice's g places (shifting under the lock when they are all taken),
   * sets the key's bits from that slice, and sets them again from the newest slice if a shift
   * happened meanwhile: a key is then in the generation current when its add returns.
   */
  private boolean addByCountConcurrently(long h1, long h2) {
    boolean counted = false;
    boolean changed = false;
    for (; ; ) {
      long g = (long) GENERATION.getAcquire(this);
      int s = physical(g);
      if (!counted) {
        long a = (long) LONGS.getVolatile(adds, s);
        if (a >= generationKeys) {
          synchronized (this) {
            if (generation == g) {
              shift(1);
            }
          }
          continue;
        }
        if (!LONGS.compareAndSet(adds, s, a, a + 1)) {
          continue;
        }
        counted = true;
      }
      changed |= setBits(h1, h2, s);
      if ((long) GENERATION.getAcquire(this) == g) {
        return changed;
      }
    }
  }

  /**
   * Adds the key as of event time {@code timeMillis} (time-based filters). A time in a later
   * generation shifts first; a late event within the window goes to the slices it would have gone
   * to in order; one later than the window is ignored. Returns whether any bit changed.
   */
  public boolean add(byte[] key, int off, int len, long timeMillis) {
    int lag = lagOf(timeMillis);
    if (lag < 0) {
      return false;
    }
    long h1 = hash.hash64(key, off, len);
    return insertAt(h1, hash.secondHash(key, off, len, h1), lag, timeMillis);
  }

  /**
   * Time-based adds: concurrently, the slices come from the event's own generation, so a shift
   * between reading the generation and setting the bits cannot move them (a slice it recycles
   * belonged to a generation the event is already out of the window of).
   */
  private boolean insertAt(long h1, long h2, int lag, long timeMillis) {
    if (!concurrent) {
      return insert(h1, h2, lag);
    }
    int s = physical(Math.floorDiv(timeMillis, generationMillis));
    LONGS.getAndAdd(adds, s, 1L);
    return setBits(h1, h2, s);
  }

  /**
   * Advances to {@code timeMillis} and returns how many generations before the current one it falls
   * in, or -1 if that is outside the window.
   */
  private int lagOf(long timeMillis) {
    requireTime();
    advanceTo(timeMillis);
    long lag = generationNow() - Math.floorDiv(timeMillis, generationMillis);
    return lag > l ? -1 : (int) lag;
  }

  public boolean add(CharSequence key, long timeMillis) {
    KeyBuffer b = KeyBuffer.utf8(key);
    try {
      return add(b.bytes(), 0, b.length(), timeMillis);
    } finally {
      b.release();
    }
  }

  public boolean add(long key, long timeMillis) {
    int lag = lagOf(timeMillis);
    if (lag < 0) {
      return false;
    }
    long h1 = hash.hash64(key);
    return insertAt(h1, hash.secondHash(key, h1), lag, timeMillis);
  }

  /** Sets the key's bit in the k slices from {@code age} generations old. */
  private boolean insert(long h1, long h2, int age) {
    int s = older(newest, age);
    adds[s]++;
    // Physical slices s down to s - k + 1, wrapping below 0 to h - 1: one or two ranges of
    // consecutive slices, so that the loops need no wrap test.
    int low = s - k + 1;
    if (low >= 0) {
      return insertRange(h1, h2, low, s + 1) != 0;
    }
    return (insertRange(h1, h2, 0, s + 1) | insertRange(h1, h2, low + h, h)) != 0;
  }

  /** Sets the key's bit in physical slices {@code [from, to)}; nonzero if any bit changed. */
  private long insertRange(long h1, long h2, int from, int to) {
    long changed = 0;
    if (blocked) {
      int base = (int) DoubleHashing.reduce(h1, sliceWords) * h;
      for (int s = from; s < to; s++) {
        long bit = 1L << ((h2 * BIT_MIX[s]) >>> 58);
        long old = words[base + s];
        words[base + s] = old | bit;
        changed |= ~old & bit;
      }
      return changed;
    }
    for (int s = from; s < to; s++) {
      long p = DoubleHashing.reduce(h1 + s * h2, sliceBits);
      int w = s * sliceWords + (int) (p >>> 6);
      long old = words[w];
      words[w] = old | (1L << p);
      changed |= ~old & (1L << p);
    }
    return changed;
  }

  /**
   * Sets the key's bit in the k slices from physical slice {@code s} back, by compare-and-exchange
   * where it is clear.
   */
  private boolean setBits(long h1, long h2, int s) {
    boolean changed = false;
    if (blocked) {
      int base = (int) DoubleHashing.reduce(h1, sliceWords) * h;
      for (int i = 0; i < k; i++, s = older(s, 1)) {
        changed |= LongBitArray.orWord(words, base + s, 1L << ((h2 * BIT_MIX[s]) >>> 58));
      }
      return changed;
    }
    for (int i = 0; i < k; i++, s = older(s, 1)) {
      long p = DoubleHashing.reduce(h1 + s * h2, sliceBits);
      changed |= LongBitArray.orWord(words, s * sliceWords + (int) (p >>> 6), 1L << p);
    }
    return changed;
  }

  /** The physical slice {@code age} generations older than physical slice {@code s}. */
  private int older(int s, int age) {
    int t = s - age;
    return t < 0 ? t + h : t;
  }

  /**
   * Whether the key may have been added within the window: by count, of the adds so far; by time,
   * as of the clock's time.
   */
  @Override
  public boolean mightContain(byte[] key, int off, int len) {
    if (generationMillis > 0) {
      return mightContain(key, off, len, clock.millis());
    }
    long h1 = hash.hash64(key, off, len);
    return contains(h1, hash.secondHash(key, off, len, h1), h, newestNow());
  }

  /** The newest physical slice, as a concurrent query must read it. */
  private int newestNow() {
    return concurrent ? physical((long) GENERATION.getAcquire(this)) : newest;
  }

  @Override
  public boolean mightContain(long key) {
    if (generationMillis > 0) {
      return mightContain(key, clock.millis());
    }
    long h1 = hash.hash64(key);
    return contains(h1, hash.secondHash(key, h1), h, newestNow());
  }

  /**
   * Whether the key may have been added within the window ending at {@code timeMillis} (time-based
   * filters). A time in a later generation than the latest event sees the slices that would be left
   * after shifting to it (nothing changes); an earlier time is answered as of the latest event.
   */
  public boolean mightContain(byte[] key, int off, int len, long timeMillis) {
    long g = generationNow();
    int live = liveAt(timeMillis, g);
    if (live < k) {
      return false;
    }
    long h1 = hash.hash64(key, off, len);
    return contains(h1, hash.secondHash(key, off, len, h1), live, physical(g));
  }

  /** The slices (newest first) still in the window at {@code timeMillis}; none before any event. */
  private int liveAt(long timeMillis, long gen) {
    requireTime();
    if (gen == NO_GENERATION) {
      return 0;
    }
    long ahead = Math.floorDiv(timeMillis, generationMillis) - gen;
    return ahead <= 0 ? h : (int) Math.max(0, h - Math.min(ahead, h));
  }

  public boolean mightContain(CharSequence key, long timeMillis) {
    KeyBuffer b = KeyBuffer.utf8(key);
    try {
      return mightContain(b.bytes(), 0, b.length(), timeMillis);
    } finally {
      b.release();
    }
  }

  public boolean mightContain(long key, long timeMillis) {
    long g = generationNow();
    int live = liveAt(timeMillis, g);
    if (live < k) {
      return false;
    }
    long h1 = hash.hash64(key);
    return contains(h1, hash.secondHash(key, h1), live, physical(g));
  }

  /**
   * Whether slices {@code [0, live)} (0 the newest) hold a run of k with the key's bit. A window
   * {@code [start, start + k)} is tested from its oldest end down; at a clear bit at age i no run
   * through i exists, so the next window starts at i + 1 (about 2 bits read per k slices). Reading
   * all h bits without a branch, so that their misses overlap, measured slower: h reads against
   * about 2h/k.
   */
  private boolean contains(long h1, long h2, int live, int newest) {
    if (blocked) {
      return containsBlocked((int) DoubleHashing.reduce(h1, sliceWords) * h, h2, live, newest);
    }
    int start = 0;
    int checkedTo = -1; // ages [start, checkedTo] are known to be set
    while (start + k <= live) {
      int i = start + k - 1;
      for (; i > checkedTo; i--) {
        int s = older(newest, i);
        long p = DoubleHashing.reduce(h1 + s * h2, sliceBits);
        if ((words[s * sliceWords + (int) (p >>> 6)] & (1L << p)) == 0) {
          break;
        }
      }
      if (i == checkedTo) {
        return true;
      }
      checkedTo = start + k - 1;
      start = i + 1;
    }
    return false;
  }

  /**
   * As {@link #contains}, in the block of words starting at {@code base}. Up to 64 slices, every
   * bit is read without a branch, in physical order (a plain loop over the block's h words, which
   * the compiler unrolls; the block's few cache lines load in parallel and no branch waits on a
   * coin-flip bit). The mask is then turned so that the oldest slice is bit 0 and the newest bit h
   * - 1, which keeps a run from wrapping from the oldest slice to the newest, and a run of k is
   * found by shifts.
   */
  private boolean containsBlocked(int base, long h2, int live, int newest) {
    if (h <= 64) {
      long set = 0; // bit s: physical slice s holds the key's bit
      for (int s = 0; s < h; s++) {
        set |= ((words[base + s] >>> ((h2 * BIT_MIX[s]) >>> 58)) & 1L) << s;
      }
      // Physical slice newest - i (mod h), of age i, goes to bit h - 1 - i.
      int c = newest + 1 == h ? 0 : newest + 1;
      long ages = c == 0 ? set : (set >>> c) | (set << (h - c));
      ages &= -1L >>> (64 - h); // the h bits
      ages &= live == 0 ? 0 : -1L << (h - live); // the live ones, the newest (a shift of 64 is 0)
      // After each step, bit i of ages says that bits i .. i + run - 1 all hold the key's bit.
      for (int run = 1; run < k; ) {
        int step = Math.min(run, k - run);
        ages &= ages >>> step;
        run += step;
      }
      return ages != 0;
    }
    return containsBlockedWide(base, h2, live, newest);
  }

  /** As {@link #containsBlocked} for more than 64 slices, searching as {@link #contains}. */
  private boolean containsBlockedWide(int base, long h2, int live, int newest) {
    int start = 0;
    int checkedTo = -1;
    while (start + k <= live) {
      int i = start + k - 1;
      for (; i > checkedTo; i--) {
        int s = older(newest, i);
        if ((words[base + s] & (1L << ((h2 * BIT_MIX[s]) >>> 58))) == 0) {
          break;
        }
      }
      if (i == checkedTo) {
        return true;
      }
      checkedTo = start + k - 1;
      start = i + 1;
    }
    return false;
  }

  /** The index of word {@code w} (of sliceWords) of physical slice {@code s}. */
  private int wordIndex(int s, int w) {
    return blocked ? w * h + s : s * sliceWords + w;
  }

  // ---- combining

  /**
   * Adds the keys of another time-based filter of the same shape and hashing: both move to the
   * later of their generations, then each slice still in the window takes the other's bits.
   */
  @Override
  public AgePartitionedBloomFilter merge(MembershipFilter other) {
    if (concurrent) {
      synchronized (this) {
        return mergeLocked(other);
      }
    }
    return mergeLocked(other);
  }

  private AgePartitionedBloomFilter mergeLocked(MembershipFilter other) {
    String why = incompatibility(other);
    checkArgument(why == null, "cannot merge: %s", why);
    AgePartitionedBloomFilter o = (AgePartitionedBloomFilter) other;
    if (o.generation == NO_GENERATION) {
      return this;
    }
    if (generation == NO_GENERATION) {
      setGeneration(o.generation);
    } else if (o.generation > generation) {
      shift(o.generation - generation);
    }
    for (int age = 0; age < h; age++) {
      long gen = o.generation - age;
      if (gen <= generation - h) {
        break;
      }
      int s = physical(gen);
      for (int j = 0; j < sliceWords; j++) {
        int w = wordIndex(s, j);
        if (concurrent) {
          LongBitArray.orWord(words, w, o.words[w]);
        } else {
          words[w] |= o.words[w];
        }
      }
      if (concurrent) {
        LONGS.getAndAdd(adds, s, o.adds[s]);
      } else {
        adds[s] += o.adds[s];
      }
    }
    return this;
  }

  @Override
  public boolean isCompatible(MembershipFilter other) {
    return incompatibility(other) == null;
  }

  private String incompatibility(MembershipFilter other) {
    if (!(other instanceof AgePartitionedBloomFilter)) {
      return "a window filter takes only another window filter, not a "
          + other.type().label()
          + " filter";
    }
    AgePartitionedBloomFilter o = (AgePartitionedBloomFilter) other;
    if (generationMillis == 0 || o.generationMillis == 0) {
      return "count-based windows do not merge: two streams' last N keys have no common generation";
    }
    if (blocked != o.blocked) {
      return "different layouts: " + layout() + " and " + o.layout();
    }
    if (k != o.k
        || l != o.l
        || sliceBits != o.sliceBits
        || generationMillis != o.generationMillis) {
      return String.format(
          java.util.Locale.ROOT,
          "different shapes: k=%d l=%d %d bits per slice %d ms per generation, and k=%d l=%d %d"
              + " bits per slice %d ms per generation",
          k,
          l,
          sliceBits,
          generationMillis,
          o.k,
          o.l,
          o.sliceBits,
          o.generationMillis);
    }
    if (!hash.equals(o.hash)) {
      return "different hashing: " + hash + " and " + o.hash;
    }
    return null;
  }

  @Override
  public AgePartitionedBloomFilter copy() {
    return new AgePartitionedBloomFilter(
        k,
        l,
        generationKeys,
        sliceBits,
        generationMillis,
        window,
        fpp,
        hash,
        clock,
        words.clone(),
        adds.clone(),
        generation,
        concurrency(),
        layout());
  }

  /** Where a key's bits lie (see {@link Layout}). */
  public Layout layout() {
    return blocked ? Layout.BLOCKED : Layout.SLICED;
  }

  /** How adds reach memory (see the class comment). */
  public Concurrency concurrency() {
    return concurrent ? Concurrency.CONCURRENT : Concurrency.SINGLE_WRITER;
  }

  // ---- introspection

  /** Slices a key is written to. */
  public int hashCount() {
    return k;
  }

  /** Generations a key outlives its insertion by (the window is l generations). */
  public int survivingGenerations() {
    return l;
  }

  public int sliceCount() {
    return h;
  }

  /** Keys per generation the slices are sized for (by count, the adds that make a generation). */
  public long generationKeys() {
    return generationKeys;
  }

  /** The span of a generation in ms, or 0 for a count-based filter. */
  public long generationMillis() {
    return generationMillis;
  }

  public long sliceBits() {
    return sliceBits;
  }

  /**
   * The guaranteed window: {@code l} generations, in adds (by count) or ms (by time); at least what
   * was asked of {@link #create}.
   */
  public long window() {
    return l * (generationMillis > 0 ? generationMillis : generationKeys);
  }

  /** The window asked of {@link #create} (adds or ms). */
  public long requestedWindow() {
    return window;
  }

  /**
   * After the window, how long until an expired key is certainly forgotten: k generations, in adds
   * or ms.
   */
  public long slack() {
    return k * (generationMillis > 0 ? generationMillis : generationKeys);
  }

  /** The rate this filter was sized for. */
  public double targetFpp() {
    return fpp;
  }

  /**
   * The current generation (shifts so far by count; {@code floor(t / generationMillis)} by time).
   */
  public long generation() {
    return generation;
  }

  @Override
  public long bitSize() {
    return sliceBits * h;
  }

  @Override
  public long byteSize() {
    return 8L * words.length;
  }

  /** The rate of a never-added key now, from each slice's fill. */
  @Override
  public double expectedFpp() {
    if (blocked) {
      // A block's rate from its own words, averaged: a query lands in one block.
      double[] fill = new double[h];
      double sum = 0;
      for (int b = 0; b < sliceWords; b++) {
        for (int age = 0; age < h; age++) {
          fill[age] = Long.bitCount(words[b * h + physical(generation - age)]) / 64.0;
        }
        sum += runProbability(fill, k);
      }
      return sum / sliceWords;
    }
    double[] fill = new double[h];
    for (int age = 0; age < h; age++) {
      int s = physical(generation - age);
      long set = 0;
      for (int w = s * sliceWords; w < (s + 1) * sliceWords; w++) {
        set += Long.bitCount(words[w]);
      }
      fill[age] = (double) set / sliceBits;
    }
    return runProbability(fill, k);
  }

  /**
   * The adds made in the generations of the window (the current one and l before it), repeats
   * included: a window counts occurrences.
   */
  @Override
  public long approximateCount() {
    long n = 0;
    for (int age = 0; age <= l; age++) {
      n += adds[physical(generation - age)];
    }
    return n;
  }

  @Override
  public HashStrategy hashStrategy() {
    return hash;
  }

  @Override
  public StructureType type() {
    return blocked
        ? StructureType.AGE_PARTITIONED_BLOCKED_FILTER
        : StructureType.AGE_PARTITIONED_BLOOM_FILTER;
  }

  // ---- serialization

  /**
   * Parameters: k (u32), l (u32), generationKeys (u64), sliceBits (u64), generationMillis (u64, 0
   * by count), requested window (u64), fpp (f64). Payload: the generation (i64), the adds of each
   * physical slice (h u64), then the words: type 48, the h slices one after the other, physical
   * order; type 51, the m / 64 blocks one after the other, each the h slices' words of the block.
   */
  @Override
  public void writeTo(OutputStream out) throws IOException {
    ByteBuffer p = SketchWriter.params(48);
    p.putInt(k)
        .putInt(l)
        .putLong(generationKeys)
        .putLong(sliceBits)
        .putLong(generationMillis)
        .putLong(window)
        .putDouble(fpp);
    SketchWriter w = SketchWriter.begin(out, type(), hash, p.array(), payloadBytes(h, sliceBits));
    w.writeLong(generation);
    w.writeLongs(adds, 0, h);
    w.writeLongs(words, 0, words.length);
    w.finish();
  }

  private static long payloadBytes(int h, long sliceBits) {
    return 8L + 8L * h + h * (sliceBits / 8);
  }

  public static AgePartitionedBloomFilter readFrom(InputStream in) throws IOException {
    return readFrom(in, Concurrency.SINGLE_WRITER);
  }

  /** As {@link #readFrom(InputStream)}, written afterwards in the given mode. */
  public static AgePartitionedBloomFilter readFrom(InputStream in, Concurrency concurrency)
      throws IOException {
    Objects.requireNonNull(concurrency, "concurrency");
    SketchReader r = SketchReader.open(in);
    if (r.type() != StructureType.AGE_PARTITIONED_BLOCKED_FILTER) {
      r = r.expect(StructureType.AGE_PARTITIONED_BLOOM_FILTER);
    }
    return read(r, concurrency);
  }

  static AgePartitionedBloomFilter read(SketchReader r) throws IOException {
    return read(r, Concurrency.SINGLE_WRITER);
  }

  static AgePartitionedBloomFilter read(SketchReader r, Concurrency concurrency)
      throws IOException {
    int k = r.paramInt("k");
    r.check(k >= 1 && k <= MAX_K, "k", k, "in [1, " + MAX_K + "]");
    int l = r.paramInt("l");
    r.check(l >= 1 && l <= MAX_L, "l", l, "in [1, " + MAX_L + "]");
    int h = k + l;
    long g = r.paramLong("generationKeys");
    r.check(g >= 1, "generationKeys", g, "positive");
    long m = r.paramLong("sliceBits");
    r.check(
        m >= 64 && (m & 63) == 0 && m / 64 <= (Integer.MAX_VALUE - 8) / h,
        "sliceBits",
        m,
        "a positive multiple of 64 of at most " + 64L * ((Integer.MAX_VALUE - 8) / h));
    long d = r.paramLong("generationMillis");
    r.check(d >= 0, "generationMillis", d, ">= 0");
    long window = r.paramLong("window");
    r.check(window >= 1, "window", window, "positive");
    double p = r.paramDouble("fpp");
    r.check(p > 0 && p < 1, "fpp", p, "in (0, 1)");
    r.check(!r.hash().needsMixing(), "hash", r.hash(), "a uniform hash (xxh3)");
    r.expectPayloadLength(payloadBytes(h, m));
    long gen = r.readLong("generation");
    r.check(gen >= 0 || (d > 0), "generation", gen, ">= 0 for a count-based window");
    long[] adds = r.readLongs(h, "adds");
    for (int i = 0; i < h; i++) {
      r.check(adds[i] >= 0, "adds of slice " + i, adds[i], ">= 0");
      if (d == 0) {
        r.check(adds[i] <= g, "adds of slice " + i, adds[i], "at most " + g);
      }
    }
    long[] words = r.readLongs((int) (h * (m / 64)), "slices");
    r.finish();
    Layout layout =
        r.type() == StructureType.AGE_PARTITIONED_BLOCKED_FILTER ? Layout.BLOCKED : Layout.SLICED;
    return new AgePartitionedBloomFilter(
        k,
        l,
        g,
        m,
        d,
        window,
        p,
        r.hash(),
        Clock.systemUTC(),
        words,
        adds,
        gen,
        concurrency,
        layout);
  }

  // ---- identity

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof AgePartitionedBloomFilter)) {
      return false;
    }
    AgePartitionedBloomFilter f = (AgePartitionedBloomFilter) o;
    return blocked == f.blocked
        && k == f.k
        && l == f.l
        && generationKeys == f.generationKeys
        && sliceBits == f.sliceBits
        && generationMillis == f.generationMillis
        && generation == f.generation
        && hash.equals(f.hash)
        && Arrays.equals(adds, f.adds)
        && Arrays.equals(words, f.words);
  }

  @Override
  public int hashCode() {
    return Objects.hash(k, l, generationKeys, sliceBits, generationMillis, generation, hash);
  }

  @Override
  public String toString() {
    return "AgePartitionedBloomFilter{"
        + layout()
        + ", k="
        + k
        + ", l="
        + l
        + ", generation="
        + (timeBased() ? generationMillis + " ms" : generationKeys + " keys")
        + ", sliceBits="
        + sliceBits
        + ", hash="
        + hash
        + "}";
  }
}
