package io.github.probkit.filter;

import io.github.probkit.filter.BinaryFuseFilter.FingerprintBits;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes the golden files of the blocked Bloom and binary fuse filters. Run once when a format
 * version is created, never to "fix" a failing golden test:
 * {@code java -cp core/target/classes:core/target/test-classes:HASH4J_JAR
 * io.github.probkit.filter.GoldenFilterFiles core/src/test/resources/golden}.
 */
final class GoldenFilterFiles {
  private GoldenFilterFiles() {}

  static List<String> keys(String prefix, int n) {
    List<String> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(prefix + i);
    }
    return out;
  }

  public static void main(String[] args) throws IOException {
    Path dir = Path.of(args[0]);
    BlockedBloomFilter blocked = BlockedBloomFilter.create(1000, 0.01);
    keys("golden-", 1000).forEach(blocked::add);
    try (OutputStream out = Files.newOutputStream(dir.resolve("blocked-v1.bin"))) {
      blocked.writeTo(out);
    }
    // Two structures in one file: 8-bit fingerprints, then 16-bit ones, of the same keys.
    try (OutputStream out = Files.newOutputStream(dir.resolve("binary-fuse-v1.bin"))) {
      BinaryFuseFilter.ofStrings(keys("golden-", 1000), FingerprintBits.BITS_8).writeTo(out);
      BinaryFuseFilter.ofStrings(keys("golden-", 1000), FingerprintBits.BITS_16).writeTo(out);
    }
  }
}
