package io.github.probkit.cli;

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
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;

/** The filter types {@code probkit filter create --type} can build. */
final class FilterTypes {
  /** Type names, in the order help lists them. */
  static final List<String> NAMES = List.of("bloom", "counting", "cuckoo", "scalable");

  private FilterTypes() {}

  /**
   * Builds a filter of {@code type} sized for {@code expected} keys at {@code fpp} (for scalable: its
   * initial capacity), holding the keys of {@code keys} when given (static types need them);
   * {@code file} is named in errors.
   */
  static MembershipFilter create(
      String type, long expected, double fpp, HashStrategy hash, KeyOptions keys, CommandSpec spec, Path file)
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
        f = ScalableBloomFilter.create(
            expected, fpp, ScalableBloomFilter.DEFAULT_GROWTH, ScalableBloomFilter.DEFAULT_TIGHTENING, hash);
        break;
      default:
        throw new IllegalArgumentException(
            "--type must be one of " + String.join(", ", NAMES) + ", was '" + type + "'");
    }
    if (keys != null) {
      FilterCommand.addKeys(f, List.of(), keys, spec, file);
    }
    return f;
  }

  static final class Names extends ArrayList<String> {
    private static final long serialVersionUID = 1L;

    Names() {
      super(NAMES);
    }
  }
}
