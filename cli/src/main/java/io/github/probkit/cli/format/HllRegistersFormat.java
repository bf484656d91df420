package io.github.probkit.cli.format;

import io.github.probkit.cardinality.CardinalitySketch;
import io.github.probkit.cardinality.HyperLogLog;
import io.github.probkit.cli.output.CliException;
import io.github.probkit.io.SketchFormatException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * Another library's HyperLogLog, read as the probkit sketch of its registers and written from one:
 * what {@link RedisHllFormat} and {@link DataSketchesHllFormat} share. Such a format holds no
 * filter or count-min sketch. (An abstract class, not default methods of {@link Format}: see its
 * {@code write}.)
 */
abstract class HllRegistersFormat implements Format {
  private final String name;
  private final String what;
  private final int maxBytes;

  /** {@code what} names the format in messages; {@code maxBytes} bounds a sketch's bytes. */
  HllRegistersFormat(String name, String what, int maxBytes) {
    this.name = name;
    this.what = what;
    this.maxBytes = maxBytes;
  }

  /** The sketch of {@code bytes}; a failure names the field and the bad value. */
  abstract HyperLogLog decode(byte[] bytes) throws SketchFormatException;

  /** The bytes of {@code sketch}; IllegalArgumentException when the format cannot hold it. */
  abstract byte[] encode(HyperLogLog sketch);

  @Override
  public final String name() {
    return name;
  }

  @Override
  public final boolean hasMagic() {
    return true;
  }

  @Override
  public final ForeignFilter filter(InputStream in) throws SketchFormatException {
    throw Format.holdsNo(this, "filter");
  }

  @Override
  public final ForeignCounts counts(InputStream in) throws SketchFormatException {
    throw Format.holdsNo(this, "count-min sketch");
  }

  @Override
  @SuppressWarnings("unchecked")
  public final <T> T read(InputStream in, Kind<T> kind) throws IOException {
    if (kind != Kind.CARDINALITY) {
      throw new SketchFormatException(what + ": a HyperLogLog counts distinct items (probkit hll)");
    }
    byte[] bytes = in.readNBytes(maxBytes + 1);
    if (bytes.length > maxBytes) {
      throw new SketchFormatException(
          what + ": more than " + maxBytes + " bytes, larger than any such sketch");
    }
    try {
      return (T) decode(bytes);
    } catch (IllegalArgumentException e) {
      throw new SketchFormatException(what + ": " + e.getMessage());
    }
  }

  @Override
  public final void write(Object sketch, OutputStream out) throws IOException {
    if (!(sketch instanceof HyperLogLog)) {
      throw new CliException(
          what
              + " holds HyperLogLog registers, not those of a "
              + (sketch instanceof CardinalitySketch
                  ? ((CardinalitySketch) sketch).type().label()
                  : "filter or count-min sketch"));
    }
    try {
      out.write(encode((HyperLogLog) sketch));
    } catch (IllegalArgumentException e) {
      throw new CliException(what + ": " + e.getMessage(), e);
    }
  }
}
