package io.github.probkit.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The Lua scripts of the atomic operations, sent whole with {@code EVAL}: Redis caches them by
 * digest, and unlike {@code EVALSHA} nothing breaks when a restart or a failover empties its script
 * cache.
 */
final class Scripts {
  static final byte[] BIT_OR = load("bitor.lua");
  static final byte[] COUNTING = load("counting.lua");
  static final byte[] COUNT_MIN = load("countmin.lua");
  static final byte[] LOGLOG = load("loglog.lua");
  static final byte[] SCALABLE = load("scalable.lua");
  static final byte[] SNAPSHOT = load("snapshot.lua");

  private Scripts() {}

  private static byte[] load(String name) {
    try (InputStream in = Scripts.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).getBytes(StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
