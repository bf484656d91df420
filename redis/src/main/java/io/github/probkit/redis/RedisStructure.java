package io.github.probkit.redis;

import io.github.probkit.hash.HashStrategy;
import io.github.probkit.io.SketchWriter;
import io.github.probkit.io.StructureType;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.function.IntUnaryOperator;
import redis.clients.jedis.args.Rawable;

/**
 * What every Redis-resident structure shares: its name, metadata and keys, the mapping of its
 * payload bytes to shards, and export.
 *
 * <p>Layout: the structure's arrays are the payload of its probkit file (docs/FORMAT.md) byte for
 * byte, cut into shards of {@code shardBytes} bytes (a multiple of 64, so that no word, counter or
 * 512-bit block straddles two). Redis numbers the bits of a byte from the most significant ({@code
 * SETBIT}, {@code BITFIELD}) and the format from the least, so the library's bit {@code i} is Redis
 * bit {@code i ^ 7}, and a 4-bit counter's Redis offset is that of its nibble's high bit: then a
 * {@code GET} of the shards is the payload, and export and import copy bytes. Count-min is the
 * exception: Redis adds natively only to big-endian integers, so its counters are kept big-endian
 * and their bytes reversed on export and import ({@link RedisCountMinSketch}).
 */
public abstract class RedisStructure {
  private static final int CHUNK = 4 << 20;

  final RedisStore store;
  final String name;
  final Meta meta;
  final byte[][] shardKeys;

  RedisStructure(RedisStore store, String name, Meta meta) {
    this.store = store;
    this.name = name;
    this.meta = meta;
    this.shardKeys = new byte[meta.shards][];
    for (int i = 0; i < meta.shards; i++) {
      shardKeys[i] = bytes(meta.layout.shardKey(name, i));
    }
  }

  static RedisStructure of(RedisStore store, String name, Meta meta) {
    return switch (meta.type) {
      case BLOOM_FILTER, BLOCKED_BLOOM_FILTER -> new RedisBloomFilter(store, name, meta);
      case COUNTING_BLOOM_FILTER -> new RedisCountingBloomFilter(store, name, meta);
      case COUNT_MIN_SKETCH -> new RedisCountMinSketch(store, name, meta);
      case HYPER_LOG_LOG, ULTRA_LOG_LOG -> new RedisCardinalitySketch(store, name, meta);
      case SCALABLE_BLOOM_FILTER -> new RedisScalableBloomFilter(store, name, meta);
      case AGE_PARTITIONED_BLOOM_FILTER -> new RedisWindowedBloomFilter(store, name, meta);
      case WINDOWED_CARDINALITY -> new RedisWindowedCardinality(store, name, meta);
      case WINDOWED_COUNT_MIN -> new RedisWindowedCountMin(store, name, meta);
      case WINDOWED_HEAVY_HITTERS -> new RedisWindowedHeavyHitters(store, name, meta);
      default ->
          throw new RedisStoreException(
              store.server(),
              "structure '"
                  + name
                  + "' is a "
                  + meta.type.label()
                  + ", which probkit-redis does not keep");
    };
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
    throw new RedisStoreException(
        store.server(),
        "structure '" + name + "' is a " + meta.describe() + ", not a " + types[0].label());
  }

  /**
   * The shard whose id decides whether {@code key}, a data key of {@code name} without an id of its
   * own (a heavy-hitters slice's items and order), belongs to the structure; null for the others.
   */
  static String shardOf(String name, Meta meta, String key) {
    if (meta.type != StructureType.WINDOWED_HEAVY_HITTERS) {
      return null;
    }
    for (String suffix : RedisWindowedHeavyHitters.SUFFIXES) {
      if (key.endsWith(suffix)) {
        return key.substring(0, key.length() - suffix.length());
      }
    }
    return null;
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
    if (meta.type == StructureType.WINDOWED_HEAVY_HITTERS) {
      for (String suffix : RedisWindowedHeavyHitters.SUFFIXES) {
        for (int i = 0; i < meta.shards; i++) {
          keys.add(meta.layout.shardKey(name, i) + suffix);
        }
      }
    }
    if (meta.type == StructureType.COUNT_MIN_SKETCH) {
      keys.add(RedisCountMinSketch.totalKey(name));
    }
    return keys;
  }

  /**
   * Creates the data strings of a new structure at their final sizes, zero-filled, each shard
   * followed by the structure's id (guard.lua).
   */
  static void presize(RedisStore store, String name, Meta meta) {
    if (meta.type == StructureType.SCALABLE_BLOOM_FILTER) {
      presize(store, name, meta, RedisScalableBloomFilter.countsKey(name), 8, false);
      presize(store, name, meta, meta.layout.shardKey(name, 0), meta.payload, true);
      return;
    }
    for (int i = 0; i < meta.shards; i++) {
      presize(store, name, meta, meta.layout.shardKey(name, i), meta.shardLength(i), true);
    }
    if (meta.type == StructureType.COUNT_MIN_SKETCH) {
      presize(store, name, meta, RedisCountMinSketch.totalKey(name), 8, false);
    }
  }

  /**
   * A zero-filled string of exactly {@code length} bytes, followed by the id of {@code meta} when
   * {@code shard}, written only while the metadata holds that id. {@code SETRANGE} on a missing key
   * allocates the string at its final size once; growing it by {@code SETBIT} would double the
   * allocation.
   */
  static void presize(
      RedisStore store, String name, Meta meta, String key, long length, boolean shard) {
    String metaKey = meta.layout.metaKey(name);
    // A script may name the metadata when it shares the key's slot, or on a single server; a
    // spread shard in a cluster lives elsewhere, so there the id is checked just before.
    boolean together = meta.layout == Layout.SLOT || !store.isCluster();
    if (!together && !meta.id.equals(store.read(() -> store.jedis().hget(metaKey, "id")))) {
      throw store.replacedWhileCreating(name);
    }
    List<byte[]> keys = together ? List.of(bytes(key), bytes(metaKey)) : List.of(bytes(key));
    List<byte[]> args = List.of(ascii(length), bytes(meta.id), bytes(shard ? "1" : "0"));
    store.call(() -> store.jedis().eval(Scripts.PRESIZE, keys, args));
  }

  /** The bytes of the id that ends each shard (guard.lua). */
  static final int ID_BYTES = 16;

  /**
   * Appends to a guarded script's arguments (guard.lua) the checks that KEYS[{@code firstKey} + i]
   * is shard {@code firstShard} + i of this structure, at its size, for i in [0, {@code count}).
   */
  final List<byte[]> guard(List<byte[]> args, int firstKey, int firstShard, int count) {
    for (int i = 0; i < count; i++) {
      args.add(ascii(firstKey + i));
      args.add(ascii(payloadBytes(firstShard + i)));
    }
    args.add(ascii(count));
    args.add(bytes(meta.id));
    return args;
  }

  /** The payload bytes of shard {@code s} (before its id). */
  long payloadBytes(int s) {
    return meta.shardLength(s);
  }

  /** The group of shards that share a hash slot: all of them in {@link Layout#SLOT}. */
  final int slotGroup(int shard) {
    return meta.layout == Layout.SLOT ? 0 : shard;
  }

  /**
   * The meta of a structure whose writes ({@code writes}) are scripts over all its shards, sharded
   * as {@link #shardsFor}: a script may touch keys of one hash slot only, so any layout but SLOT is
   * refused before anything is sized.
   */
  static Meta slotMeta(
      StructureType type, String writes, long payload, byte[] params, RedisOptions o) {
    if (o.layout() != Layout.SLOT) {
      throw new IllegalArgumentException(
          writes
              + " are atomic scripts over all its shards, which must share a hash slot: use"
              + " Layout.SLOT, was "
              + o.layout());
    }
    long[] shards = shardsFor(payload, o);
    return new Meta(
        type, o.hash(), Layout.SLOT, (int) shards[0], shards[1], payload, params, null, false);
  }

  /** How many shards of how many bytes (a multiple of 64) hold {@code payload} bytes. */
  static long[] shardsFor(long payload, RedisOptions o) {
    long unit = 64;
    int n =
        o.shards() > 0
            ? o.shards()
            : (int) Math.max(1, ceilDiv(payload, RedisOptions.MAX_SHARD_BYTES));
    long shardBytes = ceilDiv(ceilDiv(payload, n), unit) * unit;
    if (shardBytes > RedisOptions.MAX_SHARD_BYTES) {
      throw new IllegalArgumentException(
          String.format(
              java.util.Locale.ROOT,
              "%d shards of %d bytes each: a shard holds at most %d bytes (a Redis string, less its id); use at least %d shards",
              n,
              shardBytes,
              RedisOptions.MAX_SHARD_BYTES,
              ceilDiv(payload, RedisOptions.MAX_SHARD_BYTES)));
    }
    long count = ceilDiv(payload, shardBytes);
    if (count != n) {
      throw new IllegalArgumentException(
          String.format(
              java.util.Locale.ROOT,
              "%d bytes cannot be split into %d shards of whole 64-byte blocks, all but the last of one size; "
                  + "%d shards of %d bytes would hold them",
              payload,
              n,
              count,
              shardBytes));
    }
    return new long[] {count, shardBytes};
  }

  static long ceilDiv(long a, long b) {
    return (a + b - 1) / b;
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The decimal digits of {@code v} (Redis's arguments are strings), without a String when v >= 0.
   */
  static byte[] ascii(long v) {
    if (v < 0) {
      return Long.toString(v).getBytes(StandardCharsets.US_ASCII);
    }
    int n = 1;
    for (long x = v; x >= 10; x /= 10) {
      n++;
    }
    byte[] b = new byte[n];
    for (int i = n - 1; i >= 0; i--, v /= 10) {
      b[i] = (byte) ('0' + v % 10);
    }
    return b;
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

  static final Arg BITFIELD = new Arg("BITFIELD");
  static final Arg BITFIELD_RO = new Arg("BITFIELD_RO");
  static final Arg SET = new Arg("SET");
  static final Arg GET = new Arg("GET");
  static final Arg OVERFLOW = new Arg("OVERFLOW");
  static final Arg SAT = new Arg("SAT");
  static final Arg INCRBY = new Arg("INCRBY");

  /**
   * A command argument passed to Jedis as is: its own wrapper of a byte[] copies the array, which
   * cost a third of the client's time per key.
   */
  static final class Arg implements Rawable {
    private final byte[] raw;

    Arg(byte[] raw) {
      this.raw = raw;
    }

    Arg(String s) {
      this(bytes(s));
    }

    static Arg of(long v) {
      return new Arg(ascii(v));
    }

    @Override
    public byte[] getRaw() {
      return raw;
    }
  }

  /**
   * Queues one {@code BITFIELD} (or {@code BITFIELD_RO} when {@code value} is null) per shard among
   * the {@code n} cells {@code (shard[i], offset[i])}: {@code op type offset [value]} for each. Its
   * replies, one list of values per command, come in no particular order of cells. Clobbers {@code
   * shard}.
   */
  final void queueBitfield(
      Batch b, int n, int[] shard, long[] offset, Arg op, Arg type, Arg value) {
    for (int i = 0; i < n; i++) {
      int s = shard[i];
      if (s < 0) {
        continue; // queued with an earlier cell of its shard
      }
      Cmd args = bitfield(s, value == null);
      for (int j = i; j < n; j++) {
        if (shard[j] == s) {
          shard[j] = -1;
          args.add(op).add(type).add(Arg.of(offset[j]));
          if (value != null) {
            args.add(value);
          }
        }
      }
      queue(b, args);
    }
  }

  /**
   * A {@code BITFIELD} command on shard {@code s}, to which operations are added ({@code readOnly}:
   * only {@code GET}s).
   */
  final Cmd bitfield(int s, boolean readOnly) {
    return new Cmd(s, shardKeys[s], readOnly);
  }

  /** Queues a {@code BITFIELD} command; its reply is the list of its operations' values. */
  static void queue(Batch b, Cmd bitfield) {
    b.add(bitfield);
  }

  /** Queues the commands of key {@code i} of a call into a batch. */
  interface KeyQueue {
    void queue(Batch b, int i);
  }

  /**
   * Runs keys {@code [from, to)} of a call as one batch, each queued by {@code q} in order; the
   * batch's replies are numbered from 0, so that key {@code i}'s are {@code of(i - from)}.
   */
  final Batch runKeys(String what, boolean idempotent, int from, int to, KeyQueue q) {
    return store.run(
        this,
        what,
        idempotent,
        from,
        to - from,
        bt -> {
          for (int i = from; i < to; i++) {
            q.queue(bt, i);
          }
        });
  }

  /**
   * The operations of one {@code BITFIELD} on {@code key}, shard {@code shard} of the structure
   * (-1: a key of the structure that is not a shard), run by a guarded script ({@link
   * Batch#flush}).
   */
  static final class Cmd {
    final int shard;
    final byte[] key;
    final Arg command;
    final List<Rawable> args = new ArrayList<>();

    /** The values its reply holds: one per GET, SET or INCRBY. */
    int results;

    Cmd(int shard, byte[] key, boolean readOnly) {
      this.shard = shard;
      this.key = key;
      // BITFIELD_RO: a query is not refused by a replica or under maxmemory, as a write would be.
      this.command = readOnly ? BITFIELD_RO : BITFIELD;
    }

    Cmd add(Rawable a) {
      args.add(a);
      if (a == GET || a == SET || a == INCRBY) {
        results++;
      }
      return this;
    }
  }

  /**
   * Runs {@code script} once for a batch of {@code n} keys that follow {@code before} keys of the
   * same call (all acknowledged, or none: a script is atomic) and returns its reply.
   */
  final Object script(
      String what,
      boolean idempotent,
      byte[] script,
      List<byte[]> keys,
      List<byte[]> args,
      int before,
      int n) {
    return scriptBatch(what, idempotent, script, keys, args, before, n).of(0).get(0).get();
  }

  /** {@link #script}, its batch: its reply, and whether it was retried. */
  final Batch scriptBatch(
      String what,
      boolean idempotent,
      byte[] script,
      List<byte[]> keys,
      List<byte[]> args,
      int before,
      int n) {
    return store.run(
        this,
        what,
        idempotent,
        before,
        n,
        bt -> {
          bt.eval(script, keys, args);
          for (int i = 0; i < n; i++) {
            bt.endKey();
          }
        });
  }

  /** Copies a script's reply of 1 or 0 per key into {@code out} from {@code from}. */
  static void flags(List<?> reply, boolean[] out, int from) {
    for (int i = 0; i < reply.size(); i++) {
      out[from + i] = ((Long) reply.get(i)) == 1;
    }
  }

  /**
   * The keys of a batch as bytes: byte[] as is, CharSequence as UTF-8, Long as 8 little-endian
   * bytes.
   */
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
    throw new IllegalArgumentException(
        "a key must be a byte[], a CharSequence or a Long, was "
            + (k == null ? "null" : k.getClass().getName()));
  }

  // ---- merging

  /**
   * The bytes of a shard that one merge command or script handles: small enough that Redis, which
   * runs one command at a time, answers other clients between chunks within milliseconds.
   */
  static final int MERGE_CHUNK = 1 << 20;

  /**
   * Streams the payload of the library structure that {@code file} writes (the same bytes as this
   * structure's, of the same shape) to {@code action} in chunks of at most {@link #MERGE_CHUNK}
   * bytes within one shard. A failure says how far the merge got and whether running it again is
   * safe ({@code idempotent}: OR, not addition).
   */
  final void mergePayload(Import.FileWriter file, boolean idempotent, Import.ChunkAction action) {
    List<Import.Segment> segments = new ArrayList<>();
    for (int s = 0; s < meta.shards; s++) {
      segments.add(new Import.Segment(meta.layout.shardKey(name, s), meta.shardLength(s)));
    }
    long[] done = {0};
    try (Import.Segments out =
        new Import.Segments(
            segments,
            MERGE_CHUNK,
            (s, key, at, part) -> {
              action.apply(s, key, at, part);
              done[0] += part.length;
            })) {
      Import.payloadOf(file).writeTo(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (RedisStoreException e) {
      String why = e.getMessage().substring(("redis " + store.server() + ": ").length());
      throw new RedisStoreException(
          store.server(),
          "merge into '"
              + name
              + "' stopped after "
              + done[0]
              + " of its "
              + meta.payload
              + " bytes ("
              + (idempotent
                  ? "merging the same source again is safe"
                  : "the counters of those bytes were added: merging the same source again would add them twice")
              + "): "
              + why,
          -1,
          e);
    }
  }

  /**
   * Adds {@code value[i]} to the cell of {@code type} at Redis bit {@code offset[i]} of shard
   * {@code s}, saturating ({@code OVERFLOW SAT INCRBY}) as the library's merges do, for i in [0,
   * n): commands of up to the store's batch size of cells, pipelined, each atomic. Adds commute
   * with other clients' adds, so none is lost.
   */
  /**
   * Lists the non-zero counters of a chunk {@code part} of a library file's payload that starts at
   * its byte {@code at}: their bit offsets and values, into {@code offset} and {@code value};
   * returns how many.
   */
  interface CounterScan {
    int scan(long at, byte[] part, long[] offset, long[] value);
  }

  /**
   * Adds the counters of a library file into this structure's by saturating increments of {@code
   * type} ({@link #addCells}), chunk by chunk; a chunk of n bytes holds at most {@code maxCells(n)}
   * counters. Not idempotent.
   */
  final void mergeCounters(
      Import.FileWriter file, Arg type, IntUnaryOperator maxCells, CounterScan scan) {
    mergePayload(
        file,
        false,
        (s, key, at, part) -> {
          int max = maxCells.applyAsInt(part.length);
          long[] offset = new long[max];
          long[] value = new long[max];
          addCells(s, type, offset, value, scan.scan(at, part, offset, value));
        });
  }

  final void addCells(int s, Arg type, long[] offset, long[] value, int n) {
    int per = Math.min(store.batchSize(), 1000); // bitfields.lua unpacks a command's arguments
    store.run(
        this,
        "merge",
        false,
        0,
        (n + per - 1) / per,
        bt -> {
          for (int from = 0; from < n; from += per) {
            Cmd args = bitfield(s, false).add(OVERFLOW).add(SAT);
            for (int i = from; i < Math.min(n, from + per); i++) {
              args.add(INCRBY).add(type).add(Arg.of(offset[i])).add(Arg.of(value[i]));
            }
            queue(bt, args);
            bt.endKey();
          }
        });
  }

  /** Refuses a merge of {@code what} unless {@code ok}, naming both structures. */
  final void checkMerge(boolean ok, String what) {
    if (!ok) {
      throw new IllegalArgumentException(
          "cannot merge a " + what + " into '" + name + "', a " + describe());
    }
  }

  // ---- identity

  public String name() {
    return name;
  }

  /**
   * The structure's id: 16 hex digits drawn at random when it was created. Two handles with the
   * same id, however their servers were named, are the same structure; a structure deleted and
   * created again under its name has a new one.
   */
  public String id() {
    return meta.id;
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

  /**
   * The bytes of the structure's arrays in Redis: its probkit file's payload (windowed heavy
   * hitters, whose slices grow: their memory usage).
   */
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

  /**
   * The metadata key, then every shard's: the KEYS of a script that touches the whole structure.
   */
  List<byte[]> metaAndShardKeys() {
    List<byte[]> ks = new ArrayList<>(shardKeys.length + 1);
    ks.add(bytes(metaKey()));
    ks.addAll(Arrays.asList(shardKeys));
    return List.copyOf(ks);
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
    return memoryUsage(redisKeys());
  }

  /** The sum of Redis's {@code MEMORY USAGE} over {@code keys}, in bytes (0 for a missing key). */
  final long memoryUsage(List<String> keys) {
    long sum = 0;
    for (String k : keys) {
      Long m = store.read(() -> store.jedis().memoryUsage(k));
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
   * (docs/REDIS.md says where a Redis-resident structure differs: loglog sketches are dense and
   * carry no martingale estimate). Keys added during the export may or may not be in it.
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
      byte[] b = store.read(() -> store.jedis().getrange(key, from, end - 1));
      checkLength(key, b, end - from);
      w.writeBytes(b, 0, b.length);
    }
  }

  final void checkLength(byte[] key, byte[] got, long expected) {
    if (got == null || got.length != expected) {
      throw new RedisStoreException(
          store.server(),
          "key '"
              + new String(key, StandardCharsets.UTF_8)
              + "' of structure '"
              + name
              + "' is missing or shorter than its "
              + expected
              + " bytes: the structure is damaged or being deleted");
    }
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "{" + name + ": " + meta.describe() + "}";
  }
}
