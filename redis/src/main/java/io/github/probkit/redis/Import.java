package io.github.probkit.redis;

import io.github.probkit.cardinality.HyperLogLog;
import io.github.probkit.cardinality.UltraLogLog;
import io.github.probkit.filter.AgePartitionedBloomFilter;
import io.github.probkit.filter.BlockedBloomFilter;
import io.github.probkit.filter.BloomFilter;
import io.github.probkit.filter.CountingBloomFilter;
import io.github.probkit.filter.MembershipFilter;
import io.github.probkit.filter.ScalableBloomFilter;
import io.github.probkit.frequency.CountMinSketch;
import io.github.probkit.io.SketchReader;
import io.github.probkit.io.StructureType;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * A probkit file into Redis: the library reads and validates it whole (every check of its reader),
 * the structure is created in state "creating", the payload bytes are copied into its strings, and
 * only then is it ready.
 */
final class Import {
  private static final int CHUNK = 4 << 20;

  private Import() {}

  /** Writes something into a segment writer. */
  interface Source {
    void writeTo(Segments out) throws IOException;
  }

  static RedisStructure run(RedisStore store, String name, BufferedInputStream in, RedisOptions o)
      throws IOException {
    in.mark(8);
    byte[] head = in.readNBytes(6);
    in.reset();
    StructureType type =
        head.length == 6 && head[0] == 'P' ? StructureType.byId(head[5] & 0xFF) : null;
    if (type == null) {
      SketchReader.open(in); // names what is wrong: a bad magic, a short file, an unknown type
      throw new IllegalArgumentException("not a probkit structure");
    }
    Meta meta;
    Source source;
    long total = -1;
    int scalableLayers = 0;
    switch (type) {
      case BLOOM_FILTER:
        {
          BloomFilter f = BloomFilter.readFrom(in);
          meta = bloomMeta(type, f, f.hashCount(), f.expectedKeys(), f.targetFpp(), o);
          source = payloadOf(f::writeTo);
          break;
        }
      case BLOCKED_BLOOM_FILTER:
        {
          BlockedBloomFilter f = BlockedBloomFilter.readFrom(in);
          meta = bloomMeta(type, f, f.hashCount(), f.expectedKeys(), f.targetFpp(), o);
          source = payloadOf(f::writeTo);
          break;
        }
      case COUNTING_BLOOM_FILTER:
        {
          CountingBloomFilter f = CountingBloomFilter.readFrom(in);
          meta =
              RedisCountingBloomFilter.meta(
                  f.counterCount(),
                  f.hashCount(),
                  f.expectedKeys(),
                  f.targetFpp(),
                  o.hash(f.hashStrategy()));
          source = payloadOf(f::writeTo);
          break;
        }
      case COUNT_MIN_SKETCH:
        {
          CountMinSketch s = CountMinSketch.readFrom(in);
          meta =
              RedisCountMinSketch.meta(
                  s.width(), s.depth(), s.isConservative(), o.hash(s.hashStrategy()));
          source = payloadOf(s::writeTo);
          total = s.isConservative() ? s.totalCount() : -1;
          break;
        }
      case HYPER_LOG_LOG:
        {
          HyperLogLog s = HyperLogLog.readFrom(in);
          meta = RedisCardinalitySketch.meta(type, s.precision(), o.hash(s.hashStrategy()));
          int[] regs = s.registers();
          source =
              out -> {
                // Dense: four 6-bit registers in three little-endian bytes (a sparse sketch is
                // folded).
                byte[] dense = new byte[HyperLogLog.denseBytes(s.precision())];
                for (int i = 0; i < regs.length; i += 4) {
                  int w = regs[i] | regs[i + 1] << 6 | regs[i + 2] << 12 | regs[i + 3] << 18;
                  int g = 3 * (i / 4);
                  dense[g] = (byte) w;
                  dense[g + 1] = (byte) (w >>> 8);
                  dense[g + 2] = (byte) (w >>> 16);
                }
                out.write(dense, 0, dense.length);
              };
          break;
        }
      case ULTRA_LOG_LOG:
        {
          UltraLogLog s = UltraLogLog.readFrom(in);
          meta = RedisCardinalitySketch.meta(type, s.precision(), o.hash(s.hashStrategy()));
          byte[] regs = s.registers();
          source = out -> out.write(regs, 0, regs.length);
          break;
        }
      case AGE_PARTITIONED_BLOOM_FILTER:
        return RedisWindowedBloomFilter.importFrom(
            store, name, AgePartitionedBloomFilter.readFrom(in), o);
      case WINDOWED_CARDINALITY:
        return RedisWindowedCardinality.importFrom(store, name, in.readAllBytes(), o);
      case WINDOWED_COUNT_MIN:
        return RedisWindowedCountMin.importFrom(store, name, in.readAllBytes(), o);
      case WINDOWED_HEAVY_HITTERS:
        return RedisWindowedHeavyHitters.importFrom(store, name, in.readAllBytes(), o);
      case SCALABLE_BLOOM_FILTER:
        {
          ScalableBloomFilter f = ScalableBloomFilter.readFrom(in);
          meta =
              RedisScalableBloomFilter.meta(
                  f.initialCapacity(),
                  f.targetFpp(),
                  f.growth(),
                  f.tightening(),
                  o.hash(f.hashStrategy()));
          for (ScalableBloomFilter.LayerInfo l : f.layers()) {
            if (RedisScalableBloomFilter.layerBytes(l) > RedisOptions.MAX_SHARD_BYTES) {
              throw new IllegalArgumentException(
                  "a layer of " + l.bits() + " bits exceeds a Redis string");
            }
          }
          source = payloadOf(f::writeTo);
          scalableLayers = f.layerCount();
          break;
        }
      default:
        throw new IllegalArgumentException(
            "probkit-redis keeps bloom, blocked, counting, scalable, window, "
                + "count-min, hyperloglog and ultraloglog structures, not "
                + type.label());
    }
    long conservativeTotal = total;
    int layers = scalableLayers;
    Meta created =
        store.create(
            name,
            meta,
            false,
            m -> {
              RedisStructure s = RedisStructure.of(store, name, m);
              boolean scalable = type == StructureType.SCALABLE_BLOOM_FILTER;
              List<Segment> segments = segments(name, m, layers);
              for (int i = 0; i < segments.size(); i++) {
                Segment seg = segments.get(i);
                RedisStructure.presize(store, name, m, seg.key(), seg.length(), !scalable || i > 0);
              }
              boolean swap = type == StructureType.COUNT_MIN_SKETCH;
              try (Segments out =
                  new Segments(
                      segments,
                      CHUNK,
                      (segment, key, at, part) -> {
                        if (swap) {
                          RedisCountMinSketch.swapCounters(part, part.length);
                        }
                        beforeChunk.run();
                        // A scalable filter's first segment is its counts, without an id.
                        int shard = scalable ? segment - 1 : segment;
                        writeChunk(s, key, shard, at, part);
                      })) {
                source.writeTo(out);
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
              if (conservativeTotal >= 0) {
                byte[] t =
                    ByteBuffer.allocate(8)
                        .putLong(conservativeTotal)
                        .array(); // big-endian, as the counters
                writeChunk(s, RedisCountMinSketch.totalKey(name), -1, 0, t);
              }
            });
    return RedisStructure.of(store, name, created);
  }

  /**
   * The meta of a Bloom or blocked Bloom filter {@code f}: the two classes share no interface for
   * their shape, so its parts come as arguments.
   */
  private static Meta bloomMeta(
      StructureType type,
      MembershipFilter f,
      int hashCount,
      long expectedKeys,
      double fpp,
      RedisOptions o) {
    return RedisBloomFilter.meta(
        type, f.bitSize(), hashCount, expectedKeys, fpp, o.hash(f.hashStrategy()));
  }

  /** Run before each chunk an import writes: tests delete or re-create the structure there. */
  static volatile Runnable beforeChunk = () -> {};

  /**
   * Writes {@code part} at byte {@code at} of {@code key}, shard {@code shard} of {@code s} (-1: a
   * string without an id), by a guarded script: nothing is written once the structure was deleted
   * or re-created by another client.
   */
  private static void writeChunk(RedisStructure s, String key, int shard, long at, byte[] part) {
    List<byte[]> keys =
        shard >= 0
            ? List.of(RedisStructure.bytes(key))
            : List.of(RedisStructure.bytes(key), s.shardKeys[0]);
    List<byte[]> args = new ArrayList<>(List.of(RedisStructure.ascii(at), part));
    if (shard >= 0) {
      s.guard(args, 1, shard, 1);
    } else {
      s.guard(args, 2, 0, 1);
    }
    try {
      s.store.call(() -> s.store.jedis().eval(Scripts.SETRANGE, keys, args));
    } catch (RedisStoreException e) {
      throw e.getMessage().contains("belongs to another structure")
              || e.getMessage().contains("does not exist")
          ? s.store.replacedWhileCreating(s.name)
          : e;
    }
  }

  /** The strings the payload fills, in order, with their lengths. */
  private static List<Segment> segments(String name, Meta m, int scalableLayers) {
    List<Segment> out = new ArrayList<>();
    if (m.type == StructureType.SCALABLE_BLOOM_FILTER) {
      ScalableLayers layers = new ScalableLayers(m);
      out.add(new Segment(RedisScalableBloomFilter.countsKey(name), 8L * scalableLayers));
      for (int l = 0; l < scalableLayers; l++) {
        out.add(new Segment(m.layout.shardKey(name, l), layers.bytes(l)));
      }
      return out;
    }
    for (int i = 0; i < m.shards; i++) {
      out.add(new Segment(m.layout.shardKey(name, i), m.shardLength(i)));
    }
    return out;
  }

  /**
   * A source that writes the payload of a structure's file: its header, parameters and CRC dropped.
   */
  static Source payloadOf(FileWriter file) {
    return out -> file.writeTo(new PayloadFilter(out));
  }

  interface FileWriter {
    void writeTo(OutputStream out) throws IOException;
  }

  /** Passes on the payload bytes of a probkit file written through it. */
  private static final class PayloadFilter extends OutputStream {
    private final Segments out;
    private final byte[] header = new byte[28];
    private long at;
    private long start = Long.MAX_VALUE;
    private long end;

    PayloadFilter(Segments out) {
      this.out = out;
    }

    @Override
    public void write(int b) {
      write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) {
      long pos = at; // the file offset of b[off]
      at += len;
      for (int i = 0; i < len && pos + i < 28; i++) {
        header[(int) (pos + i)] = b[off + i];
      }
      if (pos < 28 && at >= 28) {
        ByteBuffer h = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN);
        start = 28 + h.getInt(16);
        end = start + h.getLong(20);
      }
      long from = Math.max(pos, start);
      long to = Math.min(at, end);
      if (from < to) {
        out.write(b, (int) (off + from - pos), (int) (to - from));
      }
    }
  }

  private static final class ScalableLayers {
    private final long n0;
    private final double fpp;
    private final int growth;
    private final double tightening;

    ScalableLayers(Meta m) {
      ByteBuffer p = ByteBuffer.wrap(m.params).order(ByteOrder.LITTLE_ENDIAN);
      n0 = p.getLong();
      fpp = p.getDouble();
      growth = p.getInt();
      tightening = p.getDouble();
    }

    long bytes(int layer) {
      return RedisScalableBloomFilter.layerBytes(
          ScalableBloomFilter.layerShape(n0, fpp, growth, tightening, layer));
    }
  }

  /**
   * What {@link Segments} does with each chunk: {@code part} goes at {@code offset} of {@code key}.
   */
  interface ChunkAction {
    void apply(int segment, String key, long offset, byte[] part);
  }

  /** A string a payload fills, and how many of its bytes. */
  record Segment(String key, long length) {}

  /**
   * Cuts a byte stream into chunks of at most {@code chunk} bytes that never straddle two of the
   * consecutive strings {@code segments} and hands each to an action: the import writes it there
   * ({@code SETRANGE}), a merge combines it with what is there. Segments and chunks are multiples
   * of 8 bytes, so a chunk holds whole counters.
   */
  static final class Segments implements AutoCloseable {
    private final List<Segment> segments;
    private final ChunkAction action;
    private final byte[] buf;
    private int fill;
    private int segment;
    private long offset;

    Segments(List<Segment> segments, int chunk, ChunkAction action) {
      this.segments = segments;
      this.action = action;
      this.buf = new byte[chunk];
    }

    void write(byte[] b, int off, int len) {
      while (len > 0) {
        if (segment >= segments.size()) {
          throw new IllegalStateException("payload longer than its strings");
        }
        long room = segments.get(segment).length() - offset - fill;
        int n = (int) Math.min(Math.min(len, buf.length - fill), room);
        System.arraycopy(b, off, buf, fill, n);
        fill += n;
        off += n;
        len -= n;
        if (fill == buf.length || n == room) {
          flush();
        }
      }
    }

    private void flush() {
      if (fill > 0) {
        action.apply(
            segment, segments.get(segment).key(), offset, java.util.Arrays.copyOf(buf, fill));
        offset += fill;
        fill = 0;
      }
      if (offset == segments.get(segment).length()) {
        segment++;
        offset = 0;
      }
    }

    @Override
    public void close() {
      if (segment < segments.size()) {
        throw new IllegalStateException("payload shorter than its strings: segment " + segment);
      }
    }
  }
}
