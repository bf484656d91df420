package io.github.probkit.foreign;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.github.probkit.cardinality.HyperLogLog;
import io.github.probkit.hash.HashStrategy;
import io.github.probkit.io.SketchFormatException;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The HYLL layout from hand-built strings (the comparison with a real redis-server is in
 * probkit-redis's HyllAgainstRedisServerTest), and the one-line refusals.
 */
class RedisHyperLogLogFormatTest {
  private static final int REGISTERS = 16384;

  private static byte[] sparse(int... opcodes) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes("HYLL".getBytes(StandardCharsets.US_ASCII));
    out.write(1);
    out.writeBytes(new byte[11]);
    for (int op : opcodes) {
      out.write(op);
    }
    return out.toByteArray();
  }

  private static int zero(int run) {
    return run - 1;
  }

  private static int[] xzero(int run) {
    return new int[] {0x40 | (run - 1) >>> 8, (run - 1) & 0xFF};
  }

  private static int val(int value, int run) {
    return 0x80 | (value - 1) << 2 | (run - 1);
  }

  private static int[] concat(int[]... parts) {
    return java.util.Arrays.stream(parts).flatMapToInt(java.util.Arrays::stream).toArray();
  }

  @Test
  void sparseOpcodesSetTheirRuns() throws SketchFormatException {
    // Registers 0..2: 0 (ZERO 3); 3..4: 7 (VAL); 5..10004: 0 (XZERO 10000); 10005..10008: 32
    // (VAL, the largest sparse value); 10009: 1; the rest, 6374 registers: 0 (XZERO).
    byte[] hyll =
        sparse(
            concat(
                new int[] {zero(3), val(7, 2)},
                xzero(10_000),
                new int[] {val(32, 4), val(1, 1)},
                xzero(REGISTERS - 10_010)));
    int[] expected = new int[REGISTERS];
    expected[3] = 7;
    expected[4] = 7;
    for (int i = 10_005; i <= 10_008; i++) {
      expected[i] = 32;
    }
    expected[10_009] = 1;

    HyperLogLog s = RedisHyperLogLogFormat.read(hyll);
    assertThat(s.registers()).isEqualTo(expected);
    assertThat(s.precision()).isEqualTo(14);
    assertThat(s.hashStrategy()).isEqualTo(HashStrategy.redis());
  }

  @Test
  void anEmptySparseStringIsAnEmptySketch() throws SketchFormatException {
    // What PFADD creates before its first item: one XZERO of all 16384 registers.
    HyperLogLog s = RedisHyperLogLogFormat.read(sparse(xzero(REGISTERS)));
    assertThat(s.isEmpty()).isTrue();
    assertThat(RedisHyperLogLogFormat.count(s)).isZero();
  }

  @Test
  void denseStringsRoundTripAndKeepRegisterBitsInPlace() throws SketchFormatException {
    SplittableRandom random = new SplittableRandom(0x4e11_da7a_5eed_0001L);
    HyperLogLog s = HyperLogLog.create(14, HashStrategy.redis());
    for (int i = 0; i < 200_000; i++) {
      s.add(Long.toString(random.nextLong()));
    }
    byte[] hyll = RedisHyperLogLogFormat.write(s);
    assertThat(hyll).hasSize(16 + 12_288);
    assertThat(new String(hyll, 0, 4, StandardCharsets.US_ASCII)).isEqualTo("HYLL");
    assertThat(hyll[4]).isZero();
    // The cached count is marked not valid, so PFCOUNT counts the registers.
    assertThat(hyll[15] & 0x80).isEqualTo(0x80);
    int[] registers = s.registers();
    for (int i : new int[] {0, 1, 2, 3, 4, 5, 8191, 16382, 16383}) {
      int bit = 6 * i;
      int word =
          (hyll[16 + bit / 8] & 0xFF) | (bit / 8 + 1 < 12_288 ? hyll[17 + bit / 8] & 0xFF : 0) << 8;
      assertThat((word >>> (bit % 8)) & 63).as("register %d", i).isEqualTo(registers[i]);
    }
    assertThat(RedisHyperLogLogFormat.read(hyll).registers()).isEqualTo(registers);
  }

  @Test
  void aHigherPrecisionSketchOfRedisHashIsFoldedTo14() throws SketchFormatException {
    HyperLogLog p16 = HyperLogLog.create(16, HashStrategy.redis());
    HyperLogLog p14 = HyperLogLog.create(14, HashStrategy.redis());
    for (int i = 0; i < 50_000; i++) {
      p16.add("k" + i);
      p14.add("k" + i);
    }
    assertThat(RedisHyperLogLogFormat.write(p16)).isEqualTo(RedisHyperLogLogFormat.write(p14));
  }

  @Test
  void probkitsOwnFormatKeepsRedisHashing() throws Exception {
    HyperLogLog s = HyperLogLog.create(14, HashStrategy.redis());
    for (int i = 0; i < 5_000; i++) {
      s.add("k" + i);
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    s.writeTo(out);
    HyperLogLog back = HyperLogLog.readFrom(new java.io.ByteArrayInputStream(out.toByteArray()));
    assertThat(back.hashStrategy()).isEqualTo(HashStrategy.redis());
    assertThat(back).isEqualTo(s);
    // Merging needs the same hashing: an XXH3 sketch of the same keys is refused.
    assertThatThrownBy(() -> back.merge(HyperLogLog.create(14)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void refusesSketchesOfAnotherHashOrALowerPrecision() {
    assertThatThrownBy(() -> RedisHyperLogLogFormat.write(HyperLogLog.create(14)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "a redis HYLL string holds precision-14 registers of Redis's hash"
                + " redis(seed=0xadc83b19), this sketch is precision 14 hashed with xxh3(seed=0x0)");
    assertThatThrownBy(
            () -> RedisHyperLogLogFormat.count(HyperLogLog.create(12, HashStrategy.redis())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("this sketch is precision 12");
  }

  @Test
  void corruptStringsAreOneLineNamingTheField() {
    byte[] dense = RedisHyperLogLogFormat.write(HyperLogLog.create(14, HashStrategy.redis()));
    assertRefused(new byte[10], "redis HYLL: 10 bytes, shorter than the 16-byte header");
    byte[] magic = dense.clone();
    magic[0] = 'X';
    assertRefused(magic, "redis HYLL: magic is 58594c4c, expected 48594c4c (\"HYLL\")");
    byte[] encoding = dense.clone();
    encoding[4] = 2;
    assertRefused(encoding, "redis HYLL: encoding is 2, must be 0 (dense) or 1 (sparse)");
    assertRefused(
        java.util.Arrays.copyOf(dense, dense.length - 1),
        "redis HYLL: dense string is 12303 bytes, must be 12304");
    byte[] high = dense.clone();
    high[16] = 60; // register 0 = 60, above 51 = 65 - 14
    assertRefused(
        high, "redis HYLL: hyperloglog register 0 is 60, must be at most 51 at precision 14");
    assertRefused(
        sparse(xzero(REGISTERS - 1)),
        "redis HYLL: sparse opcodes cover 16383 registers, must cover 16384");
    assertRefused(
        sparse(concat(xzero(REGISTERS - 1), new int[] {val(3, 2)})),
        "redis HYLL: sparse opcode at byte 18 runs to register 16385, past the 16384");
    assertRefused(
        sparse(concat(xzero(REGISTERS), new int[] {zero(1)})),
        "redis HYLL: sparse opcode at byte 18 runs to register 16385, past the 16384");
    assertRefused(sparse(0x40), "redis HYLL: sparse XZERO opcode at byte 16 is cut off");
  }

  /**
   * PFCOUNT's estimate of n distinct keys: within one of n while few registers collide, then within
   * 4 standard errors (1.04 / 128); a precision-16 sketch counts as its precision-14 fold. (The
   * exact answer of a real server is compared in probkit-redis, which PIT does not run.)
   */
  @Test
  void countIsCloseToTheDistinctKeysAtAnyPrecision() {
    for (int n : new int[] {1, 2, 10, 100, 1_000, 20_000, 200_000}) {
      HyperLogLog s = HyperLogLog.create(14, HashStrategy.redis());
      HyperLogLog p16 = HyperLogLog.create(16, HashStrategy.redis());
      for (int i = 0; i < n; i++) {
        s.add("key-" + i);
        p16.add("key-" + i);
      }
      long count = RedisHyperLogLogFormat.count(s);
      assertThat((double) count)
          .as("%d keys", n)
          .isCloseTo(n, within(Math.max(1, 4 * 1.04 / 128 * n)));
      assertThat(RedisHyperLogLogFormat.count(p16)).as("%d keys at 16", n).isEqualTo(count);
    }
  }

  /** Each limit of the layout, met exactly: accepted. */
  @Test
  void stringsAtTheirLimitsAreRead() throws SketchFormatException {
    assertThat(RedisHyperLogLogFormat.looksLikeHyll("HYLL".getBytes(StandardCharsets.US_ASCII)))
        .isTrue();
    assertThat(RedisHyperLogLogFormat.looksLikeHyll("HYL".getBytes(StandardCharsets.US_ASCII)))
        .isFalse();
    // A VAL run ending at the last register.
    HyperLogLog last =
        RedisHyperLogLogFormat.read(sparse(concat(xzero(REGISTERS - 2), new int[] {val(9, 2)})));
    int[] expected = new int[REGISTERS];
    expected[REGISTERS - 2] = 9;
    expected[REGISTERS - 1] = 9;
    assertThat(last.registers()).isEqualTo(expected);
    // The header alone is a string of the right length whose opcodes cover nothing.
    assertRefused(sparse(), "redis HYLL: sparse opcodes cover 0 registers, must cover 16384");
  }

  /** Registers 0 and 1 share byte 0 of the dense layout: writing the second keeps the first. */
  @Test
  void aRunOverRegistersSharingAByteSetsThemAll() throws SketchFormatException {
    int[] expected = new int[REGISTERS];
    java.util.Arrays.fill(expected, 0, 4, 5);
    expected[4] = 3;
    HyperLogLog s =
        RedisHyperLogLogFormat.read(
            sparse(concat(new int[] {val(5, 4), val(3, 1)}, xzero(REGISTERS - 5))));
    assertThat(s.registers()).isEqualTo(expected);
  }

  private static void assertRefused(byte[] hyll, String message) {
    assertThatThrownBy(() -> RedisHyperLogLogFormat.read(hyll))
        .isInstanceOf(SketchFormatException.class)
        .hasMessage(message);
  }
}
