package io.github.probkit.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

/**
 * Structures in a column are decoded once each, and two different ones are never confused, even
 * when they share their length and their last four bytes (the CRC) and arrive in one reused row
 * buffer, as Spark's projections give them.
 */
class StructureCacheTest {
  /** A row of one column holding the aggregate's struct, as an UnsafeProjection writes it. */
  private static final UnsafeProjection PROJECTION =
      UnsafeProjection.create(new DataType[] {ProbkitAggregate.RESULT});

  /** Counts its calls; the "structure" is a copy of the bytes, to check which one was found. */
  private static final class CountingDecode implements Function<byte[], Object> {
    int calls;

    @Override
    public Object apply(byte[] bytes) {
      calls++;
      return bytes.clone();
    }
  }

  private static InternalRow struct(byte[] sketch, byte[] digest) {
    return new GenericInternalRow(
        new Object[] {sketch, 1L, 0L, UTF8String.fromString("string"), digest});
  }

  /** The struct as a column value read from a reused UnsafeRow buffer. */
  private static Object column(InternalRow struct) {
    return PROJECTION
        .apply(new GenericInternalRow(new Object[] {struct}))
        .getStruct(0, ProbkitAggregate.RESULT.size());
  }

  /**
   * {@code n} different sketches of {@code length} bytes with the same last four bytes, as if their
   * CRCs collided.
   */
  private static List<byte[]> sameLengthAndCrc(int n, int length, long seed) {
    Random random = new Random(seed);
    List<byte[]> all = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      byte[] b = new byte[length];
      random.nextBytes(b);
      b[length - 4] = b[length - 3] = b[length - 2] = b[length - 1] = 0x5A;
      all.add(b);
    }
    return all;
  }

  @Test
  void interleavedStructsInAReusedBufferAreEachDecodedOnceAndNeverConfused() {
    List<byte[]> sketches = sameLengthAndCrc(5, 4096, 0x5EED30L);
    StructureCache cache = new StructureCache();
    CountingDecode decode = new CountingDecode();
    Random order = new Random(0xC0FFEEL);
    for (int row = 0; row < 2000; row++) {
      byte[] s = sketches.get(order.nextInt(sketches.size()));
      Object found = cache.get(column(struct(s, SketchArg.digest(s))), decode);
      assertThat((byte[]) found).as("row %d", row).isEqualTo(s);
    }
    assertThat(decode.calls).isEqualTo(sketches.size());
  }

  @Test
  void bareBytesAreComparedWhole() {
    List<byte[]> sketches = sameLengthAndCrc(3, 1000, 0xB17E5L);
    StructureCache cache = new StructureCache();
    CountingDecode decode = new CountingDecode();
    for (int row = 0; row < 300; row++) {
      byte[] s = sketches.get(row % 3).clone(); // a copy a row, as UnsafeRow.getBinary gives
      assertThat((byte[]) cache.get(s, decode)).isEqualTo(s);
    }
    assertThat(decode.calls).isEqualTo(3);
  }

  @Test
  void aStructWhoseDigestIsAnotherSketchsIsRefused() {
    List<byte[]> sketches = sameLengthAndCrc(2, 256, 0xF0F0L);
    StructureCache cache = new StructureCache();
    byte[] digestOfFirst = SketchArg.digest(sketches.get(0));
    assertThatThrownBy(
            () -> cache.get(column(struct(sketches.get(1), digestOfFirst)), new CountingDecode()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("the struct's digest does not match its sketch");
  }

  /**
   * The digest is compared whole where the row lies: a struct whose digest differs from a cached
   * one's in any of its 16 bytes (here the first or the last), with a sketch of the same length and
   * CRC, is not answered from the cached structure but checked, and refused.
   */
  @Test
  void aDigestDifferingInAnyByteFromACachedOneIsNotTakenForIt() {
    for (int at : new int[] {0, 7, 8, 15}) {
      List<byte[]> sketches = sameLengthAndCrc(2, 512, 0xD16L + at);
      StructureCache cache = new StructureCache();
      CountingDecode decode = new CountingDecode();
      byte[] first = sketches.get(0);
      cache.get(column(struct(first, SketchArg.digest(first))), decode);
      byte[] almost = SketchArg.digest(first);
      almost[at] ^= 1;
      for (Object v :
          new Object[] {column(struct(sketches.get(1), almost)), struct(sketches.get(1), almost)}) {
        assertThatThrownBy(() -> cache.get(v, decode))
            .as("digest byte %d", at)
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("the struct's digest does not match its sketch");
      }
    }
  }

  @Test
  void manyLargeStructuresKeepTheNewestAndStayWithinTheBound() {
    StructureCache cache = new StructureCache();
    CountingDecode decode = new CountingDecode();
    List<byte[]> big = sameLengthAndCrc(3, 40 << 20, 0xB16L);
    for (int round = 0; round < 2; round++) {
      for (byte[] s : big) {
        assertThat((byte[]) cache.get(column(struct(s, SketchArg.digest(s))), decode)).isEqualTo(s);
      }
    }
    // 40 MiB each and 64 MiB kept: only the newest survives each time.
    assertThat(decode.calls).isEqualTo(6);
  }

  @Test
  void aNullSketchIsNoStructure() {
    StructType t = ProbkitAggregate.RESULT;
    assertThat(t.fieldNames()).contains("digest");
    assertThat(
            new StructureCache()
                .get(
                    new GenericInternalRow(new Object[] {null, 0L, 0L, null, null}),
                    new CountingDecode()))
        .isNull();
    assertThat(DataTypes.BinaryType).isEqualTo(t.fields()[SketchArg.DIGEST].dataType());
  }
}
