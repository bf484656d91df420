package io.github.probkit.spark;

import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * A short text (a key type's name, at most 16 bytes) compared with a string field of an {@link
 * UnsafeRow} where the field lies. A filter joined to its rows has its recorded key type checked on
 * every row; reading the field as a {@link UTF8String} and comparing it cost an allocation and a
 * byte loop a row, about a tenth of a per-day join's time. Here it is one length and up to two
 * masked words.
 *
 * <p>Reading whole words past the text's end stays inside the row: UnsafeRow rounds every
 * variable-length field up to a multiple of 8 bytes. The bytes past the end are masked off, so
 * whatever the padding holds, only the text's own bytes are compared.
 */
final class InPlaceText {
  static final int MAX_BYTES = 16;

  private final int length;
  private final long low;
  private final long high;
  private final long lowMask;
  private final long highMask;

  private InPlaceText(byte[] text) {
    length = text.length;
    byte[] padded = new byte[MAX_BYTES];
    byte[] mask = new byte[MAX_BYTES];
    System.arraycopy(text, 0, padded, 0, length);
    java.util.Arrays.fill(mask, 0, length, (byte) -1);
    // Words read as a row's are read (Platform.getLong, native order), so that the masks select
    // the same bytes on any byte order.
    low = Platform.getLong(padded, Platform.BYTE_ARRAY_OFFSET);
    high = Platform.getLong(padded, Platform.BYTE_ARRAY_OFFSET + 8);
    lowMask = Platform.getLong(mask, Platform.BYTE_ARRAY_OFFSET);
    highMask = Platform.getLong(mask, Platform.BYTE_ARRAY_OFFSET + 8);
  }

  /** {@code t}, or null when it is longer than {@link #MAX_BYTES} (then compare it as a string). */
  static InPlaceText of(UTF8String t) {
    return t.numBytes() > MAX_BYTES ? null : new InPlaceText(t.getBytes());
  }

  /** Whether the non-null string field {@code ordinal} of {@code row} holds exactly this text. */
  boolean matches(UnsafeRow row, int ordinal) {
    long offsetAndSize = row.getLong(ordinal);
    if ((int) offsetAndSize != length) {
      return false;
    }
    Object base = row.getBaseObject();
    long at = row.getBaseOffset() + (offsetAndSize >>> 32);
    return (Platform.getLong(base, at) & lowMask) == low
        && (length <= 8 || (Platform.getLong(base, at + 8) & highMask) == high);
  }
}
