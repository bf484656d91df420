package io.github.probkit.redis;

import io.github.probkit.filter.BlockedBloomFilter;
import io.github.probkit.filter.BloomFilter;
import io.github.probkit.filter.MembershipFilter;
import io.github.probkit.io.StructureType;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import redis.clients.jedis.Response;

/**
 * A standard or blocked Bloom filter kept in Redis: the bits of {@link BloomFilter} or {@link
 * BlockedBloomFilter} of the same shape and hashing, the same bytes.
 *
 * <p>Each key costs one {@code BITFIELD} (add: {@code SET u1} per probe; query: {@code BITFIELD_RO
 * GET u1}) per shard its probes touch: one for a blocked filter (its probes share a 512-bit block)
 * and for a standard filter of one shard; up to k for a standard filter of several shards. Batches
 * of keys are pipelined, one round trip each; an add batch runs as one guarded script per hash slot
 * (docs/REDIS.md), which writes nothing once the structure was deleted, re-created or lost a shard.
 *
 * <p>Atomicity: a batch of adds is atomic per hash slot: whole for a filter in {@link Layout#SLOT}.
 * A spread filter adds a key by one script per slot its probes touch; a client killed between them
 * leaves some of the key's bits set, which no reader can tell from a key never added (the add was
 * not acknowledged, and bits are only ever set). Adds and queries are idempotent, so a batch that
 * lost its connection is retried.
 *
 * <p>Thread safety: safe for use by many threads and processes at once.
 */
public final class RedisBloomFilter extends RedisStructure {
  private static final Arg U1 = new Arg("u1");
  private static final Arg ONE = new Arg("1");

  private final long m;
  private final int k;
  private final long expectedKeys;
  private final double fpp;
  private final boolean blocked;

  RedisBloomFilter(RedisStore store, String name, Meta meta) {
    super(store, name, meta);
    ByteBuffer p = ByteBuffer.wrap(meta.params).order(ByteOrder.LITTLE_ENDIAN);
    this.m = p.getLong();
    this.k = p.getInt();
    this.expectedKeys = p.getLong();
    this.fpp = p.getDouble();
    this.blocked = meta.type == StructureType.BLOCKED_BLOOM_FILTER;
  }

  /**
   * Creates a standard Bloom filter for {@code expectedKeys} keys at rate {@code fpp}, sized as
   * {@link BloomFilter#create} sizes it.
   */
  public static RedisBloomFilter create(
      RedisStore store, String name, long expectedKeys, double fpp, RedisOptions options) {
    return sized(store, name, false, expectedKeys, fpp, options);
  }

  /** Creates a blocked Bloom filter, sized as {@link BlockedBloomFilter#create} sizes it. */
  public static RedisBloomFilter createBlocked(
      RedisStore store, String name, long expectedKeys, double fpp, RedisOptions options) {
    return sized(store, name, true, expectedKeys, fpp, options);
  }

  /** A filter sized as the library's class of that layout sizes it. */
  private static RedisBloomFilter sized(
      RedisStore store,
      String name,
      boolean blocked,
      long expectedKeys,
      double fpp,
      RedisOptions options) {
    long m =
        blocked
            ? BlockedBloomFilter.optimalBits(expectedKeys, fpp)
            : BloomFilter.optimalBits(expectedKeys, fpp);
    int k =
        blocked
            ? BlockedBloomFilter.optimalHashes(m, expectedKeys)
            : BloomFilter.optimalHashes(m, expectedKeys);
    StructureType type = blocked ? StructureType.BLOCKED_BLOOM_FILTER : StructureType.BLOOM_FILTER;
    return create(store, name, type, m, k, expectedKeys, fpp, options);
  }

  /**
   * Creates a filter of exactly {@code bits} bits and {@code hashes} probes (blocked: bits a
   * multiple of 512).
   */
  public static RedisBloomFilter withBits(
      RedisStore store, String name, boolean blocked, long bits, int hashes, RedisOptions options) {
    if (blocked) {
      BlockedBloomFilter.withBits(512, hashes); // checks hashes
      if (bits < 512 || bits % 512 != 0 || bits > BlockedBloomFilter.MAX_BITS) {
        throw new IllegalArgumentException(
            "bits must be a multiple of 512 in [512, "
                + BlockedBloomFilter.MAX_BITS
                + "], was "
                + bits);
      }
    } else if (bits < 1
        || bits > BloomFilter.MAX_BITS
        || hashes < 1
        || hashes > BloomFilter.MAX_HASHES) {
      throw new IllegalArgumentException(
          bits < 1 || bits > BloomFilter.MAX_BITS
              ? "bits must be in [1, " + BloomFilter.MAX_BITS + "], was " + bits
              : "hashes must be in [1, " + BloomFilter.MAX_HASHES + "], was " + hashes);
    }
    return create(
        store,
        name,
        blocked ? StructureType.BLOCKED_BLOOM_FILTER : StructureType.BLOOM_FILTER,
        bits,
        hashes,
        0,
        0,
        options);
  }

  static Meta meta(
      StructureType type, long bits, int hashes, long expectedKeys, double fpp, RedisOptions o) {
    ByteBuffer p = ByteBuffer.allocate(28).order(ByteOrder.LITTLE_ENDIAN);
    p.putLong(bits).putInt(hashes).putLong(expectedKeys).putDouble(fpp);
    long payload = 8 * ceilDiv(bits, 64);
    long[] shards = shardsFor(payload, o);
    return new Meta(
        type, o.hash(), o.layout(), (int) shards[0], shards[1], payload, p.array(), null, false);
  }

  private static RedisBloomFilter create(
      RedisStore store,
      String name,
      StructureType type,
      long bits,
      int hashes,
      long expectedKeys,
      double fpp,
      RedisOptions o) {
    Meta meta =
        store.create(name, meta(type, bits, hashes, expectedKeys, fpp, o), o.openIfExists(), null);
    return new RedisBloomFilter(store, name, meta);
  }

  /** Opens the standard or blocked Bloom filter {@code name}. */
  public static RedisBloomFilter open(RedisStore store, String name) {
    return new RedisBloomFilter(
        store,
        name,
        open(store, name, StructureType.BLOOM_FILTER, StructureType.BLOCKED_BLOOM_FILTER));
  }

  // ---- keys

  /** Adds a key (byte[], CharSequence as UTF-8, or Long); returns whether a bit changed. */
  public boolean add(Object key) {
    return addAll(List.of(key))[0];
  }

  /**
   * Adds the keys, pipelined in batches; returns for each whether a bit changed ({@code false}: it
   * was probably present already). A batch retried after a lost reply reports {@code true} for its
   * keys: its first attempt may have set their bits, so "present already" would be a guess.
   *
   * @throws RedisStoreException when Redis fails; the message says how many keys of the failed
   *     batch were acknowledged (every earlier batch was)
   */
  public boolean[] addAll(Collection<?> keys) {
    return run("add", keyBytes(keys), true);
  }

  public boolean mightContain(Object key) {
    return mightContainAll(List.of(key))[0];
  }

  /** Whether each key may be present, pipelined in batches. */
  public boolean[] mightContainAll(Collection<?> keys) {
    return run("query", keyBytes(keys), false);
  }

  private boolean[] run(String what, List<byte[]> keys, boolean set) {
    boolean[] out = new boolean[keys.size()];
    long[] pos = new long[k];
    int[] shard = new int[k];
    int batch = store.batchSize();
    for (int from = 0; from < keys.size(); from += batch) {
      int to = Math.min(keys.size(), from + batch);
      Batch b = runKeys(what, true, from, to, (bt, i) -> queue(bt, keys.get(i), set, pos, shard));
      for (int i = from; i < to; i++) {
        boolean all = true;
        boolean anyClear = false;
        for (Response<?> r : b.of(i - from)) {
          for (Object v : (List<?>) r.get()) {
            boolean one = ((Long) v) == 1;
            all &= one;
            anyClear |= !one;
          }
        }
        // After a retry the lost attempt may have set the bits: "present" would be a guess.
        out[i] = set ? anyClear || b.retried : all;
      }
    }
    return out;
  }

  /** Queues the key's commands: one BITFIELD per shard its probes touch. */
  private void queue(Batch b, byte[] key, boolean set, long[] pos, int[] shard) {
    if (blocked) {
      BlockedBloomFilter.positions(meta.hash, m, k, key, 0, key.length, pos);
    } else {
      BloomFilter.positions(meta.hash, m, k, key, 0, key.length, pos);
    }
    for (int i = 0; i < k; i++) {
      shard[i] = shardOf(pos[i] >>> 3);
      pos[i] = redisBit(pos[i]);
    }
    queueBitfield(b, k, shard, pos, set ? SET : GET, U1, set ? ONE : null);
    b.endKey();
  }

  // ---- merging

  /**
   * ORs the bits of {@code other}, a library filter of the same type, size, hash count and hashing
   * (one built elsewhere, or read from a file), into this filter: afterwards it holds the keys of
   * both, and its export is the file of their merge. Keys other clients add meanwhile are all kept:
   * each 1 MiB range of a shard is ORed by one atomic script (zero ranges are skipped), never read
   * whole and written back. A merge that failed may be run again (OR is idempotent).
   *
   * @throws IllegalArgumentException before anything is written, when the filters differ in shape
   */
  public RedisBloomFilter merge(MembershipFilter other) {
    checkMergeable(other);
    mergePayload(
        other::writeTo,
        true,
        (s, key, at, part) -> {
          if (!allZero(part)) {
            List<byte[]> keys =
                List.of(shardKeys[s], bytes(key + ":merge-a"), bytes(key + ":merge-b"));
            List<byte[]> args = guard(new ArrayList<>(List.of(ascii(at), part)), 1, s, 1);
            script("merge", true, Scripts.BIT_OR, keys, args, 0, 1);
          }
        });
    return this;
  }

  /**
   * Refuses, naming both, a filter that {@link #merge} would not accept: another type, size, hash
   * count or hashing.
   */
  public void checkMergeable(MembershipFilter other) {
    int hashes =
        other instanceof BloomFilter
            ? ((BloomFilter) other).hashCount()
            : other instanceof BlockedBloomFilter ? ((BlockedBloomFilter) other).hashCount() : -1;
    checkMerge(
        other.type() == meta.type
            && other.bitSize() == m
            && hashes == k
            && other.hashStrategy().equals(meta.hash),
        other.type().label()
            + " filter of "
            + other.bitSize()
            + " bits, "
            + (hashes < 0 ? "" : hashes + " hashes, ")
            + other.hashStrategy());
  }

  private static boolean allZero(byte[] b) {
    for (byte x : b) {
      if (x != 0) {
        return false;
      }
    }
    return true;
  }

  // ---- introspection

  public boolean isBlocked() {
    return blocked;
  }

  public long bitSize() {
    return m;
  }

  public int hashCount() {
    return k;
  }

  /** The keys the filter was sized for, or 0 when created by {@link #withBits}. */
  public long expectedKeys() {
    return expectedKeys;
  }

  /** The rate the filter was sized for, or 0 when created by {@link #withBits}. */
  public double targetFpp() {
    return fpp;
  }

  /** The number of bits set ({@code BITCOUNT} of every shard). */
  public long bitCount() {
    long sum = 0;
    for (int i = 0; i < shardKeys.length; i++) {
      byte[] s = shardKeys[i];
      long end = payloadBytes(i) - 1; // not the id that ends the shard
      sum += store.read(() -> store.jedis().bitcount(s, 0, end));
    }
    return sum;
  }
}
