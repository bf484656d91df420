package io.github.probkit.redis;

/**
 * The one error of probkit-redis: Redis unreachable or timed out, a reply such as {@code OOM},
 * {@code WRONGTYPE} or {@code READONLY}, a key that holds something else, or a structure of another
 * type or shape than asked for. The message names the server and, for a batch, how many of its keys
 * Redis acknowledged before the failure; those keys are stored, the others may or may not be.
 */
public final class RedisStoreException extends RuntimeException {
  private final String server;
  private final int acknowledged;

  RedisStoreException(String server, String message, int acknowledged, Throwable cause) {
    super("redis " + server + ": " + message, cause);
    this.server = server;
    this.acknowledged = acknowledged;
  }

  RedisStoreException(String server, String message) {
    this(server, message, -1, null);
  }

  /** The server (host:port, or the cluster's seed nodes) the store was connected to. */
  public String server() {
    return server;
  }

  /**
   * For a failed batch, the number of its keys (in batch order, from the first) whose every command
   * Redis acknowledged; -1 when the failure was not in a batch.
   */
  public int acknowledged() {
    return acknowledged;
  }
}
