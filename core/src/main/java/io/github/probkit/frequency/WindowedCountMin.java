package io.github.probkit.frequency;

import static io.github.probkit.internal.Preconditions.checkArgument;

import io.github.probkit.Concurrency;
import io.github.probkit.internal.SliceRing;
import io.github.probkit.io.SketchReader;
import io.github.probkit.io.StructureType;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.function.ToLongFunction;

/**
 * Frequencies over sliding windows of time ("how often in the last hour"): a ring of count-min
 * sketches, one per slice of time aligned on the epoch. {@link #sketchOfLast} adds up the counters
 * of the window's slices into one sketch, which is exactly the sketch of the window's stream: its
 * estimates are never below the true counts of those slices and exceed them by at most {@code
 * epsilon} times the window's total with probability {@code 1 - delta}, the underlying sketch's
 * bound. Slices, not decay: a window then has sharp edges (a count is the window's, not a weighted
 * past), the same answer for the same events in any order, and merges across processes.
 *
 * <p>The window ending at {@code now} counts every slice from the one holding {@code now - last} to
 * the one holding {@code now}: all of the last {@code last}, plus the part of the oldest slice
 * before it (at most one slice more). Time comes from the caller; a late event goes to its slice
 * while that slice is in the ring, and is ignored once it is not.
 *
 * <p>Thread safety: not thread-safe: one thread at a time, queries included (slices are replaced as
 * time advances).
 */
public final class WindowedCountMin {
  private final CountMinSketch empty;
  private final SliceRing<CountMinSketch> ring;
  private final Clock clock;

  private WindowedCountMin(CountMinSketch empty, SliceRing<CountMinSketch> ring, Clock clock) {
    this.empty = empty;
    this.ring = ring;
    this.clock = clock;
  }

  /**
   * Windows of up to {@code maxWindow} in slices of {@code slice}, each a copy of the empty sketch
   * {@code empty} (say {@code CountMinSketch.create(0.001, 0.01)}).
   */
  public static WindowedCountMin create(Duration maxWindow, Duration slice, CountMinSketch empty) {
    return create(maxWindow, slice, empty, Clock.systemUTC());
  }

  public static WindowedCountMin create(
      Duration maxWindow, Duration slice, CountMinSketch empty, Clock clock) {
    int slots = SliceRing.slotsFor(maxWindow.toMillis(), slice.toMillis());
    checkArgument(empty.totalCount() == 0, "the prototype sketch must be empty");
    CountMinSketch proto = empty.copy();
    return new WindowedCountMin(
        proto,
        new SliceRing<>(slots, slice.toMillis(), proto::copy),
        Objects.requireNonNull(clock, "clock"));
  }

  /** Adds {@code count} occurrences of the item at {@code timeMillis}; false when too late. */
  public boolean add(CharSequence item, long count, long timeMillis) {
    CountMinSketch s = ring.at(timeMillis);
    if (s != null) {
      s.add(item, count);
    }
    return s != null;
  }

  /** Adds {@code count} occurrences of the {@code len} bytes of {@code item} from {@code off}. */
  public boolean add(byte[] item, int off, int len, long count, long timeMillis) {
    CountMinSketch s = ring.at(timeMillis);
    if (s != null) {
      s.add(item, off, len, count);
    }
    return s != null;
  }

  public boolean add(long item, long count, long timeMillis) {
    CountMinSketch s = ring.at(timeMillis);
    if (s != null) {
      s.add(item, count);
    }
    return s != null;
  }

  /** Adds one occurrence at the clock's time. */
  public boolean add(CharSequence item) {
    return add(item, 1, clock.millis());
  }

  public void advanceTo(long timeMillis) {
    ring.advanceTo(timeMillis);
  }

  /** The sketch of the window of {@code last} ending at {@code now} (a new sketch). */
  public CountMinSketch sketchOfLast(Duration last, long now) {
    CountMinSketch out = empty.copy();
    ring.forEachIn(last.toMillis(), now, out::merge);
    return out;
  }

  /**
   * The item's estimated count in the window of {@code last} ending at {@code now}: the sum of its
   * slices' estimates. Each is at least the slice's true count, so the sum is never below the
   * window's; and a sum of minima is at most the minimum of sums, so it is never above the estimate
   * of {@link #sketchOfLast} either, and keeps its bound.
   */
  public long estimate(CharSequence item, Duration last, long now) {
    return sumOfSlices(last, now, s -> s.estimate(item));
  }

  public long estimate(byte[] item, int off, int len, Duration last, long now) {
    return sumOfSlices(last, now, s -> s.estimate(item, off, len));
  }

  public long estimate(long item, Duration last, long now) {
    return sumOfSlices(last, now, s -> s.estimate(item));
  }

  private long sumOfSlices(Duration last, long now, ToLongFunction<CountMinSketch> estimate) {
    long[] sum = {0};
    ring.forEachIn(
        last.toMillis(),
        now,
        s -> sum[0] = CountMinSketch.saturatedAdd(sum[0], estimate.applyAsLong(s)));
    return sum[0];
  }

  /**
   * Adds the counts of {@code other}, a ring of as many slices of the same length whose sketches
   * merge with these, slice by slice: this ring first moves to {@code other}'s newest slice when
   * that is newer, then each slice both hold gets {@code other}'s counters. So an estimate of any
   * window this ring still covers is never below the true count of the events both rings kept in
   * its slices; a slice {@code other} holds but this ring no longer does is left out, as a late
   * event would be. {@code other} is unchanged.
   */
  public WindowedCountMin merge(WindowedCountMin other) {
    checkArgument(
        other.sliceMillis() == sliceMillis() && other.sliceCount() == sliceCount(),
        "a window of %d slices of %d ms into one of %d slices of %d ms: the slices must be the"
            + " same",
        other.sliceCount(),
        other.sliceMillis(),
        sliceCount(),
        sliceMillis());
    // The sketches' own check (width, depth, hashing, update rule), before anything changes.
    empty.copy().merge(other.empty);
    long theirs = other.newestSlice();
    if (theirs == Long.MIN_VALUE) {
      return this;
    }
    ring.advanceTo(Math.multiplyExact(theirs, sliceMillis()));
    for (long s = theirs - sliceCount() + 1; s <= theirs; s++) {
      CountMinSketch mine = ring.get(s);
      CountMinSketch add = other.ring.get(s);
      if (mine != null && add != null) {
        mine.merge(add);
      }
    }
    return this;
  }

  public long sliceMillis() {
    return ring.sliceMillis();
  }

  public int sliceCount() {
    return ring.slots();
  }

  /**
   * The newest slice, {@code floor(latest event time / sliceMillis)}; Long.MIN_VALUE before any.
   */
  public long newestSlice() {
    return ring.newest();
  }

  /**
   * Writes the ring in the probkit format (type 50, docs/FORMAT.md): the slice span, the slots, the
   * newest slice, then the empty sketch and each slot's sketch as its own container.
   */
  public void writeTo(OutputStream out) throws IOException {
    ring.writeTo(
        out,
        StructureType.WINDOWED_COUNT_MIN,
        empty.hashStrategy(),
        empty,
        CountMinSketch::writeTo);
  }

  /**
   * Reads a ring written by {@link #writeTo}, with the system clock; corrupt bytes, or slices that
   * do not merge with one another, throw SketchFormatException.
   */
  public static WindowedCountMin readFrom(InputStream in) throws IOException {
    return readFrom(in, Clock.systemUTC());
  }

  public static WindowedCountMin readFrom(InputStream in, Clock clock) throws IOException {
    SketchReader r = SketchReader.open(in, StructureType.WINDOWED_COUNT_MIN);
    SliceRing.Read<CountMinSketch> read =
        SliceRing.read(
            r, s -> CountMinSketch.readFrom(s, Concurrency.SINGLE_WRITER), CountMinSketch::copy);
    CountMinSketch e = read.empty();
    r.check(e.totalCount() == 0, "empty slice's total", e.totalCount(), "0");
    r.check(
        e.hashStrategy().equals(r.hash()), "empty slice's hash", e.hashStrategy(), "" + r.hash());
    int slot = 0;
    for (CountMinSketch s : read.slices()) {
      r.check(e.isCompatible(s), "slot " + slot++, s, "a sketch like the empty one (" + e + ")");
    }
    return new WindowedCountMin(e, read.ring(), Objects.requireNonNull(clock, "clock"));
  }
}
