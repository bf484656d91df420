package io.github.probkit.cardinality;

import static io.github.probkit.internal.Preconditions.checkArgument;
import static io.github.probkit.internal.Preconditions.checkUniformHash;

import io.github.probkit.hash.HashStrategy;
import io.github.probkit.io.SketchFormatException;
import io.github.probkit.io.SketchReader;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.stream.Collector;

/**
 * Reading, combining and collecting cardinality sketches of any type. Stateless and thread-safe.
 */
public final class CardinalitySketches {
  private CardinalitySketches() {}

  /**
   * A collector of keys (their UTF-8 bytes) into a HyperLogLog of {@code precision}: {@code
   * users.stream().collect(CardinalitySketches.toHyperLogLog(14)).bestEstimate()}.
   */
  public static Collector<CharSequence, ?, HyperLogLog> toHyperLogLog(int precision) {
    HyperLogLog.denseBytes(precision); // checks the precision now
    return toSketch(() -> HyperLogLog.create(precision));
  }

  /** A collector of keys (their UTF-8 bytes) into an UltraLogLog of {@code precision}. */
  public static Collector<CharSequence, ?, UltraLogLog> toUltraLogLog(int precision) {
    UltraLogLog.create(precision);
    return toSketch(() -> UltraLogLog.create(precision));
  }

  /**
   * A collector of keys (their UTF-8 bytes) into new sketches from {@code factory}; a parallel
   * stream fills one per thread and merges them (which ends the martingale estimate).
   */
  public static <S extends CardinalitySketch> Collector<CharSequence, ?, S> toSketch(
      Supplier<S> factory) {
    Objects.requireNonNull(factory, "factory");
    return Collector.of(
        factory,
        CardinalitySketch::add,
        (a, b) -> {
          a.merge(b);
          return a;
        },
        Collector.Characteristics.UNORDERED,
        Collector.Characteristics.IDENTITY_FINISH);
  }

  /**
   * Reads the next cardinality sketch in {@code in}, whatever its type. Throws
   * SketchFormatException when the bytes are corrupt or hold a structure of another kind.
   */
  public static CardinalitySketch readFrom(InputStream in) throws IOException {
    SketchReader r = SketchReader.open(in);
    switch (r.type()) {
      case HYPER_LOG_LOG:
        return HyperLogLog.read(r);
      case ULTRA_LOG_LOG:
        return UltraLogLog.read(r);
      default:
        throw new SketchFormatException(
            "expected a cardinality sketch, found a " + r.type().label() + " structure");
    }
  }

  /**
   * The register and the update value that a key brings to a HyperLogLog or UltraLogLog of {@code
   * precision} hashed with {@code hash}, as {@code register << 8 | value}: the register is the top
   * p bits of the key's hash, the value one more than the leading zeros of the rest
   * (docs/FORMAT.md). Both sketches' {@code add} apply exactly this; stores that keep the registers
   * elsewhere (probkit-redis) apply it themselves.
   */
  public static long registerUpdate(
      HashStrategy hash, int precision, byte[] key, int off, int len) {
    checkArgument(
        precision >= HyperLogLog.MIN_PRECISION && precision <= HyperLogLog.MAX_PRECISION,
        "precision must be in [%d, %d], was %d",
        HyperLogLog.MIN_PRECISION,
        HyperLogLog.MAX_PRECISION,
        precision);
    checkUniformHash(hash, "a HyperLogLog or UltraLogLog sketch");
    long h = hash.hash64(key, off, len);
    return (long) LogLogMath.index(h, precision) << 8 | LogLogMath.rank(h, precision);
  }

  /**
   * A new sketch of the union of {@code sketches}, at the lowest of their precisions; the inputs
   * are not changed. All must be of one type and use the same hashing. A single sketch is copied,
   * and keeps its martingale estimate.
   */
  public static CardinalitySketch union(List<? extends CardinalitySketch> sketches) {
    checkArgument(!sketches.isEmpty(), "union of no sketches");
    CardinalitySketch first = sketches.get(0);
    int precision = first.precision();
    for (CardinalitySketch s : sketches) {
      checkArgument(
          s.type() == first.type(),
          "cannot combine a %s sketch with a %s sketch",
          first.type().label(),
          s.type().label());
      precision = Math.min(precision, s.precision());
    }
    CardinalitySketch union = first.downsize(precision);
    for (CardinalitySketch s : sketches.subList(1, sketches.size())) {
      union.merge(s);
    }
    return union;
  }
}
