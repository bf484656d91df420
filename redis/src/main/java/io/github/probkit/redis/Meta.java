package io.github.probkit.redis;

import io.github.probkit.hash.HashAlgorithm;
import io.github.probkit.hash.HashStrategy;
import io.github.probkit.io.StructureType;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A structure's metadata, kept in the Redis hash {@code {name}} beside its data:
 *
 * <pre>
 *   probkit     1                     the layout version of these fields
 *   type        bloom | blocked | counting | count-min | hyperloglog | ultraloglog | scalable |
 *               window
 *   state       creating | ready      readers refuse a structure that is not ready
 *   id          16 hex digits         random per creation: a batch notices a delete or re-create
 *   hash, seed  xxh3 | fnv1a, signed decimal
 *   layout      slot | spread
 *   shards      number of data strings (scalable: the most layers, 64)
 *   shardBytes  bytes of each but the last
 *   payload     bytes of the arrays (scalable: of the first layer)
 *   params      hex of the probkit file's parameter bytes (docs/FORMAT.md); the fields that change
 *               (count-min total, scalable layer count) are kept elsewhere and written here as 0 / 1
 *   generation  window filters only, once an event came: the latest generation any writer reached
 * </pre>
 */
final class Meta {
  static final String VERSION = "1";

  final StructureType type;
  final HashStrategy hash;
  final Layout layout;
  final int shards;
  final long shardBytes;
  final long payload;
  final byte[] params;
  final String id;
  final boolean ready;

  Meta(
      StructureType type,
      HashStrategy hash,
      Layout layout,
      int shards,
      long shardBytes,
      long payload,
      byte[] params,
      String id,
      boolean ready) {
    // The library's constructors refuse these pairs; a Redis structure that skips them (count-min,
    // blocked) must too, or its answers would not be what it promises.
    if (!type.accepts(hash.algorithm())) {
      throw new IllegalArgumentException(
          "a "
              + type.label()
              + " structure cannot use the "
              + hash.algorithm().label()
              + " hash: Guava's and Spark's hashes are for Bloom filters (guava and guava32 also"
              + " for blocked ones); use xxh3");
    }
    this.type = type;
    this.hash = hash;
    this.layout = layout;
    this.shards = shards;
    this.shardBytes = shardBytes;
    this.payload = payload;
    this.params = params;
    this.id = id;
    this.ready = ready;
  }

  Meta withId(String newId, boolean isReady) {
    return new Meta(type, hash, layout, shards, shardBytes, payload, params, newId, isReady);
  }

  /** The bytes of shard {@code i}: {@code shardBytes}, the last the remainder. */
  long shardLength(int i) {
    return i < shards - 1 ? shardBytes : payload - shardBytes * (shards - 1L);
  }

  Map<String, String> fields() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("probkit", VERSION);
    m.put("type", type.label());
    m.put("state", ready ? "ready" : "creating");
    m.put("id", id);
    m.put("hash", hash.algorithm().label());
    m.put("seed", Long.toString(hash.seed()));
    m.put("layout", layout.label());
    m.put("shards", Integer.toString(shards));
    m.put("shardBytes", Long.toString(shardBytes));
    m.put("payload", Long.toString(payload));
    m.put("params", HexFormat.of().formatHex(params));
    return m;
  }

  /**
   * Decodes the hash of {@code key}; a hash that is not probkit's, or damaged, is refused with one
   * line naming the key and the field. Every field must be present and agree with the others: the
   * parameters have their type's length, and the shards are the ones this library would cut for
   * them (so no batch reads a shard past its data, and none sizes one wrongly).
   */
  static Meta parse(String server, String key, Map<String, String> f) {
    if (!VERSION.equals(f.get("probkit"))) {
      throw new RedisStoreException(
          server,
          f.containsKey("probkit")
              ? "key '"
                  + key
                  + "' holds probkit metadata of version "
                  + f.get("probkit")
                  + ", this library reads "
                  + VERSION
              : "key '" + key + "' is a hash that is not a probkit structure (no field probkit)");
    }
    String field = null;
    try {
      field = "type";
      StructureType type = null;
      for (StructureType t : StructureType.values()) {
        if (t.label().equals(need(f, field))) {
          type = t;
        }
      }
      if (type == null) {
        throw new IllegalArgumentException("unknown type");
      }
      field = "state";
      String state = need(f, field);
      if (!state.equals("ready") && !state.equals("creating")) {
        throw new IllegalArgumentException("not 'ready' or 'creating'");
      }
      field = "id";
      String id = need(f, field);
      if (!id.matches("[0-9a-f]{16}")) {
        throw new IllegalArgumentException("not 16 hex digits");
      }
      field = "hash";
      HashAlgorithm algorithm = HashAlgorithm.byLabel(need(f, field));
      field = "seed";
      HashStrategy hash = HashStrategy.of(algorithm, Long.parseLong(need(f, field)));
      field = "hash";
      if (!type.accepts(algorithm)) {
        throw new IllegalArgumentException(
            "'" + algorithm.label() + "', which no " + type.label() + " structure is hashed with");
      }
      field = "layout";
      Layout layout = Layout.byLabel(need(f, field));
      if (layout == null) {
        throw new IllegalArgumentException("not 'slot' or 'spread'");
      }
      field = "shards";
      int shards = Integer.parseInt(need(f, field));
      field = "shardBytes";
      long shardBytes = Long.parseLong(need(f, field));
      field = "payload";
      long payload = Long.parseLong(need(f, field));
      field = "params";
      byte[] params = HexFormat.of().parseHex(need(f, field));
      Meta meta =
          new Meta(
              type, hash, layout, shards, shardBytes, payload, params, id, state.equals("ready"));
      field = meta.disagreement();
      if (field != null) {
        throw new IllegalArgumentException(
            "does not agree with the other fields (was "
                + f.get(field.equals("params length") ? "params" : field)
                + ")");
      }
      return meta;
    } catch (RuntimeException e) {
      throw new RedisStoreException(
          server,
          "key '"
              + key
              + "' holds damaged probkit metadata: field "
              + field
              + ": "
              + e.getMessage()
              + " (delete it)");
    }
  }

  private static String need(Map<String, String> f, String field) {
    String v = f.get(field);
    if (v == null) {
      throw new IllegalArgumentException("missing");
    }
    return v;
  }

  /**
   * The first field that disagrees with the metadata this library would write for the same type,
   * parameters, hashing and layout, or null.
   */
  private String disagreement() {
    int[] lengths = {28, 28, 28, 17, 15, 10, 32, 48, 14, 20, 16};
    StructureType[] types = {
      StructureType.BLOOM_FILTER,
      StructureType.BLOCKED_BLOOM_FILTER,
      StructureType.COUNTING_BLOOM_FILTER,
      StructureType.COUNT_MIN_SKETCH,
      StructureType.HYPER_LOG_LOG,
      StructureType.ULTRA_LOG_LOG,
      StructureType.SCALABLE_BLOOM_FILTER,
      StructureType.AGE_PARTITIONED_BLOOM_FILTER,
      StructureType.WINDOWED_CARDINALITY,
      StructureType.WINDOWED_COUNT_MIN,
      StructureType.WINDOWED_HEAVY_HITTERS
    };
    int t = Arrays.asList(types).indexOf(type);
    if (t < 0) {
      return null; // refused by RedisStructure.of, naming the type
    }
    if (params.length != lengths[t]) {
      return "params length";
    }
    if (shards < 1 || shards > 65536) {
      return "shards";
    }
    RedisOptions o = RedisOptions.defaults().hash(hash).layout(layout).shards(shards);
    ByteBuffer p = ByteBuffer.wrap(params).order(ByteOrder.LITTLE_ENDIAN);
    Meta expected;
    try {
      switch (type) {
        case BLOOM_FILTER:
        case BLOCKED_BLOOM_FILTER:
          expected =
              RedisBloomFilter.meta(type, p.getLong(), p.getInt(), p.getLong(), p.getDouble(), o);
          break;
        case COUNTING_BLOOM_FILTER:
          expected =
              RedisCountingBloomFilter.meta(p.getLong(), p.getInt(), p.getLong(), p.getDouble(), o);
          break;
        case COUNT_MIN_SKETCH:
          expected = RedisCountMinSketch.meta(p.getInt(), p.getInt(), p.get() == 1, o);
          break;
        case HYPER_LOG_LOG:
        case ULTRA_LOG_LOG:
          expected = RedisCardinalitySketch.meta(type, p.get(), o);
          break;
        case AGE_PARTITIONED_BLOOM_FILTER:
          expected =
              RedisWindowedBloomFilter.meta(
                  p.getInt(),
                  p.getInt(),
                  p.getLong(),
                  p.getLong(),
                  p.getLong(),
                  p.getLong(),
                  p.getDouble(),
                  shards,
                  o);
          break;
        case WINDOWED_CARDINALITY:
          {
            long d = p.getLong();
            int s = p.getInt();
            int sketch = p.get() & 0xFF;
            if (sketch != StructureType.HYPER_LOG_LOG.id()
                && sketch != StructureType.ULTRA_LOG_LOG.id()) {
              return "params";
            }
            expected =
                RedisWindowedCardinality.meta(d, s, StructureType.byId(sketch), p.get(), shards, o);
            break;
          }
        case WINDOWED_COUNT_MIN:
          expected =
              RedisWindowedCountMin.meta(
                  p.getLong(), p.getInt(), p.getInt(), p.getInt(), shards, o);
          break;
        case WINDOWED_HEAVY_HITTERS:
          expected = RedisWindowedHeavyHitters.meta(p.getLong(), p.getInt(), p.getInt(), shards, o);
          break;
        default:
          expected =
              RedisScalableBloomFilter.meta(
                  p.getLong(), p.getDouble(), p.getInt(), p.getDouble(), o);
          break;
      }
    } catch (IllegalArgumentException e) {
      String m = String.valueOf(e.getMessage());
      return m.contains("Layout.SLOT") ? "layout" : m.contains("shards") ? "shards" : "params";
    }
    if (expected.layout != layout) {
      return "layout";
    }
    if (expected.payload != payload) {
      return "payload";
    }
    if (expected.shards != shards || expected.shardBytes != shardBytes) {
      return shardBytes > 0 && (payload + shardBytes - 1) / shardBytes == shards
          ? "shardBytes"
          : "shards";
    }
    return null;
  }

  /** Whether {@code o} describes a structure of the same type, hashing, layout and shape. */
  boolean sameShape(Meta o) {
    return type == o.type
        && hash.equals(o.hash)
        && layout == o.layout
        && shards == o.shards
        && shardBytes == o.shardBytes
        && payload == o.payload
        && Arrays.equals(params, o.params);
  }

  /**
   * For messages, e.g. {@code bloom filter of 9585059 bits, 7 hashes, xxh3(seed=0x0), 1 shard
   * (slot)}.
   */
  String describe() {
    ByteBuffer p = ByteBuffer.wrap(params).order(ByteOrder.LITTLE_ENDIAN);
    String shape;
    switch (type) {
      case BLOOM_FILTER:
      case BLOCKED_BLOOM_FILTER:
        shape = type.label() + " filter of " + p.getLong() + " bits, " + p.getInt() + " hashes";
        break;
      case COUNTING_BLOOM_FILTER:
        shape = "counting filter of " + p.getLong() + " counters, " + p.getInt() + " hashes";
        break;
      case COUNT_MIN_SKETCH:
        shape =
            "count-min sketch of "
                + p.getInt()
                + " x "
                + p.getInt()
                + (p.get() == 1 ? ", conservative" : ", standard");
        break;
      case HYPER_LOG_LOG:
      case ULTRA_LOG_LOG:
        shape = type.label() + " of precision " + p.get();
        break;
      case SCALABLE_BLOOM_FILTER:
        shape =
            String.format(
                Locale.ROOT,
                "scalable filter from %d keys at %s, growth %d, tightening %s",
                p.getLong(),
                p.getDouble(),
                p.getInt(),
                p.getDouble());
        break;
      case AGE_PARTITIONED_BLOOM_FILTER:
        shape = RedisWindowedBloomFilter.shape(p, shards);
        break;
      case WINDOWED_CARDINALITY:
        shape = RedisWindowedCardinality.shape(p, shards);
        break;
      case WINDOWED_COUNT_MIN:
        shape = RedisWindowedCountMin.shape(p, shards);
        break;
      case WINDOWED_HEAVY_HITTERS:
        shape = RedisWindowedHeavyHitters.shape(p, shards);
        break;
      default:
        shape = type.label();
    }
    return shape
        + ", "
        + hash
        + ", "
        + shards
        + (shards == 1 ? " shard (" : " shards (")
        + layout.label()
        + ")";
  }
}
