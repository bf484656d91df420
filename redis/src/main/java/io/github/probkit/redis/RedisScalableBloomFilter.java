package io.github.probkit.redis;

import io.github.probkit.filter.BloomFilter;
import io.github.probkit.filter.ScalableBloomFilter;
import io.github.probkit.filter.ScalableBloomFilter.LayerInfo;
import io.github.probkit.hash.HashStrategy;
import io.github.probkit.io.SketchWriter;
import io.github.probkit.io.StructureType;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import redis.clients.jedis.Response;

/**
 * A scalable Bloom filter kept in Redis: the layers and key counts of {@link ScalableBloomFilter}
 * with the same parameters and hashing, the same bytes. Layer {@code i} is the string {@code
 * {name}:i}; the counts (u64 little-endian per layer, the start of the file's payload) are {@code
 * {name}:counts}.
 *
 * <p>Adds run in a Lua script, one call per batch, each key atomic with the library's rule: a key
 * some layer has is not added again; otherwise it goes into the newest layer, after a new layer is
 * created (sized once, in the same script) when the newest is full. All keys share a hash slot. A
 * retried add finds the keys already present, so adds are retried after a lost connection. Each
 * layer is one Redis string, at most 512 MiB.
 *
 * <p>Thread safety: safe for use by many threads and processes at once.
 */
public final class RedisScalableBloomFilter extends RedisStructure {
  private static final Arg U1 = new Arg("u1");

  private final long initialCapacity;
  private final double fpp;
  private final int growth;
  private final double tightening;
  private final byte[] countsKey;

  /** Layer shapes computed so far (a layer that cannot exist is null). */
  private final List<LayerInfo> shapes = new ArrayList<>();

  RedisScalableBloomFilter(RedisStore store, String name, Meta meta) {
    super(store, name, meta);
    ByteBuffer p = ByteBuffer.wrap(meta.params).order(ByteOrder.LITTLE_ENDIAN);
    this.initialCapacity = p.getLong();
    this.fpp = p.getDouble();
    this.growth = p.getInt();
    this.tightening = p.getDouble();
    this.countsKey = bytes(countsKey(name));
  }

  static String countsKey(String name) {
    return "{" + name + "}:counts";
  }

  /**
   * Creates a filter as {@link ScalableBloomFilter#create(long, double, int, double, HashStrategy)}
   * would: a first layer of at least {@link ScalableBloomFilter#MIN_INITIAL_CAPACITY} keys, sized
   * for {@link ScalableBloomFilter#SIZING_MARGIN} times {@code fpp}.
   */
  public static RedisScalableBloomFilter create(
      RedisStore store,
      String name,
      long initialCapacity,
      double fpp,
      int growth,
      double tightening,
      RedisOptions options) {
    ScalableBloomFilter.create(1, fpp, growth, tightening, options.hash()); // the library's checks
    Meta meta =
        store.create(
            name,
            meta(
                Math.max(ScalableBloomFilter.MIN_INITIAL_CAPACITY, initialCapacity),
                ScalableBloomFilter.SIZING_MARGIN * fpp,
                growth,
                tightening,
                options),
            options.openIfExists(),
            null);
    return new RedisScalableBloomFilter(store, name, meta);
  }

  static Meta meta(
      long initialCapacity, double fpp, int growth, double tightening, RedisOptions o) {
    if (o.layout() != Layout.SLOT) {
      throw new IllegalArgumentException(
          "a scalable filter grows its layers in a script over all its "
              + "keys, which must share a hash slot: use Layout.SLOT, was "
              + o.layout());
    }
    LayerInfo first = ScalableBloomFilter.layerShape(initialCapacity, fpp, growth, tightening, 0);
    long bytes = layerBytes(first);
    if (bytes > RedisOptions.MAX_SHARD_BYTES) {
      throw new IllegalArgumentException(
          "the first layer would need "
              + bytes
              + " bytes, more than a Redis string ("
              + RedisOptions.MAX_SHARD_BYTES
              + ")");
    }
    ByteBuffer p = ByteBuffer.allocate(32).order(ByteOrder.LITTLE_ENDIAN);
    p.putLong(initialCapacity).putDouble(fpp).putInt(growth).putDouble(tightening).putInt(1);
    return new Meta(
        StructureType.SCALABLE_BLOOM_FILTER,
        o.hash(),
        Layout.SLOT,
        ScalableBloomFilter.MAX_LAYERS,
        bytes,
        bytes,
        p.array(),
        null,
        false);
  }

  static long layerBytes(LayerInfo l) {
    return 8 * ceilDiv(l.bits(), 64);
  }

  public static RedisScalableBloomFilter open(RedisStore store, String name) {
    return new RedisScalableBloomFilter(
        store, name, open(store, name, StructureType.SCALABLE_BLOOM_FILTER));
  }

  /** The shape of layer {@code i}, or null when it cannot exist or exceeds a Redis string. */
  private synchronized LayerInfo shape(int i) {
    while (shapes.size() <= i) {
      LayerInfo l;
      try {
        l = ScalableBloomFilter.layerShape(initialCapacity, fpp, growth, tightening, shapes.size());
        l = layerBytes(l) <= RedisOptions.MAX_SHARD_BYTES ? l : null;
      } catch (IllegalArgumentException e) {
        l = null;
      }
      shapes.add(l);
    }
    return shapes.get(i);
  }

  // ---- keys

  public boolean add(Object key) {
    return addAll(List.of(key))[0];
  }

  /**
   * Adds the keys; returns for each whether it was added ({@code false}: probably present already).
   */
  public boolean[] addAll(Collection<?> keys) {
    List<byte[]> ks = keyBytes(keys);
    boolean[] out = new boolean[ks.size()];
    List<byte[]> redisKeys = new ArrayList<>();
    redisKeys.add(countsKey);
    redisKeys.addAll(List.of(shardKeys));
    int layers = layerCount();
    int from = 0;
    while (from < ks.size()) {
      int to = Math.min(ks.size(), from + store.batchSize());
      // Positions for the layers there are and the next one, which a full newest layer needs.
      int given = Math.min(layers + 1, ScalableBloomFilter.MAX_LAYERS);
      List<byte[]> args = new ArrayList<>();
      args.add(ascii(given));
      for (int l = 0; l < given; l++) {
        LayerInfo s = shape(l);
        args.add(ascii(s == null ? -1 : s.capacity()));
        args.add(ascii(s == null ? 0 : layerBytes(s)));
        args.add(ascii(s == null ? 0 : s.hashes()));
      }
      long[] pos = new long[BloomFilter.MAX_HASHES];
      for (int i = from; i < to; i++) {
        byte[] k = ks.get(i);
        for (int l = 0; l < given; l++) {
          LayerInfo s = shape(l);
          if (s != null) {
            BloomFilter.positions(meta.hash, s.bits(), s.hashes(), k, 0, k.length, pos);
            for (int j = 0; j < s.hashes(); j++) {
              args.add(ascii(pos[j] ^ 7));
            }
          }
        }
      }
      int before = layers;
      Batch b =
          scriptBatch(
              "add", true, Scripts.SCALABLE, redisKeys, guard(args, 2, 0, 1), from, to - from);
      List<?> reply = (List<?>) b.of(0).get(0).get();
      List<?> flags = (List<?>) reply.get(0);
      layers = (int) (long) (Long) reply.get(1);
      flags(flags, out, from);
      if (b.retried) {
        // The attempt whose reply was lost may have added them: "present" would be a guess.
        java.util.Arrays.fill(out, from, from + flags.size(), true);
      }
      if (flags.isEmpty() && layers == before) {
        LayerInfo next = shape(layers);
        throw new RedisStoreException(
            store.server(),
            "cannot grow scalable filter '"
                + name
                + "' past "
                + layers
                + " layers: layer "
                + layers
                + (next == null
                    ? " cannot exist, or would exceed a Redis string (512 MiB)"
                    : " was refused"),
            0,
            null);
      }
      from += flags.size();
    }
    return out;
  }

  public boolean mightContain(Object key) {
    return mightContainAll(List.of(key))[0];
  }

  public boolean[] mightContainAll(Collection<?> keys) {
    List<byte[]> ks = keyBytes(keys);
    boolean[] out = new boolean[ks.size()];
    long[] pos = new long[BloomFilter.MAX_HASHES];
    int[] shard = new int[BloomFilter.MAX_HASHES];
    int from = 0;
    int layers = layerCount();
    while (from < ks.size()) {
      int to = Math.min(ks.size(), from + store.batchSize());
      int first = from;
      int known = layers;
      Response<?>[] strlen = new Response<?>[1];
      Batch b =
          store.run(
              this,
              "query",
              true,
              from,
              to - from,
              bt -> {
                for (int i = first; i < to; i++) {
                  byte[] k = ks.get(i);
                  for (int l = 0; l < known; l++) {
                    LayerInfo s = shape(l);
                    BloomFilter.positions(meta.hash, s.bits(), s.hashes(), k, 0, k.length, pos);
                    for (int j = 0; j < s.hashes(); j++) {
                      pos[j] ^= 7;
                      shard[j] = l;
                    }
                    queueBitfield(bt, s.hashes(), shard, pos, GET, U1, null);
                  }
                  bt.endKey();
                }
                strlen[0] = bt.pipe.strlen(countsKey);
              });
      layers = (int) ((Long) strlen[0].get() / 8);
      if (layers != known) {
        continue; // a layer was added meanwhile: ask again with it
      }
      for (int i = from; i < to; i++) {
        List<Response<?>> rs = b.of(i - from);
        boolean any = false;
        for (Response<?> r : rs) {
          boolean all = true;
          for (Object v : (List<?>) r.get()) {
            all &= ((Long) v) == 1;
          }
          any |= all;
        }
        out[i] = any;
      }
      from = to;
    }
    return out;
  }

  @Override
  long payloadBytes(int layer) {
    return layerBytes(shape(layer));
  }

  /** The number of layers now. */
  public int layerCount() {
    return (int) (store.read(() -> store.jedis().strlen(countsKey)) / 8);
  }

  /**
   * Writes the filter as a probkit file, from one consistent read of its counts and layers (in
   * memory).
   */
  @Override
  public void exportTo(OutputStream out) throws IOException {
    List<byte[]> keys = new ArrayList<>();
    keys.add(countsKey);
    keys.addAll(List.of(shardKeys));
    List<byte[]> args = guard(new ArrayList<>(), 2, 0, 1);
    List<?> got = (List<?>) store.read(() -> store.jedis().eval(Scripts.SNAPSHOT, keys, args));
    byte[] counts = got.get(0) instanceof byte[] ? (byte[]) got.get(0) : null;
    checkLength(
        countsKey, counts, counts == null ? 8 : Math.max(8, counts.length - counts.length % 8));
    int layers = counts.length / 8;
    long payload = counts.length;
    for (int l = 0; l < layers; l++) {
      byte[] layer = got.get(l + 1) instanceof byte[] ? (byte[]) got.get(l + 1) : null;
      checkLength(shardKeys[l], layer, layerBytes(shape(l)) + ID_BYTES);
      payload += layerBytes(shape(l));
    }
    ByteBuffer p = ByteBuffer.wrap(meta.params.clone()).order(ByteOrder.LITTLE_ENDIAN);
    p.putInt(28, layers);
    SketchWriter w = SketchWriter.begin(out, meta.type, meta.hash, p.array(), payload);
    w.writeBytes(counts, 0, counts.length);
    for (int l = 0; l < layers; l++) {
      w.writeBytes((byte[]) got.get(l + 1), 0, (int) layerBytes(shape(l)));
    }
    w.finish();
  }
}
