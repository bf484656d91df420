package io.github.probkit.redis;

import io.github.probkit.hash.HashStrategy;
import java.util.Objects;

/**
 * How a structure is created in Redis: its hash strategy, layout and number of shards, and whether
 * an existing structure of the same shape is opened instead of refused. Immutable; each method
 * returns a modified copy: {@code RedisOptions.defaults().layout(Layout.SPREAD).shards(12)}.
 */
public final class RedisOptions {
  /**
   * The most payload bytes of one shard: a Redis string holds at most 512 MiB (Redis's {@code
   * proto-max-bulk-len} default), and a shard ends with the structure's 16-byte id; a multiple of
   * 64 below both.
   */
  public static final long MAX_SHARD_BYTES = (512L << 20) - 64;

  private static final RedisOptions DEFAULTS =
      new RedisOptions(HashStrategy.xxh3(), Layout.SLOT, 0, false);

  private final HashStrategy hash;
  private final Layout layout;
  private final int shards;
  private final boolean openIfExists;

  private RedisOptions(HashStrategy hash, Layout layout, int shards, boolean openIfExists) {
    this.hash = hash;
    this.layout = layout;
    this.shards = shards;
    this.openIfExists = openIfExists;
  }

  /** XXH3 with seed 0, {@link Layout#SLOT}, as few shards as the size needs. */
  public static RedisOptions defaults() {
    return DEFAULTS;
  }

  public RedisOptions hash(HashStrategy hash) {
    return new RedisOptions(Objects.requireNonNull(hash, "hash"), layout, shards, openIfExists);
  }

  public RedisOptions layout(Layout layout) {
    return new RedisOptions(hash, Objects.requireNonNull(layout, "layout"), shards, openIfExists);
  }

  /**
   * Split the arrays into this many shards of equal size (whole 64-byte blocks), instead of the
   * fewest strings of at most {@link #MAX_SHARD_BYTES}.
   */
  public RedisOptions shards(int shards) {
    if (shards < 1 || shards > 65536) {
      throw new IllegalArgumentException("shards must be in [1, 65536], was " + shards);
    }
    return new RedisOptions(hash, layout, shards, openIfExists);
  }

  /**
   * Creating a structure that exists already opens it when its type and shape are the ones asked
   * for (a fleet of processes can all "create" it), instead of failing.
   */
  public RedisOptions openIfExists(boolean open) {
    return new RedisOptions(hash, layout, shards, open);
  }

  public HashStrategy hash() {
    return hash;
  }

  public Layout layout() {
    return layout;
  }

  /** The requested number of shards, or 0 for as few as the size needs. */
  public int shards() {
    return shards;
  }

  public boolean openIfExists() {
    return openIfExists;
  }
}
