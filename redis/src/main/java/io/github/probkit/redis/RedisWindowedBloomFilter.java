package io.github.probkit.redis;

import io.github.probkit.filter.AgePartitionedBloomFilter;
import io.github.probkit.hash.DoubleHashing;
import io.github.probkit.io.SketchReader;
import io.github.probkit.io.SketchWriter;
import io.github.probkit.io.StructureType;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * A time-based sliding-window filter kept in Redis and shared by many writers: the library's {@link
 * AgePartitionedBloomFilter} ("was this key added in the last T?"), the same shape, hashing and
 * bytes, with each generation's slice in a Redis string of its own.
 *
 * <p>Keys: the metadata {@code {name}} (which also holds the field {@code generation}, the latest
 * generation any writer reached), and {@code k + l + grace} slots {@code {name}:0}, {@code
 * {name}:1}, ...: the slice of generation {@code G} (event time {@code floor(t /
 * generationMillis)}) is slot {@code G mod slots}, its bits followed by its adds (8 bytes,
 * big-endian) and the structure's id. Bit positions are the library's, from the slice's place
 * {@code G mod (k + l)} in the library's filter, so that export is a copy.
 *
 * <p>Rotation: every add passes its event time; the script that applies a batch moves {@code
 * generation} to the batch's latest generation, clearing the slot of each generation entered. It is
 * atomic and keyed by the generation number, so any number of writers rotate exactly once per
 * generation, whichever gets there first, and a writer whose clock is behind never rotates back.
 *
 * <p>Clock skew: a writer whose clock is ahead moves {@code generation} early, and with it the
 * clearing of the oldest slot. The {@code grace} extra slots ({@code ceil(maxSkew /
 * generationMillis)}, {@link RedisOptions#maxSkew}) keep the slices a reader whose clock is behind
 * still needs, and a query reads from its own time's window up to the latest generation. So, while
 * no time passed by any writer is more than {@code maxSkew} ahead of a query's time: a key added at
 * time {@code t} is reported present by every query at time {@code T} with {@code T - t < window},
 * a T before t (a key stamped by a faster clock) included. A query at a time behind the latest
 * generation reads up to {@code grace} more slices than the library, which raises its
 * false-positive rate slightly (docs/REDIS.md).
 *
 * <p>{@code EXPIRE}: each slot gets a TTL of {@code 2 (slots + grace)} generations, at least a day,
 * from the moment it is cleared for a generation (or the first event): a safety net that frees the
 * slices of a filter no one writes any more. Rotation, not the TTL, removes what leaves the window;
 * a slot freed by its TTL reads as empty and is recreated by the next add.
 *
 * <p>Only time-based windows are kept: a fleet has no common count of adds.
 *
 * <p>Thread safety: safe for use by many threads and processes at once.
 */
public final class RedisWindowedBloomFilter extends RedisStructure implements TimedAdds {
  private static final byte[] ADD = bytes("add");
  private static final byte[] QUERY = bytes("query");
  private static final byte[] READ = bytes("read");
  private static final byte[] PUT = bytes("put");
  private static final byte[] GENERATION = bytes("generation");

  /** Not known to this handle yet: ask Redis. */
  private static final long UNKNOWN = Long.MAX_VALUE;

  /** No event yet: the library's generation of a time-based filter that saw none. */
  private static final long NONE = Long.MIN_VALUE;

  private final int k;
  private final int l;
  private final int h;
  private final int slots;
  private final long generationKeys;
  private final long sliceBits;
  private final long generationMillis;
  private final long requestedWindow;
  private final double fpp;
  private final List<byte[]> scriptKeys;
  private final List<byte[]> head;

  /** The latest generation this handle saw, to compute a query's positions without a round trip. */
  private volatile long seen = UNKNOWN;

  RedisWindowedBloomFilter(RedisStore store, String name, Meta meta) {
    super(store, name, meta);
    ByteBuffer p = ByteBuffer.wrap(meta.params).order(ByteOrder.LITTLE_ENDIAN);
    this.k = p.getInt();
    this.l = p.getInt();
    this.h = k + l;
    this.generationKeys = p.getLong();
    this.sliceBits = p.getLong();
    this.generationMillis = p.getLong();
    this.requestedWindow = p.getLong();
    this.fpp = p.getDouble();
    this.slots = meta.shards;
    this.scriptKeys = metaAndShardKeys();
    this.head =
        List.of(
            bytes(meta.id),
            ADD,
            ascii(k),
            ascii(l),
            ascii(sliceBits / 8),
            ascii(ttlMillis(slots, l + k, generationMillis)));
  }

  // ---- creation

  /**
   * Creates a filter of the keys added in the last {@code window}, sized as the library's {@link
   * AgePartitionedBloomFilter#create(Duration, long, double)} for {@code expectedKeys} adds per
   * window at rate {@code fpp}, tolerating clocks {@link RedisOptions#maxSkew} apart.
   */
  public static RedisWindowedBloomFilter create(
      RedisStore store,
      String name,
      Duration window,
      long expectedKeys,
      double fpp,
      RedisOptions o) {
    Objects.requireNonNull(window, "window");
    long millis = window.toMillis();
    if (millis <= 0) {
      throw new IllegalArgumentException("window must be at least 1 ms, was " + window);
    }
    if (expectedKeys <= 0) {
      throw new IllegalArgumentException("expectedKeys must be positive, was " + expectedKeys);
    }
    // The library's sizing (AgePartitionedBloomFilter.create), so that both have the same shape.
    int[] kl = AgePartitionedBloomFilter.optimalSlices(fpp);
    long g = ceilDiv(expectedKeys, kl[1]);
    long d = ceilDiv(millis, kl[1]);
    long m = AgePartitionedBloomFilter.sliceBits(kl[0], g);
    return create(store, name, meta(kl[0], kl[1], g, m, d, millis, fpp, slotsFor(kl, d, o), o), o);
  }

  /**
   * Creates a filter of exactly {@code k + l} slices sized for {@code generationKeys} keys per
   * generation of {@code generationMillis}, as {@link AgePartitionedBloomFilter#withShape}.
   */
  public static RedisWindowedBloomFilter withShape(
      RedisStore store,
      String name,
      int k,
      int l,
      long generationKeys,
      long generationMillis,
      RedisOptions o) {
    if (generationMillis <= 0) {
      throw new IllegalArgumentException(
          "generationMillis must be positive (probkit-redis keeps time-based windows), was "
              + generationMillis);
    }
    checkShape(k, l);
    long m = AgePartitionedBloomFilter.sliceBits(k, generationKeys);
    Meta meta =
        meta(
            k,
            l,
            generationKeys,
            m,
            generationMillis,
            generationMillis * l,
            AgePartitionedBloomFilter.falsePositiveRate(k, l),
            slotsFor(new int[] {k, l}, generationMillis, o),
            o);
    return create(store, name, meta, o);
  }

  private static RedisWindowedBloomFilter create(
      RedisStore store, String name, Meta meta, RedisOptions o) {
    return new RedisWindowedBloomFilter(
        store, name, store.create(name, meta, o.openIfExists(), null));
  }

  /** Opens the window filter {@code name}. */
  public static RedisWindowedBloomFilter open(RedisStore store, String name) {
    return new RedisWindowedBloomFilter(
        store, name, open(store, name, StructureType.AGE_PARTITIONED_BLOOM_FILTER));
  }

  /** k + l slices, plus one per generation a clock may be ahead ({@code maxSkew}). */
  private static int slotsFor(int[] kl, long generationMillis, RedisOptions o) {
    long grace = ceilDiv(o.maxSkew().toMillis(), generationMillis);
    if (grace > kl[1]) {
      throw new IllegalArgumentException(
          String.format(
              java.util.Locale.ROOT,
              "maxSkew %s is more than the window's %d generations of %d ms: clocks that far apart"
                  + " do not share a window",
              o.maxSkew(),
              kl[1],
              generationMillis));
    }
    return (int) (kl[0] + kl[1] + grace);
  }

  private static void checkShape(int k, int l) {
    if (k < 1 || k > AgePartitionedBloomFilter.MAX_K) {
      throw new IllegalArgumentException(
          "k must be in [1, " + AgePartitionedBloomFilter.MAX_K + "], was " + k);
    }
    if (l < 1 || l > AgePartitionedBloomFilter.MAX_L) {
      throw new IllegalArgumentException(
          "l must be in [1, " + AgePartitionedBloomFilter.MAX_L + "], was " + l);
    }
  }

  /**
   * The metadata of a window filter of the library's parameters (k, l, generationKeys, sliceBits,
   * generationMillis, window, fpp, in the order of its file) kept in {@code slots} slots.
   */
  static Meta meta(
      int k, int l, long g, long m, long d, long window, double fpp, int slots, RedisOptions o) {
    checkShape(k, l);
    if (d <= 0) {
      throw new IllegalArgumentException(
          "a count-based window cannot be kept in Redis (a fleet has no common count of adds):"
              + " create it by time");
    }
    if (g < 1 || m < 64 || (m & 63) != 0 || m / 8 + 8 > RedisOptions.MAX_SHARD_BYTES) {
      throw new IllegalArgumentException(
          "slices of " + m + " bits for " + g + " keys per generation do not fit a Redis string");
    }
    if (slots < k + l || slots > k + 2 * l) {
      throw new IllegalArgumentException(
          "shards must be in [" + (k + l) + ", " + (k + 2 * l) + "], was " + slots);
    }
    if (window < 1 || !(fpp > 0 && fpp < 1)) {
      throw new IllegalArgumentException("params: window " + window + ", fpp " + fpp);
    }
    if (o.hash().needsMixing()) {
      throw new IllegalArgumentException(
          "an age-partitioned Bloom filter needs a uniform hash (xxh3), was " + o.hash());
    }
    if (o.layout() != Layout.SLOT) {
      throw new IllegalArgumentException(
          "a window filter's rotation touches all its slots, which must share a hash slot: use"
              + " Layout.SLOT, was "
              + o.layout());
    }
    byte[] params =
        ByteBuffer.allocate(48)
            .order(ByteOrder.LITTLE_ENDIAN)
            .putInt(k)
            .putInt(l)
            .putLong(g)
            .putLong(m)
            .putLong(d)
            .putLong(window)
            .putDouble(fpp)
            .array();
    long slotBytes = m / 8 + 8;
    return new Meta(
        StructureType.AGE_PARTITIONED_BLOOM_FILTER,
        o.hash(),
        Layout.SLOT,
        slots,
        slotBytes,
        slotBytes * slots,
        params,
        null,
        false);
  }

  /** A slot's TTL: twice the generations it may be read in, at least a day. */
  private static long ttlMillis(int slots, int h, long generationMillis) {
    long span = 2L * (slots + slots - h) * generationMillis;
    return Math.max(span, Duration.ofDays(1).toMillis());
  }

  /** The grace slots of a window filter's metadata (for Meta.describe). */
  static String shape(ByteBuffer p, int slots) {
    int k = p.getInt();
    int l = p.getInt();
    p.getLong();
    long m = p.getLong();
    long d = p.getLong();
    return String.format(
        java.util.Locale.ROOT,
        "window filter of %d + %d slices (+%d for clock skew) of %d bits, %d ms per generation",
        k,
        l,
        slots - k - l,
        m,
        d);
  }

  // ---- adding

  /**
   * Adds {@code keys.get(i)} as of event time {@code timesMillis[i]}, in order, as the library's
   * {@code add(key, time)} would: a time in a later generation rotates first; a late event within
   * the window goes to the slices it would have gone to in order; one later than the window is
   * ignored. Returns for each whether any of its bits changed (false when ignored). A batch lost
   * with its connection is not retried: its adds counts would be counted twice.
   */
  @Override
  public boolean[] addAll(List<?> keys, long[] timesMillis) {
    List<byte[]> ks = TimedAdds.keyBytes(keys, timesMillis);
    boolean[] out = new boolean[ks.size()];
    for (int from = 0; from < ks.size(); from += store.batchSize()) {
      int to = Math.min(ks.size(), from + store.batchSize());
      List<byte[]> args = new ArrayList<>(head.size() + (to - from) * 2);
      args.addAll(head);
      for (int i = from; i < to; i++) {
        byte[] key = ks.get(i);
        long h1 = meta.hash.hash64(key, 0, key.length);
        long h2 = meta.hash.secondHash(key, 0, key.length, h1);
        long e = Math.floorDiv(timesMillis[i], generationMillis);
        args.add(ascii(e));
        args.add(offsets(h1, h2, e, k));
      }
      List<?> reply =
          (List<?>) script("add", false, Scripts.WINDOW, scriptKeys, args, from, to - from);
      seen = (Long) reply.get(0);
      flags(reply.subList(1, reply.size()), out, from);
    }
    return out;
  }

  /**
   * The Redis bit offsets, in their slots, of the key's bit in the slices of generations {@code
   * newest}, {@code newest - 1}, ... ({@code n} of them), as 4 big-endian bytes each (window.lua).
   */
  private byte[] offsets(long h1, long h2, long newest, int n) {
    ByteBuffer b = ByteBuffer.allocate(4 * n);
    for (int a = 0; a < n; a++) {
      long s = Math.floorMod(newest - a, (long) h);
      b.putInt((int) redisBit(DoubleHashing.reduce(h1 + s * h2, sliceBits)));
    }
    return b.array();
  }

  // ---- querying

  /** Whether the key may have been added within the window ending at the system clock's time. */
  public boolean mightContain(Object key) {
    return mightContain(key, System.currentTimeMillis());
  }

  public boolean mightContain(Object key, long timeMillis) {
    return mightContainAll(List.of(key), timeMillis)[0];
  }

  /**
   * For each key, whether it may have been added within the window ending at {@code timeMillis}: a
   * run of k slices holding its bit, among the generations from this time's window up to the latest
   * generation any writer reached (the library reads those of the later of the two).
   */
  public boolean[] mightContainAll(Collection<?> keys, long timeMillis) {
    List<byte[]> ks = keyBytes(keys);
    boolean[] out = new boolean[ks.size()];
    long eq = Math.floorDiv(timeMillis, generationMillis);
    for (int from = 0; from < ks.size(); from += store.batchSize()) {
      int to = Math.min(ks.size(), from + store.batchSize());
      long[] h1 = new long[to - from];
      long[] h2 = new long[to - from];
      for (int i = from; i < to; i++) {
        byte[] key = ks.get(i);
        h1[i - from] = meta.hash.hash64(key, 0, key.length);
        h2[i - from] = meta.hash.secondHash(key, 0, key.length, h1[i - from]);
      }
      query(h1, h2, eq, out, from);
    }
    return out;
  }

  private void query(long[] h1, long[] h2, long eq, boolean[] out, int from) {
    boolean asked = seen == UNKNOWN;
    long e0 = asked ? readGeneration() : seen;
    for (int attempt = 0; ; attempt++) {
      // Generations (lo, e0]: the query's window, from the oldest slot not yet reused.
      long lo = e0 == NONE ? 0 : Math.max(eq - h + 1, e0 - slots + 1);
      long n = e0 == NONE ? 0 : e0 - lo + 1;
      if (n < k) {
        if (asked) {
          return; // nothing in a window that holds no k slices
        }
        e0 = readGeneration(); // this handle's generation may be stale
        asked = true;
        continue;
      }
      List<byte[]> args = new ArrayList<>(head.size() + 2 + h1.length);
      args.addAll(head);
      args.set(1, QUERY);
      args.add(ascii(e0));
      args.add(ascii(n));
      for (int i = 0; i < h1.length; i++) {
        args.add(offsets(h1[i], h2[i], e0, (int) n));
      }
      List<?> reply =
          (List<?>) script("query", true, Scripts.WINDOW, scriptKeys, args, from, h1.length);
      long now = reply.isEmpty() ? NONE : (Long) reply.get(0);
      seen = now;
      if (reply.size() > 1) {
        flags(reply.subList(1, reply.size()), out, from);
        return;
      }
      if (attempt >= 8) {
        throw new RedisStoreException(
            store.server(),
            "query of window filter '"
                + name
                + "' kept meeting rotations (generation "
                + now
                + ")");
      }
      e0 = now; // another writer rotated meanwhile
      asked = true;
    }
  }

  private long readGeneration() {
    String g = store.call(() -> store.jedis().hget(metaKey(), "generation"));
    long e = g == null ? NONE : Long.parseLong(g);
    seen = e;
    return e;
  }

  /**
   * The latest generation any writer reached ({@code floor(t / generationMillis)} of the latest
   * event time), or {@link Long#MIN_VALUE} before the first event.
   */
  public long generation() {
    return readGeneration();
  }

  // ---- export and import

  /**
   * Writes the filter as the library's file (type 48), byte for byte what {@link
   * AgePartitionedBloomFilter#writeTo} writes for the same keys and times: the slices of the latest
   * generation's window, read in one atomic script.
   */
  @Override
  public void exportTo(OutputStream out) throws IOException {
    List<?> reply =
        (List<?>) store.call(() -> store.jedis().eval(Scripts.WINDOW, scriptKeys, readArgs()));
    long e = reply.get(0) == null ? NONE : Long.parseLong(str(reply.get(0)));
    int sliceBytes = (int) (sliceBits / 8);
    byte[][] slice = new byte[h][];
    long[] adds = new long[h];
    for (int s = 0; s < h && e != NONE; s++) {
      long gen = e - Math.floorMod(e - s, (long) h);
      int slot = (int) Math.floorMod(gen, (long) slots);
      byte[] b = (byte[]) reply.get(1 + slot);
      if (b == null) {
        continue; // freed by its TTL: empty
      }
      if (b.length != meta.shardBytes + ID_BYTES) {
        checkLength(shardKeys[slot], b, meta.shardBytes + ID_BYTES);
      }
      slice[s] = b;
      adds[s] = ByteBuffer.wrap(b, sliceBytes, 8).getLong();
    }
    long payload = 8L + 8L * h + (long) h * sliceBytes;
    SketchWriter w = SketchWriter.begin(out, meta.type, meta.hash, meta.params, payload);
    w.writeLong(e);
    w.writeLongs(adds, 0, h);
    byte[] zeros = null;
    for (int s = 0; s < h; s++) {
      if (slice[s] == null) {
        zeros = zeros == null ? new byte[sliceBytes] : zeros;
        w.writeBytes(zeros, 0, sliceBytes);
      } else {
        w.writeBytes(slice[s], 0, sliceBytes);
      }
    }
    w.finish();
  }

  private List<byte[]> readArgs() {
    List<byte[]> args = new ArrayList<>(head);
    args.set(1, READ);
    return args;
  }

  private static String str(Object o) {
    return o instanceof byte[] ? new String((byte[]) o, StandardCharsets.US_ASCII) : o.toString();
  }

  /** The library's filter of these bytes (one atomic read). */
  public AgePartitionedBloomFilter toFilter() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try {
      exportTo(bytes);
      return AgePartitionedBloomFilter.readFrom(new ByteArrayInputStream(bytes.toByteArray()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Creates {@code name} from the library's time-based filter {@code f}: its slices go to the slots
   * of their generations, and readers see it only once every byte is in Redis.
   */
  static RedisWindowedBloomFilter importFrom(
      RedisStore store, String name, AgePartitionedBloomFilter f, RedisOptions o)
      throws IOException {
    if (!f.timeBased()) {
      throw new IllegalArgumentException(
          "a count-based window cannot be kept in Redis (a fleet has no common count of adds):"
              + " create it by time");
    }
    ByteArrayOutputStream file = new ByteArrayOutputStream();
    f.writeTo(file);
    SketchReader r = SketchReader.open(new ByteArrayInputStream(file.toByteArray()));
    int k = r.paramInt("k");
    int l = r.paramInt("l");
    long g = r.paramLong("generationKeys");
    long m = r.paramLong("sliceBits");
    long d = r.paramLong("generationMillis");
    long window = r.paramLong("window");
    double fpp = r.paramDouble("fpp");
    RedisOptions ho = o.hash(f.hashStrategy());
    Meta wanted = meta(k, l, g, m, d, window, fpp, slotsFor(new int[] {k, l}, d, ho), ho);
    long e = r.readLong("generation");
    long[] adds = r.readLongs(k + l, "adds");
    byte[][] slices = new byte[k + l][];
    for (int s = 0; s < slices.length; s++) {
      slices[s] = r.readBytes((int) (m / 8), "slices");
    }
    r.finish();
    Meta created =
        store.create(
            name,
            wanted,
            false,
            mt -> {
              RedisWindowedBloomFilter w = new RedisWindowedBloomFilter(store, name, mt);
              if (e != NONE) {
                w.load(e, adds, slices);
              }
            });
    return new RedisWindowedBloomFilter(store, name, created);
  }

  /** Writes the library's slices into the slots of their generations, then the generation. */
  private void load(long e, long[] adds, byte[][] slices) {
    for (int s = 0; s < h; s++) {
      long gen = e - Math.floorMod(e - s, (long) h);
      byte[] b = Arrays.copyOf(slices[s], slices[s].length + 8);
      ByteBuffer.wrap(b, slices[s].length, 8).putLong(adds[s]);
      List<byte[]> args = new ArrayList<>(head);
      args.set(1, PUT);
      args.add(ascii(Math.floorMod(gen, (long) slots)));
      args.add(b);
      store.call(() -> store.jedis().eval(Scripts.WINDOW, scriptKeys, args));
    }
    List<byte[]> args = new ArrayList<>(head);
    args.set(1, GENERATION);
    args.add(ascii(e));
    store.call(() -> store.jedis().eval(Scripts.WINDOW, scriptKeys, args));
  }

  // ---- introspection

  /** Slices a key is written to. */
  public int hashCount() {
    return k;
  }

  /** Generations a key outlives its insertion by (the window is l generations). */
  public int survivingGenerations() {
    return l;
  }

  /** Slots in Redis: the library's k + l slices and the grace slots for clock skew. */
  public int slotCount() {
    return slots;
  }

  public long generationMillis() {
    return generationMillis;
  }

  public long generationKeys() {
    return generationKeys;
  }

  public long sliceBits() {
    return sliceBits;
  }

  /** The guaranteed window in ms: l generations, at least what was asked. */
  public long window() {
    return l * generationMillis;
  }

  /** The window asked of {@link #create}, in ms. */
  public long requestedWindow() {
    return requestedWindow;
  }

  /** After the window, how long until an expired key is certainly forgotten: k generations. */
  public long slack() {
    return k * generationMillis;
  }

  /** The clock skew tolerated: the grace slots' span, in ms. */
  public long maxSkewMillis() {
    return (long) (slots - h) * generationMillis;
  }

  public double targetFpp() {
    return fpp;
  }
}
