package io.github.probkit.cli.format;

import io.github.probkit.cardinality.HyperLogLog;
import io.github.probkit.foreign.DataSketchesHll;
import io.github.probkit.io.SketchFormatException;

/**
 * Apache DataSketches' HLL sketches ({@link DataSketchesHll}; Spark 4's {@code hll_sketch_agg},
 * Druid, Pinot), recognized by their preamble and read as the probkit sketch of their registers.
 */
public final class DataSketchesHllFormat extends HllRegistersFormat {
  public static final DataSketchesHllFormat INSTANCE = new DataSketchesHllFormat();

  /** The largest sketch DataSketches writes: updatable HLL_8 at lgK 21 and its preamble. */
  private static final int MAX_BYTES = 40 + (1 << 21);

  private DataSketchesHllFormat() {
    super("datasketches", "datasketches hll", MAX_BYTES);
  }

  @Override
  public boolean recognizes(byte[] head) {
    return DataSketchesHll.looksLikeHll(head);
  }

  @Override
  HyperLogLog decode(byte[] bytes) throws SketchFormatException {
    return DataSketchesHll.read(bytes).toHyperLogLog();
  }

  @Override
  byte[] encode(HyperLogLog sketch) {
    return DataSketchesHll.of(sketch).toCompactBytes();
  }
}
