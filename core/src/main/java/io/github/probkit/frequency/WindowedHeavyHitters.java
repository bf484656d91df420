package io.github.probkit.frequency;

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
import java.util.List;
import java.util.Objects;

/**
 * The most frequent items over sliding windows of time ("top terms in the last hour"): a ring of
 * Space-Saving summaries ({@link HeavyHitters}), one per slice of time aligned on the epoch. {@link
 * #summaryOfLast} merges the window's slices into one summary, which has a summary's guarantees for
 * the window's stream: with N the window's total and m the capacity, every listed count is at least
 * the item's true count in the window and at most N / m above it, and every item occurring more
 * than N / m times in the window is listed.
 *
 * <p>Slices, not decay, for the reasons {@link WindowedCountMin} gives: a count is the window's, so
 * it can be checked against exact counts; the same events give the same answer in any order within
 * the ring; and summaries of other processes merge slice by slice. A decayed count answers a
 * different question (a weighted past) and has no sharp window to be exact over. The price is one
 * summary per slice: {@code ceil(maxWindow / slice) + 1} of them, each up to m items.
 *
 * <p>The window ending at {@code now} counts every slice from the one holding {@code now - last} to
 * the one holding {@code now}: all of the last {@code last}, plus the part of the oldest slice
 * before it (at most one slice more). Time comes from the caller; a late event goes to its slice
 * while that slice is in the ring, and is ignored once it is not.
 *
 * <p>Thread safety: not thread-safe, like {@link HeavyHitters}.
 */
public final class WindowedHeavyHitters {
  private final HeavyHitters empty;
  private final SliceRing<HeavyHitters> ring;
  private final Clock clock;

  private WindowedHeavyHitters(HeavyHitters empty, SliceRing<HeavyHitters> ring, Clock clock) {
    this.empty = empty;
    this.ring = ring;
    this.clock = clock;
  }

  /** Windows of up to {@code maxWindow} in slices of {@code slice}, summaries of capacity m. */
  public static WindowedHeavyHitters create(Duration maxWindow, Duration slice, int capacity) {
    return create(maxWindow, slice, capacity, Clock.systemUTC());
  }

  public static WindowedHeavyHitters create(
      Duration maxWindow, Duration slice, int capacity, Clock clock) {
    int slots = SliceRing.slotsFor(maxWindow.toMillis(), slice.toMillis());
    HeavyHitters proto = HeavyHitters.withCapacity(capacity);
    return new WindowedHeavyHitters(
        proto,
        new SliceRing<>(slots, slice.toMillis(), proto::copy),
        Objects.requireNonNull(clock, "clock"));
  }

  /** Adds {@code count} occurrences of the item at {@code timeMillis}; false when too late. */
  public boolean add(byte[] item, int off, int len, long count, long timeMillis) {
    HeavyHitters s = ring.at(timeMillis);
    if (s != null) {
      s.add(item, off, len, count);
    }
    return s != null;
  }

  public boolean add(CharSequence item, long count, long timeMillis) {
    return addReleasing(KeyBuffer.utf8(item), count, timeMillis);
  }

  public boolean add(long item, long count, long timeMillis) {
    return addReleasing(KeyBuffer.ofLong(item), count, timeMillis);
  }

  private boolean addReleasing(KeyBuffer b, long count, long timeMillis) {
    try {
      return add(b.bytes(), 0, b.length(), count, timeMillis);
    } finally {
      b.release();
    }
  }

  /** Adds one occurrence at the clock's time. */
  public boolean add(CharSequence item) {
    return add(item, 1, clock.millis());
  }

  /** Moves to the slice of {@code timeMillis}, dropping the slices that leave the ring. */
  public void advanceTo(long timeMillis) {
    ring.advanceTo(timeMillis);
  }

  /**
   * The summary of the window of {@code last} ending at {@code now} (a new summary; this structure
   * does not change). Throws IllegalArgumentException when the window needs more slices than the
   * ring keeps.
   */
  public HeavyHitters summaryOfLast(Duration last, long now) {
    HeavyHitters out = empty.copy();
    ring.forEachIn(last.toMillis(), now, out::merge);
    return out;
  }

  /** The {@code k} most frequent items of the window of {@code last} ending at {@code now}. */
  public List<HeavyHitters.Entry> top(int k, Duration last, long now) {
    checkArgument(k >= 1, "k must be positive, was %d", k);
    return summaryOfLast(last, now).top(k);
  }

  /** The {@code k} most frequent items of the window of {@code last} ending at the clock's time. */
  public List<HeavyHitters.Entry> top(int k, Duration last) {
    return top(k, last, clock.millis());
  }

  public int capacity() {
    return empty.capacity();
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

  /** The memory of the ring's summaries now (they grow as items arrive). */
  public long byteSize() {
    return ring.sumOverSlots(HeavyHitters::byteSize);
  }

  /**
   * Writes the ring in the probkit format (type 52, docs/FORMAT.md): the slice span, the slots, the
   * newest slice, then the empty summary and each slot's summary as its own heavy-hitters container
   * (type 17). Summaries are deterministic, so the same events give the same bytes.
   */
  public void writeTo(OutputStream out) throws IOException {
    ring.writeTo(
        out,
        StructureType.WINDOWED_HEAVY_HITTERS,
        empty.hashStrategy(),
        empty,
        HeavyHitters::writeTo);
  }

  /**
   * Reads a ring written by {@link #writeTo}, with the system clock; corrupt bytes, or slices of
   * another capacity than the empty one, throw SketchFormatException.
   */
  public static WindowedHeavyHitters readFrom(InputStream in) throws IOException {
    return readFrom(in, Clock.systemUTC());
  }

  public static WindowedHeavyHitters readFrom(InputStream in, Clock clock) throws IOException {
    SketchReader r = SketchReader.open(in, StructureType.WINDOWED_HEAVY_HITTERS);
    SliceRing.Read<HeavyHitters> read =
        SliceRing.read(r, HeavyHitters::readFrom, HeavyHitters::copy);
    HeavyHitters e = read.empty();
    r.check(
        e.totalCount() == 0 && e.size() == 0,
        "empty slice",
        e.size() + " items, total " + e.totalCount(),
        "no items");
    r.check(
        e.hashStrategy().equals(r.hash()), "empty slice's hash", e.hashStrategy(), "" + r.hash());
    int slot = 0;
    for (HeavyHitters s : read.slices()) {
      r.check(
          s.capacity() == e.capacity(),
          "slot " + slot++ + "'s capacity",
          s.capacity(),
          "the empty summary's " + e.capacity());
    }
    return new WindowedHeavyHitters(e, read.ring(), Objects.requireNonNull(clock, "clock"));
  }
}
