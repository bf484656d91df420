package io.github.probkit.redis;

import io.github.probkit.cardinality.HyperLogLog;
import io.github.probkit.foreign.RedisHyperLogLogFormat;
import io.github.probkit.hash.HashStrategy;
import io.github.probkit.io.SketchFormatException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * Redis's own HyperLogLog at one key, through {@code PFADD}, {@code PFCOUNT} and {@code PFMERGE}:
 * the key any Redis client in any language shares, at Redis's own speed. Unlike {@link
 * RedisCardinalitySketch} it keeps no metadata and runs no script to add: the value is Redis's
 * {@code HYLL} string (precision 14, MurmurHash64A), which {@link #toSketch()} reads into a probkit
 * {@link HyperLogLog} of {@link HashStrategy#redis()}, and probkit sketches of that hashing merge
 * into it.
 *
 * <p>Items are strings (their UTF-8 bytes, as {@code redis-cli} and other clients send them) or
 * bytes. A missing key counts 0, as {@code PFCOUNT} says.
 *
 * <p>Thread safety: safe for use by many threads and processes at once; each call is one Redis
 * command or script, atomic on the server.
 */
public final class RedisNativeHyperLogLog {
  /** Items per PFADD command in {@link #addAll}. */
  static final int BATCH = 1000;

  /** Sets a temporary key to the HYLL string, PFMERGEs it into the key and deletes it. */
  private static final byte[] MERGE_SCRIPT =
      RedisStructure.bytes(
          "redis.call('SET', KEYS[2], ARGV[1])\n"
              + "local r = redis.pcall('PFMERGE', KEYS[1], KEYS[2])\n"
              + "redis.call('DEL', KEYS[2])\n"
              + "return r\n");

  private final RedisStore store;
  private final String key;
  private final byte[] keyBytes;

  private RedisNativeHyperLogLog(RedisStore store, String key) {
    this.store = store;
    this.key = key;
    this.keyBytes = RedisStructure.bytes(key);
  }

  /** The HyperLogLog at {@code key} (which need not exist yet). */
  public static RedisNativeHyperLogLog of(RedisStore store, String key) {
    if (key == null || key.isEmpty()) {
      throw new IllegalArgumentException("key must not be empty");
    }
    return new RedisNativeHyperLogLog(store, key);
  }

  public String key() {
    return key;
  }

  /** PFADD of one item; returns whether a register changed. */
  public boolean add(CharSequence item) {
    return add(utf8(item));
  }

  public boolean add(byte[] item) {
    return store.call(() -> store.jedis().pfadd(keyBytes, item)) == 1;
  }

  /**
   * PFADD of the items, {@value #BATCH} per command; returns whether any register changed. Not
   * atomic as a whole: a failure leaves the commands before it applied, and adding again is
   * harmless.
   */
  public boolean addAll(Iterable<? extends CharSequence> items) {
    boolean changed = false;
    List<byte[]> batch = new ArrayList<>(BATCH);
    for (CharSequence item : items) {
      batch.add(utf8(item));
      if (batch.size() == BATCH) {
        changed |= pfadd(batch);
        batch.clear();
      }
    }
    if (!batch.isEmpty()) {
      changed |= pfadd(batch);
    }
    return changed;
  }

  private boolean pfadd(List<byte[]> batch) {
    byte[][] items = batch.toArray(new byte[0][]);
    return store.call(() -> store.jedis().pfadd(keyBytes, items)) == 1;
  }

  /** PFCOUNT: Redis's estimate of the distinct items added. */
  public long count() {
    return store.call(() -> store.jedis().pfcount(keyBytes));
  }

  /** PFMERGE of the HyperLogLogs at {@code sourceKeys} into this key. */
  public RedisNativeHyperLogLog mergeKeys(String... sourceKeys) {
    store.call(() -> store.jedis().pfmerge(key, sourceKeys));
    return this;
  }

  /**
   * Adds the registers of a probkit sketch (of {@link HashStrategy#redis()}, precision 14 or more),
   * atomically, by PFMERGE of its HYLL string.
   *
   * @throws IllegalArgumentException if the sketch's hashing or precision differs
   */
  public RedisNativeHyperLogLog merge(HyperLogLog sketch) {
    byte[] hyll = RedisHyperLogLogFormat.write(sketch);
    byte[] temporary = RedisStructure.bytes(temporaryKey());
    store.call(() -> store.jedis().eval(MERGE_SCRIPT, List.of(keyBytes, temporary), List.of(hyll)));
    return this;
  }

  /**
   * A key in this key's cluster slot, for the merge's HYLL string: the key's own hash tag if it has
   * one, else the key made a hash tag.
   */
  private String temporaryKey() {
    String suffix = ":probkit-merge";
    for (String candidate : new String[] {key + suffix, "{" + key + "}" + suffix}) {
      if (JedisClusterCRC16.getSlot(candidate) == JedisClusterCRC16.getSlot(key)) {
        return candidate;
      }
    }
    throw new IllegalArgumentException(
        "cannot merge into key '" + key + "': no temporary key shares its cluster slot");
  }

  /**
   * The key's registers as a probkit sketch (precision 14, {@link HashStrategy#redis()}, dense); an
   * empty one when the key does not exist.
   *
   * @throws SketchFormatException if the key does not hold a valid HYLL string
   */
  public HyperLogLog toSketch() throws SketchFormatException {
    byte[] value = store.call(() -> store.jedis().get(keyBytes));
    if (value == null) {
      return HyperLogLog.create(RedisHyperLogLogFormat.PRECISION, HashStrategy.redis());
    }
    return RedisHyperLogLogFormat.read(value);
  }

  private static byte[] utf8(CharSequence item) {
    return item.toString().getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public String toString() {
    return "RedisNativeHyperLogLog{key=" + key + ", server=" + store.server() + "}";
  }
}
