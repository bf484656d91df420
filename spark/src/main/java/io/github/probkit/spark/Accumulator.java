package io.github.probkit.spark;

import io.github.probkit.Concurrency;
import io.github.probkit.cardinality.CardinalitySketch;
import io.github.probkit.filter.AgePartitionedBloomFilter;
import io.github.probkit.filter.BinaryFuseFilter;
import io.github.probkit.filter.BlockedBloomFilter;
import io.github.probkit.filter.BloomFilter;
import io.github.probkit.filter.MutableFilter;
import io.github.probkit.frequency.CountMinSketch;
import io.github.probkit.frequency.HeavyHitters;
import io.github.probkit.hash.HashStrategy;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.function.Supplier;

/**
 * The aggregation buffer of one group: the structure itself (not its bytes), which every row
 * updates in place, and the counts of keys added and nulls skipped. Between the partial aggregation
 * of a partition and the final merge it travels as {@link #serialize bytes}: a 16-byte count header
 * and the structure in the probkit format (for the binary fuse filter, its sorted distinct key
 * hashes). Not thread-safe: Spark gives each task its own buffers.
 */
abstract class Accumulator implements Keys.Visitor<Void> {
  /**
   * Keys added (rows with a non-null key), or -1 when unknown (a union of sketches from elsewhere).
   */
  long keys;

  /** Rows whose key was null, skipped; -1 when unknown. */
  long nulls;

  /** Adds the structure and counts of {@code other}, of the same aggregate. */
  final void merge(Accumulator other) {
    keys = keys < 0 || other.keys < 0 ? -1 : keys + other.keys;
    nulls = nulls < 0 || other.nulls < 0 ? -1 : nulls + other.nulls;
    mergeStructure(other);
  }

  abstract void mergeStructure(Accumulator other);

  /** The probkit bytes of the result, or null when there is no structure (a union of nothing). */
  abstract byte[] result();

  /** Writes the structure's state for the final merge. */
  abstract void writeState(OutputStream out) throws IOException;

  /** The exact size of the state {@link #writeState} writes, or an estimate. */
  abstract long stateSize();

  /** Reads what {@link #writeState} wrote into this fresh accumulator. */
  abstract void readState(InputStream in) throws IOException;

  final byte[] serialize() {
    return Sketches.toBytes(
        out -> {
          DataOutputStream d = new DataOutputStream(out);
          d.writeLong(keys);
          d.writeLong(nulls);
          d.flush();
          writeState(out);
        },
        16 + stateSize());
  }

  final void deserialize(InputStream in) throws IOException {
    DataInputStream d = new DataInputStream(in);
    keys = d.readLong();
    nulls = d.readLong();
    readState(in);
  }

  /** Bloom and blocked Bloom filters. */
  static final class Filter extends Accumulator {
    private MutableFilter filter;

    Filter(MutableFilter filter) {
      this.filter = filter;
    }

    @Override
    public Void bytes(byte[] key, int off, int len) {
      filter.add(key, off, len);
      return null;
    }

    @Override
    public Void longKey(long key) {
      filter.add(key);
      return null;
    }

    @Override
    void mergeStructure(Accumulator other) {
      filter = (MutableFilter) Sketches.merge(filter, ((Filter) other).filter);
    }

    @Override
    byte[] result() {
      return Sketches.toBytes(filter::writeTo, stateSize());
    }

    @Override
    void writeState(OutputStream out) throws IOException {
      filter.writeTo(out);
    }

    @Override
    long stateSize() {
      return filter.byteSize() + 60; // 28 bytes of header, 28 of parameters, 4 of CRC
    }

    @Override
    void readState(InputStream in) throws IOException {
      filter =
          filter instanceof BloomFilter
              ? BloomFilter.readFrom(in, Concurrency.SINGLE_WRITER)
              : BlockedBloomFilter.readFrom(in, Concurrency.SINGLE_WRITER);
    }
  }

  /**
   * The binary fuse filter is built once from all its keys, so the partial aggregates collect the
   * keys' 64-bit hashes (8 bytes a row), sorted and deduplicated before they travel; the final
   * aggregate builds the filter from their union. The bytes depend only on the set of keys.
   */
  static final class Fuse extends Accumulator {
    private final BinaryFuseFilter.FingerprintBits bits;
    private final HashStrategy hash = HashStrategy.xxh3();
    private long[] hashes = new long[16];
    private int size;

    Fuse(BinaryFuseFilter.FingerprintBits bits) {
      this.bits = bits;
    }

    @Override
    public Void bytes(byte[] key, int off, int len) {
      push(hash.hash64(key, off, len));
      return null;
    }

    @Override
    public Void longKey(long key) {
      push(hash.hash64(key));
      return null;
    }

    private void push(long h) {
      if (size == hashes.length) {
        if (size == BinaryFuseFilter.MAX_SLOTS) {
          throw new IllegalArgumentException(
              "more than " + size + " keys for one binary fuse filter; use a Bloom filter");
        }
        hashes = Arrays.copyOf(hashes, (int) Math.min(BinaryFuseFilter.MAX_SLOTS, 2L * size));
      }
      hashes[size++] = h;
    }

    private void sortUnique() {
      Arrays.sort(hashes, 0, size);
      int n = 0;
      for (int i = 0; i < size; i++) {
        if (n == 0 || hashes[i] != hashes[n - 1]) {
          hashes[n++] = hashes[i];
        }
      }
      size = n;
    }

    @Override
    void mergeStructure(Accumulator other) {
      Fuse o = (Fuse) other;
      if (size + (long) o.size > hashes.length) {
        sortUnique();
        hashes =
            Arrays.copyOf(
                hashes,
                (int)
                    Math.min(
                        BinaryFuseFilter.MAX_SLOTS, Math.max(2L * size, (long) size + o.size)));
      }
      for (int i = 0; i < o.size; i++) {
        push(o.hashes[i]);
      }
    }

    @Override
    byte[] result() {
      sortUnique();
      BinaryFuseFilter f = BinaryFuseFilter.fromHashes(hashes, size, bits, hash);
      return Sketches.toBytes(f::writeTo, f.byteSize() + 64);
    }

    @Override
    void writeState(OutputStream out) throws IOException {
      sortUnique();
      DataOutputStream d = new DataOutputStream(out);
      d.writeInt(size);
      for (int i = 0; i < size; i++) {
        d.writeLong(hashes[i]);
      }
      d.flush();
    }

    @Override
    long stateSize() {
      return 4 + 8L * size;
    }

    @Override
    void readState(InputStream in) throws IOException {
      DataInputStream d = new DataInputStream(in);
      size = d.readInt();
      hashes = new long[Math.max(16, size)];
      for (int i = 0; i < size; i++) {
        hashes[i] = d.readLong();
      }
    }
  }

  /**
   * Count-min sketches, heavy hitters and cardinality sketches: read and written in the probkit
   * format.
   */
  abstract static class Sketch extends Accumulator {
    Object sketch;

    Sketch(Object sketch) {
      this.sketch = sketch;
    }

    @Override
    void mergeStructure(Accumulator other) {
      sketch = Sketches.merge(sketch, ((Sketch) other).sketch);
    }

    @Override
    byte[] result() {
      return Sketches.toBytes(this::writeState, stateSize());
    }

    @Override
    void writeState(OutputStream out) throws IOException {
      Sketches.writer(sketch).writeTo(out);
    }

    @Override
    long stateSize() {
      return Sketches.byteSize(sketch) + 64;
    }

    @Override
    void readState(InputStream in) throws IOException {
      sketch = Sketches.read(in);
    }
  }

  static final class CountMin extends Sketch {
    CountMin(CountMinSketch sketch) {
      super(sketch);
    }

    @Override
    public Void bytes(byte[] key, int off, int len) {
      ((CountMinSketch) sketch).add(key, off, len);
      return null;
    }

    @Override
    public Void longKey(long key) {
      ((CountMinSketch) sketch).add(key);
      return null;
    }
  }

  static final class TopK extends Sketch {
    private final byte[] longKey = new byte[8];

    TopK(HeavyHitters sketch) {
      super(sketch);
    }

    @Override
    public Void bytes(byte[] key, int off, int len) {
      ((HeavyHitters) sketch).add(key, off, len);
      return null;
    }

    @Override
    public Void longKey(long key) {
      ((HeavyHitters) sketch).add(Keys.longBytes(key, longKey), 0, 8);
      return null;
    }
  }

  static final class Cardinality extends Sketch {
    Cardinality(CardinalitySketch sketch) {
      super(sketch);
    }

    @Override
    public Void bytes(byte[] key, int off, int len) {
      ((CardinalitySketch) sketch).add(key, off, len);
      return null;
    }

    @Override
    public Void longKey(long key) {
      ((CardinalitySketch) sketch).add(key);
      return null;
    }
  }

  /**
   * The windowed aggregates: a key goes where its row's event time puts it, set in {@link #time}
   * before the key is passed.
   */
  abstract static class Timed extends Accumulator {
    /** The event time of the row being added, in ms since 1970-01-01 UTC. */
    long time;
  }

  /**
   * probkit_window_hll_agg, probkit_window_ull_agg and probkit_window_cms_agg: a ring of slices; a
   * row older than the ring (given its newest row so far) is dropped, as the library drops it.
   */
  static final class WindowSketch extends Timed {
    private WindowRing ring;

    WindowSketch(WindowRing ring) {
      this.ring = ring;
    }

    @Override
    public Void bytes(byte[] key, int off, int len) {
      Object s = ring.sliceAt(time);
      if (s instanceof CountMinSketch) {
        ((CountMinSketch) s).add(key, off, len);
      } else if (s != null) {
        ((CardinalitySketch) s).add(key, off, len);
      }
      return null;
    }

    @Override
    public Void longKey(long key) {
      Object s = ring.sliceAt(time);
      if (s instanceof CountMinSketch) {
        ((CountMinSketch) s).add(key);
      } else if (s != null) {
        ((CardinalitySketch) s).add(key);
      }
      return null;
    }

    @Override
    void mergeStructure(Accumulator other) {
      ring.merge(((WindowSketch) other).ring);
    }

    @Override
    byte[] result() {
      return Sketches.toBytes(ring::writeTo, stateSize());
    }

    @Override
    void writeState(OutputStream out) throws IOException {
      ring.writeTo(out);
    }

    @Override
    long stateSize() {
      return ring.byteSize() + 4096;
    }

    @Override
    void readState(InputStream in) throws IOException {
      ring = WindowRing.read(in, ring.type);
    }
  }

  /**
   * probkit_window_bloom_agg: a time-based age-partitioned Bloom filter, whose bytes are those of
   * the library's filter fed the rows in time order, whatever order the rows come in.
   *
   * <p>The library's filter ignores an event more than the window (l generations) older than the
   * newest it has seen; in time order, such an event would have been added before the newer ones
   * and would still hold bits in the slices that are left (a key forgotten gradually, in the slack
   * after the window). So rows that late go to a second filter of their own, {@link #late}: they
   * all lie within k - 1 generations before the window, so it never ignores one of them, and
   * merging it into the main filter (a merge keeps the slices still live) gives the bits and adds
   * of time order. Any two filters that each hold the time-order state of their rows merge to the
   * time-order state of all the rows, so partial aggregates merge the same way.
   */
  static final class WindowFilter extends Timed {
    private final Supplier<AgePartitionedBloomFilter> fresh;
    private AgePartitionedBloomFilter main;
    private AgePartitionedBloomFilter late;

    WindowFilter(Supplier<AgePartitionedBloomFilter> fresh) {
      this.fresh = fresh;
      this.main = fresh.get();
    }

    /** The filter the row at {@link #time} goes to, or null when it is older than every slice. */
    private AgePartitionedBloomFilter target() {
      long newest = main.generation();
      if (newest == Long.MIN_VALUE) {
        return main;
      }
      long lag = newest - Math.floorDiv(time, main.generationMillis());
      if (lag <= main.survivingGenerations()) {
        return main;
      }
      if (lag >= main.sliceCount()) {
        return null;
      }
      if (late == null) {
        late = fresh.get();
      }
      return late;
    }

    @Override
    public Void bytes(byte[] key, int off, int len) {
      AgePartitionedBloomFilter f = target();
      if (f != null) {
        f.add(key, off, len, time);
      }
      return null;
    }

    @Override
    public Void longKey(long key) {
      AgePartitionedBloomFilter f = target();
      if (f != null) {
        f.add(key, time);
      }
      return null;
    }

    private AgePartitionedBloomFilter folded() {
      if (late != null) {
        main.merge(late);
        late = null;
      }
      return main;
    }

    @Override
    void mergeStructure(Accumulator other) {
      WindowFilter o = (WindowFilter) other;
      folded().merge(o.main);
      if (o.late != null) {
        main.merge(o.late);
      }
    }

    @Override
    byte[] result() {
      return Sketches.toBytes(folded()::writeTo, stateSize());
    }

    @Override
    void writeState(OutputStream out) throws IOException {
      folded().writeTo(out);
    }

    @Override
    long stateSize() {
      return main.byteSize() + 8L * main.sliceCount() + 128;
    }

    @Override
    void readState(InputStream in) throws IOException {
      main = AgePartitionedBloomFilter.readFrom(in, Concurrency.SINGLE_WRITER);
      late = null;
    }
  }

  /**
   * probkit_union_agg: merges structures given as bytes, whatever their type, as they come, and
   * keeps their key type: the one all inputs recorded, or null when one was bare bytes; two inputs
   * of different key types are refused unless the session allows mixing them.
   */
  static final class Union extends Accumulator {
    /** The SQL function, for its messages. */
    private final String function;

    private Object sketch;

    Union() {
      this("probkit_union_agg");
    }

    Union(String function) {
      this.function = function;
    }

    /** The first key type recorded by an input, or null. */
    private String keyType;

    /** Whether an input had no key type (bare bytes), or two had different ones. */
    private boolean keyTypeUnknown;

    /** The union so far, as a library object (null before the first input). */
    Object structure() {
      return sketch;
    }

    /** The key type of the union, or null when unknown. */
    String keyType() {
      return keyTypeUnknown ? null : keyType;
    }

    /**
     * Merges the structure in {@code bytes}; its keys, nulls and key type are those of the row, or
     * -1 and null when unknown.
     */
    void addSketch(byte[] bytes, long rowKeys, long rowNulls, String rowKeyType) {
      keys = keys < 0 || rowKeys < 0 ? -1 : keys + rowKeys;
      nulls = nulls < 0 || rowNulls < 0 ? -1 : nulls + rowNulls;
      Object s = Sketches.read(bytes);
      addKeyType(rowKeyType, rowKeyType == null);
      sketch = sketch == null ? Sketches.mergeable(s) : Sketches.merge(sketch, s);
    }

    private void addKeyType(String other, boolean otherUnknown) {
      if (keyType != null && other != null && !keyType.equals(other)) {
        if (!SketchArg.mixKeyTypes()) {
          throw SketchArg.mixed(
              function,
              "cannot merge a structure of " + keyType + " keys with one of " + other + " keys");
        }
        keyTypeUnknown = true;
      }
      if (keyType == null) {
        keyType = other;
      }
      keyTypeUnknown |= otherUnknown;
    }

    @Override
    public Void bytes(byte[] key, int off, int len) {
      throw new UnsupportedOperationException("a union takes sketches");
    }

    @Override
    public Void longKey(long key) {
      throw new UnsupportedOperationException("a union takes sketches");
    }

    @Override
    void mergeStructure(Accumulator other) {
      Union u = (Union) other;
      if (u.sketch != null) {
        if (sketch == null) {
          keyType = u.keyType;
          keyTypeUnknown = u.keyTypeUnknown;
          sketch = u.sketch;
        } else {
          addKeyType(u.keyType, u.keyTypeUnknown);
          sketch = Sketches.merge(sketch, u.sketch);
        }
      }
    }

    @Override
    byte[] result() {
      return sketch == null
          ? null
          : Sketches.toBytes(Sketches.writer(sketch), Sketches.byteSize(sketch) + 64);
    }

    @Override
    void writeState(OutputStream out) throws IOException {
      out.write(sketch == null ? 0 : 1);
      if (sketch != null) {
        DataOutputStream d = new DataOutputStream(out);
        d.writeBoolean(keyTypeUnknown);
        d.writeUTF(keyType == null ? "" : keyType);
        d.flush();
        Sketches.writer(sketch).writeTo(out);
      }
    }

    @Override
    long stateSize() {
      return sketch == null ? 1 : Sketches.byteSize(sketch) + 100;
    }

    @Override
    void readState(InputStream in) throws IOException {
      if (in.read() == 1) {
        DataInputStream d = new DataInputStream(in);
        keyTypeUnknown = d.readBoolean();
        String t = d.readUTF();
        keyType = t.isEmpty() ? null : t;
        sketch = Sketches.read(in);
      }
    }
  }
}
