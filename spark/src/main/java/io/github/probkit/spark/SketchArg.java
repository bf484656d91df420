package io.github.probkit.spark;

import com.dynatrace.hash4j.hashing.HashValue128;
import com.dynatrace.hash4j.hashing.Hasher128;
import com.dynatrace.hash4j.hashing.Hashing;
import java.util.Locale;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * A structure argument: the bytes of a probkit file (binary), or an aggregate's result {@link
 * ProbkitAggregate#RESULT} (as it is, or read back from Parquet, including the three-field struct
 * of earlier versions, whose key type is unknown).
 */
final class SketchArg {
  private SketchArg() {}

  /** The session setting that lets structures of different key types be merged and queried. */
  static final String MIX_KEY_TYPES = "spark.probkit.mixKeyTypes";

  /** The index of {@code key_type} in {@link ProbkitAggregate#RESULT}. */
  static final int KEY_TYPE = 3;

  /** The index of {@code digest} in {@link ProbkitAggregate#RESULT}. */
  static final int DIGEST = 4;

  private static final Hasher128 DIGEST_HASH = Hashing.xxh3_128();

  static boolean accepts(DataType type) {
    if (type instanceof BinaryType) {
      return true;
    }
    if (!(type instanceof StructType)) {
      return false;
    }
    StructField[] got = ((StructType) type).fields();
    StructField[] want = ProbkitAggregate.RESULT.fields();
    if (got.length < 3 || got.length > want.length) {
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

  /**
   * The key type recorded with the structure of the non-null value {@code v}, or null when unknown
   * (bare bytes: the probkit format has no field for it).
   */
  static String keyType(Object v) {
    if (v instanceof InternalRow) {
      InternalRow r = (InternalRow) v;
      return r.numFields() > KEY_TYPE && !r.isNullAt(KEY_TYPE)
          ? r.getUTF8String(KEY_TYPE).toString()
          : null;
    }
    return null;
  }

  /**
   * The {@code digest} of a sketch: its XXH3-128 hash, 16 bytes, by which {@link StructureCache}
   * finds it without reading it.
   */
  static byte[] digest(byte[] sketch) {
    HashValue128 h = DIGEST_HASH.hashBytesTo128Bits(sketch);
    byte[] d = Keys.longBytes(h.getLeastSignificantBits(), new byte[16]);
    System.arraycopy(Keys.longBytes(h.getMostSignificantBits(), new byte[8]), 0, d, 8, 8);
    return d;
  }

  /** Whether the session allows structures of different key types to be merged and queried. */
  static boolean mixKeyTypes() {
    return Boolean.parseBoolean(SQLConf.get().getConfString(MIX_KEY_TYPES, "false"));
  }

  /** The error for a merge or query across key types, {@code what} saying which. */
  static IllegalArgumentException mixed(String function, String what) {
    return new IllegalArgumentException(
        String.format(
            Locale.ROOT, "%s: %s (set %s=true if you mean it)", function, what, MIX_KEY_TYPES));
  }

  /** Merges the structure of the value {@code v} (null is skipped) into {@code union}. */
  static void addTo(Accumulator.Union union, Object v) {
    if (v instanceof InternalRow) {
      InternalRow r = (InternalRow) v;
      if (!r.isNullAt(0)) {
        union.addSketch(
            r.getBinary(0),
            r.isNullAt(1) ? -1 : r.getLong(1),
            r.isNullAt(2) ? -1 : r.getLong(2),
            keyType(r));
      }
    } else if (v != null) {
      union.addSketch((byte[]) v, -1, -1, null);
    }
  }
}
