package io.github.probkit.redis;

import io.github.probkit.hash.HashStrategy;
import io.github.probkit.io.SketchWriter;
import io.github.probkit.io.StructureType;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * What every Redis-resident structure shares: its name, metadata and keys, the mapping of its
 * payload bytes to shards, and export.
 *
 * <p>Layout: the structure's arrays are the payload of its probkit file (docs/FORMAT.md) byte for
 * byte, cut into shards of {@code shardBytes} bytes (a multiple of 64, so that no word, counter or
 * 512-bit block straddles two). Redis numbers the bits of a byte from the most significant
 * ({@code SETBIT}, {@code BITFIELD}) and the format from the least, so the library's bit {@code i}
 * is Redis bit {@code i ^ 7}, and a 4-bit counter's Redis offset is that of its nibble's high bit:
 * then a {@code GET} of the shards is the payload, and export and import copy bytes.
 */
public abstract class RedisStructure {
  private static final int CHUNK = 4 << 20;

  final RedisStore store;
  final String name;
  final Meta meta;
  final byte[][] shardKeys;
  private final byte[] metaKeyBytes;

  RedisStructure(RedisStore store, String name, Meta meta) {
    this.store = store;
    this.name = name;
    this.meta = meta;
    this.shardKeys = new byte[meta.shards][];
    for (int i = 0; i < meta.shards; i++) {
      shardKeys[i] = bytes(meta.layout.shardKey(name, i));
    }
    this.metaKeyBytes = bytes(metaKey());
  }

  static RedisStructure of(RedisStore store, String name, Meta meta) {
    switch (meta.type) {
      case BLOOM_FILTER:
      case BLOCKED_BLOOM_FILTER:
        return new RedisBloomFilter(store, name, meta);
      case COUNTING_BLOOM_FILTER:
        return new RedisCountingBloomFilter(store, name, meta);
      case COUNT_MIN_SKETCH:
        return new RedisCountMinSketch(store, name, meta);
      case HYPER_LOG_LOG:
      case ULTRA_LOG_LOG:
        return new RedisCardinalitySketch(store, name, meta);
      case SCALABLE_BLOOM_FILTER:
        return new RedisScalableBloomFilter(store, name, meta);
      default:
        throw new RedisStoreException(store.server(), "structure '" + name + "' is a " + meta.type.label()
            + ", which probkit-redis does not keep");
    }
  }

  /** Opens {@code name}, which must be of one of {@code types}. */
  static Meta open(RedisStore store, String name, StructureType... types) {
    Meta meta = store.readMeta(name);
    if (meta == null) {
      throw new RedisStoreException(store.server(), "no probkit structure named '" + name + "'");
    }
    for (StructureType t : types) {
      if (t == meta.type) {
        return meta;
      }
    }
    throw new RedisStoreException(store.server(), "structure '" + name + "' is a " + meta.describe()
        + ", not a " + types[0].label());
  }

  /** The data keys of a structure (not its metadata), in payload order. */
  static List<String> dataKeys(String name, Meta meta) {
    List<String> keys = new ArrayList<>();
    if (meta.type == StructureType.SCALABLE_BLOOM_FILTER) {
      keys.add(RedisScalableBloomFilter.countsKey(name));
    }
    for (int i = 0; i < meta.shards; i++) {
      keys.add(meta.layout.shardKey(name, i));
    }
    if (meta.type == StructureType.COUNT_MIN_SKETCH) {
      keys.add(RedisCountMinSketch.totalKey(name));
    }
    return keys;
  }

  /** Creates the data strings of a new structure at their final sizes, zero-filled. */
  static void presize(RedisStore store, String name, Meta meta) {
    if (meta.type == StructureType.SCALABLE_BLOOM_FILTER) {
      presize(store, RedisScalableBloomFilter.countsKey(name), 8);
      presize(store, meta.layout.shardKey(name, 0), meta.payload);
      return;
    }
    for (int i = 0; i < meta.shards; i++) {
      presize(store, meta.layout.shardKey(name, i), meta.shardLength(i));
    }
    if (meta.type == StructureType.COUNT_MIN_SKETCH) {
      presize(store, RedisCountMinSketch.totalKey(name), 8);
    }
  }

  /**
   * A zero-filled string of exactly {@code length} bytes. {@code SETRANGE} on a missing key allocates
   * the string at its final size once; growing it by {@code SETBIT} would double the allocation.
   */
  static void presize(RedisStore store, String key, long length) {
    byte[] k = bytes(key);
    store.call(() -> store.jedis().unlink(k));
    store.call(() -> store.jedis().setrange(k, length - 1, new byte[1]));
  }

  /** How many shards of how many bytes (a multiple of 64) hold {@code payload} bytes. */
  static long[] shardsFor(long payload, RedisOptions o) {
    long unit = 64;
    int n = o.shards() > 0 ? o.shards() : (int) Math.max(1, ceilDiv(payload, RedisOptions.MAX_SHARD_BYTES));
    long shardBytes = ceilDiv(ceilDiv(payload, n), unit) * unit;
    if (shardBytes > RedisOptions.MAX_SHARD_BYTES) {
      throw new IllegalArgumentException(String.format(java.util.Locale.ROOT,
          "%d shards of %d bytes each: a Redis string holds at most %d bytes; use at least %d shards",
          n, shardBytes, RedisOptions.MAX_SHARD_BYTES, ceilDiv(payload, RedisOptions.MAX_SHARD_BYTES)));
    }
    long count = ceilDiv(payload, shardBytes);
    if (count != n) {
      throw new IllegalArgumentException(String.format(java.util.Locale.ROOT,
          "%d bytes cannot be split into %d shards of whole 64-byte blocks, all but the last of one size; "
              + "%d shards of %d bytes would hold them", payload, n, count, shardBytes));
    }
    return new long[] {count, shardBytes};
  }

  static long ceilDiv(long a, long b) {
    return (a + b - 1) / b;
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static byte[] ascii(long v) {
    return Long.toString(v).getBytes(StandardCharsets.US_ASCII);
  }

  // ---- addressing

  /** The shard holding payload byte {@code b}. */
  final int shardOf(long b) {
    return (int) (b / meta.shardBytes);
  }

  /** The Redis bit offset, within its shard, of the payload's bit {@code i} (LSB-first bytes). */
  final long redisBit(long i) {
    return ((i >>> 3) % meta.shardBytes) << 3 | (7 - (i & 7));
  }

  static final byte[] SET = bytes("SET");
  static final byte[] GET = bytes("GET");

  /**
   * Queues one {@code BITFIELD} (or {@code BITFIELD_RO} when {@code value} is null) per shard among
   * the {@code n} cells {@code (shard[i], offset[i])}: {@code op type offset [value]} for each. Its
   * replies, one list of values per command, come in no particular order of cells. Clobbers
   * {@code shard}.
   */
  final void queueBitfield(Batch b, int n, int[] shard, long[] offset, byte[] op, byte[] type, byte[] value) {
    int width = value == null ? 3 : 4;
    for (int i = 0; i < n; i++) {
      int s = shard[i];
      if (s < 0) {
        continue; // queued with an earlier cell of its shard
      }
      int count = 0;
      for (int j = i; j < n; j++) {
        count += shard[j] == s ? 1 : 0;
      }
      byte[][] args = new byte[width * count][];
      int a = 0;
      for (int j = i; j < n; j++) {
        if (shard[j] == s) {
          shard[j] = -1;
          args[a++] = op;
          args[a++] = type;
          args[a++] = ascii(offset[j]);
          if (value != null) {
            args[a++] = value;
          }
        }
      }
      b.add(value != null ? b.pipe.bitfield(shardKeys[s], args) : b.pipe.bitfieldReadonly(shardKeys[s], args));
    }
  }

  /** The keys of a batch as bytes: byte[] as is, CharSequence as UTF-8, Long as 8 little-endian bytes. */
  static List<byte[]> keyBytes(Collection<?> keys) {
    List<byte[]> out = new ArrayList<>(keys.size());
    for (Object k : keys) {
      out.add(keyBytes(k));
    }
    return out;
  }

  static byte[] keyBytes(Object k) {
    if (k instanceof byte[]) {
      return (byte[]) k;
    }
    if (k instanceof CharSequence) {
      return k.toString().getBytes(StandardCharsets.UTF_8);
    }
    if (k instanceof Long) {
      long v = (Long) k;
      byte[] b = new byte[8];
      for (int i = 0; i < 8; i++) {
        b[i] = (byte) (v >>> (8 * i));
      }
      return b;
    }
    throw new IllegalArgumentException("a key must be a byte[], a CharSequence or a Long, was "
        + (k == null ? "null" : k.getClass().getName()));
  }

  // ---- identity

  public String name() {
    return name;
  }

  public StructureType type() {
    return meta.type;
  }

  public HashStrategy hashStrategy() {
    return meta.hash;
  }

  public Layout layout() {
    return meta.layout;
  }

  public int shardCount() {
    return meta.shards;
  }

  /** The bytes of the structure's arrays in Redis: its probkit file's payload. */
  public long byteSize() {
    return meta.payload;
  }

  /** One line: type, shape, hashing, shards and layout. */
  public String describe() {
    return meta.describe();
  }

  String metaKey() {
    return meta.layout.metaKey(name);
  }

  /** Every Redis key of the structure, metadata first. */
  public List<String> redisKeys() {
    List<String> keys = new ArrayList<>();
    keys.add(metaKey());
    keys.addAll(dataKeys(name, meta));
    return keys;
  }

  /** The sum of Redis's {@code MEMORY USAGE} over the structure's keys, in bytes. */
  public long memoryUsage() {
    long sum = 0;
    for (String k : redisKeys()) {
      Long m = store.call(() -> store.jedis().memoryUsage(k));
      sum += m == null ? 0 : m;
    }
    return sum;
  }

  /** Deletes the structure from Redis (see {@link RedisStore#delete}). */
  public boolean delete() {
    return store.delete(name);
  }

  // ---- export

  /**
   * Writes the structure as a probkit file, byte for byte what the library writes for the same keys
   * (docs/REDIS.md says where a Redis-resident structure differs: loglog sketches are dense and carry
   * no martingale estimate). Keys added during the export may or may not be in it.
   */
  public void exportTo(OutputStream out) throws IOException {
    SketchWriter w = SketchWriter.begin(out, meta.type, meta.hash, meta.params, meta.payload);
    for (int s = 0; s < meta.shards; s++) {
      copy(shardKeys[s], meta.shardLength(s), w);
    }
    w.finish();
  }

  /** Streams {@code length} bytes of string {@code key} into {@code w}, in chunks. */
  final void copy(byte[] key, long length, SketchWriter w) throws IOException {
    for (long off = 0; off < length; off += CHUNK) {
      long end = Math.min(length, off + CHUNK);
      long from = off;
      byte[] b = store.call(() -> store.jedis().getrange(key, from, end - 1));
      checkLength(key, b, end - from);
      w.writeBytes(b, 0, b.length);
    }
  }

  final void checkLength(byte[] key, byte[] got, long expected) {
    if (got == null || got.length != expected) {
      throw new RedisStoreException(store.server(), "key '" + new String(key, StandardCharsets.UTF_8)
          + "' of structure '" + name + "' is missing or shorter than its " + expected
          + " bytes: the structure is damaged or being deleted");
    }
  }

  /** Writes {@code data} over string {@code key} from byte {@code offset}, in chunks. */
  final void overwrite(byte[] key, long offset, byte[] data) {
    for (int off = 0; off < data.length; off += CHUNK) {
      int len = Math.min(CHUNK, data.length - off);
      byte[] part = off == 0 && len == data.length ? data : java.util.Arrays.copyOfRange(data, off, off + len);
      long at = offset + off;
      store.call(() -> store.jedis().setrange(key, at, part));
    }
  }

  byte[] metaKeyBytes() {
    return metaKeyBytes;
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "{" + name + ": " + meta.describe() + "}";
  }
}
