package io.github.probkit.spark;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * How a Spark value becomes a probkit key: the same bytes the library and the command line hash
 * (docs/SPARK.md has the table). A string is its UTF-8 bytes, binary itself, and every integral
 * type, boolean, date and timestamp is widened to a long (8 little-endian bytes), so an int column
 * and a bigint column holding 42 give the same key, as {@code filter.add(42)} does in Java.
 */
enum Keys {
  /**
   * byte, short, int, bigint, date (days since 1970-01-01), timestamp and timestamp_ntz
   * (microseconds since 1970-01-01 00:00).
   */
  LONG,
  /** true is 1, false is 0, as longs. */
  BOOLEAN,
  /**
   * float widened to double, -0.0 as 0.0, every NaN as Java's canonical NaN; its IEEE 754 bits as a
   * long.
   */
  DOUBLE,
  /** The UTF-8 bytes (binary collation only: other collations make unequal bytes equal). */
  STRING,
  BINARY,
  /**
   * The UTF-8 bytes of the value's plain string without trailing zeros: 1.50 is "1.5", 100 is
   * "100".
   */
  DECIMAL;

  /** Receives a key either as bytes or as a long (whose key is its 8 little-endian bytes). */
  interface Visitor<R> {
    R bytes(byte[] key, int off, int len);

    R longKey(long key);
  }

  /** The encoding of {@code type}, or null when keys of that type are not supported. */
  static Keys of(DataType type) {
    if (type instanceof LongType
        || type instanceof IntegerType
        || type instanceof ShortType
        || type instanceof ByteType
        || type instanceof DateType
        || type instanceof TimestampType
        || type instanceof TimestampNTZType) {
      return LONG;
    }
    if (type instanceof BooleanType) {
      return BOOLEAN;
    }
    if (type instanceof DoubleType || type instanceof FloatType) {
      return DOUBLE;
    }
    if (type instanceof StringType) {
      return ((StringType) type).supportsBinaryEquality() ? STRING : null;
    }
    if (type instanceof BinaryType) {
      return BINARY;
    }
    if (type instanceof DecimalType) {
      return DECIMAL;
    }
    return null;
  }

  /**
   * The key type a structure built from a column of {@code type} records: the column types that
   * make the same keys and mean the same values share one name ({@code bigint} for every integral
   * type, {@code double} for float and double). Dates, timestamps and booleans are widened to longs
   * as integers are, but a filter of dates asked about a number of microseconds would answer for
   * another value, so they keep their own names.
   */
  static String typeName(DataType type) {
    if (type instanceof DateType) {
      return "date";
    }
    if (type instanceof TimestampType) {
      return "timestamp";
    }
    if (type instanceof TimestampNTZType) {
      return "timestamp_ntz";
    }
    Keys k = of(type);
    return k == LONG ? "bigint" : k.name().toLowerCase(java.util.Locale.ROOT);
  }

  /**
   * Whether items of a heavy-hitters summary of keys of type {@code keyType} decode as {@code
   * itemType} (probkit_topk's {@code string}, {@code binary} or {@code bigint}): binary always, as
   * the key's bytes.
   */
  static boolean decodes(String keyType, String itemType) {
    return itemType.equals("binary") || itemType.equals(decodesAs(keyType));
  }

  /** The item type that decodes keys of type {@code keyType} as their values. */
  static String decodesAs(String keyType) {
    switch (keyType) {
      case "string":
      case "decimal":
        return "string";
      case "bigint":
      case "date":
      case "timestamp":
      case "timestamp_ntz":
      case "boolean":
        return "bigint";
      default:
        return "binary";
    }
  }

  /** Why {@code type} cannot be a key: for the analysis error. */
  static String unsupported(DataType type) {
    String why =
        type instanceof StringType
            ? " (collation "
                + ((StringType) type).collationName()
                + " compares unequal bytes as equal; use the default UTF8_BINARY collation)"
            : "";
    return "keys of type "
        + type.sql()
        + " are not supported"
        + why
        + "; supported: string, binary, tinyint, smallint, int, bigint, boolean, float, double, "
        + "decimal, date, timestamp, timestamp_ntz";
  }

  /**
   * Passes the key of the non-null Catalyst value {@code v} of this encoding's type to {@code
   * target}.
   */
  <R> R apply(Object v, Visitor<R> target) {
    switch (this) {
      case LONG:
        return target.longKey(((Number) v).longValue());
      case BOOLEAN:
        return target.longKey((Boolean) v ? 1L : 0L);
      case DOUBLE:
        double d = ((Number) v).doubleValue();
        return target.longKey(Double.doubleToLongBits(d == 0.0 ? 0.0 : d));
      case STRING:
        UTF8String s = (UTF8String) v;
        Object base = s.getBaseObject();
        if (base instanceof byte[]) {
          // The row's own bytes, not a copy.
          return target.bytes(
              (byte[]) base, (int) (s.getBaseOffset() - Platform.BYTE_ARRAY_OFFSET), s.numBytes());
        } else {
          byte[] copy = s.getBytes();
          return target.bytes(copy, 0, copy.length);
        }
      case BINARY:
        byte[] b = (byte[]) v;
        return target.bytes(b, 0, b.length);
      default:
        byte[] text = decimalKey(((Decimal) v).toJavaBigDecimal());
        return target.bytes(text, 0, text.length);
    }
  }

  static byte[] decimalKey(BigDecimal value) {
    return value.stripTrailingZeros().toPlainString().getBytes(StandardCharsets.UTF_8);
  }

  /** The 8 little-endian bytes of a long key, for structures that take only bytes. */
  static byte[] longBytes(long key, byte[] into) {
    for (int i = 0; i < 8; i++) {
      into[i] = (byte) (key >>> (8 * i));
    }
    return into;
  }
}
