package io.github.probkit.redis;

import io.github.probkit.frequency.CountMinSketch;
import io.github.probkit.hash.HashAlgorithm;
import io.github.probkit.io.SketchWriter;
import io.github.probkit.io.StructureType;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import redis.clients.jedis.Response;

/**
 * A count-min sketch kept in Redis: the counters of {@link CountMinSketch} of the same dimensions,
 * hashing and update rule, the same bytes (unsigned 64-bit little-endian, row by row).
 *
 * <p>Adds run in a Lua script, one call per batch, each item atomic with the library's rule
 * (standard: every row gains the count; conservative: only the rows below the new minimum rise),
 * saturating at 2^63 - 1 exactly as the library does. So every shard lives in one hash slot. The
 * total count N is the sum of row 0 (standard) or kept in {@code {name}:total} (conservative).
 *
 * <p>An add is not idempotent: it is not retried after a lost connection, and the error says how
 * many items of the batch were acknowledged (all or none: a batch is one script). Adding a batch
 * again after such an error counts its items twice if the first attempt was applied: the estimates
 * stay upper bounds of the true counts, larger by that batch.
 *
 * <p>Thread safety: safe for use by many threads and processes at once.
 */
public final class RedisCountMinSketch extends RedisStructure {
  private static final byte[] STANDARD = bytes("standard");
  private static final byte[] CONSERVATIVE = bytes("conservative");

  private final int width;
  private final int depth;
  private final boolean conservative;
  private final byte[] totalKey;

  RedisCountMinSketch(RedisStore store, String name, Meta meta) {
    super(store, name, meta);
    ByteBuffer p = ByteBuffer.wrap(meta.params).order(ByteOrder.LITTLE_ENDIAN);
    this.width = p.getInt();
    this.depth = p.getInt();
    this.conservative = p.get() == 1;
    this.totalKey = bytes(totalKey(name));
  }

  static String totalKey(String name) {
    return "{" + name + "}:total";
  }

  /** Creates a sketch of {@code width} counters per row and {@code depth} rows. */
  public static RedisCountMinSketch create(RedisStore store, String name, int width, int depth,
      boolean conservative, RedisOptions options) {
    Meta meta = store.create(name, meta(width, depth, conservative, options), options.openIfExists(), null);
    return new RedisCountMinSketch(store, name, meta);
  }

  /** Creates a sketch sized as {@link CountMinSketch#create(double, double)} sizes it. */
  public static RedisCountMinSketch create(RedisStore store, String name, double epsilon, double delta,
      boolean conservative, RedisOptions options) {
    return create(store, name, CountMinSketch.widthFor(epsilon, delta), CountMinSketch.depthFor(delta),
        conservative, options);
  }

  static Meta meta(int width, int depth, boolean conservative, RedisOptions o) {
    if (width < 1 || depth < 1 || depth > CountMinSketch.MAX_DEPTH
        || (long) width * depth > CountMinSketch.MAX_COUNTERS) {
      throw new IllegalArgumentException(String.format(java.util.Locale.ROOT,
          "a count-min sketch needs width >= 1, depth in [1, %d] and width * depth <= %d, was %d x %d",
          CountMinSketch.MAX_DEPTH, CountMinSketch.MAX_COUNTERS, width, depth));
    }
    if (o.hash().algorithm() == HashAlgorithm.FNV1A_64 && depth > 2) {
      throw new IllegalArgumentException("the fnv1a strategy has row seeds for depth 1 or 2 only, was depth " + depth);
    }
    if (o.layout() != Layout.SLOT) {
      throw new IllegalArgumentException("a count-min sketch's adds are atomic scripts over all its "
          + "shards, which must share a hash slot: use Layout.SLOT, was " + o.layout());
    }
    ByteBuffer p = ByteBuffer.allocate(17).order(ByteOrder.LITTLE_ENDIAN);
    p.putInt(width).putInt(depth).put((byte) (conservative ? 1 : 0)).putLong(0);
    long payload = 8L * width * depth;
    long[] shards = shardsFor(payload, o);
    return new Meta(StructureType.COUNT_MIN_SKETCH, o.hash(), Layout.SLOT, (int) shards[0], shards[1], payload,
        p.array(), null, false);
  }

  public static RedisCountMinSketch open(RedisStore store, String name) {
    return new RedisCountMinSketch(store, name, open(store, name, StructureType.COUNT_MIN_SKETCH));
  }

  // ---- adding

  public void add(Object item, long count) {
    addAll(Map.of(item, count));
  }

  /** Adds one occurrence of each item (a repeated item counts each time). */
  public void addAll(Collection<?> items) {
    List<byte[]> ks = keyBytes(items);
    long[] counts = new long[ks.size()];
    java.util.Arrays.fill(counts, 1);
    add(ks, counts);
  }

  /** Adds each item's count (count >= 0). */
  public void addAll(Map<?, Long> counts) {
    List<byte[]> ks = new ArrayList<>(counts.size());
    long[] c = new long[counts.size()];
    int i = 0;
    for (Map.Entry<?, Long> e : counts.entrySet()) {
      if (e.getValue() == null || e.getValue() < 0) {
        throw new IllegalArgumentException("count must be non-negative, was " + e.getValue() + " for " + e.getKey());
      }
      ks.add(keyBytes(e.getKey()));
      c[i++] = e.getValue();
    }
    add(ks, c);
  }

  private void add(List<byte[]> items, long[] counts) {
    List<byte[]> keys = new ArrayList<>(List.of(shardKeys));
    keys.add(totalKey);
    int[] col = new int[depth];
    for (int from = 0; from < items.size(); from += store.batchSize()) {
      int to = Math.min(items.size(), from + store.batchSize());
      List<byte[]> args = new ArrayList<>();
      args.add(conservative ? CONSERVATIVE : STANDARD);
      args.add(ascii(depth));
      for (int i = from; i < to; i++) {
        if (counts[i] == 0) {
          continue; // as the library: no change, not even to the total
        }
        byte[] item = items.get(i);
        CountMinSketch.columns(meta.hash, width, depth, item, 0, item.length, col);
        args.add(ascii(counts[i] >>> 32));
        args.add(ascii(counts[i] & 0xFFFFFFFFL));
        for (int r = 0; r < depth; r++) {
          long b = 8 * ((long) r * width + col[r]);
          args.add(ascii(shardOf(b) + 1));
          args.add(ascii(b % meta.shardBytes));
        }
      }
      script("add", false, Scripts.COUNT_MIN, keys, args, to - from);
    }
  }

  // ---- estimating

  public long estimate(Object item) {
    return estimateAll(List.of(item))[0];
  }

  /** The smallest of each item's counters: never below its true count. */
  public long[] estimateAll(Collection<?> items) {
    List<byte[]> ks = keyBytes(items);
    long[] out = new long[ks.size()];
    int[] col = new int[depth];
    for (int from = 0; from < ks.size(); from += store.batchSize()) {
      int to = Math.min(ks.size(), from + store.batchSize());
      int first = from;
      Batch b = store.run(this, "estimate", true, bt -> {
        for (int i = first; i < to; i++) {
          byte[] item = ks.get(i);
          CountMinSketch.columns(meta.hash, width, depth, item, 0, item.length, col);
          for (int r = 0; r < depth; r++) {
            long at = 8 * ((long) r * width + col[r]);
            long o = at % meta.shardBytes;
            bt.add(bt.pipe.getrange(shardKeys[shardOf(at)], o, o + 7));
          }
          bt.endKey();
        }
      });
      for (int i = from; i < to; i++) {
        long min = Long.MAX_VALUE;
        for (Response<?> r : b.of(i - from)) {
          min = Math.min(min, ByteBuffer.wrap((byte[]) r.get()).order(ByteOrder.LITTLE_ENDIAN).getLong());
        }
        out[i] = min;
      }
    }
    return out;
  }

  /** N, the sum of all counts added (saturating at 2^63 - 1). */
  public long totalCount() {
    byte[][] snap = snapshot();
    return total(snap);
  }

  private long total(byte[][] snap) {
    if (conservative) {
      return ByteBuffer.wrap(snap[snap.length - 1]).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }
    long sum = 0;
    ByteBuffer row0 = ByteBuffer.wrap(concat(snap, 8L * width)).order(ByteOrder.LITTLE_ENDIAN);
    for (int c = 0; c < width; c++) {
      long s = sum + row0.getLong();
      sum = s < 0 ? Long.MAX_VALUE : s;
    }
    return sum;
  }

  /** Every shard and the total, read in one script: a consistent state. */
  private byte[][] snapshot() {
    List<byte[]> keys = new ArrayList<>(List.of(shardKeys));
    keys.add(totalKey);
    List<?> got = (List<?>) store.call(() -> store.jedis().eval(Scripts.SNAPSHOT, keys, List.of()));
    byte[][] out = new byte[got.size()][];
    for (int i = 0; i < out.length; i++) {
      out[i] = got.get(i) instanceof byte[] ? (byte[]) got.get(i) : null;
      long expected = i < meta.shards ? meta.shardLength(i) : 8;
      checkLength(keys.get(i), out[i], expected);
    }
    return out;
  }

  /** The first {@code n} bytes of the shards, in order. */
  private static byte[] concat(byte[][] shards, long n) {
    byte[] out = new byte[(int) n];
    int at = 0;
    for (byte[] s : shards) {
      int len = (int) Math.min(s.length, n - at);
      System.arraycopy(s, 0, out, at, len);
      at += len;
      if (at == n) {
        break;
      }
    }
    return out;
  }

  /**
   * Writes the sketch as a probkit file, from one consistent read of its counters and total (held in
   * memory: the sketch's size).
   */
  @Override
  public void exportTo(OutputStream out) throws IOException {
    byte[][] snap = snapshot();
    ByteBuffer p = ByteBuffer.wrap(meta.params.clone()).order(ByteOrder.LITTLE_ENDIAN);
    p.putLong(9, total(snap));
    SketchWriter w = SketchWriter.begin(out, meta.type, meta.hash, p.array(), meta.payload);
    for (int s = 0; s < meta.shards; s++) {
      w.writeBytes(snap[s], 0, snap[s].length);
    }
    w.finish();
  }

  // ---- introspection

  public int width() {
    return width;
  }

  public int depth() {
    return depth;
  }

  public boolean isConservative() {
    return conservative;
  }
}
