package io.github.probkit.foreign;

import static io.github.probkit.internal.Preconditions.checkArgument;

import com.dynatrace.hash4j.hashing.HashValue128;
import com.dynatrace.hash4j.hashing.Hasher128;
import com.dynatrace.hash4j.hashing.Hashing;
import io.github.probkit.filter.BloomFilter;
import io.github.probkit.hash.HashAlgorithm;
import io.github.probkit.hash.HashStrategy;
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
 * Guava's {@code com.google.common.hash.BloomFilter} in the form its {@code writeTo} writes and its
 * {@code readFrom} reads, answering key for key as Guava does.
 *
 * <pre>
 *   offset  size  field (big-endian, as java.io.DataOutputStream writes)
 *        0     1  strategy: Guava's BloomFilterStrategies ordinal,
 *                 0 = MURMUR128_MITZ_32, 1 = MURMUR128_MITZ_64 (Guava's default)
 *        1     1  number of hash functions, unsigned, 1..255
 *        2     4  n: number of longs in the bit array, > 0
 *        6    8n  the bit array: bit i is bit (i mod 64) of long (i / 64)
 * </pre>
 *
 * <p>A key is hashed with MurmurHash3 x64 128 (seed 0) of the bytes Guava's {@code Funnel} gives
 * it; the overloads here are Guava's {@code Funnels}: {@link #mightContain(CharSequence)} for
 * {@code stringFunnel(UTF_8)}, {@link #mightContainUnencodedChars} for {@code
 * unencodedCharsFunnel()} (each char as two little-endian bytes), {@link #mightContain(long)} for
 * {@code longFunnel()} (eight little-endian bytes) and {@link #mightContain(byte[])} for {@code
 * byteArrayFunnel()}. A filter does not record its funnel: the caller queries with the one it was
 * built with, as with Guava.
 *
 * <p>Probes, for m = 64n bits and h1, h2 the two halves of the hash (little-endian): {@code
 * MURMUR128_MITZ_64} tests bit {@code ((h1 + i*h2) & Long.MAX_VALUE) mod m} for i in [0, k), with
 * 64-bit wrap-around; {@code MURMUR128_MITZ_32} takes the hash's low 64 bits as int halves a, b and
 * tests {@code c mod m} for {@code c = a + i*b} (32-bit), complemented when negative, i in [1, k].
 *
 * <p>Thread safety: not thread-safe for {@code put}; queries may run from many threads while
 * nothing is put.
 */
public final class GuavaBloomFilter {
  /** Guava's strategies, in the order of their ordinals. */
  public enum Strategy {
    MURMUR128_MITZ_32,
    MURMUR128_MITZ_64
  }

  private static final Hasher128 MURMUR3 = Hashing.murmur3_128();

  private final Strategy strategy;
  private final int hashes;
  private final long[] bits;
  private final long bitSize;

  private GuavaBloomFilter(Strategy strategy, int hashes, long[] bits) {
    this.strategy = strategy;
    this.hashes = hashes;
    this.bits = bits;
    this.bitSize = 64L * bits.length;
  }

  /**
   * An empty filter sized as Guava's {@code BloomFilter.create(funnel, expectedInsertions, fpp)}
   * sizes it, with its default strategy {@code MURMUR128_MITZ_64}: the same bytes once the same
   * keys are put.
   */
  public static GuavaBloomFilter create(long expectedInsertions, double fpp) {
    checkArgument(
        expectedInsertions >= 0, "expectedInsertions must be >= 0, was %d", expectedInsertions);
    checkArgument(fpp > 0 && fpp < 1, "fpp must be in (0, 1), was %s", fpp);
    long n = Math.max(1, expectedInsertions);
    long m = (long) (-n * Math.log(fpp) / (Math.log(2) * Math.log(2)));
    // Guava 33 derives k from fpp alone, not from m / n: with few insertions m is truncated and
    // the two differ (1 insertion at 1e-6: 20 hashes, not 19).
    int k = Math.max(1, (int) Math.round(-Math.log(fpp) / Math.log(2)));
    long longs = (m + 63) / 64;
    checkArgument(
        longs <= Integer.MAX_VALUE,
        "a Guava filter of %d insertions at fpp %s needs %d bits, more than Guava allows",
        expectedInsertions,
        fpp,
        m);
    return new GuavaBloomFilter(
        Strategy.MURMUR128_MITZ_64, Math.min(k, 255), new long[(int) longs]);
  }

  /**
   * Reads what Guava's {@code writeTo} wrote.
   *
   * @throws SketchFormatException naming the field and the value: a strategy other than the two
   *     above, no hash functions, a non-positive length, a stream that ends early
   */
  public static GuavaBloomFilter readFrom(InputStream in) throws IOException {
    DataInputStream data = new DataInputStream(in);
    int ordinal;
    int hashes;
    int length;
    try {
      ordinal = data.readByte();
      hashes = data.readUnsignedByte();
      length = data.readInt();
    } catch (EOFException e) {
      throw new SketchFormatException(
          "guava BloomFilter: the stream ends within the 6-byte header");
    }
    if (ordinal < 0 || ordinal >= Strategy.values().length) {
      throw new SketchFormatException(
          "guava BloomFilter: strategy ordinal "
              + ordinal
              + " is not one probkit reads (0 MURMUR128_MITZ_32, 1 MURMUR128_MITZ_64)");
    }
    if (hashes == 0) {
      throw new SketchFormatException("guava BloomFilter: number of hash functions is 0");
    }
    if (length <= 0) {
      throw new SketchFormatException(
          "guava BloomFilter: bit array length is " + length + " longs, must be > 0");
    }
    long[] bits = Longs.read(data, length, "guava BloomFilter");
    return new GuavaBloomFilter(Strategy.values()[ordinal], hashes, bits);
  }

  /** Writes the form Guava's {@code BloomFilter.readFrom} reads. */
  public void writeTo(OutputStream out) throws IOException {
    DataOutputStream data = new DataOutputStream(out);
    data.writeByte(strategy.ordinal());
    data.writeByte(hashes);
    data.writeInt(bits.length);
    for (long w : bits) {
      data.writeLong(w);
    }
    data.flush();
  }

  // ---- conversion to and from probkit's BloomFilter

  /**
   * The probkit {@code BloomFilter} of the same bits, hash count and probes (hash {@link
   * HashStrategy#guava()} or {@link HashStrategy#guavaMitz32()}): it answers exactly as this filter
   * for the keys Guava's {@code stringFunnel(UTF_8)}, {@code longFunnel()} and {@code
   * byteArrayFunnel()} give it, which are the bytes probkit hashes (UTF-8, 8 little-endian bytes,
   * the array). A filter built with another funnel answers for the bytes that funnel wrote ({@code
   * unencodedCharsFunnel()}: each char as two little-endian bytes, UTF-16LE).
   */
  public BloomFilter toProbkit() {
    return BloomFilter.ofWords(
        bits,
        hashes,
        strategy == Strategy.MURMUR128_MITZ_64 ? HashStrategy.guava() : HashStrategy.guavaMitz32());
  }

  /**
   * The Guava filter of {@code filter}'s bits, which {@link #toProbkit} gave or which was built
   * with a Guava hash: the bytes Guava's {@code writeTo} wrote before the conversion.
   *
   * @throws IllegalArgumentException in one line naming why Guava cannot hold it with the same
   *     answers: another hash, a bit count not a multiple of 64, more hashes than 255
   */
  public static GuavaBloomFilter fromProbkit(BloomFilter filter) {
    HashAlgorithm a = filter.hashStrategy().algorithm();
    checkArgument(
        a == HashAlgorithm.GUAVA_MURMUR3_128 || a == HashAlgorithm.GUAVA_MURMUR3_128_MITZ_32,
        "a Bloom filter hashed with %s is not a Guava filter: Guava probes by its own MurmurHash3"
            + " positions (probkit's hash guava or guava32)",
        filter.hashStrategy());
    checkArgument(
        filter.bitSize() % 64 == 0,
        "a Guava filter has a multiple of 64 bits, this one %d",
        filter.bitSize());
    return new GuavaBloomFilter(
        a == HashAlgorithm.GUAVA_MURMUR3_128
            ? Strategy.MURMUR128_MITZ_64
            : Strategy.MURMUR128_MITZ_32,
        filter.hashCount(),
        filter.words());
  }

  // ---- queries and puts, one per Guava funnel

  /** As Guava with {@code Funnels.stringFunnel(StandardCharsets.UTF_8)}. */
  public boolean mightContain(CharSequence key) {
    return probe(hashBytes(key.toString().getBytes(StandardCharsets.UTF_8)), false);
  }

  /** As Guava with {@code Funnels.unencodedCharsFunnel()}. */
  public boolean mightContainUnencodedChars(CharSequence key) {
    return probe(MURMUR3.hashCharsTo128Bits(key), false);
  }

  /** As Guava with {@code Funnels.longFunnel()}. */
  public boolean mightContain(long key) {
    return probe(MURMUR3.hashTo128Bits(key, (k, sink) -> sink.putLong(k)), false);
  }

  /** As Guava with {@code Funnels.byteArrayFunnel()}. */
  public boolean mightContain(byte[] key) {
    return probe(hashBytes(key), false);
  }

  /** Puts {@code key} as Guava with {@code Funnels.stringFunnel(UTF_8)}; whether a bit changed. */
  public boolean put(CharSequence key) {
    return probe(hashBytes(key.toString().getBytes(StandardCharsets.UTF_8)), true);
  }

  public boolean putUnencodedChars(CharSequence key) {
    return probe(MURMUR3.hashCharsTo128Bits(key), true);
  }

  public boolean put(long key) {
    return probe(MURMUR3.hashTo128Bits(key, (k, sink) -> sink.putLong(k)), true);
  }

  public boolean put(byte[] key) {
    return probe(hashBytes(key), true);
  }

  private static HashValue128 hashBytes(byte[] key) {
    return MURMUR3.hashBytesTo128Bits(key);
  }

  /**
   * Tests (or sets, when {@code set}) the key's bits; returns whether all were set (or whether any
   * changed).
   */
  private boolean probe(HashValue128 hash, boolean set) {
    long h1 = hash.getLeastSignificantBits();
    long h2 = hash.getMostSignificantBits();
    boolean changed = false;
    if (strategy == Strategy.MURMUR128_MITZ_64) {
      long combined = h1;
      for (int i = 0; i < hashes; i++, combined += h2) {
        long bit = (combined & Long.MAX_VALUE) % bitSize;
        if (set) {
          changed |= setBit(bit);
        } else if (!getBit(bit)) {
          return false;
        }
      }
    } else {
      int a = (int) h1;
      int b = (int) (h1 >>> 32);
      for (int i = 1; i <= hashes; i++) {
        int combined = a + i * b;
        long bit = (combined < 0 ? ~combined : combined) % bitSize;
        if (set) {
          changed |= setBit(bit);
        } else if (!getBit(bit)) {
          return false;
        }
      }
    }
    return set ? changed : true;
  }

  private boolean getBit(long bit) {
    return (bits[(int) (bit >>> 6)] & (1L << bit)) != 0;
  }

  private boolean setBit(long bit) {
    int w = (int) (bit >>> 6);
    long before = bits[w];
    bits[w] = before | (1L << bit);
    return bits[w] != before;
  }

  // ---- combining and describing

  /** Whether {@code other} has the same strategy, hash count and size, as Guava's isCompatible. */
  public boolean isCompatible(GuavaBloomFilter other) {
    return other != this
        && other.strategy == strategy
        && other.hashes == hashes
        && other.bits.length == bits.length;
  }

  /** Adds the keys of {@code other} (Guava's putAll): the bitwise OR. */
  public GuavaBloomFilter putAll(GuavaBloomFilter other) {
    checkArgument(
        isCompatible(other),
        "cannot combine a Guava filter of %s, %d hashes, %d bits with one of %s, %d hashes, %d bits",
        other.strategy,
        other.hashes,
        other.bitSize,
        strategy,
        hashes,
        bitSize);
    for (int i = 0; i < bits.length; i++) {
      bits[i] |= other.bits[i];
    }
    return this;
  }

  public GuavaBloomFilter copy() {
    return new GuavaBloomFilter(strategy, hashes, bits.clone());
  }

  public Strategy strategy() {
    return strategy;
  }

  public int hashCount() {
    return hashes;
  }

  public long bitSize() {
    return bitSize;
  }

  public long bitCount() {
    return Longs.bitCount(bits);
  }

  /** Guava's expectedFpp: the fraction of bits set, to the power of the hash count. */
  public double expectedFpp() {
    return Longs.expectedFpp(bits, bitSize, hashes);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof GuavaBloomFilter
        && ((GuavaBloomFilter) o).strategy == strategy
        && ((GuavaBloomFilter) o).hashes == hashes
        && Arrays.equals(((GuavaBloomFilter) o).bits, bits);
  }

  @Override
  public int hashCode() {
    return (strategy.hashCode() * 31 + hashes) * 31 + Arrays.hashCode(bits);
  }

  @Override
  public String toString() {
    return String.format(
        Locale.ROOT, "GuavaBloomFilter{%s, hashes=%d, bits=%d}", strategy, hashes, bitSize);
  }
}
