package io.github.probkit.cardinality;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.withinPercentage;

import io.github.probkit.GoldenFiles;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Kept state = recomputed state. HyperLogLog keeps its register histogram and change sum,
 * UltraLogLog its estimator inputs and change probability, up to date as registers change; a reader
 * computes them afresh from the registers. After every step of seeded random sequences of adds,
 * merges (into an empty sketch, from an empty one, of a higher precision, with itself), copies,
 * downsizes and write-reads, a sketch must be indistinguishable from the one read from its bytes —
 * not only now (estimate, martingale) but after more keys, which is where a stale change sum or
 * change probability shows — and its registers must be those of a sketch that was only ever given
 * all of its keys one by one.
 */
class KeptStateTest {

  enum Kind {
    HLL,
    ULL;

    CardinalitySketch create(int p) {
      return this == HLL ? HyperLogLog.create(p) : UltraLogLog.create(p);
    }

    CardinalitySketch read(byte[] bytes) throws IOException {
      ByteArrayInputStream in = new ByteArrayInputStream(bytes);
      return this == HLL ? HyperLogLog.readFrom(in) : UltraLogLog.readFrom(in);
    }
  }

  private static byte[] bytes(CardinalitySketch s) throws IOException {
    return GoldenFiles.bytes(s::writeTo);
  }

  private static Object registers(CardinalitySketch s) {
    return s instanceof HyperLogLog
        ? ((HyperLogLog) s).registers()
        : (Object) ((UltraLogLog) s).registers();
  }

  /** A sketch and every hash it was given, directly or through merges. */
  private static final class Tracked {
    CardinalitySketch sketch;
    final Set<Long> hashes;

    Tracked(CardinalitySketch sketch, Set<Long> hashes) {
      this.sketch = sketch;
      this.hashes = hashes;
    }
  }

  /**
   * Hashes drawn from a pool a few times the sketch's size, so that repeats are common; some with
   * the top bits cleared, which gives the largest register values (and ULL's saturation).
   */
  private static long nextHash(SplittableRandom r) {
    long h = r.nextLong();
    return r.nextInt(8) == 0 ? h >>> (20 + r.nextInt(40)) : h;
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void everyKeptSummaryIsTheOneRecomputedFromTheRegisters(Kind kind) throws IOException {
    for (long seed = 0; seed < 30; seed++) {
      SplittableRandom r = new SplittableRandom(0x6b657074L * 31 + seed);
      List<Tracked> pool = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        int p = 4 + r.nextInt(9);
        pool.add(new Tracked(kind.create(p), new HashSet<>()));
      }
      List<String> steps = new ArrayList<>();
      for (int step = 0; step < 40; step++) {
        int i = r.nextInt(pool.size());
        Tracked t = pool.get(i);
        int p = t.sketch.precision();
        String op;
        switch (r.nextInt(9)) {
          case 0:
          case 1:
            {
              // Small and large runs: HLL's sparse form, its growth and its switch to dense.
              int n = r.nextInt(3) == 0 ? r.nextInt(12_000) : r.nextInt(200);
              for (int j = 0; j < n; j++) {
                long h = nextHash(r);
                t.sketch.addHash(h);
                t.hashes.add(h);
              }
              op = "add " + n;
              break;
            }
          case 2:
            {
              Tracked o = pool.get(r.nextInt(pool.size()));
              if (o.sketch.precision() >= p) {
                t.sketch.merge(o.sketch);
                if (o != t) {
                  t.hashes.addAll(o.hashes);
                }
                op = "merge p" + o.sketch.precision() + (o == t ? " (itself)" : "");
              } else {
                op = "merge refused";
              }
              break;
            }
          case 3:
            {
              // Into an empty sketch: it adopts the other's registers and inputs.
              Tracked o = pool.get(r.nextInt(pool.size()));
              int q = 4 + r.nextInt(o.sketch.precision() - 3);
              pool.set(i, new Tracked(kind.create(q).merge(o.sketch), new HashSet<>(o.hashes)));
              op = "empty p" + q + " merge p" + o.sketch.precision();
              break;
            }
          case 4:
            t.sketch.merge(kind.create(p + r.nextInt(19 - p)));
            op = "merge an empty one";
            break;
          case 5:
            t.sketch = t.sketch.copy();
            op = "copy";
            break;
          case 6:
            {
              int q = 4 + r.nextInt(p - 3);
              t.sketch = t.sketch.downsize(q);
              op = "downsize " + q;
              break;
            }
          case 7:
            t.sketch = kind.read(bytes(t.sketch));
            op = "read";
            break;
          default:
            {
              // A copy of another, which then lives on its own.
              Tracked o = pool.get(r.nextInt(pool.size()));
              pool.set(i, new Tracked(o.sketch.copy(), new HashSet<>(o.hashes)));
              op = "copy of another";
              break;
            }
        }
        steps.add("sketch " + i + ": " + op);
        check(kind, pool.get(i), r.nextLong(), "seed " + seed + ", after " + steps);
      }
    }
  }

  private static void check(Kind kind, Tracked t, long seed, String where) throws IOException {
    CardinalitySketch live = t.sketch;
    byte[] bytes = bytes(live);
    CardinalitySketch read = kind.read(bytes);
    assertThat(live.estimate()).as(where).isEqualTo(read.estimate());
    assertThat(live.martingaleEstimate()).as(where).isEqualTo(read.martingaleEstimate());
    assertThat(live.isEmpty()).as(where).isEqualTo(read.isEmpty()).isEqualTo(t.hashes.isEmpty());
    assertThat(live.byteSize()).as(where).isEqualTo(read.byteSize());
    assertThat(registers(live)).as(where).isEqualTo(registers(read));

    // The registers of a sketch given the same keys one by one, at the same precision; and, where
    // it has the same form (HyperLogLog sparse or dense), the same estimate.
    CardinalitySketch direct = kind.create(live.precision());
    t.hashes.forEach(direct::addHash);
    assertThat(registers(live)).as(where).isEqualTo(registers(direct));
    if (!(live instanceof HyperLogLog)
        || ((HyperLogLog) live).isSparse() == ((HyperLogLog) direct).isSparse()) {
      assertThat(live.estimate()).as(where).isEqualTo(direct.estimate());
    }

    // More keys into both: a stale change sum or change probability shows in the martingale, stale
    // inputs in the estimate, and each add must report a change alike.
    SplittableRandom r = new SplittableRandom(seed);
    CardinalitySketch a = live.copy();
    for (int j = 0; j < 300; j++) {
      long h = nextHash(r);
      assertThat(a.addHash(h)).as("%s, add %d more", where, j).isEqualTo(read.addHash(h));
    }
    assertThat(a.estimate()).as("%s, then 300 more", where).isEqualTo(read.estimate());
    // The live sketch updates its change sum (probability) add by add, the one read sums it afresh:
    // they may differ in the last bits, a stale one by far more.
    assertThat(a.martingaleEstimate().isPresent())
        .as("%s, then 300 more", where)
        .isEqualTo(read.martingaleEstimate().isPresent());
    if (a.martingaleEstimate().isPresent()) {
      assertThat(a.martingaleEstimate().getAsDouble())
          .as("%s, then 300 more", where)
          .isCloseTo(read.martingaleEstimate().getAsDouble(), withinPercentage(1e-9));
    }
    assertThat(registers(a)).as("%s, then 300 more", where).isEqualTo(registers(read));
  }
}
