package io.github.probkit.cli.format;

import io.github.probkit.cli.output.Json;
import io.github.probkit.filter.MembershipFilter;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.function.LongPredicate;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * A filter another library wrote (Guava's, Spark's), answering by that library's own probes: no
 * probkit filter type holds its bits with the same answers, so it is queried where it is.
 */
public interface ForeignFilter {
  /** The library's answer for a key given as bytes: a string's UTF-8 bytes, or a byte array. */
  boolean mightContain(byte[] key, int off, int len);

  /**
   * The library's answer for a key it was given as a long (Guava's longFunnel, Spark's putLong).
   */
  boolean mightContain(long key);

  /** What {@code filter info} prints. */
  Json describe();

  /**
   * A key given on the command line or in a line of input as a decimal long ({@code --long}): the
   * long a library's long funnel hashes.
   */
  static long longKey(byte[] key, int off, int len) {
    String s = new String(key, off, len, StandardCharsets.UTF_8);
    try {
      return Long.parseLong(s.strip());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--long: key '" + s + "' is not a decimal long");
    }
  }

  /**
   * A probkit filter that {@code filter import} made of a Guava or Spark filter (its hash places
   * their probes), asked as that library's: {@code --long} keys too, which only such a filter was
   * given (the command line adds keys as bytes).
   *
   * @throws IllegalArgumentException for a filter of probkit's own hashing, naming {@code file}
   */
  static ForeignFilter converted(MembershipFilter f, Object file) {
    if (!f.hashStrategy().foreignProbes()) {
      throw new IllegalArgumentException(
          "--long answers for keys a Guava or Spark filter was given as longs; "
              + file
              + " is a probkit filter, whose keys are bytes");
    }
    return new ForeignFilter() {
      @Override
      public boolean mightContain(byte[] key, int off, int len) {
        return f.mightContain(key, off, len);
      }

      @Override
      public boolean mightContain(long key) {
        return f.mightContain(key);
      }

      @Override
      public Json describe() {
        return FilterDescriptions.describe(f, false);
      }
    };
  }

  /**
   * A library's filter (Guava's, Spark's) answering by its own probes: {@code bytes} takes a whole
   * array, so a key is copied out of its line first.
   */
  static ForeignFilter of(Predicate<byte[]> bytes, LongPredicate longs, Supplier<Json> describe) {
    return new ForeignFilter() {
      @Override
      public boolean mightContain(byte[] key, int off, int len) {
        return bytes.test(keyBytes(key, off, len));
      }

      @Override
      public boolean mightContain(long key) {
        return longs.test(key);
      }

      @Override
      public Json describe() {
        return describe.get();
      }
    };
  }

  /**
   * What {@code filter info} prints of a library's Bloom filter: the format, what kind of filter
   * ({@code kindKey}: {@code kind}), then its probes and bits; neither library's form has a
   * checksum.
   */
  static Json describeBloom(
      String format, String kindKey, String kind, int hashes, long bits, long bitsSet, double fpp) {
    return new Json()
        .put("format", format)
        .put(kindKey, kind)
        .put("hashes", hashes)
        .put("bits", bits)
        .put("bitsSet", bitsSet)
        .put("expectedFpp", fpp)
        .put("checksum", "none in the format");
  }

  /** The key's bytes as an array of their own, for libraries that take whole arrays only. */
  static byte[] keyBytes(byte[] key, int off, int len) {
    return off == 0 && len == key.length ? key : Arrays.copyOfRange(key, off, off + len);
  }
}
