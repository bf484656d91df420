package io.github.probkit.cardinality;

import static io.github.probkit.internal.Preconditions.checkArgument;

import io.github.probkit.internal.KeyBuffer;
import io.github.probkit.internal.SliceRing;
import io.github.probkit.io.SketchReader;
import io.github.probkit.io.StructureType;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

/**
 * Distinct counts over sliding windows of time ("distinct users in the last 24 h"): a ring of
 * HyperLogLog or UltraLogLog sketches, one per slice of time, slices aligned on the epoch ({@code
 * floor(t / slice)}). {@link #sketchOfLast} merges the slices of the window into one sketch; as a
 * merge of sketches is exactly the sketch of the union, its error is the underlying sketch's
 * ({@link CardinalitySketch#relativeStandardError()}). Slices older than the ring are dropped as
 * time advances.
 *
 * <p>The window ending at {@code now} counts the keys of every slice from the one holding {@code
 * now - last} to the one holding {@code now}: all of the last {@code last}, plus the part of the
 * oldest slice before {@code now - last} (at most one slice more). Finer slices make that slack
 * smaller, at one sketch of memory each.
 *
 * <p>Time comes from the caller ({@code add(key, timeMillis)}; without a time, the clock's). A late
 * event goes to its own slice while that slice is in the ring, and is ignored once it is not.
 *
 * <p>Thread safety: not thread-safe, like the sketches it holds.
 */
public final class WindowedCardinality {
  private final CardinalitySketch empty;
  private final SliceRing<CardinalitySketch> ring;
  private final Clock clock;

  private WindowedCardinality(
      CardinalitySketch empty, SliceRing<CardinalitySketch> ring, Clock clock) {
    this.empty = empty;
    this.ring = ring;
    this.clock = clock;
  }

  /**
   * Windows of up to {@code maxWindow} in slices of {@code slice}, each a copy of the empty sketch
   * {@code empty} (say {@code UltraLogLog.create(12)}): {@code ceil(maxWindow / slice) + 1}
   * sketches, the last one for the slice the window's start falls in.
   */
  public static WindowedCardinality create(
      Duration maxWindow, Duration slice, CardinalitySketch empty) {
    return create(maxWindow, slice, empty, Clock.systemUTC());
  }

  public static WindowedCardinality create(
      Duration maxWindow, Duration slice, CardinalitySketch empty, Clock clock) {
    int slots = SliceRing.slotsFor(maxWindow.toMillis(), slice.toMillis());
    checkArgument(empty.isEmpty(), "the prototype sketch must be empty");
    CardinalitySketch proto = empty.copy();
    return new WindowedCardinality(
        proto,
        new SliceRing<>(slots, slice.toMillis(), proto::copy),
        Objects.requireNonNull(clock, "clock"));
  }

  /** Moves to the slice of {@code timeMillis}, dropping the slices that leave the ring. */
  public void advanceTo(long timeMillis) {
    ring.advanceTo(timeMillis);
  }

  /**
   * Adds the key hash (the sketch's {@code hashStrategy().hash64} of the key) at {@code
   * timeMillis}; returns whether a slice changed (false too for an event older than the ring).
   */
  public boolean addHash(long hash, long timeMillis) {
    CardinalitySketch s = ring.at(timeMillis);
    return s != null && s.addHash(hash);
  }

  public boolean add(byte[] key, int off, int len, long timeMillis) {
    return addHash(empty.hashStrategy().hash64(key, off, len), timeMillis);
  }

  public boolean add(CharSequence key, long timeMillis) {
    KeyBuffer b = KeyBuffer.utf8(key);
    try {
      return add(b.bytes(), 0, b.length(), timeMillis);
    } finally {
      b.release();
    }
  }

  public boolean add(long key, long timeMillis) {
    return addHash(empty.hashStrategy().hash64(key), timeMillis);
  }

  /** Adds the key at the clock's time. */
  public boolean add(CharSequence key) {
    return add(key, clock.millis());
  }

  /**
   * The sketch of the keys of the window of {@code last} ending at {@code now} (a new sketch; this
   * structure does not change). Throws IllegalArgumentException when the window needs more slices
   * than the ring keeps.
   */
  public CardinalitySketch sketchOfLast(Duration last, long now) {
    CardinalitySketch out = empty.copy();
    ring.forEachIn(last.toMillis(), now, out::merge);
    return out;
  }

  /** The estimated distinct keys of the window of {@code last} ending at {@code now}. */
  public double count(Duration last, long now) {
    return sketchOfLast(last, now).estimate();
  }

  /** The estimated distinct keys of the window of {@code last} ending at the clock's time. */
  public double count(Duration last) {
    return count(last, clock.millis());
  }

  public long sliceMillis() {
    return ring.sliceMillis();
  }

  public int sliceCount() {
    return ring.slots();
  }

  /** The newest slice, {@code floor(latest event time / sliceMillis)}. */
  public long newestSlice() {
    return ring.newest();
  }

  /** The memory of the ring's sketches. */
  public long byteSize() {
    return ring.sumOverSlots(CardinalitySketch::byteSize);
  }

  /**
   * Writes the ring in the probkit format (type 49, docs/FORMAT.md): the slice span, the slots, the
   * newest slice, then the empty sketch and each slot's sketch as its own container. The same
   * events give the same bytes, in any order within the ring.
   */
  public void writeTo(OutputStream out) throws IOException {
    ring.writeTo(
        out,
        StructureType.WINDOWED_CARDINALITY,
        empty.hashStrategy(),
        empty,
        CardinalitySketch::writeTo);
  }

  /**
   * Reads a ring written by {@link #writeTo}, with the system clock; corrupt bytes, or slices that
   * disagree in type, precision or hashing, throw SketchFormatException.
   */
  public static WindowedCardinality readFrom(InputStream in) throws IOException {
    return readFrom(in, Clock.systemUTC());
  }

  public static WindowedCardinality readFrom(InputStream in, Clock clock) throws IOException {
    SketchReader r = SketchReader.open(in, StructureType.WINDOWED_CARDINALITY);
    SliceRing.Read<CardinalitySketch> read =
        SliceRing.read(r, CardinalitySketches::readFrom, CardinalitySketch::copy);
    CardinalitySketch e = read.empty();
    r.check(e.isEmpty(), "empty slice", "a sketch of keys", "empty");
    r.check(
        e.hashStrategy().equals(r.hash()), "empty slice's hash", e.hashStrategy(), "" + r.hash());
    int slot = 0;
    for (CardinalitySketch s : read.slices()) {
      r.check(
          s.type() == e.type()
              && s.precision() == e.precision()
              && s.hashStrategy().equals(e.hashStrategy()),
          "slot " + slot++,
          s,
          "a sketch like the empty one (" + e + ")");
    }
    return new WindowedCardinality(e, read.ring(), Objects.requireNonNull(clock, "clock"));
  }
}
