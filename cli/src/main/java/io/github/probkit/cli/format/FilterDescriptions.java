package io.github.probkit.cli.format;

import io.github.probkit.cli.output.Json;
import io.github.probkit.filter.AgePartitionedBloomFilter;
import io.github.probkit.filter.BinaryFuseFilter;
import io.github.probkit.filter.BlockedBloomFilter;
import io.github.probkit.filter.BloomFilter;
import io.github.probkit.filter.CountingBloomFilter;
import io.github.probkit.filter.CuckooFilter;
import io.github.probkit.filter.MappedFilter;
import io.github.probkit.filter.MembershipFilter;
import io.github.probkit.filter.MutableFilter;
import io.github.probkit.filter.ScalableBloomFilter;
import io.github.probkit.filter.SplitBlockBloomFilter;
import io.github.probkit.io.StructureType;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The fields {@code filter info} and {@code info} print for a filter, read whole or mapped. */
public final class FilterDescriptions {
  private FilterDescriptions() {}

  /**
   * {@link #describe} of a mapped Bloom, blocked Bloom or binary fuse filter: the same fields in
   * the same order, the counts from a scan of the file through a small buffer.
   */
  public static Json describeMapped(MappedFilter m, boolean json) throws IOException {
    if (m.type() == StructureType.BINARY_FUSE_FILTER) {
      return describe(
          m.load(), json); // its shape fields are the loaded filter's; it is not scanned
    }
    Json j = new Json().put("type", m.type().label()).put("bits", m.bitSize());
    if (m.type() == StructureType.BLOCKED_BLOOM_FILTER) {
      j.put("blocks", m.bitSize() / BlockedBloomFilter.BLOCK_BITS);
    }
    bloomFields(j, m.hashCount(), m.expectedKeys(), m.targetFpp(), m.bitCount());
    return finishDescription(j, m.approximateCount(), m, json);
  }

  public static Json describe(MembershipFilter f, boolean json) {
    Json j = new Json().put("type", f.type().label()).put("bits", f.bitSize());
    if (f instanceof BloomFilter) {
      BloomFilter b = (BloomFilter) f;
      bloomFields(j, b.hashCount(), b.expectedKeys(), b.targetFpp(), b.bitCount());
    } else if (f instanceof CountingBloomFilter) {
      CountingBloomFilter c = (CountingBloomFilter) f;
      j.put("counters", c.counterCount()).put("counterBits", CountingBloomFilter.COUNTER_BITS);
      hashedSizing(j, c.hashCount(), c.expectedKeys(), c.targetFpp())
          .put("nonZeroCounters", c.nonZeroCounters())
          .put("saturatedCounters", c.saturatedCounters());
    } else if (f instanceof CuckooFilter) {
      CuckooFilter c = (CuckooFilter) f;
      j.put("buckets", c.bucketCount())
          .put("slotsPerBucket", CuckooFilter.SLOTS_PER_BUCKET)
          .put("fingerprintBits", c.fingerprintBits())
          .put("expectedKeys", c.expectedKeys())
          .put("fpp", c.targetFpp())
          .put("keys", c.size())
          .put("load", c.load());
    } else if (f instanceof ScalableBloomFilter) {
      ScalableBloomFilter s = (ScalableBloomFilter) f;
      j.put("initialCapacity", s.initialCapacity())
          .put("fpp", s.targetFpp())
          .put("growth", s.growth())
          .put("tightening", s.tightening())
          .put("capacity", s.capacity());
      List<Json> layers = new ArrayList<>();
      for (ScalableBloomFilter.LayerInfo l : s.layers()) {
        layers.add(
            new Json()
                .put("capacity", l.capacity())
                .put("keys", l.keys())
                .put("bits", l.bits())
                .put("hashes", l.hashes())
                .put("fpp", l.fpp()));
      }
      if (json) {
        j.put("layers", layers);
      } else {
        // Text: a line per layer, "layer 1: capacity 1000, keys 1000, bits 9586, hashes 7, fpp
        // 0.005".
        j.put("layers", layers.size());
        for (int i = 0; i < layers.size(); i++) {
          StringBuilder line = new StringBuilder();
          layers
              .get(i)
              .fields()
              .forEach(
                  (k, v) ->
                      line.append(line.length() == 0 ? "" : ", ").append(k).append(' ').append(v));
          j.put("layer " + (i + 1), line);
        }
      }
    } else if (f instanceof BlockedBloomFilter) {
      BlockedBloomFilter b = (BlockedBloomFilter) f;
      bloomFields(
          j.put("blocks", b.blockCount()),
          b.hashCount(),
          b.expectedKeys(),
          b.targetFpp(),
          b.bitCount());
    } else if (f instanceof SplitBlockBloomFilter) {
      SplitBlockBloomFilter b = (SplitBlockBloomFilter) f;
      j.put("blocks", b.blockCount())
          .put("expectedKeys", b.expectedKeys())
          .put("fpp", b.targetFpp());
    } else if (f instanceof AgePartitionedBloomFilter) {
      WindowFilters.describe((AgePartitionedBloomFilter) f, j);
    } else if (f instanceof BinaryFuseFilter) {
      BinaryFuseFilter b = (BinaryFuseFilter) f;
      j.put("fingerprintBits", b.fingerprintBits().bits())
          .put("derivation", b.derivation().number())
          .put("keys", b.keyCount())
          .put("segmentLength", b.segmentLength())
          .put("segmentCount", b.segmentCount())
          .put("bitsPerKey", b.bitsPerKey());
    }
    return finishDescription(
        j, f instanceof MutableFilter ? ((MutableFilter) f).approximateCount() : null, f, json);
  }

  /**
   * The fields of a Bloom filter of any layout, in memory, mapped or in Redis: {@code info} prints
   * them alike (in this order) so that one filter reads the same wherever it is kept.
   */
  public static Json bloomFields(Json j, int hashes, long expectedKeys, double fpp, long bitsSet) {
    return hashedSizing(j, hashes, expectedKeys, fpp).put("bitsSet", bitsSet);
  }

  /** The hashes of a filter that sets k places per key, then what it was sized for. */
  private static Json hashedSizing(Json j, int hashes, long expectedKeys, double fpp) {
    return j.put("hashes", hashes).put("expectedKeys", expectedKeys).put("fpp", fpp);
  }

  /** The fields every description ends with; {@code count} is null for a static filter. */
  private static Json finishDescription(Json j, Long count, MembershipFilter f, boolean json) {
    if (count != null) {
      long n = count;
      if (n != Long.MAX_VALUE) {
        j.put("approximateCount", n);
      } else if (json) {
        j.put("approximateCount", null).put("saturated", true);
      } else {
        j.put("approximateCount", "saturated (too full to estimate: any key may read present)");
      }
    }
    j.put("expectedFpp", f.expectedFpp())
        .put("bytes", f.byteSize())
        .put("hash", f.hashStrategy().algorithm().label())
        .put("hashSeed", String.format(Locale.ROOT, "0x%x", f.hashStrategy().seed()));
    return j;
  }
}
