package io.github.probkit.cli.format;

import io.github.probkit.cardinality.HyperLogLog;
import io.github.probkit.foreign.RedisHyperLogLogFormat;
import io.github.probkit.io.SketchFormatException;

/**
 * Redis's own HyperLogLog, the {@code HYLL} string {@code PFADD} builds ({@link
 * RedisHyperLogLogFormat}), recognized by its magic and read as the probkit sketch of its registers
 * (precision 14, Redis's MurmurHash64A). The string has no checksum; the reader refuses what no
 * Redis writes (a register above 51, sparse opcodes that do not cover 16384 registers).
 */
public final class RedisHllFormat extends HllRegistersFormat {
  public static final RedisHllFormat INSTANCE = new RedisHllFormat();

  /** The longest HYLL string: the dense one (a sparse one is shorter, or Redis turns it dense). */
  private static final int MAX_BYTES = 16 + 3 * (1 << RedisHyperLogLogFormat.PRECISION) / 4;

  private RedisHllFormat() {
    super("redis", "redis HYLL", MAX_BYTES);
  }

  @Override
  public boolean recognizes(byte[] head) {
    return RedisHyperLogLogFormat.looksLikeHyll(head);
  }

  @Override
  HyperLogLog decode(byte[] bytes) throws SketchFormatException {
    return RedisHyperLogLogFormat.read(bytes);
  }

  @Override
  byte[] encode(HyperLogLog sketch) {
    return RedisHyperLogLogFormat.write(sketch);
  }
}
