package io.github.probkit.spark;

import io.github.probkit.Concurrency;
import io.github.probkit.cardinality.CardinalitySketch;
import io.github.probkit.cardinality.CardinalitySketches;
import io.github.probkit.cardinality.HyperLogLog;
import io.github.probkit.cardinality.UltraLogLog;
import io.github.probkit.filter.AgePartitionedBloomFilter;
import io.github.probkit.filter.BinaryFuseFilter;
import io.github.probkit.filter.BlockedBloomFilter;
import io.github.probkit.filter.BloomFilter;
import io.github.probkit.filter.CountingBloomFilter;
import io.github.probkit.filter.CuckooFilter;
import io.github.probkit.filter.Filters;
import io.github.probkit.filter.MembershipFilter;
import io.github.probkit.filter.MergeableFilter;
import io.github.probkit.filter.ScalableBloomFilter;
import io.github.probkit.frequency.CountMinSketch;
import io.github.probkit.frequency.HeavyHitters;
import io.github.probkit.io.StructureType;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.Set;

/** Structures to and from the bytes of the probkit container format (docs/FORMAT.md). */
final class Sketches {
  private Sketches() {}

  /** Something that writes itself in the container format: every probkit structure's writeTo. */
  interface Encodable {
    void writeTo(OutputStream out) throws IOException;
  }

  /**
   * The bytes {@code w} writes. When {@code size} is their exact number (a Bloom filter's arrays
   * and 60 bytes of header), a gigabyte filter is written without growing a buffer or copying it.
   */
  static byte[] toBytes(Encodable w, long size) {
    Buffer out = new Buffer((int) Math.min(Integer.MAX_VALUE - 8, size));
    try {
      w.writeTo(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.bytes();
  }

  /**
   * The structure the bytes hold, whatever its type: a filter (the window filter included),
   * CountMinSketch, HeavyHitters, CardinalitySketch or a windowed sketch's {@link WindowRing}.
   * Corrupt bytes are an IllegalArgumentException naming what was wrong.
   */
  static Object read(byte[] bytes) {
    ByteArrayInputStream in = new ByteArrayInputStream(bytes);
    try {
      Object s = read(in);
      if (in.available() > 0) {
        throw new IllegalArgumentException(
            "not a probkit structure: " + in.available() + " bytes after its end");
      }
      return s;
    } catch (IOException e) {
      throw new IllegalArgumentException("not a probkit structure: " + e.getMessage(), e);
    }
  }

  /**
   * The next structure in {@code in}, which must support mark and reset; in single-writer mode,
   * since an aggregation buffer belongs to one task.
   */
  static Object read(InputStream in) throws IOException {
    in.mark(6);
    byte[] head = in.readNBytes(6);
    in.reset();
    StructureType type = head.length < 6 ? null : StructureType.byId(head[5] & 0xFF);
    if (type == null) {
      return Filters.readFrom(in, Concurrency.SINGLE_WRITER); // which names what is wrong
    }
    switch (type) {
      case COUNT_MIN_SKETCH:
        return CountMinSketch.readFrom(in, Concurrency.SINGLE_WRITER);
      case HEAVY_HITTERS:
        return HeavyHitters.readFrom(in);
      case HYPER_LOG_LOG:
      case ULTRA_LOG_LOG:
        return CardinalitySketches.readFrom(in);
      case WINDOWED_CARDINALITY:
      case WINDOWED_COUNT_MIN:
        return WindowRing.read(in, type);
      default:
        return Filters.readFrom(in, Concurrency.SINGLE_WRITER);
    }
  }

  static String label(Object s) {
    if (s instanceof WindowRing) {
      return ((WindowRing) s).type.label();
    }
    if (s instanceof MembershipFilter) {
      return ((MembershipFilter) s).type().label();
    }
    if (s instanceof CardinalitySketch) {
      return ((CardinalitySketch) s).type().label();
    }
    return s instanceof CountMinSketch
        ? StructureType.COUNT_MIN_SKETCH.label()
        : StructureType.HEAVY_HITTERS.label();
  }

  static Encodable writer(Object s) {
    if (s instanceof WindowRing) {
      return ((WindowRing) s)::writeTo;
    }
    if (s instanceof MembershipFilter) {
      return ((MembershipFilter) s)::writeTo;
    }
    if (s instanceof CardinalitySketch) {
      return ((CardinalitySketch) s)::writeTo;
    }
    return s instanceof CountMinSketch
        ? ((CountMinSketch) s)::writeTo
        : ((HeavyHitters) s)::writeTo;
  }

  /** The bytes of the structure's arrays. */
  static long byteSize(Object s) {
    if (s instanceof WindowRing) {
      return ((WindowRing) s).byteSize();
    }
    if (s instanceof MembershipFilter) {
      return ((MembershipFilter) s).byteSize();
    }
    if (s instanceof CardinalitySketch) {
      return ((CardinalitySketch) s).byteSize();
    }
    return s instanceof CountMinSketch
        ? ((CountMinSketch) s).byteSize()
        : ((HeavyHitters) s).byteSize();
  }

  /**
   * {@code s} when structures of its type can be merged; otherwise an IllegalArgumentException
   * saying why not.
   */
  static Object mergeable(Object s) {
    if (s instanceof BinaryFuseFilter || s instanceof ScalableBloomFilter) {
      throw new IllegalArgumentException(
          "a "
              + label(s)
              + " filter cannot be merged"
              + (s instanceof BinaryFuseFilter
                  ? ": it is built once from all its keys (build it from the keys with"
                      + " probkit_bloom_agg)"
                  : ""));
    }
    return s;
  }

  /**
   * {@code a} with the keys of {@code b} added; {@code a} may be changed, {@code b} is not. Two
   * cardinality sketches of different precisions merge at the lower one, two heavy-hitters
   * summaries at the smaller capacity.
   */
  static Object merge(Object a, Object b) {
    mergeable(a);
    mergeable(b);
    // Every class merged here is final: two structures merge only when they are of one class.
    if (a != null && b != null && a.getClass() == b.getClass()) {
      if (FILTERS_MERGED_AS_THEY_ARE.contains(a.getClass())) {
        return ((MergeableFilter) a).merge((MembershipFilter) b);
      }
      if (a instanceof CountMinSketch) {
        return ((CountMinSketch) a).merge((CountMinSketch) b);
      }
      if (a instanceof WindowRing) {
        return ((WindowRing) a).merge((WindowRing) b);
      }
      if (a instanceof HeavyHitters) {
        HeavyHitters x = (HeavyHitters) a;
        HeavyHitters y = (HeavyHitters) b;
        if (y.capacity() >= x.capacity()) {
          return x.merge(y);
        }
        return HeavyHitters.withCapacity(y.capacity()).merge(x).merge(y);
      }
      if (a instanceof HyperLogLog || a instanceof UltraLogLog) {
        CardinalitySketch x = (CardinalitySketch) a;
        CardinalitySketch y = (CardinalitySketch) b;
        return (y.precision() < x.precision() ? x.downsize(y.precision()) : x).merge(y);
      }
    }
    throw new IllegalArgumentException("cannot merge a " + label(a) + " with a " + label(b));
  }

  /**
   * The filters two of which, of one class, merge by their own merge (which checks their shape).
   */
  private static final Set<Class<?>> FILTERS_MERGED_AS_THEY_ARE =
      Set.of(
          BloomFilter.class,
          BlockedBloomFilter.class,
          CountingBloomFilter.class,
          CuckooFilter.class,
          AgePartitionedBloomFilter.class);

  /** A ByteArrayOutputStream whose array is returned as it is when it is exactly full. */
  private static final class Buffer extends ByteArrayOutputStream {
    Buffer(int size) {
      super(size);
    }

    byte[] bytes() {
      return count == buf.length ? buf : Arrays.copyOf(buf, count);
    }
  }
}
