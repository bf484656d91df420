package io.github.probkit.redis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;

/**
 * The commands of one pipelined round trip, grouped by the key of the batch they serve, so that
 * after a failure the keys whose every command was acknowledged can be counted.
 */
final class Batch {
  final AbstractPipeline pipe;
  private final List<Response<?>> responses = new ArrayList<>();
  private int[] ends = new int[16];
  private int keys;

  Batch(AbstractPipeline pipe) {
    this.pipe = pipe;
  }

  <T> Response<T> add(Response<T> r) {
    responses.add(r);
    return r;
  }

  /** Closes the current key: the commands added since the previous call serve it. */
  void endKey() {
    if (keys == ends.length) {
      ends = Arrays.copyOf(ends, 2 * keys);
    }
    ends[keys++] = responses.size();
  }

  int keys() {
    return keys;
  }

  /**
   * The replies to key {@code k}'s commands; throws the reply's error, or IllegalStateException
   * when none arrived.
   */
  List<Response<?>> of(int k) {
    return responses.subList(k == 0 ? 0 : ends[k - 1], ends[k]);
  }

  /** The keys, from the first, whose every command has a reply that is not an error. */
  int acknowledged() {
    int ok = 0;
    for (int k = 0; k < keys; k++) {
      for (Response<?> r : of(k)) {
        try {
          r.get();
        } catch (RuntimeException e) {
          return ok;
        }
      }
      ok++;
    }
    return ok;
  }
}
