package io.github.probkit.cardinality;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.hash.HashStrategy;
import io.github.probkit.io.SketchWriter;
import io.github.probkit.io.StructureType;
import io.github.probkit.testing.Keys;
import io.github.probkit.testing.RingBytes;
import io.github.probkit.testing.Theory;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class HyperLogLogTest extends CardinalitySketchContract {
  @Override
  CardinalitySketch create(int precision, HashStrategy hash) {
    return HyperLogLog.create(precision, hash);
  }

  @Override
  CardinalitySketch readFrom(InputStream in) throws IOException {
    return HyperLogLog.readFrom(in);
  }

  @Override
  void merge(CardinalitySketch into, CardinalitySketch from) {
    ((HyperLogLog) into).merge((HyperLogLog) from);
  }

  @Override
  double[] theoreticalRse() {
    return new double[] {Math.sqrt(Theory.HLL_VARIANCE), Math.sqrt(Theory.HLL_MARTINGALE_VARIANCE)};
  }

  @Override
  StructureType type() {
    return StructureType.HYPER_LOG_LOG;
  }

  @Override
  long denseBytes(int precision) {
    return 6L * (1 << precision) / 8;
  }

  /**
   * Exact: up to 100 keys the sparse form holds a precision-25 sketch, which has no collision here.
   */
  @Override
  double smallCountTolerance(int n) {
    return 0;
  }

  @Test
  void precision14IsTwelveKilobytesAndAbout08Percent() {
    assertThat(HyperLogLog.denseBytes(14)).isEqualTo(12_288);
    HyperLogLog s = HyperLogLog.create(14);
    SplittableRandom r = new SplittableRandom(0x3c5a7e9f1b2d4c6eL);
    for (int i = 0; i < 10_000; i++) {
      s.addHash(r.nextLong());
    }
    assertThat(s.isSparse()).isFalse();
    assertThat(s.byteSize()).isEqualTo(12_288);
    assertThat(s.registers()).hasSize(16_384);
    assertThat(s.relativeStandardError()).isBetween(0.0081, 0.0082);
    assertThat(s.martingaleRelativeStandardError()).isBetween(0.0065, 0.0066);
  }

  @Test
  void theSparseFormTurnsDenseByItselfOnceNoLongerSmaller() {
    HyperLogLog s = HyperLogLog.create(14);
    SplittableRandom r = new SplittableRandom(0x0a1b2c3d4e5f6071L);
    int added = 0;
    while (s.isSparse()) {
      assertThat(s.byteSize()).isLessThan(12_288);
      assertThat(s.sparseEntries()).isLessThanOrEqualTo(1536);
      s.addHash(r.nextLong());
      added++;
    }
    // 2,048 slots at most 3/4 full hold 1,536 entries; the next doubling would be 16 KiB.
    assertThat(added).isEqualTo(1537);
    assertThat(s.byteSize()).isEqualTo(12_288);
    assertThat(s.martingaleEstimate()).isPresent();
  }

  /**
   * One register of the precision-25 sparse form seen twice with different values, from crafted
   * hashes (index 6 << 11 in the top 25 bits; value 1, then 19): the higher replaces the lower,
   * counts as a change once, and folds to register 6 of precision 14 as 11 + 19 (the 11 index bits
   * dropped are zero).
   */
  @Test
  void aHigherValueForTheSameSparseRegisterReplacesIt() {
    HyperLogLog s = HyperLogLog.create(14);
    long register = (6L << 11) << 39;
    assertThat(s.addHash(register | 1L << 38)).isTrue();
    assertThat(s.martingaleEstimate()).hasValue(1);
    assertThat(s.addHash(register | 1L << 20)).as("value 19 after value 1").isTrue();
    assertThat(s.sparseEntries()).isEqualTo(1);
    assertThat(s.martingaleEstimate().orElseThrow()).isGreaterThan(1);
    double after = s.martingaleEstimate().orElseThrow();
    assertThat(s.addHash(register | 1L << 38)).as("value 1 again").isFalse();
    assertThat(s.addHash(register | 1L << 20)).as("value 19 again").isFalse();
    assertThat(s.martingaleEstimate()).hasValue(after);
    int[] registers = s.registers();
    assertThat(registers[6]).isEqualTo(30);
    assertThat(java.util.Arrays.stream(registers).sum()).isEqualTo(30);
    assertThat(s.byteSize()).as("8 slots of 4 bytes").isEqualTo(32);
  }

  @Test
  void smallPrecisionsStartDense() {
    assertThat(HyperLogLog.create(4).isSparse()).isFalse();
    assertThat(HyperLogLog.create(5).isSparse()).isFalse();
    assertThat(HyperLogLog.create(6).isSparse()).isTrue();
    assertThat(HyperLogLog.create(4).byteSize()).isEqualTo(12);
  }

  /** hash4j's HyperLogLog, an independent implementation, packs the same registers the same way. */
  @Test
  void registersAndEstimateMatchHash4j() throws IOException {
    for (int p : new int[] {4, 10, 14}) {
      HyperLogLog ours = HyperLogLog.create(p);
      com.dynatrace.hash4j.distinctcount.HyperLogLog theirs =
          com.dynatrace.hash4j.distinctcount.HyperLogLog.create(p);
      SplittableRandom r = new SplittableRandom(0x4a5b6c7d8e9f0a1bL + p);
      for (int i = 0; i < 200_000; i++) {
        long h = r.nextLong();
        ours.addHash(h);
        theirs.add(h);
      }
      byte[] b = bytes(ours);
      byte[] payload = Arrays.copyOfRange(b, 28 + 15, b.length - 4);
      assertThat(payload).as("p=%d", p).isEqualTo(theirs.getState());
      assertThat(ours.estimate())
          .isCloseTo(
              theirs.getDistinctCountEstimate(
                  com.dynatrace.hash4j.distinctcount.HyperLogLog.CORRECTED_RAW_ESTIMATOR),
              org.assertj.core.data.Percentage.withPercentage(1e-10));
    }
  }

  private static byte[] handMade(
      int p, int representation, int flags, int entries, double martingale, byte[] payload)
      throws IOException {
    ByteBuffer params = SketchWriter.params(15);
    params
        .put((byte) p)
        .put((byte) representation)
        .put((byte) flags)
        .putInt(entries)
        .putDouble(martingale);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    SketchWriter w =
        SketchWriter.begin(
            out, StructureType.HYPER_LOG_LOG, HashStrategy.xxh3(), params.array(), payload.length);
    w.writeBytes(payload, 0, payload.length);
    w.finish();
    return out.toByteArray();
  }

  private static byte[] ints(int... values) {
    ByteBuffer b = ByteBuffer.allocate(4 * values.length).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    for (int v : values) {
      b.putInt(v);
    }
    return b.array();
  }

  private static void refused(byte[] bytes, String message) {
    RingBytes.assertRefused(HyperLogLog::readFrom, bytes, message);
  }

  /**
   * Well-formed files (valid checksum) whose fields are out of range are refused, naming the field.
   */
  @Test
  void fieldsOutOfRangeAreRefusedByName() throws IOException {
    byte[] registers = new byte[12];
    registers[0] = 62; // precision 4: values up to 61
    refused(handMade(4, 1, 0, 0, 0, registers), "register 0 is 62, must be at most 61");
    refused(handMade(3, 1, 0, 0, 0, new byte[6]), "field 'precision' is 3, must be in [4, 18]");
    refused(
        handMade(4, 0, 0, 0, 0, new byte[0]),
        "field 'representation' is 0, must be 1 (dense) at precision 4");
    refused(handMade(10, 2, 0, 0, 0, new byte[0]), "field 'representation' is 2");
    refused(handMade(10, 1, 2, 0, 0, new byte[768]), "field 'flags' is 2");
    refused(
        handMade(10, 1, 0, 0, 5.0, new byte[768]),
        "field 'martingale' is 5.0, must be 0 when absent");
    refused(handMade(10, 1, 1, 0, Double.NaN, new byte[768]), "field 'martingale' is NaN");
    refused(handMade(10, 1, 0, 3, 0, new byte[768]), "field 'entries' is 3, must be 0 when dense");
    refused(
        handMade(10, 0, 0, 97, 0, new byte[388]),
        "field 'entries' is 97, must be in [0, 96] at precision 10");
    refused(handMade(10, 0, 0, -1, 0, new byte[0]), "field 'entries' is 4294967295");
    refused(
        handMade(10, 0, 0, 2, 0, ints(5 << 6 | 1, 3 << 6 | 1)),
        "sparse entry 1 is 0xc1, entries must ascend");
    refused(
        handMade(10, 0, 0, 2, 0, ints(5 << 6 | 1, 5 << 6 | 2)),
        "sparse entry 1 repeats register 5");
    refused(handMade(10, 0, 0, 1, 0, ints(5 << 6 | 41)), "sparse entry 0 is 0x169");
    refused(handMade(10, 0, 0, 1, 0, ints(5 << 6)), "sparse entry 0 is 0x140");
    refused(handMade(10, 0, 0, 1, 0, ints(-1)), "sparse entry 0 is 0xffffffff");
    refused(
        handMade(10, 0, 0, 2, 0, ints(5 << 6 | 1)),
        "payload length is 4 bytes, its parameters imply 8");
    // And a hand-made valid one reads: two entries, each one key.
    HyperLogLog s =
        HyperLogLog.readFrom(
            new ByteArrayInputStream(handMade(10, 0, 1, 2, 2.0, ints(3 << 6 | 1, 5 << 6 | 2))));
    assertThat(s.isSparse()).isTrue();
    assertThat(s.sparseEntries()).isEqualTo(2);
    assertThat(s.martingaleEstimate()).hasValue(2.0);
    assertThat(Math.round(s.estimate())).isEqualTo(2);
  }

  @Test
  void sparseSketchesOfDifferentPrecisionsMergeWhileSmall() {
    HyperLogLog a = HyperLogLog.create(10);
    Keys.sequential("s:", 0, 40).forEach(a::add);
    HyperLogLog b = HyperLogLog.create(16);
    Keys.sequential("s:", 30, 40).forEach(b::add);
    a.merge(b);
    assertThat(a.isSparse()).isTrue();
    assertThat(Math.round(a.estimate())).isEqualTo(70);
  }
}
