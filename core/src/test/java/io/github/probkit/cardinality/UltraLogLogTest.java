package io.github.probkit.cardinality;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.hash.HashStrategy;
import io.github.probkit.io.SketchWriter;
import io.github.probkit.io.StructureType;
import io.github.probkit.testing.RingBytes;
import io.github.probkit.testing.Theory;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import org.assertj.core.data.Percentage;
import org.junit.jupiter.api.Test;

class UltraLogLogTest extends CardinalitySketchContract {
  @Override
  CardinalitySketch create(int precision, HashStrategy hash) {
    return UltraLogLog.create(precision, hash);
  }

  @Override
  CardinalitySketch readFrom(InputStream in) throws IOException {
    return UltraLogLog.readFrom(in);
  }

  @Override
  void merge(CardinalitySketch into, CardinalitySketch from) {
    ((UltraLogLog) into).merge((UltraLogLog) from);
  }

  @Override
  double[] theoreticalRse() {
    return new double[] {Math.sqrt(Theory.ULL_VARIANCE), Math.sqrt(Theory.ULL_MARTINGALE_VARIANCE)};
  }

  @Override
  StructureType type() {
    return StructureType.ULTRA_LOG_LOG;
  }

  @Override
  long denseBytes(int precision) {
    return 1L << precision;
  }

  /** A hash with the given register and update value at precision p. */
  private static long hashOf(int index, int value, int p) {
    long rest = value > 64 - p ? 0 : 1L << (64 - p - value);
    return (long) index << (64 - p) | rest;
  }

  /** Registers worked out by hand: u << 2 | seen(u-1) << 1 | seen(u-2). */
  @Test
  void aRegisterKeepsItsMaximumAndTheTwoValuesBelow() {
    int p = 8;
    UltraLogLog s = UltraLogLog.create(p);
    int[][] steps = {
      // value added, register afterwards
      {5, 5 << 2}, {3, 5 << 2 | 1}, {4, 5 << 2 | 3}, {2, 5 << 2 | 3}, {7, 7 << 2 | 1},
      {6, 7 << 2 | 3}, {12, 12 << 2}, {1, 12 << 2}, {57, 57 << 2}, {56, 57 << 2 | 2},
    };
    for (int[] step : steps) {
      s.addHash(hashOf(3, step[0], p));
      assertThat(s.registers()[3] & 0xFF).as("after adding %d", step[0]).isEqualTo(step[1]);
    }
    // Merging combines two registers as the union of what they saw, within the larger's window.
    int[][] merges = {
      // values added to one sketch, to the other, register of the merge
      {5, 3, 4, 0, 5 << 2 | 3},
      {2, 0, 1, 0, 2 << 2 | 2},
      {9, 8, 5, 7, 9 << 2 | 3},
      {0, 0, 9, 7, 9 << 2 | 1},
    };
    for (int[] m : merges) {
      UltraLogLog a = UltraLogLog.create(p);
      UltraLogLog b = UltraLogLog.create(p);
      for (int v : new int[] {m[0], m[1]}) {
        if (v > 0) {
          a.addHash(hashOf(3, v, p));
        }
      }
      for (int v : new int[] {m[2], m[3]}) {
        if (v > 0) {
          b.addHash(hashOf(3, v, p));
        }
      }
      a.addHash(hashOf(5, 1, p));
      b.addHash(hashOf(6, 1, p));
      assertThat(a.merge(b).registers()[3] & 0xFF)
          .as("merge of %s", java.util.Arrays.toString(m))
          .isEqualTo(m[4]);
    }
  }

  /**
   * hash4j's UltraLogLog, an independent implementation of the same paper, holds the same registers
   * offset by 4(p - 2), and its maximum-likelihood estimate agrees with ours.
   */
  @Test
  void registersAndEstimateMatchHash4j() {
    for (int p : new int[] {4, 10, 14}) {
      UltraLogLog ours = UltraLogLog.create(p);
      com.dynatrace.hash4j.distinctcount.UltraLogLog theirs =
          com.dynatrace.hash4j.distinctcount.UltraLogLog.create(p);
      SplittableRandom r = new SplittableRandom(0x1f2e3d4c5b6a7988L + p);
      for (int n = 1; n <= 300_000; n++) {
        long h = r.nextLong();
        ours.addHash(h);
        theirs.add(h);
        if (Long.bitCount(n) == 1 || n % 100_000 == 0) {
          assertThat(ours.estimate())
              .as("p=%d n=%d", p, n)
              .isCloseTo(
                  theirs.getDistinctCountEstimate(
                      com.dynatrace.hash4j.distinctcount.UltraLogLog.MAXIMUM_LIKELIHOOD_ESTIMATOR),
                  Percentage.withPercentage(1e-4));
        }
      }
      byte[] mine = ours.registers();
      byte[] state = theirs.getState();
      for (int i = 0; i < mine.length; i++) {
        int expected = mine[i] == 0 ? 0 : (mine[i] & 0xFF) + 4 * (p - 2);
        assertThat(state[i] & 0xFF).as("p=%d register %d", p, i).isEqualTo(expected);
      }
    }
  }

  @Test
  void precision14IsSixteenKilobytesAndAbout06Percent() {
    UltraLogLog s = UltraLogLog.create(14);
    assertThat(s.byteSize()).isEqualTo(16_384);
    assertThat(s.relativeStandardError()).isBetween(0.0059, 0.0060);
    assertThat(s.martingaleRelativeStandardError()).isBetween(0.0051, 0.0052);
  }

  private static byte[] handMade(int p, int flags, double martingale, byte[] registers)
      throws IOException {
    ByteBuffer params = SketchWriter.params(10);
    params.put((byte) p).put((byte) flags).putDouble(martingale);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    SketchWriter w =
        SketchWriter.begin(
            out,
            StructureType.ULTRA_LOG_LOG,
            HashStrategy.xxh3(),
            params.array(),
            registers.length);
    w.writeBytes(registers, 0, registers.length);
    w.finish();
    return out.toByteArray();
  }

  private static void refused(byte[] bytes, String message) {
    RingBytes.assertRefused(UltraLogLog::readFrom, bytes, message);
  }

  @Test
  void fieldsOutOfRangeAreRefusedByName() throws IOException {
    for (int bad : new int[] {1, 2, 3, 1 << 2 | 1, 1 << 2 | 2, 2 << 2 | 1, 62 << 2}) {
      byte[] registers = new byte[16];
      registers[7] = (byte) bad;
      refused(
          handMade(4, 0, 0, registers),
          "register 7 is " + bad + ", not a register state at precision 4");
    }
    refused(handMade(19, 0, 0, new byte[0]), "field 'precision' is 19, must be in [4, 18]");
    refused(handMade(4, 3, 0, new byte[16]), "field 'flags' is 3");
    refused(
        handMade(4, 1, -1, new byte[16]),
        "field 'martingale' is -1.0, must be finite and non-negative");
    refused(handMade(4, 0, 0, new byte[15]), "payload length is 15 bytes, its parameters imply 16");
    byte[] registers = new byte[16];
    registers[7] = (byte) (61 << 2 | 3);
    registers[8] = (byte) (2 << 2 | 2);
    UltraLogLog s = UltraLogLog.readFrom(new ByteArrayInputStream(handMade(4, 1, 3.5, registers)));
    assertThat(s.martingaleEstimate()).hasValue(3.5);
    assertThat(s.registers()).isEqualTo(registers);
  }
}
