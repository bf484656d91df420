package io.github.probkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.cardinality.CardinalitySketch;
import io.github.probkit.cardinality.HyperLogLog;
import io.github.probkit.cardinality.UltraLogLog;
import io.github.probkit.filter.BinaryFuseFilter;
import io.github.probkit.filter.BinaryFuseFilter.FingerprintBits;
import io.github.probkit.filter.BlockedBloomFilter;
import io.github.probkit.filter.BloomFilter;
import io.github.probkit.filter.CountingBloomFilter;
import io.github.probkit.filter.CuckooFilter;
import io.github.probkit.filter.MembershipFilter;
import io.github.probkit.filter.MutableFilter;
import io.github.probkit.filter.ScalableBloomFilter;
import io.github.probkit.frequency.CountMinSketch;
import io.github.probkit.hash.HashStrategy;
import io.github.probkit.testing.Binomial;
import io.github.probkit.testing.Keys;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every structure meets its documented accuracy with every hash strategy it accepts, on the keys
 * that broke FNV-1a ({@code user:0}, {@code user:1}, ...: similar keys), and refuses at creation,
 * with one clear error, a strategy it cannot use. Before the refusals, FNV-1a gave HyperLogLog an
 * estimate 89 % low, UltraLogLog 88 % low, and made a cuckoo filter refuse 39 % of its keys.
 */
class StrategyAccuracyTest {
  private static final int N = 100_000;
  private static final double FPP = 0.01;

  /** Tolerances: a one-in-a-billion excess of the binomial (or normal) distribution. */
  private static final double CONFIDENCE = 1 - 1e-9;

  private static final double SIGMAS = 6.1;

  private static final List<byte[]> ADDED = Keys.sequential("user:", 0, N);
  private static final List<byte[]> ABSENT = Keys.sequential("user:", N, N);

  static Stream<HashStrategy> strategies() {
    return Stream.of(
        HashStrategy.xxh3(),
        HashStrategy.xxh3(0x5eed_5eedL),
        HashStrategy.fnv1a(),
        HashStrategy.fnv1a(0x0123_4567_89ab_cdefL));
  }

  /**
   * The filters, each created for N keys at FPP (binary fuse: built from the keys) with a strategy.
   */
  static Stream<Arguments> filters() {
    List<Function<HashStrategy, MembershipFilter>> makers =
        List.of(
            h -> BloomFilter.create(N, FPP, h),
            h -> BlockedBloomFilter.create(N, FPP, h),
            h -> CountingBloomFilter.create(N, FPP, h),
            h -> CuckooFilter.create(N, FPP, h),
            h -> ScalableBloomFilter.create(N / 16, FPP, 2, 0.5, h),
            h -> BinaryFuseFilter.create(ADDED, FingerprintBits.BITS_8, h),
            h -> BinaryFuseFilter.create(ADDED, FingerprintBits.BITS_16, h));
    List<String> names =
        List.of(
            "bloom", "blocked", "counting", "cuckoo", "scalable", "binary-fuse8", "binary-fuse16");
    return strategies()
        .flatMap(
            h ->
                java.util.stream.IntStream.range(0, makers.size())
                    .mapToObj(i -> Arguments.of(names.get(i), h, makers.get(i))));
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("filters")
  void everyFilterMeetsItsRateOrRefusesTheStrategy(
      String name, HashStrategy hash, Function<HashStrategy, MembershipFilter> make) {
    boolean refuses = hash.needsMixing() && (name.equals("counting") || name.equals("cuckoo"));
    if (refuses) {
      assertThatThrownBy(() -> make.apply(hash))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("cannot use the " + hash.algorithm().label() + " hash");
      return;
    }
    MembershipFilter f = make.apply(hash);
    if (f instanceof MutableFilter) {
      for (byte[] k : ADDED) {
        assertThat(((MutableFilter) f).add(k) || f instanceof CuckooFilter == false)
            .as("%s stores every one of its %d keys", name, N)
            .isTrue();
      }
    }
    for (byte[] k : ADDED) {
      assertThat(f.mightContain(k)).isTrue();
    }
    long falsePositives = ABSENT.stream().filter(f::mightContain).count();
    double rate = f instanceof BinaryFuseFilter ? f.expectedFpp() : FPP;
    assertThat(falsePositives)
        .as("%s with %s: false positives among %d similar absent keys", name, hash, N)
        .isLessThanOrEqualTo(Binomial.upper(N, rate, CONFIDENCE));
    if (f instanceof CountingBloomFilter) {
      assertThat(((CountingBloomFilter) f).saturatedCounters()).as("saturated counters").isZero();
    }
  }

  static Stream<Arguments> sketches() {
    return strategies()
        .flatMap(
            h ->
                Stream.of(
                    Arguments.of(
                        "hyperloglog",
                        h,
                        (Function<HashStrategy, CardinalitySketch>) s -> HyperLogLog.create(14, s)),
                    Arguments.of(
                        "ultraloglog",
                        h,
                        (Function<HashStrategy, CardinalitySketch>)
                            s -> UltraLogLog.create(14, s))));
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("sketches")
  void everyCardinalitySketchMeetsItsErrorOrRefusesTheStrategy(
      String name, HashStrategy hash, Function<HashStrategy, CardinalitySketch> make) {
    if (hash.needsMixing()) {
      assertThatThrownBy(() -> make.apply(hash))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("cannot use the " + hash.algorithm().label() + " hash");
      return;
    }
    CardinalitySketch s = make.apply(hash);
    ADDED.forEach(s::add);
    assertThat(Math.abs(s.estimate() / N - 1))
        .isLessThanOrEqualTo(SIGMAS * s.relativeStandardError());
    assertThat(Math.abs(s.bestEstimate() / N - 1))
        .isLessThanOrEqualTo(SIGMAS * s.bestRelativeStandardError());
  }

  /**
   * Count-min: no estimate below the truth, and overestimates beyond epsilon N no more often than
   * delta allows. FNV-1a is the specification's two-row scheme (at most 2 rows).
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("strategies")
  void countMinMeetsItsBoundWithEveryStrategy(HashStrategy hash) {
    CountMinSketch c =
        hash.exactModulo()
            ? CountMinSketch.withDimensions(2719, 2, hash)
            : CountMinSketch.create(0.001, 0.01, hash);
    int items = 20_000;
    for (int i = 0; i < items; i++) {
      c.add("user:" + i, 1 + i % 7);
    }
    long beyond = 0;
    for (int i = 0; i < items; i++) {
      long e = c.estimate("user:" + i);
      assertThat(e).isGreaterThanOrEqualTo(1 + i % 7);
      beyond += e > 1 + i % 7 + c.epsilon() * c.totalCount() ? 1 : 0;
    }
    assertThat(beyond).isLessThanOrEqualTo(Binomial.upper(items, c.delta(), CONFIDENCE));
  }
}
