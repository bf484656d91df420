package io.github.probkit.redis;

import io.github.probkit.cardinality.CardinalitySketch;
import io.github.probkit.cardinality.CardinalitySketches;
import io.github.probkit.cardinality.HyperLogLog;
import io.github.probkit.cardinality.UltraLogLog;
import io.github.probkit.io.StructureType;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * A HyperLogLog or UltraLogLog sketch kept in Redis: the dense registers of {@link HyperLogLog} (6
 * bits each, four in three bytes) or {@link UltraLogLog} (a byte each) of the same precision and
 * hashing, the same bytes.
 *
 * <p>Keys are hashed here; their (register, value) updates are applied by a Lua script, one call
 * per batch, as the library applies them (the largest value for HyperLogLog, the value window for
 * UltraLogLog). Updates are idempotent, so a batch that lost its connection is retried.
 *
 * <p>Unlike the library's sketches, a Redis-resident one is always dense (12 KiB at p = 14 for
 * HyperLogLog) and keeps no martingale estimate, which depends on the order of adds and cannot be
 * shared by many writers: {@link #estimate} is the registers' estimate, as after a merge. Its
 * export is the library's sketch of the same keys, dense and without the martingale estimate.
 *
 * <p>Thread safety: safe for use by many threads and processes at once.
 */
public final class RedisCardinalitySketch extends RedisStructure {
  private static final byte[] HLL = bytes("hll");
  private static final byte[] ULL = bytes("ull");

  private final int p;
  private final boolean ultra;

  RedisCardinalitySketch(RedisStore store, String name, Meta meta) {
    super(store, name, meta);
    this.p = meta.params[0];
    this.ultra = meta.type == StructureType.ULTRA_LOG_LOG;
  }

  /** Creates an empty HyperLogLog of 2^precision registers. */
  public static RedisCardinalitySketch createHyperLogLog(
      RedisStore store, String name, int precision, RedisOptions options) {
    return create(store, name, StructureType.HYPER_LOG_LOG, precision, options);
  }

  /** Creates an empty UltraLogLog of 2^precision registers. */
  public static RedisCardinalitySketch createUltraLogLog(
      RedisStore store, String name, int precision, RedisOptions options) {
    return create(store, name, StructureType.ULTRA_LOG_LOG, precision, options);
  }

  private static RedisCardinalitySketch create(
      RedisStore store, String name, StructureType type, int precision, RedisOptions o) {
    Meta meta = store.create(name, meta(type, precision, o), o.openIfExists(), null);
    return new RedisCardinalitySketch(store, name, meta);
  }

  static Meta meta(StructureType type, int precision, RedisOptions o) {
    if (precision < HyperLogLog.MIN_PRECISION || precision > HyperLogLog.MAX_PRECISION) {
      throw new IllegalArgumentException(
          "precision must be in ["
              + HyperLogLog.MIN_PRECISION
              + ", "
              + HyperLogLog.MAX_PRECISION
              + "], was "
              + precision);
    }
    // The library's own check of the hash strategy (a sketch of 16 registers).
    if (type == StructureType.HYPER_LOG_LOG) {
      HyperLogLog.create(HyperLogLog.MIN_PRECISION, o.hash());
    } else {
      UltraLogLog.create(UltraLogLog.MIN_PRECISION, o.hash());
    }
    byte[] params;
    long payload;
    if (type == StructureType.HYPER_LOG_LOG) {
      // precision, dense, no martingale estimate, no sparse entries, estimate 0
      params =
          ByteBuffer.allocate(15)
              .order(ByteOrder.LITTLE_ENDIAN)
              .put((byte) precision)
              .put((byte) 1)
              .put((byte) 0)
              .putInt(0)
              .putDouble(0)
              .array();
      payload = HyperLogLog.denseBytes(precision);
    } else {
      params =
          ByteBuffer.allocate(10)
              .order(ByteOrder.LITTLE_ENDIAN)
              .put((byte) precision)
              .put((byte) 0)
              .putDouble(0)
              .array();
      payload = 1L << precision;
    }
    return new Meta(type, o.hash(), Layout.SLOT, 1, payload, payload, params, null, false);
  }

  /** Opens the HyperLogLog or UltraLogLog {@code name}. */
  public static RedisCardinalitySketch open(RedisStore store, String name) {
    return new RedisCardinalitySketch(
        store, name, open(store, name, StructureType.HYPER_LOG_LOG, StructureType.ULTRA_LOG_LOG));
  }

  // ---- adding

  public boolean add(Object key) {
    return addAll(List.of(key))[0];
  }

  /** Adds the keys; returns for each whether its register changed. */
  public boolean[] addAll(Collection<?> keys) {
    List<byte[]> ks = keyBytes(keys);
    long[] updates = new long[ks.size()];
    for (int i = 0; i < updates.length; i++) {
      byte[] k = ks.get(i);
      updates[i] = CardinalitySketches.registerUpdate(meta.hash, p, k, 0, k.length);
    }
    return apply(updates);
  }

  /** Applies (register << 8 | value) updates, a batch per script call. */
  private boolean[] apply(long[] updates) {
    boolean[] out = new boolean[updates.length];
    List<byte[]> keys = List.of(shardKeys[0]);
    for (int from = 0; from < updates.length; from += store.batchSize()) {
      int to = Math.min(updates.length, from + store.batchSize());
      List<byte[]> args = new ArrayList<>(1 + 2 * (to - from));
      args.add(ultra ? ULL : HLL);
      for (int i = from; i < to; i++) {
        args.add(ascii(updates[i] >>> 8));
        args.add(ascii(updates[i] & 0xFF));
      }
      flags(
          (List<?>)
              script("add", true, Scripts.LOGLOG, keys, guard(args, 1, 0, 1), from, to - from),
          out,
          from);
    }
    return out;
  }

  // ---- combining

  /**
   * Adds the keys of {@code other} (a sketch of the same type, precision and hashing; a library
   * sketch or one read from a file): afterwards the registers are those of a sketch of both.
   */
  public RedisCardinalitySketch merge(CardinalitySketch other) {
    if (other.type() != meta.type
        || other.precision() != p
        || !other.hashStrategy().equals(meta.hash)) {
      throw new IllegalArgumentException(
          "cannot merge a "
              + other.type().label()
              + " of precision "
              + other.precision()
              + " and "
              + other.hashStrategy()
              + " into "
              + describe());
    }
    List<Long> updates = new ArrayList<>();
    if (ultra) {
      byte[] regs = ((UltraLogLog) other).registers();
      for (int i = 0; i < regs.length; i++) {
        int r = regs[i] & 0xFF;
        int u = r >>> 2;
        if (r != 0) {
          // A register is the values u, and u - 1 and u - 2 when their bits say so: add each.
          updates.add((long) i << 8 | u);
          if ((r & 2) != 0) {
            updates.add((long) i << 8 | (u - 1));
          }
          if ((r & 1) != 0) {
            updates.add((long) i << 8 | (u - 2));
          }
        }
      }
    } else {
      int[] regs = ((HyperLogLog) other).registers();
      for (int i = 0; i < regs.length; i++) {
        if (regs[i] != 0) {
          updates.add((long) i << 8 | regs[i]);
        }
      }
    }
    apply(updates.stream().mapToLong(Long::longValue).toArray());
    return this;
  }

  /** Adds the keys of another Redis-resident sketch of the same type, precision and hashing. */
  public RedisCardinalitySketch merge(RedisCardinalitySketch other) {
    return merge(other.toSketch());
  }

  // ---- estimating

  /** The library's sketch of these registers (dense, no martingale estimate). */
  public CardinalitySketch toSketch() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream((int) meta.payload + 64);
    try {
      exportTo(bytes);
      ByteArrayInputStream in = new ByteArrayInputStream(bytes.toByteArray());
      return ultra ? UltraLogLog.readFrom(in) : HyperLogLog.readFrom(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The estimated number of distinct keys added, from the registers (one read of them). */
  public double estimate() {
    return toSketch().estimate();
  }

  public int precision() {
    return p;
  }
}
