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
  // Every script that reads or writes a structure's data checks its keys first (guard.lua).
  static final byte[] BIT_OR = guarded("bitor.lua");
  static final byte[] BITFIELDS = guarded("bitfields.lua");
  static final byte[] COUNTING = guarded("counting.lua");
  static final byte[] COUNT_MIN = guarded("countmin.lua");
  static final byte[] LOGLOG = guarded("loglog.lua", "loglog-update.lua");
  static final byte[] SCALABLE = guarded("scalable.lua");
  static final byte[] SETRANGE = guarded("setrange.lua");
  static final byte[] SNAPSHOT = guarded("snapshot.lua");
  // The windowed scripts check the metadata's id themselves (rotation.lua): their slots may have
  // expired.
  static final byte[] WINDOW = rotating(1, "rotation.lua", "window.lua");
  static final byte[] SLICES = rotating(1, "loglog-update.lua", "rotation.lua", "slices.lua");
  // A heavy-hitters slice is three keys: its total (and id), its items, their eviction order.
  static final byte[] HEAVY_SLICES = rotating(3, "rotation.lua", "heavy.lua");
  static final byte[] PRESIZE = load("presize.lua").getBytes(StandardCharsets.UTF_8);
  static final byte[] IF_ID = load("ifid.lua").getBytes(StandardCharsets.UTF_8);
  static final byte[] DROP_DATA = load("dropdata.lua").getBytes(StandardCharsets.UTF_8);

  private Scripts() {}

  /** The script {@code name} as the body of guard.lua, after the functions of {@code uses}. */
  private static byte[] guarded(String name, String... uses) {
    StringBuilder functions = new StringBuilder();
    for (String u : uses) {
      functions.append(load(u));
    }
    return (load("guard.lua")
            + functions
            + "local function body(KEYS, ARGV, ID)\n"
            + load(name)
            + "\nend\n"
            + load("guard-tail.lua"))
        .getBytes(StandardCharsets.UTF_8);
  }

  /** The scripts {@code names} in order, after rotation.lua's SLOT_KEYS, the keys per slice. */
  private static byte[] rotating(int slotKeys, String... names) {
    StringBuilder b = new StringBuilder("local SLOT_KEYS = " + slotKeys + "\n");
    for (String n : names) {
      b.append(load(n));
    }
    return b.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static String load(String name) {
    try (InputStream in = Scripts.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
