package io.github.probkit.cli.format;

import io.github.probkit.cardinality.CardinalitySketch;
import io.github.probkit.cardinality.HyperLogLog;
import io.github.probkit.cli.output.CliException;
import io.github.probkit.foreign.DataSketchesHll;
import io.github.probkit.io.SketchFormatException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * Apache DataSketches' HLL sketches ({@link DataSketchesHll}; Spark 4's {@code hll_sketch_agg},
 * Druid, Pinot), recognized by their preamble and read as the probkit sketch of their registers.
 */
public final class DataSketchesHllFormat implements Format {
  public static final DataSketchesHllFormat INSTANCE = new DataSketchesHllFormat();

  /** The largest sketch DataSketches writes: updatable HLL_8 at lgK 21 and its preamble. */
  private static final int MAX_BYTES = 40 + (1 << 21);

  private DataSketchesHllFormat() {}

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
    return "datasketches";
  }

  @Override
  public boolean recognizes(byte[] head) {
    return DataSketchesHll.looksLikeHll(head);
  }

  @Override
  @SuppressWarnings("unchecked")
  public <T> T read(InputStream in, Kind<T> kind) throws IOException {
    if (kind != Kind.CARDINALITY) {
      throw new SketchFormatException(
          "datasketches hll: a DataSketches HLL sketch counts distinct items (probkit hll)");
    }
    byte[] bytes = in.readNBytes(MAX_BYTES + 1);
    if (bytes.length > MAX_BYTES) {
      throw new SketchFormatException(
          "datasketches hll: more than " + MAX_BYTES + " bytes, larger than any sketch");
    }
    try {
      return (T) DataSketchesHll.read(bytes).toHyperLogLog();
    } catch (IllegalArgumentException e) {
      throw new SketchFormatException("datasketches hll: " + e.getMessage());
    }
  }

  @Override
  public void write(Object sketch, OutputStream out) throws IOException {
    if (!(sketch instanceof HyperLogLog)) {
      throw new CliException(
          "datasketches HLL holds HyperLogLog registers, not those of a "
              + (sketch instanceof CardinalitySketch
                  ? ((CardinalitySketch) sketch).type().label()
                  : "filter or count-min sketch"));
    }
    try {
      out.write(DataSketchesHll.of((HyperLogLog) sketch).toCompactBytes());
    } catch (IllegalArgumentException e) {
      throw new CliException("datasketches HLL: " + e.getMessage(), e);
    }
  }
}
