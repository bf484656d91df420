package io.github.probkit.foreign;

import io.github.probkit.cardinality.HyperLogLog;
import io.github.probkit.hash.HashStrategy;
import io.github.probkit.internal.Ertl;
import io.github.probkit.io.SketchFormatException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Redis's own HyperLogLog: the {@code HYLL} string that {@code PFADD}, {@code PFCOUNT} and {@code
 * PFMERGE} keep, read into a probkit {@link HyperLogLog} and written back.
 *
 * <pre>
 *   offset  size  field
 *        0     4  magic "HYLL"
 *        4     1  encoding: 0 dense, 1 sparse
 *        5     3  unused, 0
 *        8     8  cached count, little-endian; bit 7 of byte 15 set = not valid
 *       16        dense: 16384 registers of 6 bits, register i in bits 6i .. 6i + 5 of the
 *                 12288 bytes read as one little-endian number (HyperLogLog's own layout)
 *                 sparse: opcodes covering the 16384 registers in order,
 *                   00xxxxxx           ZERO: xxxxxx + 1 registers (1..64) hold 0
 *                   01xxxxxx yyyyyyyy  XZERO: (xxxxxx yyyyyyyy) + 1 registers (1..16384) hold 0
 *                   1vvvvvxx           VAL: xx + 1 registers (1..4) hold vvvvv + 1 (1..32)
 * </pre>
 *
 * <p>Redis hashes an item with MurmurHash64A, seed 0xadc83b19, at precision 14; a probkit sketch of
 * precision 14 built with {@link HashStrategy#redis()} has exactly the registers {@code PFADD} sets
 * for the same items, so the two merge and the dense bytes written here are those Redis keeps.
 * {@link #count} is {@code PFCOUNT}'s answer; {@link HyperLogLog#estimate()} differs from it by
 * probkit's bias correction, a factor 1 + 1.08/16384.
 *
 * <p>Thread safety: stateless; safe for use by many threads.
 */
public final class RedisHyperLogLogFormat {
  /** Redis's precision: 2^14 registers. */
  public static final int PRECISION = 14;

  private static final int Q = 64 - PRECISION;
  private static final int REGISTERS = 1 << PRECISION;
  private static final int HEADER = 16;
  private static final int DENSE_SIZE = HEADER + 3 * REGISTERS / 4;
  private static final byte[] MAGIC = "HYLL".getBytes(StandardCharsets.US_ASCII);
  private static final int DENSE = 0;
  private static final int SPARSE = 1;

  /** Redis's HLL_ALPHA_INF, 0.5 / ln 2, as Redis spells it. */
  private static final double ALPHA_INF = 0.721347520444481703680;

  private RedisHyperLogLogFormat() {}

  /**
   * Whether {@code bytes} start as a {@code HYLL} string does (the magic; nothing is validated).
   */
  public static boolean looksLikeHyll(byte[] bytes) {
    return bytes.length >= MAGIC.length
        && Arrays.equals(bytes, 0, MAGIC.length, MAGIC, 0, MAGIC.length);
  }

  /**
   * The sketch a {@code HYLL} string holds, dense or sparse: precision 14, {@link
   * HashStrategy#redis()}, dense, no martingale estimate. The cached count is ignored.
   *
   * @throws SketchFormatException naming the field and the value when the bytes are not one
   */
  public static HyperLogLog read(byte[] hyll) throws SketchFormatException {
    if (hyll.length < HEADER) {
      throw new SketchFormatException(
          "redis HYLL: " + hyll.length + " bytes, shorter than the 16-byte header");
    }
    if (!looksLikeHyll(hyll)) {
      throw new SketchFormatException(
          "redis HYLL: magic is "
              + hex(Arrays.copyOf(hyll, MAGIC.length))
              + ", expected 48594c4c (\"HYLL\")");
    }
    int encoding = hyll[4] & 0xFF;
    byte[] packed;
    if (encoding == DENSE) {
      if (hyll.length != DENSE_SIZE) {
        throw new SketchFormatException(
            "redis HYLL: dense string is " + hyll.length + " bytes, must be " + DENSE_SIZE);
      }
      packed = Arrays.copyOfRange(hyll, HEADER, DENSE_SIZE);
    } else if (encoding == SPARSE) {
      packed = sparseToDense(hyll);
    } else {
      throw new SketchFormatException(
          "redis HYLL: encoding is " + encoding + ", must be 0 (dense) or 1 (sparse)");
    }
    try {
      return HyperLogLog.fromDenseRegisters(PRECISION, HashStrategy.redis(), packed);
    } catch (IllegalArgumentException e) {
      throw new SketchFormatException("redis HYLL: " + e.getMessage());
    }
  }

  private static byte[] sparseToDense(byte[] hyll) throws SketchFormatException {
    byte[] packed = new byte[3 * REGISTERS / 4 + 1];
    int index = 0;
    for (int i = HEADER; i < hyll.length; i++) {
      int op = hyll[i] & 0xFF;
      int run;
      if ((op & 0x80) != 0) {
        run = (op & 3) + 1;
        int value = ((op >>> 2) & 31) + 1;
        if (index + run > REGISTERS) {
          throw overrun(i, index + run);
        }
        for (int r = index; r < index + run; r++) {
          int bit = 6 * r;
          int word = (packed[bit >>> 3] & 0xFF | (packed[(bit >>> 3) + 1] & 0xFF) << 8);
          word |= value << (bit & 7);
          packed[bit >>> 3] = (byte) word;
          packed[(bit >>> 3) + 1] = (byte) (word >>> 8);
        }
      } else if ((op & 0x40) != 0) {
        if (i + 1 >= hyll.length) {
          throw new SketchFormatException(
              "redis HYLL: sparse XZERO opcode at byte " + i + " is cut off");
        }
        run = ((op & 63) << 8 | (hyll[++i] & 0xFF)) + 1;
      } else {
        run = (op & 63) + 1;
      }
      index += run;
      if (index > REGISTERS) {
        throw overrun(i, index);
      }
    }
    if (index != REGISTERS) {
      throw new SketchFormatException(
          "redis HYLL: sparse opcodes cover " + index + " registers, must cover " + REGISTERS);
    }
    return Arrays.copyOf(packed, packed.length - 1);
  }

  private static SketchFormatException overrun(int at, int registers) {
    return new SketchFormatException(
        "redis HYLL: sparse opcode at byte "
            + at
            + " runs to register "
            + registers
            + ", past the "
            + REGISTERS);
  }

  /**
   * The dense {@code HYLL} string of {@code sketch}, its cached count marked not valid (as after
   * {@code PFADD}) so that {@code PFCOUNT} counts the registers. A sketch of a higher precision is
   * folded to 14, losing nothing Redis could keep.
   *
   * @throws IllegalArgumentException if the sketch's hashing is not {@link HashStrategy#redis()} or
   *     its precision is below 14: Redis would add its own items to registers of another hash
   */
  public static byte[] write(HyperLogLog sketch) {
    HyperLogLog s = atRedisPrecision(sketch);
    byte[] out = new byte[DENSE_SIZE];
    System.arraycopy(MAGIC, 0, out, 0, MAGIC.length);
    out[4] = DENSE;
    out[HEADER - 1] = (byte) 0x80;
    byte[] packed = s.denseRegisters();
    System.arraycopy(packed, 0, out, HEADER, packed.length);
    return out;
  }

  /**
   * What {@code PFCOUNT} answers for a key holding the registers of {@code sketch}: Ertl's improved
   * raw estimator, rounded, without probkit's bias correction.
   *
   * @throws IllegalArgumentException as {@link #write}
   */
  public static long count(HyperLogLog sketch) {
    int[] histogram = new int[64];
    for (int r : atRedisPrecision(sketch).registers()) {
      histogram[r]++;
    }
    double m = REGISTERS;
    double z = m * Ertl.tau((m - histogram[Q + 1]) / m);
    for (int j = Q; j >= 1; j--) {
      z += histogram[j];
      z *= 0.5;
    }
    z += m * Ertl.sigma(histogram[0] / m);
    return Math.round(ALPHA_INF * m * m / z);
  }

  private static HyperLogLog atRedisPrecision(HyperLogLog s) {
    if (!s.hashStrategy().equals(HashStrategy.redis()) || s.precision() < PRECISION) {
      throw new IllegalArgumentException(
          "a redis HYLL string holds precision-14 registers of Redis's hash "
              + HashStrategy.redis()
              + ", this sketch is precision "
              + s.precision()
              + " hashed with "
              + s.hashStrategy());
    }
    return s.precision() == PRECISION ? s : s.downsize(PRECISION);
  }

  private static String hex(byte[] b) {
    StringBuilder sb = new StringBuilder();
    for (byte x : b) {
      sb.append(Character.forDigit((x >>> 4) & 15, 16)).append(Character.forDigit(x & 15, 16));
    }
    return sb.toString();
  }
}
