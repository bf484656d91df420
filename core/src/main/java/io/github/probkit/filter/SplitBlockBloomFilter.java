package io.github.probkit.filter;

import static io.github.probkit.internal.Preconditions.checkAllocatable;
import static io.github.probkit.internal.Preconditions.checkArgument;
import static io.github.probkit.internal.Preconditions.checkOpenUnit;

import io.github.probkit.Concurrency;
import io.github.probkit.hash.HashStrategy;
import io.github.probkit.internal.BatchPasses;
import io.github.probkit.internal.Compatibility;
import io.github.probkit.io.SketchFormatException;
import io.github.probkit.io.SketchReader;
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

/**
 * Parquet's split-block Bloom filter (parquet-format, BloomFilter.md), bit for bit: 32-byte blocks
 * of eight 32-bit words; a key sets one bit in each word of one block. Its bitset is the one
 * parquet-java's {@code BlockSplitBloomFilter} holds for the same values, and Parquet files store
 * ({@link #fromParquetBitset}, {@link #toParquetBitset}). It is also the fastest filter probkit has
 * that keys can be added to.
 *
 * <p>Keys are hashed with XXH64, seed 0, of their bytes, as Parquet hashes a value's plain
 * encoding: a long is an INT64 (8 bytes little-endian), a CharSequence a BYTE_ARRAY (its UTF-8
 * bytes, without the plain encoding's length prefix). An INT32 is its 4 little-endian bytes, a
 * DOUBLE the 8 of {@link Double#doubleToRawLongBits}: pass those bytes, or their hash to {@link
 * #mightContainHash}.
 *
 * <p>Cheat sheet, for n keys in z blocks (m = 256 z bits, {@code lambda = n / z} keys per block):
 *
 * <pre>
 *   fpp   exactly sum_j Binomial(j; n, 1/z) * (1 - (31/32)^j)^8: a block holding j keys has, in
 *         each word, j independent uniform bits set ({@link #falsePositiveRate})
 *         Parquet's own approximation, (1 - e^(-8n/m))^8, ignores the uneven block loads and is
 *         lower (at 10 bits/key: 1.06 % against 1.22 %)
 *   size  create(n, p): Parquet's m = -8n / ln(1 - p^(1/8)) bits, rounded up to a power of two
 *         bytes, at least 32 (parquet-java's size for the same n and p, up to its 128 MiB cap)
 * </pre>
 *
 * <p>Thread safety: chosen when the filter is created or read ({@link Concurrency}).
 *
 * <ul>
 *   <li>{@link Concurrency#CONCURRENT} (the default): {@code add} and {@code merge} may be called
 *       from many threads at once (an atomic OR per 64-bit word that gains a bit). {@code
 *       mightContain} takes no lock and sees every add that happened-before it. {@code writeTo} may
 *       miss a key added during it.
 *   <li>{@link Concurrency#SINGLE_WRITER}: plain stores; one thread at a time may add or merge, and
 *       queries from other threads need external synchronization with it.
 * </ul>
 */
public final class SplitBlockBloomFilter implements MergeableFilter {
  /** The bytes of a block. */
  public static final int BLOCK_BYTES = 32;

  /** The smallest filter, one block (as Parquet's). */
  public static final int MIN_BYTES = BLOCK_BYTES;

  /** The largest filter parquet-java writes; {@link #create} goes beyond it when asked to. */
  public static final int PARQUET_MAX_BYTES = 128 << 20;

  /** The largest filter: 2^28 blocks. */
  public static final long MAX_BYTES = 1L << 33;

  /*
   * Layout: block b is longs [4b, 4b + 4) of one long[]; 32-bit word w of the block is the low
   * (w even) or high (w odd) half of long 4b + w/2. Written little-endian, the longs are Parquet's
   * bitset of little-endian ints byte for byte, and two words are tested or set per long operation.
   *
   * Probes (BloomFilter.md): block = ((h >>> 32) * z) >>> 32; word w's bit is the top 5 bits of
   * (int) h * SALT[w]. The spec fixes all of it, so there is no choice to make here but speed: the
   * eight masks are formed in registers and the four longs tested without a branch.
   */

  private static final int SALT0 = 0x47b6137b;
  private static final int SALT1 = 0x44974d91;
  private static final int SALT2 = 0x8824ad5b;
  private static final int SALT3 = 0xa2b7289d;
  private static final int SALT4 = 0x705495c7;
  private static final int SALT5 = 0x2df1424b;
  private static final int SALT6 = 0x9efc4947;
  private static final int SALT7 = 0x5c6bfb31;

  private static final VarHandle WORD = MethodHandles.arrayElementVarHandle(long[].class);

  private final long[] words;
  private final long blocks;
  private final boolean concurrent;
  private final long expectedKeys;
  private final double fpp;

  private SplitBlockBloomFilter(
      long[] words, long expectedKeys, double fpp, Concurrency concurrency) {
    this.words = words;
    this.blocks = words.length / 4;
    this.concurrent = Objects.requireNonNull(concurrency, "concurrency") == Concurrency.CONCURRENT;
    this.expectedKeys = expectedKeys;
    this.fpp = fpp;
  }

  /** A filter sized by Parquet's formula for {@code expectedKeys} keys at rate {@code fpp}. */
  public static SplitBlockBloomFilter create(long expectedKeys, double fpp) {
    return create(expectedKeys, fpp, Concurrency.CONCURRENT);
  }

  public static SplitBlockBloomFilter create(
      long expectedKeys, double fpp, Concurrency concurrency) {
    long bytes = optimalBytes(expectedKeys, fpp);
    return allocate(bytes, expectedKeys, fpp, concurrency);
  }

  /** A filter of {@code bytes} bytes, a multiple of 32 in [32, {@link #MAX_BYTES}]. */
  public static SplitBlockBloomFilter withBytes(long bytes) {
    return withBytes(bytes, Concurrency.CONCURRENT);
  }

  public static SplitBlockBloomFilter withBytes(long bytes, Concurrency concurrency) {
    checkArgument(
        bytes >= MIN_BYTES && bytes <= MAX_BYTES && bytes % BLOCK_BYTES == 0,
        "bytes must be a multiple of %d in [%d, %d], was %d",
        BLOCK_BYTES,
        MIN_BYTES,
        MAX_BYTES,
        bytes);
    return allocate(bytes, 0, 0, concurrency);
  }

  private static SplitBlockBloomFilter allocate(long bytes, long n, double p, Concurrency c) {
    Objects.requireNonNull(c, "concurrency");
    checkAllocatable(bytes, "a split-block Bloom filter of " + bytes + " bytes");
    return new SplitBlockBloomFilter(new long[(int) (bytes / 8)], n, p, c);
  }

  /**
   * A filter holding a copy of a Parquet bitset ({@code len} bytes of {@code bitset} from {@code
   * off}, a multiple of 32): what a Parquet file stores after a column chunk's BloomFilterHeader.
   */
  public static SplitBlockBloomFilter fromParquetBitset(
      byte[] bitset, int off, int len, Concurrency concurrency) {
    Objects.checkFromIndexSize(off, len, bitset.length);
    checkArgument(
        len >= MIN_BYTES && len % BLOCK_BYTES == 0,
        "a Parquet bitset is a multiple of %d bytes, at least %d, was %d",
        BLOCK_BYTES,
        MIN_BYTES,
        len);
    long[] w = new long[len / 8];
    ByteBuffer.wrap(bitset, off, len).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer().get(w);
    return new SplitBlockBloomFilter(w, 0, 0, concurrency);
  }

  /** The bitset as Parquet stores it (and parquet-java's {@code writeTo} writes it). */
  public byte[] toParquetBitset() {
    ByteBuffer b = ByteBuffer.allocate(words.length * 8).order(ByteOrder.LITTLE_ENDIAN);
    b.asLongBuffer().put(words);
    return b.array();
  }

  // ---- sizing

  /**
   * Parquet's size for {@code n} keys at rate {@code p}: {@code m = -8n / ln(1 - p^(1/8))} bits,
   * rounded as parquet-java rounds it (its bit count's odd rounding included, so that both give the
   * same size), then up to a power of two bytes, at least 32. parquet-java caps it at {@link
   * #PARQUET_MAX_BYTES}; here sizes up to {@link #MAX_BYTES} are given, and beyond it refused.
   */
  public static long optimalBytes(long n, double p) {
    checkArgument(n > 0, "expectedKeys must be positive, was %d", n);
    checkOpenUnit("fpp", p);
    double m = -8.0 * n / StrictMath.log(1 - StrictMath.pow(p, 1.0 / 8));
    checkArgument(
        m <= MAX_BYTES * 8.0,
        "%d keys at fpp %s need %.0f bits, more than the largest split-block filter (%d bytes)",
        n,
        p,
        m,
        MAX_BYTES);
    // parquet-java: (bits + 255) & ~256, at least 256, then bytes = bits / 8.
    long bits = Math.max(((long) m + 255) & ~256L, 256);
    long bytes = bits / 8;
    return Math.max(
        MIN_BYTES, Long.highestOneBit(bytes) == bytes ? bytes : 2 * Long.highestOneBit(bytes));
  }

  /**
   * The false-positive rate of {@code n} distinct keys in a filter of {@code bytes} bytes: the
   * binomial mixture over a block's keys j of {@code (1 - (31/32)^j)^8}, exact for a uniform hash.
   */
  public static double falsePositiveRate(long bytes, long n) {
    checkArgument(bytes >= BLOCK_BYTES, "bytes must be at least %d, was %d", BLOCK_BYTES, bytes);
    checkArgument(n >= 0, "keys must be non-negative, was %d", n);
    long z = bytes / BLOCK_BYTES;
    if (n == 0) {
      return 0;
    }
    if (z == 1) {
      return blockRate(n);
    }
    double q = 1.0 / z;
    double lambda = n * q;
    long hi = Math.min(n, (long) Math.ceil(lambda + 12 * Math.sqrt(lambda) + 20));
    double logPmf = n * StrictMath.log1p(-q); // j = 0
    double logRatio = StrictMath.log(q) - StrictMath.log1p(-q);
    double sum = 0;
    for (long j = 0; j <= hi; j++) {
      sum += StrictMath.exp(logPmf) * blockRate(j);
      logPmf += StrictMath.log((double) (n - j) / (j + 1)) + logRatio;
    }
    return Math.min(1, sum);
  }

  private static double blockRate(long j) {
    return StrictMath.pow(-StrictMath.expm1(j * StrictMath.log1p(-1.0 / 32)), 8);
  }

  // ---- keys

  @Override
  public boolean add(byte[] key, int off, int len) {
    return addHash(HashStrategy.xxh64().hash64(key, off, len));
  }

  @Override
  public boolean add(long key) {
    return addHash(HashStrategy.xxh64().hash64(key));
  }

  @Override
  public boolean mightContain(byte[] key, int off, int len) {
    return mightContainHash(HashStrategy.xxh64().hash64(key, off, len));
  }

  @Override
  public boolean mightContain(long key) {
    return mightContainHash(HashStrategy.xxh64().hash64(key));
  }

  /** The first of the key's block's four longs. */
  private int base(long h) {
    return (int) (((h >>> 32) * blocks) >>> 32) << 2;
  }

  /** The two words' bits of long {@code i} of a block (words 2i and 2i + 1) for {@code key}. */
  private static long mask(int key, int saltLow, int saltHigh) {
    return (1L << ((key * saltLow) >>> 27)) | (1L << (32 + ((key * saltHigh) >>> 27)));
  }

  /**
   * Adds the key whose XXH64 (seed 0) is {@code h}, as parquet-java's {@code insertHash} does;
   * whether any of its bits was clear.
   */
  public boolean addHash(long h) {
    int b = base(h);
    int key = (int) h;
    long m0 = mask(key, SALT0, SALT1);
    long m1 = mask(key, SALT2, SALT3);
    long m2 = mask(key, SALT4, SALT5);
    long m3 = mask(key, SALT6, SALT7);
    if (concurrent) {
      return (orAtomic(b, m0) | orAtomic(b + 1, m1) | orAtomic(b + 2, m2) | orAtomic(b + 3, m3))
          != 0;
    }
    long[] w = words;
    long o0 = w[b];
    long o1 = w[b + 1];
    long o2 = w[b + 2];
    long o3 = w[b + 3];
    w[b] = o0 | m0;
    w[b + 1] = o1 | m1;
    w[b + 2] = o2 | m2;
    w[b + 3] = o3 | m3;
    return ((~o0 & m0) | (~o1 & m1) | (~o2 & m2) | (~o3 & m3)) != 0;
  }

  /** ORs {@code m} into word {@code i}; the bits that were clear. No locked write if none. */
  private long orAtomic(int i, long m) {
    long old = (long) WORD.getOpaque(words, i);
    if ((old & m) == m) {
      return 0;
    }
    return ~(long) WORD.getAndBitwiseOr(words, i, m) & m;
  }

  /**
   * Whether the key whose XXH64 (seed 0) is {@code h} may be present, as parquet-java's {@code
   * findHash} answers.
   */
  public boolean mightContainHash(long h) {
    int b = base(h);
    int key = (int) h;
    long[] w = words;
    return ((~w[b] & mask(key, SALT0, SALT1))
            | (~w[b + 1] & mask(key, SALT2, SALT3))
            | (~w[b + 2] & mask(key, SALT4, SALT5))
            | (~w[b + 3] & mask(key, SALT6, SALT7)))
        == 0;
  }

  // ---- batches: hash a chunk, touch each key's block, then test or set

  @Override
  public int mightContainAll(long[] keys, int from, int to, boolean[] present) {
    BatchPasses.checkRange(from, to, keys.length, present.length);
    return (int)
        BatchPasses.overLongs(
            HashStrategy.xxh64(),
            keys,
            from,
            to,
            (h, base, n, at) -> containsChunk(h, base, n, present, at));
  }

  @Override
  public int mightContainAll(
      byte[] buf, int[] offsets, int[] lengths, int count, boolean[] present) {
    BatchPasses.checkSlices(buf, offsets, lengths, count);
    BatchPasses.checkRange(0, count, count, present.length);
    return (int)
        BatchPasses.overSlices(
            HashStrategy.xxh64(),
            buf,
            offsets,
            lengths,
            count,
            (h, base, n, at) -> containsChunk(h, base, n, present, at));
  }

  @Override
  public long addAll(long[] keys, int from, int to) {
    Objects.checkFromToIndex(from, to, keys.length);
    return BatchPasses.overLongs(
        HashStrategy.xxh64(), keys, from, to, (h, base, n, at) -> addChunk(h, base, n));
  }

  @Override
  public long addAll(byte[] buf, int[] offsets, int[] lengths, int count) {
    BatchPasses.checkSlices(buf, offsets, lengths, count);
    return BatchPasses.overSlices(
        HashStrategy.xxh64(),
        buf,
        offsets,
        lengths,
        count,
        (h, base, n, at) -> addChunk(h, base, n));
  }

  /** True: a key's XXH64 is all the filter needs. */
  @Override
  public boolean hashSuffices() {
    return true;
  }

  @Override
  public int mightContainAllHashes(long[] hashes, int from, int to, boolean[] present) {
    BatchPasses.checkRange(from, to, hashes.length, present.length);
    return (int)
        BatchPasses.overHashes(
            hashes, from, to, (h, base, n, at) -> containsChunk(h, base, n, present, at));
  }

  @Override
  public long addAllHashes(long[] hashes, int from, int to) {
    Objects.checkFromToIndex(from, to, hashes.length);
    return BatchPasses.overHashes(hashes, from, to, (h, base, n, at) -> addChunk(h, base, n));
  }

  /** Loads each key's block first (a loop of bare loads keeps many misses in flight). */
  private void prepare(long[] h, int[] base, int n) {
    long[] w = words;
    long touched = 0;
    for (int i = 0; i < n; i++) {
      base[i] = base(h[i]);
      touched += w[base[i]];
    }
    BatchPasses.consume(touched);
  }

  private int containsChunk(long[] h, int[] base, int n, boolean[] present, int at) {
    prepare(h, base, n);
    int found = 0;
    for (int i = 0; i < n; i++) {
      boolean p = mightContainHash(h[i]);
      present[at + i] = p;
      found += p ? 1 : 0;
    }
    return found;
  }

  private int addChunk(long[] h, int[] base, int n) {
    prepare(h, base, n);
    int changed = 0;
    for (int i = 0; i < n; i++) {
      changed += addHash(h[i]) ? 1 : 0;
    }
    return changed;
  }

  // ---- combining

  /** Adds every key of {@code other}, a split-block filter of the same size (bitwise OR). */
  @Override
  public SplitBlockBloomFilter merge(MembershipFilter other) {
    compatibility(other).orThrow();
    long[] theirs = ((SplitBlockBloomFilter) other).words;
    for (int i = 0; i < words.length; i++) {
      if (concurrent) {
        orAtomic(i, theirs[i]);
      } else {
        words[i] |= theirs[i];
      }
    }
    return this;
  }

  @Override
  public boolean isCompatible(MembershipFilter other) {
    return compatibility(other).ok();
  }

  private Compatibility compatibility(MembershipFilter other) {
    SplitBlockBloomFilter o =
        other instanceof SplitBlockBloomFilter ? (SplitBlockBloomFilter) other : this;
    return Compatibility.of("merge", this, other, SplitBlockBloomFilter.class)
        .require(
            blocks == o.blocks,
            "filters of different sizes: %d bytes and %d bytes",
            byteSize(),
            o.byteSize());
  }

  @Override
  public SplitBlockBloomFilter copy() {
    return new SplitBlockBloomFilter(words.clone(), expectedKeys, fpp, concurrency());
  }

  // ---- introspection

  @Override
  public long bitSize() {
    return 64L * words.length;
  }

  @Override
  public long byteSize() {
    return 8L * words.length;
  }

  public long blockCount() {
    return blocks;
  }

  public Concurrency concurrency() {
    return concurrent ? Concurrency.CONCURRENT : Concurrency.SINGLE_WRITER;
  }

  /** The keys this filter was sized for by {@link #create}, or 0. */
  public long expectedKeys() {
    return expectedKeys;
  }

  /** The rate this filter was sized for by {@link #create}, or 0. */
  public double targetFpp() {
    return fpp;
  }

  /**
   * The chance that a key never added is reported present now: the mean over blocks of the product
   * over its eight words of (bits set / 32), exact for a uniform hash (a scan of the table).
   */
  @Override
  public double expectedFpp() {
    double sum = 0;
    for (int b = 0; b < words.length; b += 4) {
      double p = 1;
      for (int i = b; i < b + 4; i++) {
        p *=
            Integer.bitCount((int) words[i])
                / 32.0
                * (Integer.bitCount((int) (words[i] >>> 32)) / 32.0);
      }
      sum += p;
    }
    return sum / blocks;
  }

  /**
   * The distinct keys added, from each word's fill: a word of a block holding j keys has on average
   * {@code 32 (1 - (31/32)^j)} bits set, so the sum over words of {@code ln(1 - x/32) / ln(31/32)},
   * divided by the eight words a key sets. {@link Long#MAX_VALUE} when a word is full.
   */
  @Override
  public long approximateCount() {
    double sum = 0;
    for (long word : words) {
      int low = Integer.bitCount((int) word);
      int high = Integer.bitCount((int) (word >>> 32));
      if (low == 32 || high == 32) {
        return Long.MAX_VALUE;
      }
      sum += Math.log1p(-low / 32.0) + Math.log1p(-high / 32.0);
    }
    return Math.round(sum / (8 * Math.log1p(-1.0 / 32)));
  }

  /** XXH64 with seed 0, always (Parquet's hash). */
  @Override
  public HashStrategy hashStrategy() {
    return HashStrategy.xxh64();
  }

  @Override
  public StructureType type() {
    return StructureType.SPLIT_BLOCK_BLOOM_FILTER;
  }

  // ---- serialization

  /**
   * The Bloom types' parameters: bits (u64, a multiple of 256), hashes (u32, always 8),
   * expectedKeys (u64), fpp (f64). Payload: Parquet's bitset (the longs little-endian).
   */
  @Override
  public void writeTo(OutputStream out) throws IOException {
    new BloomShape(bitSize(), 8, expectedKeys, fpp).write(out, type(), hashStrategy(), words);
  }

  public static SplitBlockBloomFilter readFrom(InputStream in) throws IOException {
    return readFrom(in, Concurrency.CONCURRENT);
  }

  /** Reads a filter written by {@link #writeTo}; corrupt input throws SketchFormatException. */
  public static SplitBlockBloomFilter readFrom(InputStream in, Concurrency concurrency)
      throws IOException {
    Objects.requireNonNull(concurrency, "concurrency");
    return read(SketchReader.open(in, StructureType.SPLIT_BLOCK_BLOOM_FILTER), concurrency);
  }

  static SplitBlockBloomFilter read(SketchReader r, Concurrency concurrency) throws IOException {
    if (!r.hash().equals(HashStrategy.xxh64())) {
      throw new SketchFormatException(
          "a split-block filter is hashed with " + HashStrategy.xxh64() + ", found " + r.hash());
    }
    BloomShape s =
        BloomShape.read(
            r,
            "bits",
            b -> b >= 8L * MIN_BYTES && b <= 8 * MAX_BYTES && b % (8 * BLOCK_BYTES) == 0,
            "a multiple of 256 in [256, " + 8 * MAX_BYTES + "]",
            8);
    r.check(s.hashes == 8, "hashes", s.hashes, "8");
    r.expectPayloadLength(s.cells / 8);
    long[] data = r.readLongs((int) (s.cells / 64), "bitset");
    r.finish();
    return new SplitBlockBloomFilter(data, s.expectedKeys, s.fpp, concurrency);
  }

  // ---- identity

  @Override
  public boolean equals(Object o) {
    return o instanceof SplitBlockBloomFilter
        && Arrays.equals(words, ((SplitBlockBloomFilter) o).words);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(blocks);
  }

  @Override
  public String toString() {
    return "SplitBlockBloomFilter{bytes=" + byteSize() + "}";
  }
}
