package io.github.probkit.spark;

import io.github.probkit.Concurrency;
import io.github.probkit.cardinality.CardinalitySketch;
import io.github.probkit.cardinality.CardinalitySketches;
import io.github.probkit.frequency.CountMinSketch;
import io.github.probkit.internal.SliceRing;
import io.github.probkit.io.SketchReader;
import io.github.probkit.io.StructureType;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * A windowed sketch — {@code WindowedCardinality} (type 49) or {@code WindowedCountMin} (type 50) —
 * held as its ring of slices. The library's classes add keys and answer queries but do not merge,
 * and partial aggregates and probkit_union_agg must; so this holds the same {@link SliceRing} they
 * hold and writes it as they write it, with the same bytes.
 *
 * <p>The ring's content depends only on its events, not their order: after the newest slice N, a
 * slot holds exactly the keys of its slice if that slice is one of the ring's last {@code slots} (N
 * - slots + 1 .. N), and nothing else, whenever its events came. Merging two rings is merging those
 * slices, so partial aggregates merge to the ring of all the rows.
 */
final class WindowRing {
  final StructureType type;

  /** The empty slice: a CardinalitySketch or a CountMinSketch. */
  private final Object empty;

  private final SliceRing<Object> ring;

  private WindowRing(StructureType type, Object empty, SliceRing<Object> ring) {
    this.type = type;
    this.empty = empty;
    this.ring = ring;
  }

  /** An empty ring for windows up to {@code window} in slices of {@code slice}. */
  static WindowRing create(Duration window, Duration slice, Object empty) {
    int slots = SliceRing.slotsFor(window.toMillis(), slice.toMillis());
    return new WindowRing(
        empty instanceof CountMinSketch
            ? StructureType.WINDOWED_COUNT_MIN
            : StructureType.WINDOWED_CARDINALITY,
        empty,
        new SliceRing<>(slots, slice.toMillis(), () -> copy(empty)));
  }

  private static Object copy(Object s) {
    return s instanceof CountMinSketch
        ? ((CountMinSketch) s).copy()
        : ((CardinalitySketch) s).copy();
  }

  /** The slice of {@code timeMillis}, or null when it is older than the ring (the row is late). */
  Object sliceAt(long timeMillis) {
    return ring.at(timeMillis);
  }

  /**
   * Adds the slices of {@code other} (of the same shape) to this ring, as if its events had been
   * added here.
   */
  WindowRing merge(WindowRing other) {
    String why = incompatibility(other);
    if (why != null) {
      throw new IllegalArgumentException("cannot merge " + this + " with " + other + ": " + why);
    }
    long newest = other.ring.newest();
    if (newest == Long.MIN_VALUE) {
      return this;
    }
    long millis = ring.sliceMillis();
    ring.advanceTo(newest * millis);
    long[] slice = {newest - ring.slots() + 1};
    other.ring.forEach(
        slice[0],
        newest,
        s -> {
          Object into = ring.at(slice[0]++ * millis);
          if (into != null) {
            mergeSlice(into, s);
          }
        });
    return this;
  }

  private static void mergeSlice(Object into, Object s) {
    if (into instanceof CountMinSketch) {
      ((CountMinSketch) into).merge((CountMinSketch) s);
    } else {
      ((CardinalitySketch) into).merge((CardinalitySketch) s);
    }
  }

  private String incompatibility(WindowRing o) {
    if (type != o.type) {
      return "different types";
    }
    if (ring.sliceMillis() != o.ring.sliceMillis() || ring.slots() != o.ring.slots()) {
      return "different slices";
    }
    if (empty instanceof CountMinSketch) {
      return ((CountMinSketch) empty).isCompatible((CountMinSketch) o.empty)
          ? null
          : "slices of different shapes";
    }
    CardinalitySketch a = (CardinalitySketch) empty;
    CardinalitySketch b = (CardinalitySketch) o.empty;
    return a.type() == b.type()
            && a.precision() == b.precision()
            && a.hashStrategy().equals(b.hashStrategy())
        ? null
        : "slices of different shapes (" + a + ", " + b + ")";
  }

  /**
   * Gives {@code each} the slices of the window of {@code lastMillis} ending at {@code atMillis},
   * as the library's {@code sketchOfLast} and {@code estimate} take them.
   */
  void forWindow(long lastMillis, long atMillis, Consumer<Object> each) {
    long[] span = ring.window(lastMillis, atMillis);
    ring.forEach(span[0], span[1], each);
  }

  /** Distinct keys in the window (type 49): the estimate of its slices' union, as the library's. */
  double count(long lastMillis, long atMillis) {
    CardinalitySketch out = ((CardinalitySketch) empty).copy();
    forWindow(lastMillis, atMillis, s -> out.merge((CardinalitySketch) s));
    return out.estimate();
  }

  boolean isCountMin() {
    return type == StructureType.WINDOWED_COUNT_MIN;
  }

  long byteSize() {
    long[] b = {0};
    ring.forEachSlot(s -> b[0] += Sketches.byteSize(s));
    return b[0] + Sketches.byteSize(empty);
  }

  /** What the library's {@code writeTo} writes for this ring. */
  void writeTo(OutputStream out) throws IOException {
    if (isCountMin()) {
      CountMinSketch e = (CountMinSketch) empty;
      ring.writeTo(out, type, e.hashStrategy(), e, (s, o) -> ((CountMinSketch) s).writeTo(o));
    } else {
      CardinalitySketch e = (CardinalitySketch) empty;
      ring.writeTo(out, type, e.hashStrategy(), e, (s, o) -> ((CardinalitySketch) s).writeTo(o));
    }
  }

  /**
   * Reads type 49 or 50 from {@code in}, with the checks the library's readers make: an empty
   * prototype of the container's hashing, and every slot of its shape.
   */
  static WindowRing read(InputStream in, StructureType type) throws IOException {
    SketchReader r = SketchReader.open(in, type);
    SliceRing.Read<Object> read =
        type == StructureType.WINDOWED_COUNT_MIN
            ? SliceRing.read(
                r, s -> CountMinSketch.readFrom(s, Concurrency.SINGLE_WRITER), WindowRing::copy)
            : SliceRing.read(r, CardinalitySketches::readFrom, WindowRing::copy);
    WindowRing w = new WindowRing(type, read.empty(), read.ring());
    Object e = read.empty();
    boolean empty =
        e instanceof CountMinSketch
            ? ((CountMinSketch) e).totalCount() == 0
            : ((CardinalitySketch) e).isEmpty();
    r.check(empty, "empty slice", e, "empty");
    r.check(w.hashOf(e).equals(r.hash()), "empty slice's hash", w.hashOf(e), "" + r.hash());
    int slot = 0;
    for (Object s : read.slices()) {
      WindowRing one = new WindowRing(type, s, read.ring());
      r.check(w.incompatibility(one) == null, "slot " + slot++, s, "a sketch like the empty one");
    }
    return w;
  }

  private Object hashOf(Object s) {
    return s instanceof CountMinSketch
        ? ((CountMinSketch) s).hashStrategy()
        : ((CardinalitySketch) s).hashStrategy();
  }

  /** The slice's label and shape, for messages and probkit_info. */
  String shape() {
    return String.format(
        Locale.ROOT,
        "%d slices of %d ms, each a %s",
        ring.slots(),
        ring.sliceMillis(),
        empty instanceof CountMinSketch
            ? String.format(
                Locale.ROOT,
                "count-min of width %d, depth %d",
                ((CountMinSketch) empty).width(),
                ((CountMinSketch) empty).depth())
            : String.format(
                Locale.ROOT,
                "%s of precision %d",
                ((CardinalitySketch) empty).type().label(),
                ((CardinalitySketch) empty).precision()));
  }

  @Override
  public String toString() {
    return "a " + type.label() + " of " + shape();
  }
}
