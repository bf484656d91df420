package io.github.probkit.spark;

import java.util.Arrays;
import java.util.function.Function;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.unsafe.Platform;

/**
 * The structures a scalar function decoded from a column in one task, so that a filter joined to
 * its rows is decoded once, not once a row. Not thread-safe: an expression belongs to one task.
 *
 * <p>An aggregate's struct is found by its identity, read in place without copying the sketch: its
 * length, its last four bytes (the format's CRC32C) and the struct's {@code digest} (XXH3-128 of
 * the sketch). The digest is checked against the bytes whenever they are decoded, so a cached
 * structure is only ever found for bytes with the same 128-bit hash, length and CRC as bytes that
 * were decoded: two different sketches are confused only if XXH3-128 collides on them (about 2^-128
 * a pair), or if a struct was assembled by hand with another sketch's digest and the two also share
 * their length and CRC32C. Bare bytes (and structs without a digest) carry no such identity and are
 * compared whole with the cached ones.
 */
final class StructureCache {
  private static final int MAX_ENTRIES = 8;

  /** The newest entry is always kept; older ones while their sketches total at most this. */
  private static final long MAX_BYTES = 64L << 20;

  private final Entry[] entries = new Entry[MAX_ENTRIES];
  private int size;

  private static final class Entry {
    final int length;
    final int crc;

    /** Whether the entry was found by its digest (the two longs below), or else by its bytes. */
    final boolean hasDigest;

    final long digestLow;
    final long digestHigh;
    final byte[] bytes;
    final Object structure;

    Entry(
        int length,
        int crc,
        boolean hasDigest,
        long digestLow,
        long digestHigh,
        byte[] bytes,
        Object structure) {
      this.length = length;
      this.crc = crc;
      this.hasDigest = hasDigest;
      this.digestLow = digestLow;
      this.digestHigh = digestHigh;
      this.bytes = bytes;
      this.structure = structure;
    }
  }

  /**
   * The structure of the non-null Catalyst value {@code v} (bytes or an aggregate's struct), or
   * null when it holds no sketch; {@code decode} reads bytes not seen before.
   */
  Object get(Object v, Function<byte[], Object> decode) {
    if (v instanceof InternalRow) {
      InternalRow r = (InternalRow) v;
      if (r.isNullAt(0)) {
        return null;
      }
      if (r.numFields() > SketchArg.DIGEST && !r.isNullAt(SketchArg.DIGEST)) {
        return byDigest(r, decode);
      }
    }
    return byBytes(SketchArg.bytes(v), decode);
  }

  private Object byDigest(InternalRow r, Function<byte[], Object> decode) {
    int length;
    int crc;
    int digestLength;
    long digestLow;
    long digestHigh;
    // All read where the row lies: neither the sketch nor the digest is copied on a row.
    if (r instanceof UnsafeRow) {
      UnsafeRow u = (UnsafeRow) r;
      Object base = u.getBaseObject();
      long sketch = u.getLong(0);
      length = (int) sketch;
      crc = crc(base, u.getBaseOffset() + (sketch >>> 32), length);
      long digest = u.getLong(SketchArg.DIGEST);
      digestLength = (int) digest;
      digestLow =
          digestLength < 16 ? 0 : Platform.getLong(base, u.getBaseOffset() + (digest >>> 32));
      digestHigh =
          digestLength < 16 ? 0 : Platform.getLong(base, u.getBaseOffset() + (digest >>> 32) + 8);
    } else {
      byte[] b = r.getBinary(0);
      length = b.length;
      crc = crc(b, Platform.BYTE_ARRAY_OFFSET, length);
      byte[] d = r.getBinary(SketchArg.DIGEST);
      digestLength = d.length;
      digestLow = digestLength < 16 ? 0 : Platform.getLong(d, Platform.BYTE_ARRAY_OFFSET);
      digestHigh = digestLength < 16 ? 0 : Platform.getLong(d, Platform.BYTE_ARRAY_OFFSET + 8);
    }
    if (digestLength == 16) {
      for (int i = 0; i < size; i++) {
        Entry e = entries[i];
        if (e.hasDigest
            && e.length == length
            && e.crc == crc
            && e.digestLow == digestLow
            && e.digestHigh == digestHigh) {
          return hit(i);
        }
      }
    }
    byte[] bytes = r.getBinary(0);
    if (!Arrays.equals(SketchArg.digest(bytes), r.getBinary(SketchArg.DIGEST))) {
      throw new IllegalArgumentException(
          "the struct's digest does not match its sketch (was the struct assembled by hand? "
              + "pass its .sketch alone)");
    }
    return add(new Entry(length, crc, true, digestLow, digestHigh, null, decode.apply(bytes)));
  }

  private Object byBytes(byte[] bytes, Function<byte[], Object> decode) {
    for (int i = 0; i < size; i++) {
      if (entries[i].bytes != null && Arrays.equals(entries[i].bytes, bytes)) {
        return hit(i);
      }
    }
    return add(new Entry(bytes.length, 0, false, 0, 0, bytes, decode.apply(bytes)));
  }

  private static int crc(Object base, long offset, int length) {
    return length < 4 ? 0 : Platform.getInt(base, offset + length - 4);
  }

  /** Moves entry {@code i} to the front and returns its structure. */
  private Object hit(int i) {
    Entry e = entries[i];
    System.arraycopy(entries, 0, entries, 1, i);
    entries[0] = e;
    return e.structure;
  }

  private Object add(Entry e) {
    int n = Math.min(size, MAX_ENTRIES - 1);
    System.arraycopy(entries, 0, entries, 1, n);
    entries[0] = e;
    long total = e.length;
    size = 1;
    while (size <= n && total + entries[size].length <= MAX_BYTES) {
      total += entries[size].length;
      size++;
    }
    Arrays.fill(entries, size, MAX_ENTRIES, null);
    return e.structure;
  }
}
