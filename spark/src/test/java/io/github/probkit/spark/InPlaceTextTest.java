package io.github.probkit.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

/**
 * A key type compared where the row holds it matches exactly the texts equal to it: not a prefix,
 * not a longer text that starts with it, not a text of the same length that differs in any byte,
 * whatever the row's padding holds.
 */
class InPlaceTextTest {
  private static final UnsafeProjection PROJECTION =
      UnsafeProjection.create(new DataType[] {ProbkitAggregate.RESULT});

  /**
   * The struct of a column whose key_type is {@code keyType}, as Spark's projections lay it out.
   */
  private static UnsafeRow struct(String keyType) {
    GenericInternalRow s =
        new GenericInternalRow(
            new Object[] {new byte[] {1, 2, 3}, 1L, 0L, UTF8String.fromString(keyType), null});
    return PROJECTION
        .apply(new GenericInternalRow(new Object[] {s}))
        .getStruct(0, ProbkitAggregate.RESULT.size())
        .copy();
  }

  /** Key types, and texts one byte away from them in length or content (first, middle, last). */
  private static List<String> texts() {
    List<String> all = new ArrayList<>();
    for (String t :
        new String[] {
          "string",
          "binary",
          "bigint",
          "double",
          "decimal",
          "boolean",
          "date",
          "timestamp",
          "timestamp_ntz",
          "abcdefgh",
          "abcdefghijklmnop"
        }) {
      all.add(t);
      all.add(t.substring(0, t.length() - 1));
      all.add(t + "s");
      for (int at : new int[] {0, t.length() / 2, t.length() - 1}) {
        char[] c = t.toCharArray();
        c[at] ^= 1;
        all.add(new String(c));
      }
    }
    return all;
  }

  @Test
  void matchesExactlyTheEqualTexts() {
    List<String> texts = texts();
    for (String accepted : texts) {
      if (accepted.length() > InPlaceText.MAX_BYTES) {
        continue; // compared as strings
      }
      InPlaceText in = InPlaceText.of(UTF8String.fromString(accepted));
      assertThat(in).as(accepted).isNotNull();
      for (String other : texts) {
        assertThat(in.matches(struct(other), SketchArg.KEY_TYPE))
            .as("accepted %s, row holds %s", accepted, other)
            .isEqualTo(accepted.equals(other));
      }
    }
  }

  /** Bytes past the text, up to the field's 8-byte boundary, are not part of it. */
  @Test
  void thePaddingAfterTheTextIsNotCompared() {
    for (String t : texts()) {
      if (t.length() > InPlaceText.MAX_BYTES) {
        continue;
      }
      UnsafeRow r = struct(t);
      long offsetAndSize = r.getLong(SketchArg.KEY_TYPE);
      long at = r.getBaseOffset() + (offsetAndSize >>> 32);
      for (int i = t.length(); i % 8 != 0; i++) {
        Platform.putByte(r.getBaseObject(), at + i, (byte) 0x5A);
      }
      assertThat(r.getUTF8String(SketchArg.KEY_TYPE).toString()).isEqualTo(t);
      assertThat(InPlaceText.of(UTF8String.fromString(t)).matches(r, SketchArg.KEY_TYPE))
          .as(t)
          .isTrue();
    }
  }

  @Test
  void longerTextsAreLeftToTheStringComparison() {
    assertThat(InPlaceText.of(UTF8String.fromString("x".repeat(InPlaceText.MAX_BYTES))))
        .isNotNull();
    assertThat(InPlaceText.of(UTF8String.fromString("x".repeat(InPlaceText.MAX_BYTES + 1))))
        .isNull();
  }
}
