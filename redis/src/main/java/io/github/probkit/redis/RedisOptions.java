package io.github.probkit.redis;

import io.github.probkit.hash.HashStrategy;
import java.time.Duration;
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

  /** The clock skew a window filter tolerates unless told: what NTP keeps hosts well within. */
  public static final Duration DEFAULT_MAX_SKEW = Duration.ofSeconds(1);

  private static final RedisOptions DEFAULTS =
      new RedisOptions(HashStrategy.xxh3(), Layout.SLOT, 0, false, DEFAULT_MAX_SKEW);

  private final HashStrategy hash;
  private final Layout layout;
  private final int shards;
  private final boolean openIfExists;
  private final Duration maxSkew;

  private RedisOptions(
      HashStrategy hash, Layout layout, int shards, boolean openIfExists, Duration maxSkew) {
    this.hash = hash;
    this.layout = layout;
    this.shards = shards;
    this.openIfExists = openIfExists;
    this.maxSkew = maxSkew;
  }

  /** XXH3 with seed 0, {@link Layout#SLOT}, as few shards as the size needs. */
  public static RedisOptions defaults() {
    return DEFAULTS;
  }

  public RedisOptions hash(HashStrategy hash) {
    return new RedisOptions(
        Objects.requireNonNull(hash, "hash"), layout, shards, openIfExists, maxSkew);
  }

  public RedisOptions layout(Layout layout) {
    return new RedisOptions(
        hash, Objects.requireNonNull(layout, "layout"), shards, openIfExists, maxSkew);
  }

  /**
   * Split the arrays into this many shards of equal size (whole 64-byte blocks), instead of the
   * fewest strings of at most {@link #MAX_SHARD_BYTES}.
   */
  public RedisOptions shards(int shards) {
    if (shards < 1 || shards > 65536) {
      throw new IllegalArgumentException("shards must be in [1, 65536], was " + shards);
    }
    return new RedisOptions(hash, layout, shards, openIfExists, maxSkew);
  }

  /**
   * Creating a structure that exists already opens it when its type and shape are the ones asked
   * for (a fleet of processes can all "create" it), instead of failing.
   */
  public RedisOptions openIfExists(boolean open) {
    return new RedisOptions(hash, layout, shards, open, maxSkew);
  }

  /**
   * How far apart the clocks of a window filter's writers and readers may be ({@link
   * RedisWindowedBloomFilter}): it keeps {@code ceil(maxSkew / generation)} more slices, so that a
   * writer whose clock is ahead never clears a slice a reader whose clock is behind still needs.
   * Default {@link #DEFAULT_MAX_SKEW}; at most the window.
   */
  public RedisOptions maxSkew(Duration maxSkew) {
    Objects.requireNonNull(maxSkew, "maxSkew");
    if (maxSkew.isNegative()) {
      throw new IllegalArgumentException("maxSkew must be >= 0, was " + maxSkew);
    }
    return new RedisOptions(hash, layout, shards, openIfExists, maxSkew);
  }

  public Duration maxSkew() {
    return maxSkew;
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
