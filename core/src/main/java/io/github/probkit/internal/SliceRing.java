package io.github.probkit.internal;

import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A ring of per-slice structures over time, slices aligned on the epoch ({@code floor(t /
 * sliceMillis)}): the slice of generation s is in slot {@code floorMod(s, slots)}; moving to a
 * later slice replaces the slots that leave the ring with fresh structures. Not thread-safe. Not
 * public API.
 */
public final class SliceRing<S> {
  private static final long NONE = Long.MIN_VALUE;

  private final Supplier<S> fresh;
  private final long sliceMillis;
  private final Object[] slots;

  /** floor(latest event time / sliceMillis), or NONE before the first. */
  private long newest = NONE;

  public SliceRing(int slots, long sliceMillis, Supplier<S> fresh) {
    this.fresh = fresh;
    this.sliceMillis = sliceMillis;
    this.slots = new Object[slots];
    for (int i = 0; i < slots; i++) {
      this.slots[i] = fresh.get();
    }
  }

  public long slice(long timeMillis) {
    return Math.floorDiv(timeMillis, sliceMillis);
  }

  /** Moves to the slice of {@code timeMillis}, replacing the slots that leave the ring. */
  public void advanceTo(long timeMillis) {
    long s = slice(timeMillis);
    if (newest == NONE) {
      newest = s;
      return;
    }
    for (long i = newest + 1; i <= s && i <= newest + slots.length; i++) {
      slots[slot(i)] = fresh.get();
    }
    newest = Math.max(newest, s);
  }

  private int slot(long slice) {
    return (int) Math.floorMod(slice, (long) slots.length);
  }

  /**
   * The structure of the slice of {@code timeMillis} after advancing to it, or null when that slice
   * is older than the ring (a late event to ignore).
   */
  @SuppressWarnings("unchecked")
  public S at(long timeMillis) {
    advanceTo(timeMillis);
    long s = slice(timeMillis);
    return s <= newest - slots.length ? null : (S) slots[slot(s)];
  }

  /**
   * Gives {@code each} the structures of slices {@code from..to} still in the ring, oldest first.
   */
  @SuppressWarnings("unchecked")
  public void forEach(long from, long to, Consumer<S> each) {
    if (newest == NONE) {
      return;
    }
    for (long s = Math.max(from, newest - slots.length + 1); s <= Math.min(to, newest); s++) {
      each.accept((S) slots[slot(s)]);
    }
  }

  /**
   * The slices {@code from..to} of the window of {@code lastMillis} ending at {@code now}: from the
   * slice holding {@code now - lastMillis} to the one holding now. Throws IllegalArgumentException
   * when that is more slices than the ring keeps.
   */
  public long[] window(long lastMillis, long now) {
    Preconditions.checkArgument(
        lastMillis >= 0, "window must not be negative, was %d ms", lastMillis);
    long from = slice(now - lastMillis);
    long to = slice(now);
    Preconditions.checkArgument(
        to - from < slots.length,
        "a window of %d ms needs %d slices of %d ms, the ring keeps %d",
        lastMillis,
        to - from + 1,
        sliceMillis,
        slots.length);
    return new long[] {from, to};
  }

  public int slots() {
    return slots.length;
  }

  public long sliceMillis() {
    return sliceMillis;
  }

  /** The newest slice, or {@link Long#MIN_VALUE} before the first event. */
  public long newest() {
    return newest;
  }

  /** Gives {@code each} every slot's structure. */
  @SuppressWarnings("unchecked")
  public void forEachSlot(Consumer<S> each) {
    for (Object o : slots) {
      each.accept((S) o);
    }
  }

  /**
   * The slots of a window of up to {@code maxWindowMillis} in slices of {@code sliceMillis}: one
   * more than the slices it spans, for the slice its start falls in.
   */
  public static int slotsFor(long maxWindowMillis, long sliceMillis) {
    Preconditions.checkArgument(
        sliceMillis > 0, "slice must be at least 1 ms, was %d ms", sliceMillis);
    Preconditions.checkArgument(
        maxWindowMillis >= sliceMillis,
        "the window (%d ms) must be at least one slice (%d ms)",
        maxWindowMillis,
        sliceMillis);
    long n = -Math.floorDiv(-maxWindowMillis, sliceMillis) + 1;
    Preconditions.checkArgument(n <= 1 << 16, "%d slices, more than 65536", n);
    return (int) n;
  }
}
