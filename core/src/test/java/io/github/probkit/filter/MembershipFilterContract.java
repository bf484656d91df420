package io.github.probkit.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.probkit.GoldenFiles;
import io.github.probkit.io.SketchFormatException;
import io.github.probkit.testing.Binomial;
import io.github.probkit.testing.Keys;
import io.github.probkit.testing.Theory;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The contract every membership filter meets. Each filter's test class extends this and says how to
 * build one; the tests here then run over every filter type.
 */
public abstract class MembershipFilterContract {

  /** A filter sized for {@code expectedKeys} at {@code fpp}, holding {@code keys}. */
  protected abstract MembershipFilter build(long expectedKeys, double fpp, List<byte[]> keys);

  /**
   * The false-positive rate this type promises at the given sizing and load; by default the
   * requested rate. Types whose rate differs by design (blocked filters) override it.
   */
  protected double promisedFpp(long expectedKeys, double fpp, int keysAdded) {
    return fpp;
  }

  /**
   * What theory predicts for {@code f}, built by {@link #build} for {@code expectedKeys} at {@code
   * fpp} from {@code keysAdded} distinct keys: computed by {@link Theory} from the requested sizing
   * (or, where sizing is a search tested on its own, from f's shape and load), never from f's own
   * formulas.
   */
  protected abstract Theory.Rate predictedRate(
      MembershipFilter f, long expectedKeys, double fpp, int keysAdded);

  /**
   * The relative slack allowed for the prediction's model (uniform hashing, Poisson loads): 2 %, a
   * tenth of what a probe count off by one, a missing row or a 4x sizing slip moves the rate.
   */
  protected static final double MODEL_SLACK = 0.02;

  protected static byte[] bytes(MembershipFilter f) throws IOException {
    return GoldenFiles.bytes(f::writeTo);
  }

  @Test
  void neverForgetsAKey() {
    List<byte[]> keys = Keys.randomBytes(20_000, 0x5eed0001L);
    MembershipFilter f = build(20_000, 0.01, keys);
    for (byte[] k : keys) {
      assertThat(f.mightContain(k)).as("added key reported absent").isTrue();
    }
  }

  @Test
  void neverForgetsSequentialKeys() {
    List<byte[]> keys = Keys.sequential("user:", 0, 20_000);
    MembershipFilter f = build(20_000, 0.01, keys);
    for (byte[] k : keys) {
      assertThat(f.mightContain(k)).isTrue();
    }
  }

  /**
   * The rate measured on 200,000 absent keys is the predicted rate, from both sides: a filter that
   * is better than theory says is as wrong as one that is worse (k - 1 probes, a 4x sizing slip).
   * It is also within the rate the type promises for the requested fpp (one-sided, 99.9 %).
   */
  @Test
  void falsePositiveRateIsThePredictedOne() {
    int n = 50_000;
    int probes = 200_000;
    double fpp = 0.01;
    MembershipFilter f = build(n, fpp, Keys.sequential("in:", 0, n));
    int fp = 0;
    for (byte[] k : Keys.sequential("out:", 0, probes)) {
      if (f.mightContain(k)) {
        fp++;
      }
    }
    long promise = Binomial.upper(probes, promisedFpp(n, fpp, n), 0.999);
    assertThat((long) fp)
        .as("false positives of %d probes, promised %s", probes, fpp)
        .isLessThanOrEqualTo(promise);
    Theory.Rate r = predictedRate(f, n, fpp, n);
    long[] accept = Theory.accept(probes, widen(r));
    assertThat((long) fp)
        .as("false positives of %d probes, predicted rate %.5f (sd %.2g)", probes, r.mean(), r.sd())
        .isBetween(accept[0], accept[1]);
  }

  /** The filter's own estimate of its rate now is the predicted rate at its load. */
  @Test
  void expectedFppIsThePredictedRateAtTheLoad() {
    for (int n : new int[] {5_000, 20_000}) {
      MembershipFilter f = build(20_000, 0.01, Keys.sequential("load:", 0, n));
      Theory.Rate r = widen(predictedRate(f, 20_000, 0.01, n));
      assertThat(f.expectedFpp())
          .as("expectedFpp with %d of 20,000 keys", n)
          .isBetween(r.mean() - Theory.Z * r.sd(), r.mean() + Theory.Z * r.sd());
    }
  }

  /**
   * What {@code approximateCount()} of a filter built from {@code keysAdded} distinct keys should
   * give: its mean and standard deviation; null where the type makes no such estimate.
   */
  protected Theory.Rate predictedCount(MembershipFilter f, int keysAdded) {
    return null;
  }

  @Test
  void approximateCountIsTheNumberOfKeysAdded() {
    for (int n : new int[] {1_000, 10_000, 20_000}) {
      MembershipFilter f = build(20_000, 0.01, Keys.sequential("count:", 0, n));
      Theory.Rate c = predictedCount(f, n);
      assumeTrue(c != null, "this type estimates no count");
      assertThat((double) ((MutableFilter) f).approximateCount())
          .as("approximateCount of %d keys (sd %.1f)", n, c.sd())
          .isBetween(
              c.mean() * (1 - MODEL_SLACK) - Theory.Z * c.sd(),
              c.mean() * (1 + MODEL_SLACK) + Theory.Z * c.sd());
    }
  }

  /** The prediction with {@link #MODEL_SLACK} added to its spread. */
  private static Theory.Rate widen(Theory.Rate r) {
    return new Theory.Rate(r.mean(), Math.hypot(r.sd(), MODEL_SLACK * r.mean() / Theory.Z));
  }

  @Test
  void stringLongAndBytesKeysAgree() {
    byte[] utf8 = "grüße, 世界".getBytes(StandardCharsets.UTF_8);
    byte[] le = Keys.littleEndian(0x1234_5678_9abc_def0L);
    MembershipFilter f = build(1000, 0.01, List.of(utf8, le));
    assertThat(f.mightContain("grüße, 世界")).isTrue();
    assertThat(f.mightContain(0x1234_5678_9abc_def0L)).isTrue();
    assertThat(
            f.mightContain(
                (Object) 7L, (Object k, io.github.probkit.hash.KeySink s) -> s.putBytes(utf8)))
        .isTrue();
  }

  @Test
  void roundTripKeepsBytesAndAnswers() throws IOException {
    List<byte[]> keys = Keys.randomBytes(5_000, 0x5eed0002L);
    MembershipFilter f = build(5_000, 0.01, keys);
    byte[] b = bytes(f);
    MembershipFilter g = Filters.readFrom(new ByteArrayInputStream(b));
    assertThat(g.type()).isEqualTo(f.type());
    assertThat(bytes(g)).isEqualTo(b);
    for (byte[] k : Keys.randomBytes(5_000, 0x5eed0003L)) {
      assertThat(g.mightContain(k)).isEqualTo(f.mightContain(k));
    }
    for (byte[] k : keys) {
      assertThat(g.mightContain(k)).isTrue();
    }
  }

  @Test
  void truncatedOrFlippedBytesAreRefused() throws IOException {
    byte[] b = bytes(build(500, 0.01, Keys.randomBytes(500, 0x5eed0004L)));
    for (int len = 0; len < b.length; len += Math.max(1, b.length / 200)) {
      byte[] cut = java.util.Arrays.copyOf(b, len);
      assertThatThrownBy(() -> Filters.readFrom(new ByteArrayInputStream(cut)))
          .as("truncated to %d bytes", len)
          .isInstanceOf(SketchFormatException.class);
    }
    SplittableRandom r = new SplittableRandom(0x5eed0005L);
    for (int i = 0; i < 300; i++) {
      byte[] bad = b.clone();
      int bit = r.nextInt(8 * bad.length);
      bad[bit >>> 3] ^= (byte) (1 << (bit & 7));
      assertThatThrownBy(() -> Filters.readFrom(new ByteArrayInputStream(bad)))
          .as("bit %d flipped", bit)
          .isInstanceOf(SketchFormatException.class);
    }
  }

  @Test
  void badSizingIsRefusedWithTheValue() {
    for (double fpp : new double[] {0, 1, 1.5, -0.1, Double.NaN}) {
      assertThatThrownBy(() -> build(1000, fpp, List.of()))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(String.valueOf(fpp));
    }
    assertThatThrownBy(() -> build(0, 0.01, List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("0");
  }

  @Test
  void reportsItsSize() {
    MembershipFilter f = build(10_000, 0.01, Keys.randomBytes(100, 0x5eed0006L));
    assertThat(f.byteSize()).isPositive();
    assertThat(f.bitSize()).isPositive();
    // Under 64 bits per key for any sane 1 % filter, and at least the information-theoretic bound.
    assertThat(f.byteSize() * 8.0 / 10_000).isBetween(Math.log(100) / Math.log(2), 64.0);
    assertThat(f.hashStrategy()).isNotNull();
  }
}
