package io.github.probkit.foreign;

import static io.github.probkit.internal.Preconditions.checkArgument;

import io.github.probkit.filter.BloomFilter;
import io.github.probkit.hash.HashAlgorithm;
import io.github.probkit.hash.HashStrategy;
import io.github.probkit.hash.SparkMurmur3;
import io.github.probkit.io.SketchFormatException;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;

/**
 * Spark's {@code org.apache.spark.util.sketch.BloomFilter} (what {@code df.stat().bloomFilter(...)}
 * returns) in the form its {@code writeTo} writes and its {@code readFrom} reads, answering key for
 * key as Spark does.
 *
 * <pre>
 *   offset  size  field (big-endian, as java.io.DataOutputStream writes)
 *        0     4  version: 1
 *        4     4  number of hash functions, > 0
 *        8     4  n: number of longs in the bit array, > 0
 *       12    8n  the bit array: bit i is bit (i mod 64) of long (i / 64)
 * </pre>
 *
 * <p>Keys as Spark types them: a string is its UTF-8 bytes, hashed as bytes; a byte array is hashed
 * as it is; an integral number (long, int, short, byte) is a long, hashed as one. Hashes: Spark's
 * Murmur3_x86_32, h1 with seed 0 and h2 with seed h1; for bytes, Spark's variant that mixes each
 * byte after the last whole 4-byte word as a block of its own (sign-extended). Bit i in [1, k] is
 * {@code c mod 64n} for {@code c = h1 + i*h2} (32-bit), complemented when negative.
 *
 * <p>Thread safety: not thread-safe for {@code put}; queries may run from many threads while
 * nothing is put.
 */
public final class SparkBloomFilter {
  private static final int VERSION = 1;

  private final int hashes;
  private final long[] bits;
  private final long bitSize;

  private SparkBloomFilter(int hashes, long[] bits) {
    this.hashes = hashes;
    this.bits = bits;
    this.bitSize = 64L * bits.length;
  }

  /** An empty filter sized as Spark's {@code BloomFilter.create(expectedItems, fpp)} sizes it. */
  public static SparkBloomFilter create(long expectedItems, double fpp) {
    checkArgument(expectedItems > 0, "expectedItems must be > 0, was %d", expectedItems);
    checkArgument(fpp > 0 && fpp < 1, "fpp must be in (0, 1), was %s", fpp);
    long m = (long) (-expectedItems * Math.log(fpp) / (Math.log(2) * Math.log(2)));
    checkArgument(m > 0, "%d items at fpp %s give no bits", expectedItems, fpp);
    int k = Math.max(1, (int) Math.round((double) m / expectedItems * Math.log(2)));
    long longs = (m + 63) / 64;
    checkArgument(longs <= Integer.MAX_VALUE, "%d bits are more than Spark allows", m);
    return new SparkBloomFilter(k, new long[(int) longs]);
  }

  /**
   * Reads what Spark's {@code writeTo} wrote.
   *
   * @throws SketchFormatException naming the field and the value: another version, no hash
   *     functions, a non-positive length, a stream that ends early
   */
  public static SparkBloomFilter readFrom(InputStream in) throws IOException {
    DataInputStream data = new DataInputStream(in);
    int version;
    int hashes;
    int length;
    try {
      version = data.readInt();
      if (version != VERSION) {
        throw new SketchFormatException(
            "spark BloomFilter: version is " + version + ", probkit reads version 1");
      }
      hashes = data.readInt();
      length = data.readInt();
    } catch (EOFException e) {
      throw new SketchFormatException(
          "spark BloomFilter: the stream ends within the 12-byte header");
    }
    if (hashes <= 0) {
      throw new SketchFormatException(
          "spark BloomFilter: number of hash functions is " + hashes + ", must be > 0");
    }
    if (length <= 0) {
      throw new SketchFormatException(
          "spark BloomFilter: bit array length is " + length + " longs, must be > 0");
    }
    long[] bits = Longs.read(data, length, "spark BloomFilter");
    return new SparkBloomFilter(hashes, bits);
  }

  /** Writes the form Spark's {@code BloomFilter.readFrom} reads. */
  public void writeTo(OutputStream out) throws IOException {
    DataOutputStream data = new DataOutputStream(out);
    data.writeInt(VERSION);
    data.writeInt(hashes);
    data.writeInt(bits.length);
    for (long w : bits) {
      data.writeLong(w);
    }
    data.flush();
  }

  // ---- conversion to and from probkit's BloomFilter

  /**
   * The probkit {@code BloomFilter} of the same bits, hash count and probes (hash {@link
   * HashStrategy#spark()}): it answers exactly as this filter for strings (UTF-8), byte arrays and
   * longs, as Spark types them.
   *
   * @throws IllegalArgumentException when the hash count is above 255, probkit's limit (Spark's own
   *     sizing gives at most 255 only for rates above 10^-77)
   */
  public BloomFilter toProbkit() {
    checkArgument(
        hashes <= BloomFilter.MAX_HASHES,
        "a Spark filter of %d hash functions: probkit's Bloom filters take at most %d",
        hashes,
        BloomFilter.MAX_HASHES);
    return BloomFilter.ofWords(bits, hashes, HashStrategy.spark());
  }

  /**
   * The Spark filter of {@code filter}'s bits, which {@link #toProbkit} gave or which was built
   * with the Spark hash: the bytes Spark's {@code writeTo} wrote before the conversion.
   *
   * @throws IllegalArgumentException in one line naming why Spark cannot hold it with the same
   *     answers: another hash, a bit count not a multiple of 64
   */
  public static SparkBloomFilter fromProbkit(BloomFilter filter) {
    checkArgument(
        filter.hashStrategy().algorithm() == HashAlgorithm.SPARK_MURMUR3_32,
        "a Bloom filter hashed with %s is not a Spark filter: Spark probes by its own Murmur3-32"
            + " positions (probkit's hash spark)",
        filter.hashStrategy());
    checkArgument(
        filter.bitSize() % 64 == 0,
        "a Spark filter has a multiple of 64 bits, this one %d",
        filter.bitSize());
    return new SparkBloomFilter(filter.hashCount(), filter.words());
  }

  // ---- queries and puts, as Spark's mightContainString/Binary/Long and putString/Binary/Long

  public boolean mightContain(CharSequence key) {
    return mightContain(key.toString().getBytes(StandardCharsets.UTF_8));
  }

  public boolean mightContain(byte[] key) {
    int h1 = SparkMurmur3.hashBytes(key, 0);
    return probe(h1, SparkMurmur3.hashBytes(key, h1), false);
  }

  public boolean mightContain(long key) {
    int h1 = SparkMurmur3.hashLong(key, 0);
    return probe(h1, SparkMurmur3.hashLong(key, h1), false);
  }

  /** Puts {@code key} as Spark's putString; returns whether a bit changed. */
  public boolean put(CharSequence key) {
    return put(key.toString().getBytes(StandardCharsets.UTF_8));
  }

  public boolean put(byte[] key) {
    int h1 = SparkMurmur3.hashBytes(key, 0);
    return probe(h1, SparkMurmur3.hashBytes(key, h1), true);
  }

  public boolean put(long key) {
    int h1 = SparkMurmur3.hashLong(key, 0);
    return probe(h1, SparkMurmur3.hashLong(key, h1), true);
  }

  /** Tests (or sets) the key's bits; returns whether all were set (or whether any changed). */
  private boolean probe(int h1, int h2, boolean set) {
    boolean changed = false;
    for (int i = 1; i <= hashes; i++) {
      int combined = h1 + i * h2;
      long bit = (combined < 0 ? ~combined : combined) % bitSize;
      int w = (int) (bit >>> 6);
      long mask = 1L << bit;
      if (set) {
        changed |= (bits[w] & mask) == 0;
        bits[w] |= mask;
      } else if ((bits[w] & mask) == 0) {
        return false;
      }
    }
    return set ? changed : true;
  }

  // ---- combining and describing

  /** Whether {@code other} has the same size and hash count, as Spark's isCompatible. */
  public boolean isCompatible(SparkBloomFilter other) {
    return other.hashes == hashes && other.bits.length == bits.length;
  }

  /** Adds the keys of {@code other} (Spark's mergeInPlace): the bitwise OR. */
  public SparkBloomFilter merge(SparkBloomFilter other) {
    checkArgument(
        isCompatible(other),
        "cannot merge a Spark filter of %d hashes, %d bits into one of %d hashes, %d bits",
        other.hashes,
        other.bitSize,
        hashes,
        bitSize);
    for (int i = 0; i < bits.length; i++) {
      bits[i] |= other.bits[i];
    }
    return this;
  }

  public SparkBloomFilter copy() {
    return new SparkBloomFilter(hashes, bits.clone());
  }

  public int hashCount() {
    return hashes;
  }

  public long bitSize() {
    return bitSize;
  }

  /** The number of bits set (Spark's cardinality()). */
  public long bitCount() {
    return Longs.bitCount(bits);
  }

  /** Spark's expectedFpp: the fraction of bits set, to the power of the hash count. */
  public double expectedFpp() {
    return Longs.expectedFpp(bits, bitSize, hashes);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SparkBloomFilter
        && ((SparkBloomFilter) o).hashes == hashes
        && Arrays.equals(((SparkBloomFilter) o).bits, bits);
  }

  @Override
  public int hashCode() {
    return hashes * 31 + Arrays.hashCode(bits);
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "SparkBloomFilter{hashes=%d, bits=%d}", hashes, bitSize);
  }
}
