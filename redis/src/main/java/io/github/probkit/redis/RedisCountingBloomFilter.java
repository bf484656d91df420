package io.github.probkit.redis;

import io.github.probkit.filter.BloomFilter;
import io.github.probkit.filter.CountingBloomFilter;
import io.github.probkit.io.StructureType;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import redis.clients.jedis.Response;

/**
 * A counting Bloom filter kept in Redis: the 4-bit counters of {@link CountingBloomFilter} of the
 * same shape and hashing, the same bytes.
 *
 * <p>Each key is added or removed atomically with the library's rules (saturated counters stay at
 * 15; a remove that finds a counter at 0 changes nothing): no key is ever half-applied and no
 * counter underflows, however many clients run at once or die. An add to a filter of one shard is
 * one {@code BITFIELD} per key; removes, and adds to a filter of several shards, run in a Lua
 * script, one call per batch. So every shard lives in one hash slot ({@link Layout#SLOT}). Queries
 * read the counters with {@code BITFIELD_RO}. Adds and removes are not idempotent: a batch is sent
 * again only when Redis refused it or its connection never opened, never after a lost reply
 * (RedisStore#run); then the error says how many keys of the batch were acknowledged (all or none:
 * the batch is one script), and the others may or may not be applied.
 *
 * <p>Thread safety: safe for use by many threads and processes at once.
 */
public final class RedisCountingBloomFilter extends RedisStructure {
  private static final Arg U4 = new Arg("u4");
  private static final Arg ONE = new Arg("1");
  private static final byte[] ADD = bytes("add");
  private static final byte[] REMOVE = bytes("remove");

  private final long m;
  private final int k;

  RedisCountingBloomFilter(RedisStore store, String name, Meta meta) {
    super(store, name, meta);
    ByteBuffer p = ByteBuffer.wrap(meta.params).order(ByteOrder.LITTLE_ENDIAN);
    this.m = p.getLong();
    this.k = p.getInt();
  }

  /** Creates a filter sized as {@link CountingBloomFilter#create} sizes it. */
  public static RedisCountingBloomFilter create(
      RedisStore store, String name, long expectedKeys, double fpp, RedisOptions options) {
    long m = BloomFilter.optimalBits(expectedKeys, fpp);
    return create(
        store, name, m, BloomFilter.optimalHashes(m, expectedKeys), expectedKeys, fpp, options);
  }

  /** Creates a filter of exactly {@code counters} counters and {@code hashes} probes. */
  public static RedisCountingBloomFilter withCounters(
      RedisStore store, String name, long counters, int hashes, RedisOptions options) {
    return create(store, name, counters, hashes, 0, 0, options);
  }

  private static RedisCountingBloomFilter create(
      RedisStore store,
      String name,
      long counters,
      int hashes,
      long expectedKeys,
      double fpp,
      RedisOptions o) {
    Meta meta =
        store.create(name, meta(counters, hashes, expectedKeys, fpp, o), o.openIfExists(), null);
    return new RedisCountingBloomFilter(store, name, meta);
  }

  static Meta meta(long counters, int hashes, long expectedKeys, double fpp, RedisOptions o) {
    if (counters < 1 || counters > CountingBloomFilter.MAX_COUNTERS) {
      throw new IllegalArgumentException(
          "counters must be in [1, " + CountingBloomFilter.MAX_COUNTERS + "], was " + counters);
    }
    if (hashes < 1 || hashes > CountingBloomFilter.MAX_HASHES) {
      throw new IllegalArgumentException(
          "hashes must be in [1, " + CountingBloomFilter.MAX_HASHES + "], was " + hashes);
    }
    CountingBloomFilter.withCounters(
        1, 1, o.hash()); // the library's own check of the hash strategy
    ByteBuffer p = ByteBuffer.allocate(28).order(ByteOrder.LITTLE_ENDIAN);
    p.putLong(counters).putInt(hashes).putLong(expectedKeys).putDouble(fpp);
    return slotMeta(
        StructureType.COUNTING_BLOOM_FILTER,
        "a counting filter's adds and removes",
        8 * ceilDiv(counters, 16),
        p.array(),
        o);
  }

  public static RedisCountingBloomFilter open(RedisStore store, String name) {
    return new RedisCountingBloomFilter(
        store, name, open(store, name, StructureType.COUNTING_BLOOM_FILTER));
  }

  // ---- keys

  public boolean add(Object key) {
    return addAll(List.of(key))[0];
  }

  /**
   * Increments each key's k counters (saturated ones stay at 15); returns for each whether a
   * counter changed. Each key is added whole or not at all.
   */
  public boolean[] addAll(Collection<?> keys) {
    return meta.shards == 1 ? addNatively(keyBytes(keys)) : script("add", ADD, keyBytes(keys));
  }

  /**
   * One shard: one {@code BITFIELD} per key reads its counters and increments them saturating at 15
   * ({@code GET u4 … OVERFLOW SAT INCRBY u4 … 1}, a repeated probe incremented twice as the library
   * does); a counter changed when one read below 15. Atomic per key, without a script.
   */
  private boolean[] addNatively(List<byte[]> keys) {
    boolean[] out = new boolean[keys.size()];
    long[] off = new long[k];
    int[] shard = new int[k];
    for (int from = 0; from < keys.size(); from += store.batchSize()) {
      int to = Math.min(keys.size(), from + store.batchSize());
      Batch b =
          runKeys(
              "add",
              false,
              from,
              to,
              (bt, i) -> {
                cells(keys.get(i), shard, off);
                Cmd args = bitfield(0, false);
                for (int j = 0; j < k; j++) {
                  args.add(GET).add(U4).add(Arg.of(off[j]));
                }
                args.add(OVERFLOW).add(SAT);
                for (int j = 0; j < k; j++) {
                  args.add(INCRBY).add(U4).add(Arg.of(off[j])).add(ONE);
                }
                queue(bt, args);
                bt.endKey();
              });
      for (int i = from; i < to; i++) {
        List<?> values = (List<?>) b.of(i - from).get(0).get();
        boolean changed = false;
        for (int j = 0; j < k; j++) {
          changed |= (Long) values.get(j) < CountingBloomFilter.MAX_COUNT;
        }
        out[i] = changed;
      }
    }
    return out;
  }

  public boolean remove(Object key) {
    return removeAll(List.of(key))[0];
  }

  /**
   * Decrements each key's k counters; returns for each whether it was removed ({@code false}: a
   * counter was 0, the key is certainly absent, and nothing changed).
   */
  public boolean[] removeAll(Collection<?> keys) {
    return script("remove", REMOVE, keyBytes(keys));
  }

  public boolean mightContain(Object key) {
    return mightContainAll(List.of(key))[0];
  }

  public boolean[] mightContainAll(Collection<?> keys) {
    int[] counts = countAll(keys);
    boolean[] out = new boolean[counts.length];
    for (int i = 0; i < counts.length; i++) {
      out[i] = counts[i] > 0;
    }
    return out;
  }

  /** The smallest of the key's counters, in [0, 15], as {@link CountingBloomFilter#count}. */
  public int count(Object key) {
    return countAll(List.of(key))[0];
  }

  public int[] countAll(Collection<?> keys) {
    List<byte[]> ks = keyBytes(keys);
    int[] out = new int[ks.size()];
    long[] off = new long[k];
    int[] shard = new int[k];
    for (int from = 0; from < ks.size(); from += store.batchSize()) {
      int to = Math.min(ks.size(), from + store.batchSize());
      Batch b =
          runKeys(
              "query",
              true,
              from,
              to,
              (bt, i) -> {
                cells(ks.get(i), shard, off);
                queueBitfield(bt, k, shard, off, GET, U4, null);
                bt.endKey();
              });
      for (int i = from; i < to; i++) {
        long min = 15;
        for (Response<?> r : b.of(i - from)) {
          for (Object v : (List<?>) r.get()) {
            min = Math.min(min, (Long) v);
          }
        }
        out[i] = (int) min;
      }
    }
    return out;
  }

  /** The shard and Redis bit offset of each of the key's k counters, in probe order. */
  private void cells(byte[] key, int[] shard, long[] off) {
    BloomFilter.positions(meta.hash, m, k, key, 0, key.length, off);
    for (int i = 0; i < k; i++) {
      long c = off[i];
      long b = c >>> 1;
      shard[i] = shardOf(b);
      // Counter c is the low nibble of byte c / 2 when c is even; Redis numbers bits from the high
      // one.
      off[i] = (b % meta.shardBytes) << 3 | ((c & 1) == 0 ? 4 : 0);
    }
  }

  private boolean[] script(String what, byte[] op, List<byte[]> keys) {
    boolean[] out = new boolean[keys.size()];
    List<byte[]> shardList = Arrays.asList(shardKeys);
    int[] shard = new int[k];
    long[] off = new long[k];
    for (int from = 0; from < keys.size(); from += store.batchSize()) {
      int to = Math.min(keys.size(), from + store.batchSize());
      List<byte[]> args = new ArrayList<>(2 + 2 * k * (to - from));
      args.add(op);
      args.add(ascii(k));
      for (int i = from; i < to; i++) {
        cells(keys.get(i), shard, off);
        for (int j = 0; j < k; j++) {
          args.add(ascii(shard[j] + 1));
          args.add(ascii(off[j]));
        }
      }
      flags(
          (List<?>)
              script(
                  what,
                  false,
                  Scripts.COUNTING,
                  shardList,
                  guard(args, 1, 0, meta.shards),
                  from,
                  to - from),
          out,
          from);
    }
    return out;
  }

  // ---- introspection

  // ---- merging

  /**
   * Adds the counters of {@code other}, a library counting filter of the same counters, hash count
   * and hashing, into this filter, saturating at 15 as {@link CountingBloomFilter#merge} does: each
   * non-zero counter by an {@code OVERFLOW SAT INCRBY u4}, in commands of up to the store's batch
   * size of counters, each atomic. Increments commute, so keys other clients add meanwhile are all
   * kept. Not idempotent: after a failure, the message says how many bytes of the source were
   * added.
   *
   * @throws IllegalArgumentException before anything is written, when the filters differ in shape
   */
  public RedisCountingBloomFilter merge(CountingBloomFilter other) {
    checkMergeable(other);
    mergeCounters(
        other::writeTo,
        U4,
        bytes -> 2 * bytes,
        (at, part, offset, value) -> {
          int n = 0;
          for (int i = 0; i < part.length; i++) {
            int b = part[i] & 0xFF;
            long bit = 8 * (at + i);
            if ((b & 0xF) != 0) { // the even counter: the low nibble, Redis bits 4..7 of the byte
              offset[n] = bit + 4;
              value[n++] = b & 0xF;
            }
            if (b >>> 4 != 0) {
              offset[n] = bit;
              value[n++] = b >>> 4;
            }
          }
          return n;
        });
    return this;
  }

  /** Refuses, naming both, a filter of other counters, hash count or hashing. */
  public void checkMergeable(CountingBloomFilter other) {
    checkMerge(
        other.counterCount() == m
            && other.hashCount() == k
            && other.hashStrategy().equals(meta.hash),
        "counting filter of "
            + other.counterCount()
            + " counters, "
            + other.hashCount()
            + " hashes, "
            + other.hashStrategy());
  }

  public long counterCount() {
    return m;
  }

  public int hashCount() {
    return k;
  }
}
