package io.github.probkit.cli.format;

import io.github.probkit.cardinality.CardinalitySketch;
import io.github.probkit.cardinality.HyperLogLog;
import io.github.probkit.cli.output.CliException;
import io.github.probkit.foreign.RedisHyperLogLogFormat;
import io.github.probkit.io.SketchFormatException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * Redis's own HyperLogLog, the {@code HYLL} string {@code PFADD} builds ({@link
 * RedisHyperLogLogFormat}), recognized by its magic and read as the probkit sketch of its registers
 * (precision 14, Redis's MurmurHash64A). The string has no checksum; the reader refuses what no
 * Redis writes (a register above 51, sparse opcodes that do not cover 16384 registers).
 */
public final class RedisHllFormat implements Format {
  public static final RedisHllFormat INSTANCE = new RedisHllFormat();

  /** The longest HYLL string: the dense one (a sparse one is shorter, or Redis turns it dense). */
  private static final int MAX_BYTES = 16 + 3 * (1 << RedisHyperLogLogFormat.PRECISION) / 4;

  private RedisHllFormat() {}

  @Override
  public boolean hasMagic() {
    return true;
  }

  @Override
  public ForeignFilter filter(InputStream in) throws SketchFormatException {
    throw Format.holdsNo(this, "filter");
  }

  @Override
  public ForeignCounts counts(InputStream in) throws SketchFormatException {
    throw Format.holdsNo(this, "count-min sketch");
  }

  @Override
  public String name() {
    return "redis";
  }

  @Override
  public boolean recognizes(byte[] head) {
    return RedisHyperLogLogFormat.looksLikeHyll(head);
  }

  @Override
  @SuppressWarnings("unchecked")
  public <T> T read(InputStream in, Kind<T> kind) throws IOException {
    if (kind != Kind.CARDINALITY) {
      throw new SketchFormatException(
          "redis HYLL: a Redis HyperLogLog counts distinct items (probkit hll)");
    }
    byte[] bytes = in.readNBytes(MAX_BYTES + 1);
    if (bytes.length > MAX_BYTES) {
      throw new SketchFormatException(
          "redis HYLL: more than " + MAX_BYTES + " bytes, longer than a dense HYLL string");
    }
    return (T) RedisHyperLogLogFormat.read(bytes);
  }

  @Override
  public void write(Object sketch, OutputStream out) throws IOException {
    if (!(sketch instanceof HyperLogLog)) {
      throw new CliException(
          "redis HYLL holds HyperLogLog registers, not those of a "
              + (sketch instanceof CardinalitySketch
                  ? ((CardinalitySketch) sketch).type().label()
                  : "filter or count-min sketch"));
    }
    try {
      out.write(RedisHyperLogLogFormat.write((HyperLogLog) sketch));
    } catch (IllegalArgumentException e) {
      throw new CliException("redis HYLL: " + e.getMessage(), e);
    }
  }
}
