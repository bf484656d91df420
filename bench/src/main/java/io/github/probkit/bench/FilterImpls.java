package io.github.probkit.bench;

import com.dynatrace.hash4j.hashing.Hasher64;
import com.dynatrace.hash4j.hashing.Hashing;
import com.google.common.hash.Funnels;
import io.github.probkit.Concurrency;
import io.github.probkit.filter.AgePartitionedBloomFilter;
import io.github.probkit.filter.BinaryFuseFilter;
import io.github.probkit.filter.BinaryFuseFilter.FingerprintBits;
import io.github.probkit.filter.BlockedBloomFilter;
import io.github.probkit.filter.BloomFilter;
import io.github.probkit.filter.CountingBloomFilter;
import io.github.probkit.filter.CuckooFilter;
import io.github.probkit.filter.MembershipFilter;
import io.github.probkit.filter.MutableFilter;
import io.github.probkit.filter.ScalableBloomFilter;
import io.github.probkit.filter.SplitBlockBloomFilter;
import io.github.probkit.hash.HashStrategy;
import java.lang.reflect.Constructor;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.commons.codec.digest.MurmurHash3;
import org.apache.commons.collections4.bloomfilter.EnhancedDoubleHasher;
import org.apache.commons.collections4.bloomfilter.Shape;
import org.apache.commons.collections4.bloomfilter.SimpleBloomFilter;
import org.fastfilter.Filter;
import org.fastfilter.bloom.BlockedBloom;
import org.fastfilter.bloom.Bloom;
import org.fastfilter.bloom.count.CountingBloom;
import org.fastfilter.cuckoo.Cuckoo8;
import org.fastfilter.utils.Hash;
import org.fastfilter.xor.Xor8;
import org.fastfilter.xor.XorFuse8;

/**
 * The registry of filter contestants, by the name used in the benchmarks' {@code impl} parameter
 * ({@code <library>-<structure>}). A family groups the filters a probkit filter is compared with.
 */
public final class FilterImpls {

  /** Creates an empty dynamic filter sized for {@code n} keys at rate {@code fpp}. */
  interface EmptyFactory {
    FilterContestant create(long n, double fpp, boolean strings);
  }

  /**
   * Builds a static filter from all its keys at once: keys {@code [0, n)} of {@link Keys}, as
   * Strings or longs. FastFilter's take longs, so their String keys arrive hashed (see {@link
   * #hashString}).
   */
  interface StaticFactory {
    FilterContestant build(long n, boolean strings);
  }

  /** One contestant: exactly one of {@code empty} and {@code build} is set. */
  public record Spec(
      String name, String family, String library, EmptyFactory empty, StaticFactory build) {
    public boolean dynamic() {
      return empty != null;
    }

    public boolean probkit() {
      return library.equals("probkit");
    }
  }

  /** Families: the filters of one family are compared with each other ("best peer"). */
  public static final String BLOOM = "standard Bloom";

  public static final String BLOCKED = "blocked Bloom";
  public static final String STATIC = "static (xor / binary fuse)";
  public static final String CUCKOO = "cuckoo";
  public static final String COUNTING = "counting Bloom";
  public static final String SCALABLE = "scalable Bloom";
  public static final String WINDOW = "sliding window";

  private static final Map<String, Spec> ALL = new LinkedHashMap<>();

  /** FastFilter draws its seeds from one global Random: seeding it makes runs repeatable. */
  private static final long FASTFILTER_SEED = 0x6a09e667f3bcc908L;

  private static final Hasher64 XXH3 = Hashing.xxh3_64();

  /** The load FastFilter's Cuckoo8.construct sizes its table for. */
  private static final double CUCKOO8_LOAD = 0.95;

  static {
    dynamic("probkit-bloom", BLOOM, (n, p, s) -> new Probkit(BloomFilter.create(n, p)));
    dynamic("probkit-blocked", BLOCKED, (n, p, s) -> new Probkit(BlockedBloomFilter.create(n, p)));
    // The single-writer mode (plain stores), which is what FastFilter's filters offer.
    dynamic(
        "probkit-bloom-sw",
        BLOOM,
        (n, p, s) -> new Probkit(BloomFilter.create(n, p, Concurrency.SINGLE_WRITER)));
    dynamic(
        "probkit-blocked-sw",
        BLOCKED,
        (n, p, s) -> new Probkit(BlockedBloomFilter.create(n, p, Concurrency.SINGLE_WRITER)));
    // FastFilter BlockedBloom's bits (whole bits per key, as below), not Parquet's power-of-two
    // sizing, so that both hold the same bits per key.
    dynamic(
        "probkit-split-block",
        BLOCKED,
        (n, p, s) -> new Probkit(SplitBlockBloomFilter.withBytes(splitBlockBytes(n, p))));
    dynamic(
        "probkit-split-block-sw",
        BLOCKED,
        (n, p, s) ->
            new Probkit(
                SplitBlockBloomFilter.withBytes(splitBlockBytes(n, p), Concurrency.SINGLE_WRITER)));
    built(
        "probkit-binaryfuse8",
        STATIC,
        (n, s) -> {
          if (!s) {
            return new ProbkitStatic(
                BinaryFuseFilter.ofLongs(
                    Keys.longs(0, Math.toIntExact(n)), FingerprintBits.BITS_8));
          }
          // The hashes of the keys' UTF-8 bytes, which is what ofStrings computes, without a list
          // of n Strings.
          HashStrategy h = HashStrategy.xxh3();
          long[] hashes = new long[Math.toIntExact(n)];
          for (int i = 0; i < hashes.length; i++) {
            hashes[i] = h.hash64(Keys.stringKey(i));
          }
          return new ProbkitStatic(BinaryFuseFilter.fromHashes(hashes, FingerprintBits.BITS_8, h));
        });
    // Derivation 1 (x = mix64(h + seed)), what files written before issue 31 hold: the old query
    // path, to measure in the same run as derivation 2 (the default, above).
    built(
        "probkit-binaryfuse8-v1",
        STATIC,
        (n, s) -> {
          HashStrategy h = HashStrategy.xxh3();
          long[] hashes = new long[Math.toIntExact(n)];
          for (int i = 0; i < hashes.length; i++) {
            hashes[i] = s ? h.hash64(Keys.stringKey(i)) : h.hash64(Keys.longKey(i));
          }
          return new ProbkitStatic(
              BinaryFuseFilter.fromHashes(
                  hashes,
                  hashes.length,
                  FingerprintBits.BITS_8,
                  h,
                  BinaryFuseFilter.Derivation.V1));
        });
    dynamic(
        "probkit-counting", COUNTING, (n, p, s) -> new Probkit(CountingBloomFilter.create(n, p)));
    dynamic("probkit-cuckoo", CUCKOO, (n, p, s) -> new Probkit(CuckooFilter.create(n, p)));
    // FastFilter Cuckoo8's fingerprints (8 bits) and load (0.95): the same bits per key, the same
    // false-positive rate, whatever the rate asked for.
    dynamic(
        "probkit-cuckoo8",
        CUCKOO,
        (n, p, s) ->
            new Probkit(CuckooFilter.withBuckets((long) Math.ceil(n / CUCKOO8_LOAD / 4), 8)));
    // Started at n/8, as when n is not known: holding n keys it has grown to four layers.
    dynamic(
        "probkit-scalable",
        SCALABLE,
        (n, p, s) -> new Probkit(ScalableBloomFilter.create(Math.max(1, n / 8), p)));
    // The window is the n keys: each added key stays inside it, as in the other filters.
    dynamic(
        "probkit-window", WINDOW, (n, p, s) -> new Probkit(AgePartitionedBloomFilter.create(n, p)));
    dynamic(
        "probkit-window-c",
        WINDOW,
        (n, p, s) ->
            new Probkit(
                AgePartitionedBloomFilter.create(
                    n, p, HashStrategy.xxh3(), Concurrency.CONCURRENT)));
    dynamic(
        "probkit-window-b",
        WINDOW,
        (n, p, s) ->
            new Probkit(
                AgePartitionedBloomFilter.create(
                    n,
                    p,
                    HashStrategy.xxh3(),
                    Concurrency.SINGLE_WRITER,
                    AgePartitionedBloomFilter.Layout.BLOCKED)));
    dynamic(
        "probkit-window-bc",
        WINDOW,
        (n, p, s) ->
            new Probkit(
                AgePartitionedBloomFilter.create(
                    n,
                    p,
                    HashStrategy.xxh3(),
                    Concurrency.CONCURRENT,
                    AgePartitionedBloomFilter.Layout.BLOCKED)));
    dynamic("guava-bloom", BLOOM, GuavaBloom::new);
    dynamic("commons-bloom", BLOOM, CommonsBloom::new);
    dynamic("spark-bloom", BLOOM, (n, p, s) -> new SparkBloom(n, p));
    dynamic(
        "fastfilter-bloom",
        BLOOM,
        (n, p, s) -> {
          double bitsPerKey = FilterContestant.bloomBitsPerKey(p);
          // k as Bloom.construct chooses it; the sizing constructor is package-private.
          int k = Math.max(1, (int) Math.round(bitsPerKey * Math.log(2)));
          return new FastFilter(
              fastFilterNew(
                  Bloom.class,
                  new Class<?>[] {int.class, double.class, int.class},
                  Math.toIntExact(n),
                  bitsPerKey,
                  k));
        });
    dynamic(
        "fastfilter-blocked",
        BLOCKED,
        (n, p, s) -> {
          int bitsPerKey = (int) Math.ceil(FilterContestant.bloomBitsPerKey(p));
          return new FastFilter(
              fastFilterNew(
                  BlockedBloom.class,
                  new Class<?>[] {int.class, int.class},
                  Math.toIntExact(n),
                  bitsPerKey));
        });
    dynamic(
        "fastfilter-counting",
        COUNTING,
        (n, p, s) -> {
          double bitsPerKey = FilterContestant.bloomBitsPerKey(p);
          int k = Math.max(1, (int) Math.round(bitsPerKey * Math.log(2)));
          return new FastFilter(
              fastFilterNew(
                  CountingBloom.class,
                  new Class<?>[] {int.class, double.class, int.class},
                  Math.toIntExact(n),
                  bitsPerKey,
                  k));
        });
    dynamic(
        "fastfilter-cuckoo8",
        CUCKOO,
        (n, p, s) -> {
          Hash.setSeed(FASTFILTER_SEED);
          // The load factor FastFilter's own construct() uses.
          return new FastCuckoo8(new Cuckoo8((int) (n / CUCKOO8_LOAD)));
        });
    built(
        "fastfilter-xor8",
        STATIC,
        (n, s) -> {
          long[] keys = fastFilterKeys(n, s);
          Hash.setSeed(FASTFILTER_SEED);
          return new FastFilter(Xor8.construct(keys));
        });
    built(
        "fastfilter-xorfuse8",
        STATIC,
        (n, s) -> {
          long[] keys = fastFilterKeys(n, s);
          Hash.setSeed(FASTFILTER_SEED);
          return new FastFilter(XorFuse8.construct(keys));
        });
  }

  private FilterImpls() {}

  private static void dynamic(String name, String family, EmptyFactory f) {
    add(name, family, f, null);
  }

  private static void built(String name, String family, StaticFactory f) {
    add(name, family, null, f);
  }

  private static void add(String name, String family, EmptyFactory e, StaticFactory b) {
    ALL.put(name, new Spec(name, family, name.substring(0, name.indexOf('-')), e, b));
  }

  public static Spec spec(String name) {
    Spec s = ALL.get(name);
    if (s == null) {
      throw new IllegalArgumentException("unknown filter " + name + "; known: " + ALL.keySet());
    }
    return s;
  }

  public static List<Spec> all() {
    return List.copyOf(ALL.values());
  }

  /** An empty dynamic filter for {@code n} keys. */
  public static FilterContestant empty(String name, long n, double fpp, boolean strings) {
    Spec s = spec(name);
    if (!s.dynamic()) {
      throw new IllegalArgumentException(name + " is static: it has no add");
    }
    return s.empty.create(n, fpp, strings);
  }

  /** A filter holding keys {@code [0, n)} of {@link Keys}, as Strings or as longs. */
  public static FilterContestant filled(String name, long n, double fpp, boolean strings) {
    Spec s = spec(name);
    if (s.dynamic()) {
      FilterContestant f = s.empty.create(n, fpp, strings);
      for (long i = 0; i < n; i++) {
        if (strings) {
          f.add(Keys.stringKey(i));
        } else {
          f.add(Keys.longKey(i));
        }
      }
      return f;
    }
    return s.build.build(n, strings);
  }

  /** Keys {@code [0, n)} as a FastFilter user passes them: longs, or Strings hashed to longs. */
  static long[] fastFilterKeys(long n, boolean strings) {
    long[] keys = new long[Math.toIntExact(n)];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = strings ? hashString(Keys.stringKey(i)) : Keys.longKey(i);
    }
    return keys;
  }

  /** The bytes of fastfilter-blocked's table for n keys at p, in whole 32-byte blocks. */
  private static long splitBlockBytes(long n, double p) {
    long bits = n * (long) Math.ceil(FilterContestant.bloomBitsPerKey(p));
    return Math.max(32, (bits / 8 + 31) / 32 * 32);
  }

  /**
   * An empty FastFilter Bloom, BlockedBloom or CountingBloom sized for n keys: their sizing
   * constructors are package-private, and the public construct(keys) would need the keys up front.
   */
  private static Filter fastFilterNew(
      Class<? extends Filter> type, Class<?>[] signature, Object... args) {
    Hash.setSeed(FASTFILTER_SEED);
    try {
      Constructor<? extends Filter> c = type.getDeclaredConstructor(signature);
      c.setAccessible(true);
      return c.newInstance(args);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot create " + type.getName(), e);
    }
  }

  /** How a contestant that takes longs turns a String into one. */
  static long hashString(String s) {
    return XXH3.hashCharsToLong(s);
  }

  // ---- contestants

  /**
   * Any probkit filter that takes adds (one implementation per fork, so the calls inline). The
   * standard Bloom filter's keys go in by {@code put}, the call for loading it when the add's
   * answer is not used, as here; the others' by {@code add} (a full cuckoo table's put would
   * throw).
   */
  static final class Probkit extends FilterContestant {
    private final MutableFilter f;
    private final boolean put;

    Probkit(MutableFilter f) {
      this.f = f;
      this.put = f instanceof BloomFilter;
    }

    @Override
    public void add(String key) {
      if (put) {
        f.put(key);
      } else {
        f.add(key);
      }
    }

    @Override
    public void add(long key) {
      if (put) {
        f.put(key);
      } else {
        f.add(key);
      }
    }

    @Override
    public boolean mightContain(String key) {
      return f.mightContain(key);
    }

    @Override
    public boolean mightContain(long key) {
      return f.mightContain(key);
    }

    @Override
    public Object root() {
      return f;
    }
  }

  /** A probkit filter built from all its keys at once. */
  static final class ProbkitStatic extends FilterContestant {
    private final MembershipFilter f;

    ProbkitStatic(MembershipFilter f) {
      this.f = f;
    }

    @Override
    public boolean mightContain(String key) {
      return f.mightContain(key);
    }

    @Override
    public boolean mightContain(long key) {
      return f.mightContain(key);
    }

    @Override
    public Object root() {
      return f;
    }
  }

  /** Guava's filter is typed by its funnel: one for Strings (UTF-8), one for boxed Longs. */
  static final class GuavaBloom extends FilterContestant {
    private final com.google.common.hash.BloomFilter<CharSequence> strings;
    private final com.google.common.hash.BloomFilter<Long> longs;

    GuavaBloom(long n, double fpp, boolean forStrings) {
      this.strings =
          forStrings
              ? com.google.common.hash.BloomFilter.create(
                  Funnels.stringFunnel(StandardCharsets.UTF_8), n, fpp)
              : null;
      this.longs =
          forStrings
              ? null
              : com.google.common.hash.BloomFilter.create(Funnels.longFunnel(), n, fpp);
    }

    @Override
    public void add(String key) {
      strings.put(key);
    }

    @Override
    public void add(long key) {
      longs.put(key);
    }

    @Override
    public boolean mightContain(String key) {
      return strings.mightContain(key);
    }

    @Override
    public boolean mightContain(long key) {
      return longs.mightContain(key);
    }

    @Override
    public Object root() {
      return strings != null ? strings : longs;
    }
  }

  /**
   * Commons Collections 4.5: SimpleBloomFilter fed an EnhancedDoubleHasher of the key's 128-bit
   * Murmur3 (commons-codec), the pairing its documentation shows. Longs are hashed as their 8
   * little-endian bytes, like probkit's.
   */
  static final class CommonsBloom extends FilterContestant {
    private final SimpleBloomFilter f;
    private final byte[] buf = new byte[8];

    CommonsBloom(long n, double fpp, boolean strings) {
      this.f = new SimpleBloomFilter(Shape.fromNP(Math.toIntExact(n), fpp));
    }

    private static EnhancedDoubleHasher hasher(byte[] b, int len) {
      long[] h = MurmurHash3.hash128x64(b, 0, len, 0);
      return new EnhancedDoubleHasher(h[0], h[1]);
    }

    private EnhancedDoubleHasher hasher(long key) {
      for (int i = 0; i < 8; i++) {
        buf[i] = (byte) (key >>> (8 * i));
      }
      return hasher(buf, 8);
    }

    private static EnhancedDoubleHasher hasher(String key) {
      byte[] b = key.getBytes(StandardCharsets.UTF_8);
      return hasher(b, b.length);
    }

    @Override
    public void add(String key) {
      f.merge(hasher(key));
    }

    @Override
    public void add(long key) {
      f.merge(hasher(key));
    }

    @Override
    public boolean mightContain(String key) {
      return f.contains(hasher(key));
    }

    @Override
    public boolean mightContain(long key) {
      return f.contains(hasher(key));
    }

    @Override
    public Object root() {
      return f;
    }
  }

  static final class SparkBloom extends FilterContestant {
    private final org.apache.spark.util.sketch.BloomFilter f;

    SparkBloom(long n, double fpp) {
      this.f = org.apache.spark.util.sketch.BloomFilter.create(n, fpp);
    }

    @Override
    public void add(String key) {
      f.putString(key);
    }

    @Override
    public void add(long key) {
      f.putLong(key);
    }

    @Override
    public boolean mightContain(String key) {
      return f.mightContainString(key);
    }

    @Override
    public boolean mightContain(long key) {
      return f.mightContainLong(key);
    }

    @Override
    public Object root() {
      return f;
    }
  }

  /** Any FastFilter filter: it takes longs (and hashes them again inside). */
  static class FastFilter extends FilterContestant {
    final Filter f;

    FastFilter(Filter f) {
      this.f = Objects.requireNonNull(f);
    }

    @Override
    public void add(String key) {
      add(hashString(key));
    }

    @Override
    public void add(long key) {
      f.add(key);
    }

    @Override
    public boolean mightContain(String key) {
      return f.mayContain(hashString(key));
    }

    @Override
    public boolean mightContain(long key) {
      return f.mayContain(key);
    }

    @Override
    public Object root() {
      return f;
    }
  }

  /** Cuckoo8 adds with {@code insert}; the Filter interface's {@code add} is unsupported there. */
  static final class FastCuckoo8 extends FastFilter {
    private final Cuckoo8 c;

    FastCuckoo8(Cuckoo8 c) {
      super(c);
      this.c = c;
    }

    @Override
    public void add(long key) {
      c.insert(key);
    }
  }
}
