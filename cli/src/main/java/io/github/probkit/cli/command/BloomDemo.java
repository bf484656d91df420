package io.github.probkit.cli.command;

import io.github.probkit.filter.BloomFilter;
import io.github.probkit.hash.HashStrategy;
import java.io.PrintWriter;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Seed 000's walkthrough: a Bloom filter of 16 bits and 2 hashes with the FNV-1a double-hashing
 * strategy, three names added and six queried. Prints the seed's ten lines byte for byte.
 */
final class BloomDemo {
  private static final List<String> ADDED = List.of("asha", "ravi", "meera");
  private static final List<String> QUERIED =
      List.of("ravi", "john", "kiran", "farah", "neel", "tara");

  private BloomDemo() {}

  static void run(PrintWriter out) {
    BloomFilter filter = BloomFilter.withBits(16, 2, HashStrategy.fnv1a());
    for (String name : ADDED) {
      filter.add(name);
      out.println("add " + pad(repr(name)) + " -> bits " + list(filter.positions(name)));
    }
    StringBuilder bits = new StringBuilder();
    for (long i = 0; i < filter.bitSize(); i++) {
      bits.append(filter.bit(i) ? '1' : '0');
    }
    out.println(
        "bit array: " + bits + " (" + filter.bitCount() + " of " + filter.bitSize() + " bits set)");
    for (String name : QUERIED) {
      String verdict;
      if (filter.mightContain(name)) {
        verdict = "probably present" + (ADDED.contains(name) ? "" : " (a false positive)");
      } else {
        verdict = "definitely absent";
      }
      out.println(
          "query " + pad(repr(name)) + " -> bits " + list(filter.positions(name)) + ": " + verdict);
    }
  }

  /** Python's repr of a plain string. */
  static String repr(String s) {
    return "'" + s + "'";
  }

  /** Python's {@code :8} format of a string: left-aligned, padded to 8. */
  static String pad(String s) {
    return s.length() >= 8 ? s : s + " ".repeat(8 - s.length());
  }

  /** Python's str of a list of ints. */
  static String list(long[] values) {
    return Arrays.stream(values)
        .mapToObj(Long::toString)
        .collect(Collectors.joining(", ", "[", "]"));
  }
}
