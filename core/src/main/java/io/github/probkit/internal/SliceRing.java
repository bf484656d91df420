package io.github.probkit.internal;

import io.github.probkit.hash.HashStrategy;
import io.github.probkit.io.SketchReader;
import io.github.probkit.io.SketchWriter;
import io.github.probkit.io.StructureType;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/**
 * A ring of per-slice structures over time, slices aligned on the epoch ({@code floor(t /
 * sliceMillis)}): the slice of generation s is in slot {@code floorMod(s, slots)}; moving to a
 * later slice replaces the slots that leave the ring with fresh structures. Not thread-safe. Not
 * public API.
 */
public final class SliceRing<S> {
  private static final long NONE = Long.MIN_VALUE;

  /** The most slices a ring keeps. */
  public static final int MAX_SLOTS = 1 << 16;

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

  private SliceRing(Object[] slots, long sliceMillis, long newest, Supplier<S> fresh) {
    this.fresh = fresh;
    this.sliceMillis = sliceMillis;
    this.slots = slots;
    this.newest = newest;
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

  /** The structure of slice {@code s} when the ring holds it, else null; the ring does not move. */
  @SuppressWarnings("unchecked")
  public S get(long s) {
    return newest == NONE || s > newest || s <= newest - slots.length ? null : (S) slots[slot(s)];
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

  /**
   * Gives {@code each} the structures of the window of {@code lastMillis} ending at {@code now}
   * still in the ring, oldest first; throws as {@link #window} does.
   */
  public void forEachIn(long lastMillis, long now, Consumer<S> each) {
    long[] span = window(lastMillis, now);
    forEach(span[0], span[1], each);
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

  /** The sum of {@code size} over every slot's structure: the memory of the ring. */
  @SuppressWarnings("unchecked")
  public long sumOverSlots(ToLongFunction<S> size) {
    long sum = 0;
    for (Object o : slots) {
      sum += size.applyAsLong((S) o);
    }
    return sum;
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
    Preconditions.checkArgument(n <= MAX_SLOTS, "%d slices, more than %d", n, MAX_SLOTS);
    return (int) n;
  }

  // ---- the probkit format (docs/FORMAT.md, "Windowed sketches")

  /** Writes one slice's structure as a complete probkit container. */
  public interface Encoder<S> {
    void write(S slice, OutputStream out) throws IOException;
  }

  /** Reads one slice's structure from a complete probkit container. */
  public interface Decoder<S> {
    S read(InputStream in) throws IOException;
  }

  /** A ring read back, and the empty structure its new slices copy. */
  public record Read<S>(SliceRing<S> ring, S empty) {
    /** The slots' structures, in slot order. */
    public java.util.List<S> slices() {
      java.util.List<S> all = new java.util.ArrayList<>();
      ring.forEachSlot(all::add);
      return all;
    }
  }

  /**
   * Writes the ring as a structure of {@code type}. Parameters: the slice span in ms (u64), the
   * slots (u32), the newest slice (i64, {@link Long#MIN_VALUE} before the first event). Payload:
   * {@code empty}, then each slot in slot order, each as a u32 length and that many bytes holding
   * the structure's own probkit container. Nesting whole containers keeps one reader per structure
   * and lets a store that keeps one key per slice (probkit-redis) hold exactly those bytes.
   */
  public void writeTo(
      OutputStream out, StructureType type, HashStrategy hash, S empty, Encoder<S> encoder)
      throws IOException {
    byte[][] parts = new byte[slots.length + 1][];
    long payload = 0;
    for (int i = 0; i <= slots.length; i++) {
      ByteArrayOutputStream b = new ByteArrayOutputStream();
      @SuppressWarnings("unchecked")
      S s = i == 0 ? empty : (S) slots[i - 1];
      encoder.write(s, b);
      parts[i] = b.toByteArray();
      payload += 4 + parts[i].length;
    }
    java.nio.ByteBuffer p = SketchWriter.params(20);
    p.putLong(sliceMillis).putInt(slots.length).putLong(newest);
    SketchWriter w = SketchWriter.begin(out, type, hash, p.array(), payload);
    for (byte[] part : parts) {
      w.writeInt(part.length);
      w.writeBytes(part, 0, part.length);
    }
    w.finish();
  }

  /**
   * Reads a ring written by {@link #writeTo}; {@code copy} makes the new slices from the empty
   * structure. The caller checks that the structures agree with one another.
   */
  public static <S> Read<S> read(
      SketchReader r, Decoder<S> decoder, java.util.function.UnaryOperator<S> copy)
      throws IOException {
    long sliceMillis = r.paramLong("sliceMillis");
    r.check(sliceMillis >= 1, "sliceMillis", sliceMillis, "positive");
    int n = r.paramInt("slots");
    r.check(n >= 2 && n <= MAX_SLOTS, "slots", n, "in [2, " + MAX_SLOTS + "]");
    long newest = r.paramLong("newest");
    S empty = readPart(r, decoder, "empty slice");
    Object[] slots = new Object[n];
    for (int i = 0; i < n; i++) {
      slots[i] = readPart(r, decoder, "slot " + i);
    }
    r.finish();
    return new Read<>(new SliceRing<>(slots, sliceMillis, newest, () -> copy.apply(empty)), empty);
  }

  private static <S> S readPart(SketchReader r, Decoder<S> decoder, String field)
      throws IOException {
    int len = r.readInt(field + " length");
    ByteArrayInputStream in = new ByteArrayInputStream(r.readBytes(len, field));
    S s = decoder.read(in);
    r.check(in.available() == 0, field, in.available() + " trailing bytes", "one structure");
    return s;
  }
}
