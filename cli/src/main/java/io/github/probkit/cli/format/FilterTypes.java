package io.github.probkit.cli.format;

import io.github.probkit.Concurrency;
import io.github.probkit.cli.command.FilterCommand;
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
import io.github.probkit.hash.HashStrategy;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
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
          "binary-fuse8",
          "binary-fuse16",
          "fuse");

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
   * order on one thread): see {@link FilterCommand#addKeys}.
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
      default:
        checkType(type);
        throw new IllegalArgumentException(
            "--type " + type + " is built from its keys: see buildStatic");
    }
    if (keys != null) {
      FilterCommand.addKeys(f, List.of(), keys, ifAbsent, spec, file);
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
    // Only the 64-bit hashes are kept, never the keys.
    HashBuffer hashes = new HashBuffer(expected == null ? 0 : expected);
    keys.forEach(List.of(), spec, Inputs.KeySink.hashes(hash, hashes::add));
    return BinaryFuseFilter.fromHashes(hashes.values, hashes.size, bits, hash);
  }

  private static final class HashBuffer {
    long[] values;
    int size;

    HashBuffer(long expected) {
      values = new long[(int) Math.max(16, Math.min(1 << 20, expected))];
    }

    void add(long h) {
      if (size == values.length) {
        if (size == BinaryFuseFilter.MAX_SLOTS) {
          throw new CliException("more than " + size + " keys for a binary fuse filter");
        }
        values = Arrays.copyOf(values, (int) Math.min(BinaryFuseFilter.MAX_SLOTS, 2L * size));
      }
      values[size++] = h;
    }
  }

  public static final class Names extends ArrayList<String> {
    private static final long serialVersionUID = 1L;

    Names() {
      super(NAMES);
    }
  }
}
