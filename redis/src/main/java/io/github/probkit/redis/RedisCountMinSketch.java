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
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import redis.clients.jedis.Response;

/**
 * A count-min sketch kept in Redis: the counters of {@link CountMinSketch} of the same dimensions,
 * hashing and update rule, row by row as in the file, but each counter big-endian.
 *
 * <p>The one layout that differs from the file's: Redis adds to a counter natively only big-endian
 * ({@code BITFIELD … OVERFLOW SAT INCRBY i64}, which saturates at 2^63 - 1 exactly as the library
 * does), so the counters are kept big-endian and export and import reverse the bytes of each; the
 * file is still the library's, byte for byte. A standard add is then one {@code BITFIELD} per item,
 * atomic, pipelined (a sketch of several shards, whose rows may lie in different strings, adds
 * through a script instead). A conservative add reads the item's counters, takes their minimum and
 * raises those below it: a Lua script, one call per batch with the batch packed in two arguments,
 * each counter read and written once per batch, items applied in order (each atomic); counters past
 * 2^53, where Lua's numbers stop being exact, are handled as two 32-bit halves. The total N is the
 * sum of row 0 (standard) or kept in {@code {name}:total} (conservative). Every shard lives in one
 * hash slot.
 *
 * <p>An add is not idempotent: it is sent again only when Redis refused it or its connection never
 * opened, never after a lost reply, and the error says how many items of the batch were
 * acknowledged. Adding them again after such an error counts twice those that had been applied: the
 * estimates stay upper bounds of the true counts (count-min never underestimates), larger by those
 * items, and so does the total.
 *
 * <p>Thread safety: safe for use by many threads and processes at once.
 */
public final class RedisCountMinSketch extends RedisStructure {
  private static final byte[] STANDARD = bytes("standard");
  private static final byte[] CONSERVATIVE = bytes("conservative");
  private static final Arg I64 = new Arg("i64");
  private static final Arg U32 = new Arg("u32");

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
  public static RedisCountMinSketch create(
      RedisStore store,
      String name,
      int width,
      int depth,
      boolean conservative,
      RedisOptions options) {
    Meta meta =
        store.create(name, meta(width, depth, conservative, options), options.openIfExists(), null);
    return new RedisCountMinSketch(store, name, meta);
  }

  /** Creates a sketch sized as {@link CountMinSketch#create(double, double)} sizes it. */
  public static RedisCountMinSketch create(
      RedisStore store,
      String name,
      double epsilon,
      double delta,
      boolean conservative,
      RedisOptions options) {
    return create(
        store,
        name,
        CountMinSketch.widthFor(epsilon, delta),
        CountMinSketch.depthFor(delta),
        conservative,
        options);
  }

  static Meta meta(int width, int depth, boolean conservative, RedisOptions o) {
    if (width < 1
        || depth < 1
        || depth > CountMinSketch.MAX_DEPTH
        || (long) width * depth > CountMinSketch.MAX_COUNTERS) {
      throw new IllegalArgumentException(
          String.format(
              java.util.Locale.ROOT,
              "a count-min sketch needs width >= 1, depth in [1, %d] and width * depth <= %d, was %d x %d",
              CountMinSketch.MAX_DEPTH,
              CountMinSketch.MAX_COUNTERS,
              width,
              depth));
    }
    if (o.hash().algorithm() == HashAlgorithm.FNV1A_64 && depth > 2) {
      throw new IllegalArgumentException(
          "the fnv1a strategy has row seeds for depth 1 or 2 only, was depth " + depth);
    }
    ByteBuffer p = ByteBuffer.allocate(17).order(ByteOrder.LITTLE_ENDIAN);
    p.putInt(width).putInt(depth).put((byte) (conservative ? 1 : 0)).putLong(0);
    return slotMeta(
        StructureType.COUNT_MIN_SKETCH,
        "a count-min sketch's adds",
        8L * width * depth,
        p.array(),
        o);
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
        throw new IllegalArgumentException(
            "count must be non-negative, was " + e.getValue() + " for " + e.getKey());
      }
      ks.add(keyBytes(e.getKey()));
      c[i++] = e.getValue();
    }
    add(ks, c);
  }

  private void add(List<byte[]> items, long[] counts) {
    if (!conservative && meta.shards == 1) {
      addNatively(items, counts);
      return;
    }
    List<byte[]> keys = new ArrayList<>(List.of(shardKeys));
    keys.add(totalKey);
    int[] col = new int[depth];
    for (int from = 0; from < items.size(); from += store.batchSize()) {
      int to = Math.min(items.size(), from + store.batchSize());
      // countmin.lua's batch: the distinct counters (shard, bit offset) sorted, then per item the
      // count's halves and the index of each row's counter.
      long[] refs = new long[(to - from) * depth];
      int n = 0;
      for (int i = from; i < to; i++) {
        if (counts[i] == 0) {
          continue; // as the library: no change, not even to the total
        }
        byte[] item = items.get(i);
        CountMinSketch.columns(meta.hash, width, depth, item, 0, item.length, col);
        for (int r = 0; r < depth; r++) {
          long b = 8 * ((long) r * width + col[r]);
          refs[n++] = (long) (shardOf(b) + 1) << 32 | 8 * (b % meta.shardBytes);
        }
      }
      long[] counters = Arrays.copyOf(refs, n);
      Arrays.sort(counters);
      int m = 0;
      for (int j = 0; j < n; j++) {
        if (m == 0 || counters[j] != counters[m - 1]) {
          counters[m++] = counters[j];
        }
      }
      ByteBuffer cs = msgpackU32s(2 * m);
      for (int j = 0; j < m; j++) {
        cs.put(MSGPACK_U32)
            .putInt((int) (counters[j] >>> 32))
            .put(MSGPACK_U32)
            .putInt((int) counters[j]);
      }
      ByteBuffer is = msgpackU32s(n / depth * (2 + depth));
      for (int i = from, k = 0; i < to; i++) {
        if (counts[i] != 0) {
          is.put(MSGPACK_U32)
              .putInt((int) (counts[i] >>> 32))
              .put(MSGPACK_U32)
              .putInt((int) counts[i]);
          for (int r = 0; r < depth; r++, k++) {
            is.put(MSGPACK_U32).putInt(Arrays.binarySearch(counters, 0, m, refs[k]) + 1);
          }
        }
      }
      List<byte[]> args = new ArrayList<>();
      args.add(conservative ? CONSERVATIVE : STANDARD);
      args.add(ascii(depth));
      args.add(cs.array());
      args.add(is.array());
      script(
          "add", false, Scripts.COUNT_MIN, keys, guard(args, 1, 0, meta.shards), from, to - from);
    }
  }

  /** msgpack's uint 32 tag: each number is this byte, then its 4 big-endian bytes. */
  private static final byte MSGPACK_U32 = (byte) 0xce;

  /**
   * A buffer holding the header of a msgpack array of {@code n} numbers (array 32), with room for
   * them as uint 32s: countmin.lua turns it into a table with one {@code cmsgpack.unpack}.
   */
  private static ByteBuffer msgpackU32s(int n) {
    return ByteBuffer.allocate(5 + 5 * n).put((byte) 0xdd).putInt(n);
  }

  /** The standard rule on one string: one saturating BITFIELD per item, pipelined. */
  private void addNatively(List<byte[]> items, long[] counts) {
    int[] col = new int[depth];
    for (int from = 0; from < items.size(); from += store.batchSize()) {
      int to = Math.min(items.size(), from + store.batchSize());
      runKeys(
          "add",
          false,
          from,
          to,
          (bt, i) -> {
            if (counts[i] != 0) {
              byte[] item = items.get(i);
              CountMinSketch.columns(meta.hash, width, depth, item, 0, item.length, col);
              Cmd args = bitfield(0, false).add(OVERFLOW).add(SAT);
              Arg count = Arg.of(counts[i]);
              for (int r = 0; r < depth; r++) {
                args.add(INCRBY).add(I64).add(Arg.of(64 * ((long) r * width + col[r]))).add(count);
              }
              queue(bt, args);
            }
            bt.endKey();
          });
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
    int[] shard = new int[2 * depth];
    long[] bit = new long[2 * depth];
    for (int from = 0; from < ks.size(); from += store.batchSize()) {
      int to = Math.min(ks.size(), from + store.batchSize());
      Batch b =
          runKeys(
              "estimate",
              true,
              from,
              to,
              (bt, i) -> {
                byte[] item = ks.get(i);
                CountMinSketch.columns(meta.hash, width, depth, item, 0, item.length, col);
                // Each counter as two u32 halves: the script's numbers are doubles, exact to 2^53.
                for (int r = 0; r < depth; r++) {
                  long at = 8 * ((long) r * width + col[r]);
                  shard[2 * r] = shard[2 * r + 1] = shardOf(at);
                  bit[2 * r] = 8 * (at % meta.shardBytes);
                  bit[2 * r + 1] = bit[2 * r] + 32;
                }
                queueBitfield(bt, 2 * depth, shard, bit, GET, U32, null);
                bt.endKey();
              });
      for (int i = from; i < to; i++) {
        long min = Long.MAX_VALUE;
        for (Response<?> r : b.of(i - from)) {
          // A shard's halves come in cell order: each high half followed by its low half.
          List<?> v = (List<?>) r.get();
          for (int j = 0; j + 1 < v.size(); j += 2) {
            min = Math.min(min, (Long) v.get(j) << 32 | (Long) v.get(j + 1));
          }
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
      return ByteBuffer.wrap(snap[snap.length - 1]).getLong(); // big-endian, as the counters
    }
    long sum = 0;
    ByteBuffer row0 = ByteBuffer.wrap(concat(snap, 8L * width));
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
    List<byte[]> args = guard(new ArrayList<>(), 1, 0, meta.shards);
    List<?> got = (List<?>) store.read(() -> store.jedis().eval(Scripts.SNAPSHOT, keys, args));
    byte[][] out = new byte[got.size()][];
    for (int i = 0; i < out.length; i++) {
      out[i] = got.get(i) instanceof byte[] ? (byte[]) got.get(i) : null;
      long expected = i < meta.shards ? meta.shardLength(i) : 8;
      if (i < meta.shards) {
        checkLength(keys.get(i), out[i], expected + ID_BYTES);
        out[i] = Arrays.copyOf(out[i], (int) expected); // the id that ends the shard dropped
      }
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
   * Writes the sketch as a probkit file, from one consistent read of its counters and total (held
   * in memory: the sketch's size).
   */
  @Override
  public void exportTo(OutputStream out) throws IOException {
    byte[][] snap = snapshot();
    ByteBuffer p = ByteBuffer.wrap(meta.params.clone()).order(ByteOrder.LITTLE_ENDIAN);
    p.putLong(9, total(snap));
    SketchWriter w = SketchWriter.begin(out, meta.type, meta.hash, p.array(), meta.payload);
    for (int s = 0; s < meta.shards; s++) {
      swapCounters(snap[s], snap[s].length);
      w.writeBytes(snap[s], 0, snap[s].length);
    }
    w.finish();
  }

  /**
   * Reverses the bytes of each 8-byte counter in {@code b[0, len)}: Redis's big-endian, the file's
   * little.
   */
  static void swapCounters(byte[] b, int len) {
    for (int i = 0; i + 8 <= len; i += 8) {
      for (int j = 0; j < 4; j++) {
        byte t = b[i + j];
        b[i + j] = b[i + 7 - j];
        b[i + 7 - j] = t;
      }
    }
  }

  // ---- merging

  /**
   * Adds the counters (and, conservative, the total) of {@code other}, a library sketch of the same
   * dimensions, update rule and hashing, into this sketch, saturating at 2^63 - 1 as {@link
   * CountMinSketch#merge} does: each non-zero counter by an {@code OVERFLOW SAT INCRBY i64}, in
   * commands of up to the store's batch size of counters, each atomic. Additions commute with other
   * clients' standard adds, none is lost, and the export is the file of the library's merge. A
   * conservative total is raised first, so that no reader ever sees a counter above the total. Not
   * idempotent: after a failure, the message says how many bytes of the source were added.
   *
   * @throws IllegalArgumentException before anything is written, when the sketches differ in shape
   */
  public RedisCountMinSketch merge(CountMinSketch other) {
    checkMergeable(other);
    if (conservative && other.totalCount() != 0) {
      store.run(
          this,
          "merge",
          false,
          0,
          1,
          bt -> {
            queue(
                bt,
                new Cmd(-1, totalKey, false)
                    .add(OVERFLOW)
                    .add(SAT)
                    .add(INCRBY)
                    .add(I64)
                    .add(Arg.of(0))
                    .add(Arg.of(other.totalCount())));
            bt.endKey();
          });
    }
    mergeCounters(
        other::writeTo,
        I64,
        bytes -> bytes / 8,
        (at, part, offset, value) -> {
          ByteBuffer le = ByteBuffer.wrap(part).order(ByteOrder.LITTLE_ENDIAN);
          int n = 0;
          for (int i = 0; i + 8 <= part.length; i += 8) {
            long v = le.getLong(i);
            if (v != 0) {
              offset[n] = 8 * (at + i);
              value[n++] = v;
            }
          }
          return n;
        });
    return this;
  }

  /** Refuses, naming both, a sketch of other dimensions, update rule or hashing. */
  public void checkMergeable(CountMinSketch other) {
    checkMerge(
        other.width() == width
            && other.depth() == depth
            && other.isConservative() == conservative
            && other.hashStrategy().equals(meta.hash),
        "count-min sketch of "
            + other.width()
            + " x "
            + other.depth()
            + (other.isConservative() ? ", conservative, " : ", standard, ")
            + other.hashStrategy());
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
