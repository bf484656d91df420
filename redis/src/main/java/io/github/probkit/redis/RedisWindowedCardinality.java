package io.github.probkit.redis;

import io.github.probkit.cardinality.CardinalitySketch;
import io.github.probkit.cardinality.CardinalitySketches;
import io.github.probkit.cardinality.HyperLogLog;
import io.github.probkit.cardinality.UltraLogLog;
import io.github.probkit.cardinality.WindowedCardinality;
import io.github.probkit.io.SketchWriter;
import io.github.probkit.io.StructureType;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Distinct counts over sliding windows of time, kept in Redis and shared by many writers: the
 * library's {@link WindowedCardinality} (one HyperLogLog or UltraLogLog per slice of time, slices
 * aligned on the epoch), with each slice's dense registers in a Redis string of its own. Rotation,
 * clock skew, TTLs: {@link WindowedSlices}.
 *
 * <p>{@link #count} reads the window's slices in one script (a consistent state) and merges them in
 * this client: a register-wise maximum over every slice of a window in Lua would hold Redis, which
 * runs one script at a time, for tens of milliseconds per count, and every writer with it. As a
 * merge of sketches is the sketch of the union, the error is the sketch's own ({@code
 * relativeStandardError}); the window has the library's slack (the part of its oldest slice before
 * {@code now - last}).
 *
 * <p>Registers are dense and carry no martingale estimate (it depends on the order of adds and
 * cannot be shared by writers), as {@link RedisCardinalitySketch}'s: the export is byte for byte
 * the library's file of a {@link WindowedCardinality} whose empty sketch is {@link
 * #emptySlice(StructureType, int, io.github.probkit.hash.HashStrategy)} fed the same events, and
 * its registers and counts equal those of any library ring fed them. Adds are idempotent: a batch
 * that lost its connection is sent again.
 *
 * <p>Thread safety: safe for use by many threads and processes at once.
 */
public final class RedisWindowedCardinality extends WindowedSlices implements TimedAdds {
  private static final byte[] HLL = bytes("hll");
  private static final byte[] ULL = bytes("ull");

  private final StructureType sketch;
  private final int p;

  RedisWindowedCardinality(RedisStore store, String name, Meta meta) {
    super(store, name, meta);
    ByteBuffer b = ByteBuffer.wrap(meta.params).order(ByteOrder.LITTLE_ENDIAN);
    this.sketch = StructureType.byId(b.get(PREFIX) & 0xFF);
    this.p = b.get(PREFIX + 1);
  }

  /**
   * Creates windows of up to {@code maxWindow} in slices of {@code slice} of HyperLogLog ({@code
   * ultra} false) or UltraLogLog sketches of {@code precision}, as {@link
   * WindowedCardinality#create} shapes them, tolerating clocks {@link RedisOptions#maxSkew} apart.
   */
  public static RedisWindowedCardinality create(
      RedisStore store,
      String name,
      Duration maxWindow,
      Duration slice,
      boolean ultra,
      int precision,
      RedisOptions o) {
    Objects.requireNonNull(maxWindow, "maxWindow");
    Objects.requireNonNull(slice, "slice");
    int[] s = slotsFor(maxWindow, slice, o);
    StructureType t = ultra ? StructureType.ULTRA_LOG_LOG : StructureType.HYPER_LOG_LOG;
    Meta meta = meta(slice.toMillis(), s[0], t, precision, s[1], o);
    return new RedisWindowedCardinality(
        store, name, store.create(name, meta, o.openIfExists(), null));
  }

  /** Opens the windowed cardinality sketch {@code name}. */
  public static RedisWindowedCardinality open(RedisStore store, String name) {
    return new RedisWindowedCardinality(
        store, name, open(store, name, StructureType.WINDOWED_CARDINALITY));
  }

  /** Parameters: slice ms (u64), the library's slots (u32), sketch type id (u8), precision (u8). */
  static Meta meta(
      long sliceMillis,
      int ringSlots,
      StructureType sketch,
      int precision,
      int slots,
      RedisOptions o) {
    if (sketch != StructureType.HYPER_LOG_LOG && sketch != StructureType.ULTRA_LOG_LOG) {
      throw new IllegalArgumentException("params: slices of " + sketch.label());
    }
    // The slice's shape and hashing, checked as the non-windowed sketch checks them.
    Meta slot =
        RedisCardinalitySketch.meta(sketch, precision, RedisOptions.defaults().hash(o.hash()));
    ByteBuffer params =
        params(2, sliceMillis, ringSlots).put((byte) sketch.id()).put((byte) precision);
    return meta(StructureType.WINDOWED_CARDINALITY, params, slot.payload, slots, o);
  }

  /** For Meta.describe. */
  static String shape(ByteBuffer p, int slots) {
    StructureType t = StructureType.byId(p.get(PREFIX) & 0xFF);
    int precision = p.get(PREFIX + 1);
    return WindowedSlices.shape(p, slots, t.label() + " of precision " + precision);
  }

  /**
   * The empty sketch of a library {@link WindowedCardinality} whose slices are like Redis's (dense,
   * no martingale estimate): its file equals this structure's export for the same events.
   */
  public static CardinalitySketch emptySlice(
      StructureType sketch, int precision, io.github.probkit.hash.HashStrategy hash) {
    Meta m = RedisCardinalitySketch.meta(sketch, precision, RedisOptions.defaults().hash(hash));
    try {
      return CardinalitySketches.readFrom(
          new ByteArrayInputStream(file(sketch, hash, m.params, new byte[(int) m.payload])));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static byte[] file(
      StructureType type, io.github.probkit.hash.HashStrategy hash, byte[] params, byte[] payload)
      throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream(payload.length + 64);
    SketchWriter w = SketchWriter.begin(out, type, hash, params, payload.length);
    w.writeBytes(payload, 0, payload.length);
    w.finish();
    return out.toByteArray();
  }

  // ---- adding

  /**
   * Adds {@code keys.get(i)} as of event time {@code timesMillis[i]}, as the library's {@code
   * add(key, time)} would, in order: a later slice rotates first, a late event goes to its own
   * slice while a slot holds it. Returns for each whether a register changed (false for an event
   * older than every slot).
   */
  @Override
  public boolean[] addAll(List<?> keys, long[] timesMillis) {
    List<byte[]> ks = TimedAdds.keyBytes(keys, timesMillis);
    boolean[] out = new boolean[ks.size()];
    byte[] op = sketch == StructureType.ULTRA_LOG_LOG ? ULL : HLL;
    for (int from = 0; from < ks.size(); from += store.batchSize()) {
      int to = Math.min(ks.size(), from + store.batchSize());
      List<byte[]> args = args(op, 3 * (to - from));
      for (int i = from; i < to; i++) {
        byte[] k = ks.get(i);
        long u = CardinalitySketches.registerUpdate(meta.hash, p, k, 0, k.length);
        args.add(ascii(slice(timesMillis[i])));
        args.add(ascii(u >>> 8));
        args.add(ascii(u & 0xFF));
      }
      List<?> reply = add(args, from, to - from);
      flags(reply.subList(1, reply.size()), out, from);
    }
    return out;
  }

  // ---- counting

  /**
   * The sketch of the keys of the window of {@code last} ending at {@code now}: the merge of its
   * slices, read in one script. Throws IllegalArgumentException when the window needs more slices
   * than the library's ring keeps.
   */
  public CardinalitySketch sketchOfLast(Duration last, long now) {
    CardinalitySketch out = emptySlice(sketch, p, meta.hash);
    for (byte[] slice : slicesOf(window(last, now))) {
      if (slice != null) {
        out.merge(sliceSketch(slice));
      }
    }
    return out;
  }

  /** The estimated distinct keys of the window of {@code last} ending at {@code now}. */
  public double count(Duration last, long now) {
    return sketchOfLast(last, now).estimate();
  }

  /**
   * The estimated distinct keys of the window of {@code last} ending at the system clock's time.
   */
  public double count(Duration last) {
    return count(last, System.currentTimeMillis());
  }

  private CardinalitySketch sliceSketch(byte[] payload) {
    try {
      if (sketch == StructureType.HYPER_LOG_LOG) {
        return HyperLogLog.fromDenseRegisters(p, meta.hash, payload); // no file to build and check
      }
      return CardinalitySketches.readFrom(new ByteArrayInputStream(sliceFile(payload)));
    } catch (IOException | IllegalArgumentException e) {
      throw new RedisStoreException(
          store.server(),
          "a slice of '" + name + "' holds registers no sketch can: " + e.getMessage());
    }
  }

  // ---- export and import

  @Override
  byte[] sliceFile(byte[] payload) throws IOException {
    Meta m = RedisCardinalitySketch.meta(sketch, p, RedisOptions.defaults().hash(meta.hash));
    return file(sketch, meta.hash, m.params, payload == null ? new byte[(int) m.payload] : payload);
  }

  @Override
  byte[] slicePayload(byte[] file) throws IOException {
    CardinalitySketch s = CardinalitySketches.readFrom(new ByteArrayInputStream(file));
    // Dense registers, as Redis keeps them (a sparse slice is folded; no martingale estimate).
    return s instanceof UltraLogLog
        ? ((UltraLogLog) s).registers()
        : ((HyperLogLog) s).denseRegisters();
  }

  @Override
  StructureType ringType() {
    return StructureType.WINDOWED_CARDINALITY;
  }

  /** The library's ring of these bytes (one atomic read). */
  public WindowedCardinality toWindowed() {
    return toLibrary(WindowedCardinality::readFrom);
  }

  /**
   * Creates {@code name} from the library's file {@code file} (type 49, already read whole by
   * {@link WindowedCardinality#readFrom}): readers see it only once every slice is in Redis.
   */
  static RedisWindowedCardinality importFrom(
      RedisStore store, String name, byte[] file, RedisOptions o) throws IOException {
    WindowedCardinality w = WindowedCardinality.readFrom(new ByteArrayInputStream(file));
    Ring ring = Ring.read(file, StructureType.WINDOWED_CARDINALITY);
    CardinalitySketch s = CardinalitySketches.readFrom(new ByteArrayInputStream(ring.slices()[0]));
    RedisOptions ho = o.hash(s.hashStrategy());
    int slots = slotsOfRing(w.sliceMillis(), w.sliceCount(), ho);
    Meta wanted = meta(w.sliceMillis(), w.sliceCount(), s.type(), s.precision(), slots, ho);
    return create(store, name, wanted, ring, RedisWindowedCardinality::new);
  }

  public int precision() {
    return p;
  }

  /** {@link StructureType#HYPER_LOG_LOG} or {@link StructureType#ULTRA_LOG_LOG}. */
  public StructureType sliceType() {
    return sketch;
  }
}
