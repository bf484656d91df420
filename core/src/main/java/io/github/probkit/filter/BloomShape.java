package io.github.probkit.filter;

import io.github.probkit.hash.HashStrategy;
import io.github.probkit.io.SketchReader;
import io.github.probkit.io.SketchWriter;
import io.github.probkit.io.StructureType;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.function.LongPredicate;

/**
 * What the Bloom-type filters (standard, counting, blocked) share: their four parameters in the
 * format, the serialization of their word arrays, and the count estimate from the fill.
 */
final class BloomShape {
  final long cells;
  final int hashes;
  final long expectedKeys;
  final double fpp;

  BloomShape(long cells, int hashes, long expectedKeys, double fpp) {
    this.cells = cells;
    this.hashes = hashes;
    this.expectedKeys = expectedKeys;
    this.fpp = fpp;
  }

  /**
   * Parameters: cells (u64), hashes (u32), expectedKeys (u64), fpp (f64); payload: the words,
   * little-endian.
   */
  void write(OutputStream out, StructureType type, HashStrategy hash, long[] words)
      throws IOException {
    write(out, type, hash, words, 0, words.length);
  }

  /** As above, the payload being {@code len} words of {@code words} from {@code off}. */
  void write(
      OutputStream out, StructureType type, HashStrategy hash, long[] words, int off, int len)
      throws IOException {
    ByteBuffer p = SketchWriter.params(28);
    p.putLong(cells).putInt(hashes).putLong(expectedKeys).putDouble(fpp);
    SketchWriter w = SketchWriter.begin(out, type, hash, p.array(), 8L * len);
    w.writeLongs(words, off, len);
    w.finish();
  }

  /** Reads and checks the four parameters; {@code cellsOk} says which cell counts are valid. */
  static BloomShape read(
      SketchReader r, String cellsName, LongPredicate cellsOk, String allowedCells, int maxHashes)
      throws IOException {
    long m = r.paramLong(cellsName);
    r.check(cellsOk.test(m), cellsName, m, allowedCells);
    int k = r.paramInt("hashes");
    r.check(k >= 1 && k <= maxHashes, "hashes", k, "in [1, " + maxHashes + "]");
    long n = r.paramLong("expectedKeys");
    r.check(n >= 0, "expectedKeys", n, "non-negative");
    double p = r.paramDouble("fpp");
    r.check(p == 0 || (p > 0 && p < 1), "fpp", p, "0 or in (0, 1)");
    return new BloomShape(m, k, n, p);
  }

  /**
   * The number of distinct keys behind {@code x} of {@code m} cells set by {@code k} probes each:
   * {@code -m/k ln(1 - x/m)} (Swamidass and Baldi); {@link Long#MAX_VALUE} when every cell is set.
   */
  static long approximateCount(long x, long m, int k) {
    if (x >= m) {
      return Long.MAX_VALUE;
    }
    return Math.round(-(double) m / k * Math.log1p(-(double) x / m));
  }
}
