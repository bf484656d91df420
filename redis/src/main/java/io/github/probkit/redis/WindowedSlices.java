package io.github.probkit.redis;

import io.github.probkit.io.SketchReader;
import io.github.probkit.io.SketchWriter;
import io.github.probkit.io.StructureType;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * What the windowed sketches kept in Redis share ({@link RedisWindowedCardinality}, {@link
 * RedisWindowedCountMin}, {@link RedisWindowedHeavyHitters}): the library's ring of one sketch per
 * slice of time (types 49, 50 and 52), with each slice's sketch in a Redis string of its own (and,
 * for the heavy hitters, further keys named after it), rotated by rotation.lua.
 *
 * <p>Keys: the metadata {@code {name}} (its field {@code generation} is the newest slice any writer
 * reached) and {@code R} slots {@code {name}:0}, {@code {name}:1}, ...: slice {@code s} ({@code
 * floor(t / sliceMillis)}) is in slot {@code s mod R}, its sketch's payload followed by the
 * structure's id. {@code R} is the library's ring of {@code S = ceil(maxWindow / slice) + 1} slots
 * plus {@code grace = ceil(maxSkew / slice)} ({@link RedisOptions#maxSkew}).
 *
 * <p>Rotation: each add batch passes its events' times; the script that applies it moves {@code
 * generation} to the newest slice among them, clearing the slot of each slice entered, atomically
 * and keyed by the slice number: any number of writers rotate exactly once per slice, and a writer
 * whose clock is behind never rotates back. An event is kept while its slice is among the R slots.
 *
 * <p>Clock skew: a writer whose clock is ahead by up to {@code maxSkew} moves {@code generation} up
 * to {@code grace} slices early; the grace slots keep the slices that a reader, or a writer, whose
 * clock is behind still needs. So while no time passed by any writer is more than {@code maxSkew}
 * ahead of a query's time, a query of the last T (T at most the window) ending at its time reads
 * every slice of that window whole, events of writers whose clocks are behind included.
 *
 * <p>Export is the library's file of the newest S slices (the grace slots are not in it): byte for
 * byte what the library writes for the same events, when its slices are like Redis's (dense, no
 * martingale estimate; see the subclasses).
 *
 * <p>{@code EXPIRE}: each slot's TTL is twice the R slices it may be read in, at least a day, from
 * the moment it is cleared (or the first event): a safety net that frees the slots of a structure
 * no one writes any more; a slot freed by its TTL reads as empty.
 */
abstract class WindowedSlices extends RedisStructure {
  static final byte[] WINDOW = bytes("window");
  static final byte[] ESTIMATE = bytes("estimate");
  private static final byte[] ALL = bytes("all");
  private static final byte[] PUT = bytes("put");
  private static final byte[] GENERATION = bytes("generation");

  /** Before the first event: the library's newest slice of a ring that saw none. */
  static final long NONE = Long.MIN_VALUE;

  /** The most slots: the library's {@code SliceRing.MAX_SLOTS}. */
  static final int MAX_SLOTS = 1 << 16;

  /** The bytes of the parameters every windowed sketch's metadata starts with. */
  static final int PREFIX = 12;

  final long sliceMillis;

  /** The library's ring: S slots. */
  final int ringSlots;

  /** The slots in Redis: R = S + grace. */
  final int slots;

  final List<byte[]> scriptKeys;
  private final List<byte[]> head;

  WindowedSlices(RedisStore store, String name, Meta meta) {
    this(store, name, meta, List.of());
  }

  /**
   * {@code suffixes}: a slice's further keys, each slot's key followed by one of them (the script's
   * KEYS after the slots, R per suffix, as rotation.lua expects).
   */
  WindowedSlices(RedisStore store, String name, Meta meta, List<String> suffixes) {
    super(store, name, meta);
    ByteBuffer p = ByteBuffer.wrap(meta.params).order(ByteOrder.LITTLE_ENDIAN);
    this.sliceMillis = p.getLong();
    this.ringSlots = p.getInt();
    this.slots = meta.shards;
    List<byte[]> ks = new ArrayList<>(metaAndShardKeys());
    for (String suffix : suffixes) {
      for (int i = 0; i < slots; i++) {
        ks.add(bytes(meta.layout.shardKey(name, i) + suffix));
      }
    }
    this.scriptKeys = List.copyOf(ks);
    this.head =
        List.of(bytes(meta.id), ALL, ascii(meta.shardBytes), ascii(ttlMillis(slots, sliceMillis)));
  }

  // ---- shape

  /**
   * {S, R}: the library's slots for windows up to {@code maxWindow} in slices of {@code slice}
   * ({@code SliceRing.slotsFor}), and those plus the grace slots for {@code o.maxSkew()}.
   */
  static int[] slotsFor(Duration maxWindow, Duration slice, RedisOptions o) {
    long w = maxWindow.toMillis();
    long d = slice.toMillis();
    if (d <= 0) {
      throw new IllegalArgumentException("slice must be at least 1 ms, was " + slice);
    }
    if (w < d) {
      throw new IllegalArgumentException(
          "the window (" + maxWindow + ") must be at least one slice (" + slice + ")");
    }
    long s = ceilDiv(w, d) + 1;
    long grace = ceilDiv(o.maxSkew().toMillis(), d);
    if (grace >= s) {
      throw new IllegalArgumentException(
          String.format(
              Locale.ROOT,
              "maxSkew %s is not less than the window's %d slices of %d ms: clocks that far apart"
                  + " do not share a window",
              o.maxSkew(),
              s,
              d));
    }
    if (s + grace > MAX_SLOTS) {
      throw new IllegalArgumentException(
          (s + grace) + " slices of " + d + " ms, more than " + MAX_SLOTS + ": use longer slices");
    }
    return new int[] {(int) s, (int) (s + grace)};
  }

  /** The common start of the parameters: slice length, the library's slots. */
  static ByteBuffer params(int size, long sliceMillis, int ringSlots) {
    return ByteBuffer.allocate(PREFIX + size)
        .order(ByteOrder.LITTLE_ENDIAN)
        .putLong(sliceMillis)
        .putInt(ringSlots);
  }

  /** Checks the common parameters and builds the metadata of R slots of {@code slotBytes}. */
  static Meta meta(
      StructureType type, ByteBuffer params, long slotBytes, int slots, RedisOptions o) {
    ByteBuffer p = params.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    long sliceMillis = p.getLong(0);
    int ringSlots = p.getInt(8);
    if (sliceMillis < 1 || ringSlots < 2 || ringSlots > MAX_SLOTS) {
      throw new IllegalArgumentException(
          "params: slice " + sliceMillis + " ms, " + ringSlots + " slots");
    }
    if (slots < ringSlots || slots >= 2 * ringSlots || slots > MAX_SLOTS) {
      throw new IllegalArgumentException(
          "shards must be in [" + ringSlots + ", " + (2 * ringSlots - 1) + "], was " + slots);
    }
    if (slotBytes > RedisOptions.MAX_SHARD_BYTES) {
      throw new IllegalArgumentException(
          "a slice of " + slotBytes + " bytes exceeds a Redis string");
    }
    if (o.layout() != Layout.SLOT) {
      throw new IllegalArgumentException(
          "a windowed sketch's rotation touches all its slots, which must share a hash slot: use"
              + " Layout.SLOT, was "
              + o.layout());
    }
    return new Meta(
        type,
        o.hash(),
        Layout.SLOT,
        slots,
        slotBytes,
        slotBytes * slots,
        params.array(),
        null,
        false);
  }

  /** A slot's TTL: twice the slices it may be read in, at least a day. */
  private static long ttlMillis(int slots, long sliceMillis) {
    return Math.max(2L * slots * sliceMillis, Duration.ofDays(1).toMillis());
  }

  /** For Meta.describe: the slices and grace slots. */
  static String shape(ByteBuffer p, int slots, String sketch) {
    long d = p.getLong();
    int s = p.getInt();
    return String.format(
        Locale.ROOT, "%s in %d slices (+%d for clock skew) of %d ms", sketch, s, slots - s, d);
  }

  // ---- scripts

  final long slice(long timeMillis) {
    return Math.floorDiv(timeMillis, sliceMillis);
  }

  /** The script's arguments for {@code op}, before op's own. */
  final List<byte[]> args(byte[] op, int more) {
    List<byte[]> args = new ArrayList<>(head.size() + more);
    args.addAll(head);
    args.set(1, op);
    return args;
  }

  /** Runs an add batch of {@code n} items that follow {@code before}; returns its reply. */
  final List<?> add(List<byte[]> args, int before, int n) {
    return (List<?>) script("add", false, script(), scriptKeys, args, before, n);
  }

  /**
   * The slices {from, to} of the window of {@code last} ending at {@code now}, as the library's
   * ring computes them: from the slice holding {@code now - last} to the one holding now.
   */
  final long[] window(Duration last, long now) {
    long ms = last.toMillis();
    if (ms < 0) {
      throw new IllegalArgumentException("window must not be negative, was " + ms + " ms");
    }
    long from = slice(now - ms);
    long to = slice(now);
    if (to - from >= ringSlots) {
      throw new IllegalArgumentException(
          String.format(
              Locale.ROOT,
              "a window of %d ms needs %d slices of %d ms, the ring keeps %d",
              ms,
              to - from + 1,
              sliceMillis,
              ringSlots));
    }
    return new long[] {from, to};
  }

  /**
   * The payloads of the slices of {@code span} that the slots hold (null for a slot freed by its
   * TTL), read in one script.
   */
  final List<byte[]> slicesOf(long[] span) {
    List<byte[]> args = args(WINDOW, 2);
    args.add(ascii(span[0]));
    args.add(ascii(span[1]));
    List<?> reply =
        (List<?>) store.read(() -> store.jedis().eval(Scripts.SLICES, scriptKeys, args));
    List<byte[]> out = new ArrayList<>(reply.size());
    if (reply.size() > 1) {
      long newest = Long.parseLong(new String((byte[]) reply.get(0), StandardCharsets.US_ASCII));
      long first = Math.max(span[0], newest - slots + 1); // as slices.lua's span
      for (int i = 1; i < reply.size(); i++) {
        out.add(payload(reply.get(i), (int) Math.floorMod(first + i - 1, (long) slots)));
      }
    }
    return out;
  }

  /** A slot's string without its id, checked; null for a missing slot. */
  final byte[] payload(Object slot, int index) {
    if (!(slot instanceof byte[])) {
      return null;
    }
    byte[] b = (byte[]) slot;
    if (b.length != meta.shardBytes + ID_BYTES) {
      checkLength(shardKeys[index], b, meta.shardBytes + ID_BYTES);
    }
    return Arrays.copyOf(b, (int) meta.shardBytes);
  }

  /** The newest slice any writer reached, or {@link Long#MIN_VALUE} before the first event. */
  public final long newestSlice() {
    String g = store.read(() -> store.jedis().hget(metaKey(), "generation"));
    return g == null ? NONE : Long.parseLong(g);
  }

  // ---- export and import

  /** The library's file of one slice's sketch of these payload bytes (null: empty). */
  abstract byte[] sliceFile(byte[] payload) throws IOException;

  /** The payload bytes of one slice's sketch read from its library file. */
  abstract byte[] slicePayload(byte[] file) throws IOException;

  /** The library's structure type of the whole ring. */
  abstract StructureType ringType();

  /**
   * Writes the ring as the library's file (docs/FORMAT.md, "Windowed sketches"): the newest S
   * slices, read in one script, each slot of the library's ring the slice it would hold.
   */
  @Override
  public void exportTo(OutputStream out) throws IOException {
    List<?> reply =
        (List<?>) store.read(() -> store.jedis().eval(script(), scriptKeys, args(ALL, 0)));
    long newest =
        reply.get(0) == null
            ? NONE
            : Long.parseLong(new String((byte[]) reply.get(0), StandardCharsets.US_ASCII));
    byte[][] parts = new byte[ringSlots + 1][];
    parts[0] = sliceFile(null);
    long payload = 4L + parts[0].length;
    for (int i = 0; i < ringSlots; i++) {
      byte[] slice = null;
      if (newest != NONE) {
        // The slice in (newest - S, newest] that the library keeps in its slot i.
        long s = newest - Math.floorMod(newest - i, (long) ringSlots);
        int slot = (int) Math.floorMod(s, (long) slots);
        slice = slotPayload(reply, slot);
      }
      parts[i + 1] = sliceFile(slice);
      payload += 4L + parts[i + 1].length;
    }
    ByteBuffer p = ByteBuffer.allocate(20).order(ByteOrder.LITTLE_ENDIAN);
    p.putLong(sliceMillis).putInt(ringSlots).putLong(newest);
    SketchWriter w = SketchWriter.begin(out, ringType(), meta.hash, p.array(), payload);
    for (byte[] part : parts) {
      w.writeInt(part.length);
      w.writeBytes(part, 0, part.length);
    }
    w.finish();
  }

  /** The export's bytes. */
  final byte[] exportBytes() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      exportTo(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  /** Reads a library's structure from its bytes. */
  interface LibraryReader<T> {
    T readFrom(InputStream in) throws IOException;
  }

  /** The library's ring of these bytes, read by {@code reader} (one atomic read). */
  final <T> T toLibrary(LibraryReader<T> reader) {
    try {
      return reader.readFrom(new ByteArrayInputStream(exportBytes()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A subclass's constructor. */
  interface Opener<S extends WindowedSlices> {
    S open(RedisStore store, String name, Meta meta);
  }

  /**
   * The slots in Redis of a library's ring of {@code sliceCount} slices of {@code sliceMillis}: its
   * longest window, the slices but one, and the grace slots {@code o} asks for.
   */
  static int slotsOfRing(long sliceMillis, int sliceCount, RedisOptions o) {
    return slotsFor(
        Duration.ofMillis(sliceMillis * (sliceCount - 1)), Duration.ofMillis(sliceMillis), o)[1];
  }

  /**
   * Creates {@code name} as {@code wanted}, its slots filled from {@code ring} before readers see
   * it (an import).
   */
  static <S extends WindowedSlices> S create(
      RedisStore store, String name, Meta wanted, Ring ring, Opener<S> open) {
    Meta created =
        store.create(
            name,
            wanted,
            false,
            m -> {
              try {
                open.open(store, name, m).load(ring);
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            });
    return open.open(store, name, created);
  }

  /**
   * A library ring file read: its slice length, slots, newest slice and each slot's sketch file
   * (the file was validated whole by the library's reader first).
   */
  record Ring(long sliceMillis, int slots, long newest, byte[][] slices) {
    static Ring read(byte[] file, StructureType type) throws IOException {
      SketchReader r = SketchReader.open(new ByteArrayInputStream(file), type);
      long d = r.paramLong("sliceMillis");
      int n = r.paramInt("slots");
      long newest = r.paramLong("newest");
      r.readBytes(r.readInt("empty slice length"), "empty slice");
      byte[][] slices = new byte[n][];
      for (int i = 0; i < n; i++) {
        slices[i] = r.readBytes(r.readInt("slot length"), "slot " + i);
      }
      r.finish();
      return new Ring(d, n, newest, slices);
    }
  }

  /** Writes the library's slices into the slots of their slices, then the newest slice. */
  final void load(Ring ring) throws IOException {
    if (ring.newest == NONE) {
      return;
    }
    for (int i = 0; i < ringSlots; i++) {
      long s = ring.newest - Math.floorMod(ring.newest - i, (long) ringSlots);
      List<byte[]> args = args(PUT, 2);
      args.add(ascii(Math.floorMod(s, (long) slots)));
      putArgs(args, ring.slices[i]);
      store.call(() -> store.jedis().eval(script(), scriptKeys, args));
    }
    List<byte[]> args = args(GENERATION, 1);
    args.add(ascii(ring.newest));
    store.call(() -> store.jedis().eval(script(), scriptKeys, args));
  }

  /** The script of the slots (rotation.lua and the structure's own). */
  byte[] script() {
    return Scripts.SLICES;
  }

  /** Slot {@code slot}'s payload in the reply of 'all' (null: empty). */
  byte[] slotPayload(List<?> all, int slot) {
    return payload(all.get(1 + slot), slot);
  }

  /**
   * The arguments of 'put' after the slot: those of the slice whose library file is {@code file}.
   */
  void putArgs(List<byte[]> args, byte[] file) throws IOException {
    args.add(slicePayload(file));
  }

  // ---- introspection

  public final long sliceMillis() {
    return sliceMillis;
  }

  /** The library's ring of slices: the longest window is {@code (sliceCount() - 1)} slices. */
  public final int sliceCount() {
    return ringSlots;
  }

  /** Slots in Redis: the library's slices and the grace slots for clock skew. */
  public final int slotCount() {
    return slots;
  }

  /** The clock skew tolerated: the grace slots' span, in ms. */
  public final long maxSkewMillis() {
    return (long) (slots - ringSlots) * sliceMillis;
  }
}
