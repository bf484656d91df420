package io.github.probkit.spark;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * A structure argument: the bytes of a probkit file (binary), or an aggregate's result {@code
 * struct<sketch, keys, nulls>} (as it is, or read back from Parquet).
 */
final class SketchArg {
  private SketchArg() {}

  static boolean accepts(DataType type) {
    if (type instanceof BinaryType) {
      return true;
    }
    if (!(type instanceof StructType)) {
      return false;
    }
    StructField[] got = ((StructType) type).fields();
    StructField[] want = ProbkitAggregate.RESULT.fields();
    if (got.length != want.length) {
      return false;
    }
    for (int i = 0; i < got.length; i++) {
      if (!got[i].name().equals(want[i].name()) || !got[i].dataType().equals(want[i].dataType())) {
        return false;
      }
    }
    return true;
  }

  /** The structure's bytes in the Catalyst value {@code v}, or null. */
  static byte[] bytes(Object v) {
    if (v instanceof InternalRow) {
      InternalRow r = (InternalRow) v;
      return r.isNullAt(0) ? null : r.getBinary(0);
    }
    return (byte[]) v;
  }

  /** Merges the structure of the value {@code v} (null is skipped) into {@code union}. */
  static void addTo(Accumulator.Union union, Object v) {
    if (v instanceof InternalRow) {
      InternalRow r = (InternalRow) v;
      if (!r.isNullAt(0)) {
        union.addSketch(
            r.getBinary(0), r.isNullAt(1) ? -1 : r.getLong(1), r.isNullAt(2) ? -1 : r.getLong(2));
      }
    } else if (v != null) {
      union.addSketch((byte[]) v, -1, -1);
    }
  }
}
