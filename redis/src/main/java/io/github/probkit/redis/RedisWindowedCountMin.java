package io.github.probkit.redis;

import io.github.probkit.frequency.CountMinSketch;
import io.github.probkit.frequency.WindowedCountMin;
import io.github.probkit.io.SketchReader;
import io.github.probkit.io.SketchWriter;
import io.github.probkit.io.StructureType;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * Frequencies over sliding windows of time, kept in Redis and shared by many writers: the library's
 * {@link WindowedCountMin} (one count-min sketch per slice of time, slices aligned on the epoch),
 * with each slice's counters in a Redis string of its own, big-endian as {@link
 * RedisCountMinSketch} keeps them. Rotation, clock skew, TTLs: {@link WindowedSlices}.
 *
 * <p>{@link #estimate} is the library's: the sum over the window's slices of the item's smallest
 * counter in each, computed by one script (a consistent state, two numbers per item sent back):
 * never below the item's true count in those slices. Slices use the standard update rule (each add
 * raises every row's counter), one {@code BITFIELD ... OVERFLOW SAT INCRBY} per item in the batch's
 * script, saturating at 2^63 - 1 as the library does; the conservative rule is not offered.
 *
 * <p>Export is byte for byte the library's file of the same events. An add is not idempotent: a
 * batch is sent again only when Redis proves it was not applied (as {@link RedisCountMinSketch}).
 *
 * <p>Thread safety: safe for use by many threads and processes at once.
 */
public final class RedisWindowedCountMin extends WindowedSlices implements TimedAdds.Counted {
  private static final byte[] CMS = bytes("cms");
  private static final byte[] MERGE = bytes("merge");

  private final int width;
  private final int depth;

  RedisWindowedCountMin(RedisStore store, String name, Meta meta) {
    super(store, name, meta);
    ByteBuffer b = ByteBuffer.wrap(meta.params).order(ByteOrder.LITTLE_ENDIAN);
    this.width = b.getInt(PREFIX);
    this.depth = b.getInt(PREFIX + 4);
  }

  /**
   * Creates windows of up to {@code maxWindow} in slices of {@code slice}, each a standard
   * count-min sketch of {@code width} x {@code depth}, as {@link WindowedCountMin#create} shapes
   * them, tolerating clocks {@link RedisOptions#maxSkew} apart.
   */
  public static RedisWindowedCountMin create(
      RedisStore store,
      String name,
      Duration maxWindow,
      Duration slice,
      int width,
      int depth,
      RedisOptions o) {
    Objects.requireNonNull(maxWindow, "maxWindow");
    Objects.requireNonNull(slice, "slice");
    int[] s = slotsFor(maxWindow, slice, o);
    Meta meta = meta(slice.toMillis(), s[0], width, depth, s[1], o);
    return new RedisWindowedCountMin(store, name, store.create(name, meta, o.openIfExists(), null));
  }

  /** The same, each slice sized as {@link CountMinSketch#create(double, double)} sizes it. */
  public static RedisWindowedCountMin create(
      RedisStore store,
      String name,
      Duration maxWindow,
      Duration slice,
      double epsilon,
      double delta,
      RedisOptions o) {
    return create(
        store,
        name,
        maxWindow,
        slice,
        CountMinSketch.widthFor(epsilon, delta),
        CountMinSketch.depthFor(delta),
        o);
  }

  /** Opens the windowed count-min sketch {@code name}. */
  public static RedisWindowedCountMin open(RedisStore store, String name) {
    return new RedisWindowedCountMin(
        store, name, open(store, name, StructureType.WINDOWED_COUNT_MIN));
  }

  /** Parameters: slice ms (u64), the library's slots (u32), width (u32), depth (u32). */
  static Meta meta(
      long sliceMillis, int ringSlots, int width, int depth, int slots, RedisOptions o) {
    // The slice's shape and hashing, checked as the non-windowed sketch checks them.
    RedisCountMinSketch.meta(width, depth, false, RedisOptions.defaults().hash(o.hash()));
    ByteBuffer params = params(8, sliceMillis, ringSlots).putInt(width).putInt(depth);
    return meta(StructureType.WINDOWED_COUNT_MIN, params, 8L * width * depth, slots, o);
  }

  /** For Meta.describe. */
  static String shape(ByteBuffer p, int slots) {
    int w = p.getInt(PREFIX);
    int d = p.getInt(PREFIX + 4);
    return WindowedSlices.shape(p, slots, "count-min sketches of " + w + " x " + d);
  }

  // ---- adding

  @Override
  public boolean[] addAll(List<?> items, long[] counts, long[] timesMillis) {
    TimedAdds.Counted.checkLengths(items, counts, timesMillis);
    for (long c : counts) {
      if (c < 0) {
        throw new IllegalArgumentException("count must be non-negative, was " + c);
      }
    }
    List<byte[]> ks = keyBytes(items);
    boolean[] out = new boolean[ks.size()];
    int[] col = new int[depth];
    for (int from = 0; from < ks.size(); from += store.batchSize()) {
      int to = Math.min(ks.size(), from + store.batchSize());
      List<byte[]> args = args(CMS, 1 + (2 + depth) * (to - from));
      args.add(ascii(depth));
      for (int i = from; i < to; i++) {
        byte[] item = ks.get(i);
        CountMinSketch.columns(meta.hash, width, depth, item, 0, item.length, col);
        args.add(ascii(slice(timesMillis[i])));
        args.add(ascii(counts[i]));
        for (int r = 0; r < depth; r++) {
          args.add(ascii(64 * ((long) r * width + col[r])));
        }
      }
      List<?> reply = add(args, from, to - from);
      flags(reply.subList(1, reply.size()), out, from);
    }
    return out;
  }

  // ---- estimating

  public long estimate(Object item, Duration last, long now) {
    return estimateAll(List.of(item), last, now)[0];
  }

  /**
   * Each item's estimated count in the window of {@code last} ending at {@code now}: the sum of its
   * slices' estimates, as {@link WindowedCountMin#estimate}; never below its true count there.
   */
  public long[] estimateAll(Collection<?> items, Duration last, long now) {
    long[] span = window(last, now);
    List<byte[]> ks = keyBytes(items);
    long[] out = new long[ks.size()];
    int[] col = new int[depth];
    for (int from = 0; from < ks.size(); from += store.batchSize()) {
      int to = Math.min(ks.size(), from + store.batchSize());
      List<byte[]> args = args(ESTIMATE, 3 + depth * (to - from));
      args.add(ascii(span[0]));
      args.add(ascii(span[1]));
      args.add(ascii(depth));
      for (int i = from; i < to; i++) {
        byte[] item = ks.get(i);
        CountMinSketch.columns(meta.hash, width, depth, item, 0, item.length, col);
        for (int r = 0; r < depth; r++) {
          args.add(ascii(64 * ((long) r * width + col[r])));
        }
      }
      List<?> reply =
          (List<?>) store.read(() -> store.jedis().eval(Scripts.SLICES, scriptKeys, args));
      for (int i = from; i < to && reply.size() > 1; i++) {
        int j = 1 + 2 * (i - from);
        out[i] = (Long) reply.get(j) << 32 | (Long) reply.get(j + 1);
      }
    }
    return out;
  }

  /** The sketch of the window of {@code last} ending at {@code now}: its slices' counters added. */
  public CountMinSketch sketchOfLast(Duration last, long now) {
    CountMinSketch out = slice(null);
    for (byte[] s : slicesOf(window(last, now))) {
      if (s != null) {
        out.merge(slice(s));
      }
    }
    return out;
  }

  private CountMinSketch slice(byte[] payload) {
    try {
      return CountMinSketch.readFrom(new ByteArrayInputStream(sliceFile(payload)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  // ---- merging

  /**
   * Adds the counts of {@code other} slice by slice, as {@link WindowedCountMin#merge} does, in one
   * script: this ring first moves to {@code other}'s newest slice when that is newer, then each
   * slice of {@code other} still among the slots gets its counters (saturating at 2^63 - 1).
   * Readers and writers see the window before or after the whole merge, never a part of it; the
   * export is then the file of the library's merge. Not idempotent: a failure after the script was
   * sent is reported, not retried.
   *
   * @throws IllegalArgumentException before anything is written, when the rings differ in slices or
   *     their sketches in shape, update rule or hashing
   */
  public RedisWindowedCountMin merge(WindowedCountMin other) {
    try {
      Ring ring = mergeable(other);
      if (ring.newest() == NONE) {
        return this;
      }
      List<byte[]> args = args(MERGE, 1);
      args.add(ascii(ring.newest()));
      for (int i = 0; i < ringSlots; i++) {
        ByteBuffer counters = ByteBuffer.wrap(slicePayload(ring.slices()[i])); // big-endian
        int sizeAt = -1;
        for (int at = 0; at < counters.capacity(); at += 8) {
          long v = counters.getLong(at);
          if (v == 0) {
            continue;
          }
          if (sizeAt < 0) {
            args.add(ascii(ring.newest() - Math.floorMod(ring.newest() - i, (long) ringSlots)));
            sizeAt = args.size();
            args.add(null);
          }
          args.add(ascii(8L * at));
          args.add(ascii(v));
        }
        if (sizeAt >= 0) {
          args.set(sizeAt, ascii((args.size() - sizeAt - 1) / 2));
        }
      }
      script("merge", false, script(), scriptKeys, args, 0, 1);
      return this;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Refuses, naming both, a ring of other slices or a sketch of other shape, rule or hashing. */
  public void checkMergeable(WindowedCountMin other) {
    try {
      mergeable(other);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@link #checkMergeable}, returning {@code other}'s ring as its file holds it. */
  private Ring mergeable(WindowedCountMin other) throws IOException {
    ByteArrayOutputStream file = new ByteArrayOutputStream();
    other.writeTo(file);
    Ring ring = Ring.read(file.toByteArray(), StructureType.WINDOWED_COUNT_MIN);
    CountMinSketch s = CountMinSketch.readFrom(new ByteArrayInputStream(ring.slices()[0]));
    checkMerge(
        ring.sliceMillis() == sliceMillis
            && ring.slots() == ringSlots
            && s.width() == width
            && s.depth() == depth
            && !s.isConservative()
            && s.hashStrategy().equals(meta.hash),
        String.format(
            Locale.ROOT,
            "window of %d slices of %d ms, count-min sketches of %d x %d%s, %s",
            ring.slots(),
            ring.sliceMillis(),
            s.width(),
            s.depth(),
            s.isConservative() ? ", conservative" : "",
            s.hashStrategy()));
    return ring;
  }

  // ---- export and import

  @Override
  byte[] sliceFile(byte[] payload) throws IOException {
    byte[] le = payload == null ? new byte[(int) meta.shardBytes] : payload.clone();
    RedisCountMinSketch.swapCounters(le, le.length);
    // The total of the standard rule: the saturating sum of row 0.
    ByteBuffer row0 = ByteBuffer.wrap(le).order(ByteOrder.LITTLE_ENDIAN);
    long total = 0;
    for (int c = 0; c < width; c++) {
      long s = total + row0.getLong(8 * c);
      total = s < 0 ? Long.MAX_VALUE : s;
    }
    byte[] params =
        ByteBuffer.allocate(17)
            .order(ByteOrder.LITTLE_ENDIAN)
            .putInt(width)
            .putInt(depth)
            .put((byte) 0)
            .putLong(total)
            .array();
    ByteArrayOutputStream out = new ByteArrayOutputStream(le.length + 64);
    SketchWriter w =
        SketchWriter.begin(out, StructureType.COUNT_MIN_SKETCH, meta.hash, params, le.length);
    w.writeBytes(le, 0, le.length);
    w.finish();
    return out.toByteArray();
  }

  @Override
  byte[] slicePayload(byte[] file) throws IOException {
    SketchReader r =
        SketchReader.open(new ByteArrayInputStream(file), StructureType.COUNT_MIN_SKETCH);
    byte[] b = r.readBytes((int) meta.shardBytes, "counters");
    RedisCountMinSketch.swapCounters(b, b.length);
    return b;
  }

  @Override
  StructureType ringType() {
    return StructureType.WINDOWED_COUNT_MIN;
  }

  /** The library's ring of these bytes (one atomic read). */
  public WindowedCountMin toWindowed() {
    return toLibrary(WindowedCountMin::readFrom);
  }

  /**
   * Creates {@code name} from the library's file {@code file} (type 50, read whole by {@link
   * WindowedCountMin#readFrom} first): readers see it only once every slice is in Redis.
   */
  static RedisWindowedCountMin importFrom(
      RedisStore store, String name, byte[] file, RedisOptions o) throws IOException {
    WindowedCountMin w = WindowedCountMin.readFrom(new ByteArrayInputStream(file));
    Ring ring = Ring.read(file, StructureType.WINDOWED_COUNT_MIN);
    CountMinSketch s = CountMinSketch.readFrom(new ByteArrayInputStream(ring.slices()[0]));
    if (s.isConservative()) {
      throw new IllegalArgumentException(
          "a windowed count-min sketch of conservative slices cannot be kept in Redis (its slices"
              + " add by the standard rule)");
    }
    RedisOptions ho = o.hash(s.hashStrategy());
    int slots = slotsOfRing(w.sliceMillis(), w.sliceCount(), ho);
    Meta wanted = meta(w.sliceMillis(), w.sliceCount(), s.width(), s.depth(), slots, ho);
    return create(store, name, wanted, ring, RedisWindowedCountMin::new);
  }

  public int width() {
    return width;
  }

  public int depth() {
    return depth;
  }
}
