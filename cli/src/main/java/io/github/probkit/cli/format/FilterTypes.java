package io.github.probkit.cli.format;

import io.github.probkit.Concurrency;
import io.github.probkit.cli.input.Inputs;
import io.github.probkit.cli.input.KeyOptions;
import io.github.probkit.cli.output.CliException;
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
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Model.CommandSpec;

/** The filter types {@code probkit filter create --type} can build. */
public final class FilterTypes {
  /** Type names, in the order help lists them. */
  static final List<String> NAMES =
      List.of(
          "bloom",
          "counting",
          "cuckoo",
          "scalable",
          "blocked",
          "split-block",
          "binary-fuse8",
          "binary-fuse16",
          "fuse",
          FilterTypes.WINDOW);

  /** The sliding-window filter's type name (age-partitioned Bloom). */
  public static final String WINDOW = "window";

  /** The false-positive rate when --fpp is not given. */
  public static final double DEFAULT_FPP = 0.01;

  private FilterTypes() {}

  /**
   * {@code fpp}, checked for {@code type}: in (0, 1), and for the Bloom types no lower than 2^-255,
   * the rate of a filter probing each key's bits 255 times, the most the library allows (below it
   * the library would cap the probes and miss the rate; a scalable filter's first layer has 0.45 of
   * its rate, so there 2^-253). Errors name the rate as {@code typed}: as the user wrote it.
   */
  public static double checkFpp(String type, double fpp, String typed) {
    if (!(fpp > 0 && fpp < 1)) {
      throw new IllegalArgumentException("--fpp must be in (0, 1), was " + typed);
    }
    double min = Math.scalb(1.0, -BloomFilter.MAX_HASHES + (type.equals("scalable") ? 2 : 0));
    if ((type.equals("bloom") || type.equals("counting") || type.equals("scalable")) && fpp < min) {
      throw new IllegalArgumentException(
          String.format(
              Locale.ROOT,
              "--fpp %s is below %.3g (2^%d), the lowest rate of a %s filter, which probes each key at most %d times",
              typed,
              min,
              Math.getExponent(min),
              type,
              BloomFilter.MAX_HASHES));
    }
    return fpp;
  }

  /** {@code type}, refused unless it is one of {@link #NAMES}. */
  public static String checkType(String type) {
    if (!NAMES.contains(type)) {
      throw new IllegalArgumentException(
          "--type must be one of " + String.join(", ", NAMES) + ", was '" + type + "'");
    }
    return type;
  }

  /** Whether {@code type} is built once from all its keys (and so needs --keys, not --expected). */
  public static boolean isStatic(String type) {
    return type.equals("binary-fuse8") || type.equals("binary-fuse16") || type.equals("fuse");
  }

  /**
   * Builds a filter of {@code type} sized for {@code expected} keys at {@code fpp} (for scalable:
   * its initial capacity), holding the keys of {@code keys} when given (static types need them),
   * every add counted unless {@code ifAbsent}; {@code file} is named in errors. Bloom and blocked
   * filters are concurrent (every core adds), a scalable one single-writer (it takes its keys in
   * order on one thread): see {@link FilterKeys#addKeys}.
   */
  public static MembershipFilter create(
      String type,
      long expected,
      double fpp,
      HashStrategy hash,
      KeyOptions keys,
      boolean ifAbsent,
      CommandSpec spec,
      Path file)
      throws IOException {
    MutableFilter f;
    switch (type) {
      case "bloom":
        f = BloomFilter.create(expected, fpp, hash);
        break;
      case "counting":
        f = CountingBloomFilter.create(expected, fpp, hash);
        break;
      case "cuckoo":
        f = CuckooFilter.create(expected, fpp, hash);
        break;
      case "scalable":
        f =
            ScalableBloomFilter.create(
                expected,
                fpp,
                ScalableBloomFilter.DEFAULT_GROWTH,
                ScalableBloomFilter.DEFAULT_TIGHTENING,
                hash,
                Concurrency.SINGLE_WRITER);
        break;
      case "blocked":
        f = BlockedBloomFilter.create(expected, fpp, hash);
        break;
      case "split-block":
        // Parquet's filter hashes with XXH64 alone: another --hash would be silently ignored.
        if (!hash.equals(HashStrategy.xxh3())) {
          throw new IllegalArgumentException(
              "--type split-block hashes with xxh64, as Parquet does: --hash "
                  + hash.algorithm().label()
                  + " does not apply");
        }
        f = SplitBlockBloomFilter.create(expected, fpp);
        break;
      default:
        checkType(type);
        throw new IllegalArgumentException(
            "--type " + type + " is built from its keys: see buildStatic");
    }
    if (keys != null) {
      FilterKeys.addKeys(f, List.of(), keys, ifAbsent, spec, file);
    }
    return f;
  }

  /**
   * Builds a static (binary fuse) filter from every key of {@code keys}. {@code binary-fuse8} and
   * {@code binary-fuse16} fix the fingerprint width; {@code fuse} takes the narrowest that meets
   * {@code fpp} (8 bits when none is given). {@code expected}, when given, only presizes the
   * buffer.
   */
  public static MembershipFilter buildStatic(
      String type,
      Long expected,
      Double fpp,
      String typedFpp,
      HashStrategy hash,
      KeyOptions keys,
      CommandSpec spec)
      throws IOException {
    if (keys == null) {
      throw new IllegalArgumentException(
          "--type "
              + type
              + " is built once from all its keys: give them with --keys FILE... or on standard input");
    }
    FingerprintBits bits;
    switch (type) {
      case "binary-fuse8":
        bits = FingerprintBits.BITS_8;
        break;
      case "binary-fuse16":
        bits = FingerprintBits.BITS_16;
        break;
      default:
        bits = fpp == null ? FingerprintBits.BITS_8 : FingerprintBits.forFpp(fpp);
    }
    if (fpp != null && bits.fpp() > fpp) {
      throw new IllegalArgumentException(
          String.format(
              Locale.ROOT,
              "--type %s has a false-positive rate of 2^-%d (%s), above --fpp %s; use binary-fuse16",
              type,
              bits.bits(),
              bits.fpp(),
              typedFpp));
    }
    // Only the distinct 64-bit hashes are kept, never the keys: memory follows the distinct keys,
    // not the lines (a log of 35 M lines with 233 k distinct keys needs a few MB, not 2.4 GB).
    DistinctHashes hashes = new DistinctHashes(expected == null ? 0 : expected);
    keys.forEach(List.of(), spec, Inputs.KeySink.hashes(hash, hashes::add));
    return BinaryFuseFilter.fromHashes(hashes.toArray(), bits, hash);
  }

  /**
   * A set of 64-bit hashes by open addressing. The hashes are uniform already, so their top bits
   * pick the slot; 0 marks an empty slot and the hash 0 is kept aside.
   */
  static final class DistinctHashes {
    private static final int MAX_TABLE = 1 << 30;
    private long[] slots;
    private int shift;
    private int size;
    private boolean zero;

    DistinctHashes(long expected) {
      long keys = Math.min(1 << 20, Math.max(8, expected));
      table(Long.highestOneBit(2 * keys - 1) << 1);
    }

    private void table(long length) {
      slots = new long[(int) length];
      shift = 64 - Long.numberOfTrailingZeros(length);
    }

    void add(long h) {
      if (h == 0) {
        zero = true;
        return;
      }
      int mask = slots.length - 1;
      for (int i = (int) (h >>> shift); ; i = (i + 1) & mask) {
        long s = slots[i];
        if (s == h) {
          return;
        }
        if (s == 0) {
          slots[i] = h;
          break;
        }
      }
      if (++size > slots.length / 2) {
        if (slots.length < MAX_TABLE) {
          grow();
        } else if (size > MAX_TABLE / 4 * 3) {
          throw new CliException("more than " + size + " distinct keys for a binary fuse filter");
        }
      }
    }

    private void grow() {
      long[] old = slots;
      table(2L * old.length);
      int mask = slots.length - 1;
      for (long h : old) {
        if (h != 0) {
          int i = (int) (h >>> shift);
          while (slots[i] != 0) {
            i = (i + 1) & mask;
          }
          slots[i] = h;
        }
      }
    }

    int size() {
      return size + (zero ? 1 : 0);
    }

    long[] toArray() {
      long[] out = new long[size()];
      int n = 0;
      for (long h : slots) {
        if (h != 0) {
          out[n++] = h;
        }
      }
      return out; // the hash 0, when added, is the array's last element, left 0
    }
  }

  public static final class Names extends ArrayList<String> {
    private static final long serialVersionUID = 1L;

    Names() {
      super(NAMES);
    }
  }
}
