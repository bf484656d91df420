package io.github.probkit.cli.location;

import io.github.probkit.cardinality.CardinalitySketch;
import io.github.probkit.cardinality.HyperLogLog;
import io.github.probkit.cardinality.WindowedCardinality;
import io.github.probkit.cli.format.FilterDescriptions;
import io.github.probkit.cli.format.FilterKeys;
import io.github.probkit.cli.format.Format;
import io.github.probkit.cli.format.ProbkitFormat;
import io.github.probkit.cli.format.WindowFilters;
import io.github.probkit.cli.input.CountedLines;
import io.github.probkit.cli.input.Inputs;
import io.github.probkit.cli.input.KeyOptions;
import io.github.probkit.cli.input.LineReader;
import io.github.probkit.cli.input.TimedKeys;
import io.github.probkit.cli.output.CliException;
import io.github.probkit.cli.output.Json;
import io.github.probkit.filter.AgePartitionedBloomFilter;
import io.github.probkit.filter.CountingBloomFilter;
import io.github.probkit.filter.MembershipFilter;
import io.github.probkit.filter.ScalableBloomFilter;
import io.github.probkit.foreign.RedisHyperLogLogFormat;
import io.github.probkit.frequency.CountMinSketch;
import io.github.probkit.frequency.WindowedCountMin;
import io.github.probkit.frequency.WindowedHeavyHitters;
import io.github.probkit.io.SketchFormatException;
import io.github.probkit.io.StructureType;
import io.github.probkit.redis.Layout;
import io.github.probkit.redis.RedisBloomFilter;
import io.github.probkit.redis.RedisCardinalitySketch;
import io.github.probkit.redis.RedisCountMinSketch;
import io.github.probkit.redis.RedisCountingBloomFilter;
import io.github.probkit.redis.RedisNativeHyperLogLog;
import io.github.probkit.redis.RedisOptions;
import io.github.probkit.redis.RedisScalableBloomFilter;
import io.github.probkit.redis.RedisStore;
import io.github.probkit.redis.RedisStoreException;
import io.github.probkit.redis.RedisStructure;
import io.github.probkit.redis.RedisWindowedBloomFilter;
import io.github.probkit.redis.RedisWindowedCardinality;
import io.github.probkit.redis.RedisWindowedCountMin;
import io.github.probkit.redis.RedisWindowedHeavyHitters;
import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine.Model.CommandSpec;

/**
 * A structure kept in Redis, named {@code redis://[user@]host[:port][/db]/KEY} (or {@code
 * rediss://}): the structure KEY in that Redis, through probkit-redis, changed in place by its
 * atomic scripts. The password comes from the URI or from {@code PROBKIT_REDIS_PASSWORD}, never
 * from an option.
 *
 * <p>Every reference to probkit-redis and Jedis is in this class, which {@link Location#of} reaches
 * only for such a URI: a run on files never loads them, and starts as fast as before.
 */
final class RedisLocation implements Location {
  static final String PASSWORD_ENV = "PROBKIT_REDIS_PASSWORD";

  /** The URI as typed: messages echo it. */
  private final String uri;

  private RedisLocation(String uri) {
    this.uri = uri;
  }

  /** The location of the URI {@code uri}; {@code p} is how it reached the command. */
  static Location of(Path p, String uri) {
    return new RedisLocation(uri);
  }

  @Override
  public String toString() {
    return uri;
  }

  /** A store and the name of the structure a URI designates. */
  private static final class Target implements AutoCloseable {
    final String uri;
    final RedisStore store;
    final String name;

    Target(String uri) {
      String key = RedisStore.keyOf(uri);
      if (key == null) {
        throw new IllegalArgumentException(
            "a redis URI names the structure after the host: redis://[user@]host[:port][/db]/KEY, was '"
                + uri
                + "'");
      }
      RedisStore.checkName(key);
      this.uri = uri;
      this.name = key;
      this.store = RedisStore.connect(uri, System.getenv(PASSWORD_ENV));
    }

    @Override
    public void close() {
      store.close();
    }
  }

  interface Work<T> {
    T run(Target t) throws IOException;
  }

  /** Runs {@code work} against the URI's structure; a Redis failure is one line, exit 1. */
  private <T> T with(Work<T> work) throws IOException {
    return with(uri, work);
  }

  private static <T> T with(String uri, Work<T> work) throws IOException {
    try (Target t = new Target(uri)) {
      return work.run(t);
    } catch (RedisStoreException e) {
      throw new CliException(e.getMessage());
    }
  }

  interface Batch {
    void accept(List<byte[]> keys);
  }

  /** The items a create adds after creating: its --items files or stdin, never its arguments. */
  private static Keys itemsOf(Keys in) {
    return new Keys(List.of(), in.from(), in.spec(), in.writing());
  }

  /** {@link Location#longestWindowMillis}, as a duration. */
  private static Duration windowOf(int sliceCount, long sliceMillis) {
    return Duration.ofMillis(Location.longestWindowMillis(sliceCount, sliceMillis));
  }

  /**
   * Feeds the keys to {@code batch} in lists of the store's batch size, in order; returns the
   * count.
   */
  private static long batches(
      Target t, KeyOptions from, List<String> keys, CommandSpec spec, Batch batch)
      throws IOException {
    int size = t.store.batchSize();
    List<byte[]> pending = new ArrayList<>(size);
    long n =
        from.forEach(
            keys,
            spec,
            (buf, off, len) -> {
              pending.add(Arrays.copyOfRange(buf, off, off + len));
              if (pending.size() == size) {
                batch.accept(pending);
                pending.clear();
              }
            });
    if (!pending.isEmpty()) {
      batch.accept(pending);
    }
    return n;
  }

  /** Deletes the structure when {@code force}, as {@code --force} replaces a file. */
  private static void replace(Target t, boolean force) {
    if (force) {
      t.store.delete(t.name);
    }
  }

  // ---- filter

  @Override
  public int createFilter(FilterShape shape, boolean force, boolean ifAbsent, Keys in)
      throws IOException {
    String type = shape.type();
    Long expected = shape.expected();
    double fpp = shape.checkedFpp();
    if (expected == null) {
      throw new IllegalArgumentException(
          "missing required option --expected=N (needed by --type " + type + ")");
    }
    RedisOptions o = RedisOptions.defaults().hash(shape.hash());
    return with(
        t -> {
          replace(t, force);
          switch (type) {
            case "bloom":
              RedisBloomFilter.create(t.store, t.name, expected, fpp, o);
              break;
            case "blocked":
              RedisBloomFilter.createBlocked(t.store, t.name, expected, fpp, o);
              break;
            case "counting":
              RedisCountingBloomFilter.create(t.store, t.name, expected, fpp, o);
              break;
            case "scalable":
              RedisScalableBloomFilter.create(t.store, t.name, expected, fpp, 2, 0.5, o);
              break;
            default:
              throw new IllegalArgumentException(
                  "a filter in Redis is of --type bloom, blocked, counting, scalable or window, was "
                      + type);
          }
          return filterAdd(t, List.of(), in.from(), false, ifAbsent, in.spec());
        });
  }

  @Override
  public int addToFilter(Keys in, boolean multiset, boolean ifAbsent) throws IOException {
    return with(t -> filterAdd(t, in.given(), in.from(), multiset, ifAbsent, in.spec()));
  }

  /**
   * Adds the keys as {@link FilterKeys#addKeys} adds them to a file: a counting filter counts every
   * add unless {@code ifAbsent}, and names the keys whose counters saturate.
   */
  private static int filterAdd(
      Target t,
      List<String> keys,
      KeyOptions from,
      boolean multiset,
      boolean ifAbsent,
      CommandSpec spec)
      throws IOException {
    RedisStructure s = t.store.open(t.name);
    FilterKeys.ifAbsent(
        multiset,
        ifAbsent,
        s instanceof RedisCountingBloomFilter,
        "a " + s.type().label() + " filter");
    if (s instanceof RedisWindowedBloomFilter) {
      timedBatches(t, from, keys, spec, ((RedisWindowedBloomFilter) s)::addAll);
      return 0;
    }
    if (from.timeField != null) {
      throw new IllegalArgumentException(
          "--time-field is for a window filter of time (filter create --type window --window 7d); "
              + t.uri
              + " is a "
              + s.type().label()
              + " filter");
    }
    FilterKeys.Saturated saturated =
        new FilterKeys.Saturated(RedisUri.withoutPassword(t.uri), spec.commandLine().getErr());
    try {
      batches(
          t,
          from,
          keys,
          spec,
          batch -> {
            if (s instanceof RedisBloomFilter) {
              ((RedisBloomFilter) s).addAll(batch);
            } else if (s instanceof RedisScalableBloomFilter) {
              ((RedisScalableBloomFilter) s).addAll(batch);
            } else if (s instanceof RedisCountingBloomFilter) {
              addCounting((RedisCountingBloomFilter) s, batch, ifAbsent, saturated);
            } else {
              throw new CliException(t.uri + ": a " + s.type().label() + ", not a filter");
            }
          });
    } finally {
      saturated.finish();
    }
    return 0;
  }

  /**
   * One batch into a counting filter. Every add counts, and a read of the counters after it finds
   * the keys they saturate. With {@code ifAbsent}, as {@link
   * io.github.probkit.filter.DeletableFilter#addIfAbsent}: only the keys that read absent, once
   * each (checked, then added: another client's add of the same key in between can count it twice).
   */
  private static void addCounting(
      RedisCountingBloomFilter c,
      List<byte[]> batch,
      boolean ifAbsent,
      FilterKeys.Saturated saturated) {
    if (ifAbsent) {
      boolean[] present = c.mightContainAll(batch);
      Set<ByteBuffer> seen = new HashSet<>();
      List<byte[]> absent = new ArrayList<>();
      for (int i = 0; i < batch.size(); i++) {
        if (!present[i] && seen.add(ByteBuffer.wrap(batch.get(i)))) {
          absent.add(batch.get(i));
        }
      }
      c.addAll(absent);
      return;
    }
    c.addAll(batch);
    int[] counts = c.countAll(batch);
    for (int i = 0; i < counts.length; i++) {
      if (counts[i] == CountingBloomFilter.MAX_COUNT) {
        saturated.added(batch.get(i), 0, batch.get(i).length);
      }
    }
  }

  /**
   * Answers the keys a command reads in batches of the store's batch size, a round trip each; a
   * batch is also answered whenever input would wait.
   */
  @Override
  public int queryFilter(
      FilterAnswer answer,
      LineReader.LineConsumer header,
      OutputStream out,
      Reading reading,
      QueryTime time)
      throws IOException {
    return with(
        t -> {
          RedisStructure s = t.store.open(t.name);
          Query query;
          if (s instanceof RedisWindowedBloomFilter) {
            RedisWindowedBloomFilter w = (RedisWindowedBloomFilter) s;
            query =
                (lines, batch) -> {
                  long[] times = new long[batch.size()];
                  for (int i = 0; i < times.length; i++) {
                    byte[] l = lines.get(i);
                    times[i] =
                        time == null ? System.currentTimeMillis() : time.of().of(l, 0, l.length);
                  }
                  return windowQuery(w, batch, times);
                };
          } else if (time != null) {
            throw new IllegalArgumentException(
                time.option()
                    + " is for a window filter of time (filter create --type window --window 7d); "
                    + t.uri
                    + " is a "
                    + s.type().label()
                    + " filter");
          } else if (s instanceof RedisBloomFilter) {
            query = (lines, batch) -> ((RedisBloomFilter) s).mightContainAll(batch);
          } else if (s instanceof RedisScalableBloomFilter) {
            query = (lines, batch) -> ((RedisScalableBloomFilter) s).mightContainAll(batch);
          } else if (s instanceof RedisCountingBloomFilter) {
            query = (lines, batch) -> ((RedisCountingBloomFilter) s).mightContainAll(batch);
          } else {
            throw new CliException(t.uri + ": a " + s.type().label() + ", not a filter");
          }
          return reading.run(
              Inputs.KeySink.answeringInBatches(
                  t.store.batchSize(),
                  (lines, batch) -> {
                    boolean[] in = query.answer(lines, batch);
                    for (int i = 0; i < batch.size(); i++) {
                      byte[] l = lines.get(i);
                      byte[] k = batch.get(i);
                      answer.answer(l, 0, l.length, k, 0, k.length, in[i]);
                    }
                  },
                  header,
                  out));
        });
  }

  /** A filter's answers for a batch of keys and their lines. */
  private interface Query {
    boolean[] answer(List<byte[]> lines, List<byte[]> keys);
  }

  @Override
  public int removeFromFilter(Keys in) throws IOException {
    long[] removed = {0};
    long[] stayed = {0};
    FilterKeys.Saturated saturated =
        new FilterKeys.Saturated(RedisUri.withoutPassword(uri), in.spec().commandLine().getErr());
    long total;
    try {
      total =
          with(
              t -> {
                RedisStructure s = t.store.open(t.name);
                if (!(s instanceof RedisCountingBloomFilter)) {
                  throw new CliException(
                      t.uri
                          + ": a "
                          + s.type().label()
                          + " filter cannot delete keys (counting filters can); nothing was changed");
                }
                return batches(
                    t,
                    in.from(),
                    in.given(),
                    in.spec(),
                    batch -> {
                      RedisCountingBloomFilter c = (RedisCountingBloomFilter) s;
                      boolean[] done = c.removeAll(batch);
                      List<byte[]> taken = new ArrayList<>();
                      for (int i = 0; i < done.length; i++) {
                        if (done[i]) {
                          taken.add(batch.get(i));
                        }
                      }
                      // A key whose counters are all saturated was "removed" without a change.
                      int[] counts = c.countAll(taken);
                      for (int i = 0; i < counts.length; i++) {
                        if (counts[i] == CountingBloomFilter.MAX_COUNT) {
                          saturated.stays(taken.get(i), 0, taken.get(i).length);
                          stayed[0]++;
                        } else {
                          removed[0]++;
                        }
                      }
                    });
              });
    } finally {
      saturated.finish();
    }
    FilterKeys.summary(in.spec(), removed[0], stayed[0], total);
    return 0;
  }

  @Override
  public StructureType type() {
    try {
      // A key PFADD built is Redis's own HyperLogLog, no probkit structure.
      return with(
          t -> holdsNativeHll(t) ? StructureType.HYPER_LOG_LOG : t.store.open(t.name).type());
    } catch (IOException e) {
      throw new CliException(CliException.describe(uri, e), e);
    }
  }

  /** {@code info} of any structure in Redis: its shape, its keys there and their memory. */
  @Override
  public Json info(Description description, boolean json) throws IOException {
    return with(
        t -> {
          if (holdsNativeHll(t)) {
            RedisNativeHyperLogLog h = RedisNativeHyperLogLog.of(t.store, t.name);
            return new Json()
                .put("type", "hyperloglog")
                .put("format", "redis (the HYLL string of PFADD)")
                .put("precision", 14)
                .put("pfcount", h.count())
                .put("server", t.store.server())
                .put("key", t.name);
          }
          RedisStructure s = t.store.open(t.name);
          if (s instanceof RedisScalableBloomFilter) {
            return scalableInfo(t, (RedisScalableBloomFilter) s, json);
          }
          Json j = new Json().put("type", s.type().label()).put("structure", s.describe());
          if (s instanceof RedisBloomFilter) {
            RedisBloomFilter b = (RedisBloomFilter) s;
            FilterDescriptions.bloomFields(
                j.put("bits", b.bitSize()),
                b.hashCount(),
                b.expectedKeys(),
                b.targetFpp(),
                b.bitCount());
          } else if (s instanceof RedisCountMinSketch) {
            RedisCountMinSketch c = (RedisCountMinSketch) s;
            j.put("width", c.width())
                .put("depth", c.depth())
                .put("updateRule", c.isConservative() ? "conservative" : "standard")
                .put("totalCount", c.totalCount());
          } else if (s instanceof RedisCardinalitySketch) {
            RedisCardinalitySketch c = (RedisCardinalitySketch) s;
            j.put("precision", c.precision()).put("estimate", Math.round(c.estimate()));
          } else if (s instanceof RedisWindowedBloomFilter) {
            RedisWindowedBloomFilter w = (RedisWindowedBloomFilter) s;
            j.put("window", WindowFilters.duration(w.window()))
                .put("generationMs", w.generationMillis())
                .put("slack", WindowFilters.duration(w.slack()))
                .put("fpp", w.targetFpp())
                .put("maxSkew", WindowFilters.duration(w.maxSkewMillis()));
          } else if (s instanceof RedisWindowedCountMin) {
            RedisWindowedCountMin w = (RedisWindowedCountMin) s;
            slices(j, w.sliceCount(), w.sliceMillis(), w.maxSkewMillis())
                .put("width", w.width())
                .put("depth", w.depth());
          } else if (s instanceof RedisWindowedCardinality) {
            RedisWindowedCardinality w = (RedisWindowedCardinality) s;
            slices(j, w.sliceCount(), w.sliceMillis(), w.maxSkewMillis());
          } else if (s instanceof RedisWindowedHeavyHitters) {
            RedisWindowedHeavyHitters w = (RedisWindowedHeavyHitters) s;
            slices(j, w.sliceCount(), w.sliceMillis(), w.maxSkewMillis())
                .put("capacity", w.capacity());
          }
          return whereKept(j.put("bytes", s.byteSize()), t, s, s.redisKeys());
        });
  }

  /** A windowed sketch's window, slices and the clock skew its grace slices tolerate. */
  private static Json slices(Json j, int sliceCount, long sliceMillis, long maxSkewMillis) {
    return j.put(
            "window", WindowFilters.duration(Location.longestWindowMillis(sliceCount, sliceMillis)))
        .put("slice", WindowFilters.duration(sliceMillis))
        .put("slices", sliceCount)
        .put("maxSkew", WindowFilters.duration(maxSkewMillis));
  }

  /** The fields every description of a structure in Redis ends with. */
  private static Json whereKept(Json j, Target t, RedisStructure s, List<String> keys) {
    return j.put("redisKeys", String.join(" ", keys))
        .put("memoryUsage", s.memoryUsage())
        .put("layout", s.layout().name().toLowerCase(Locale.ROOT))
        .put("server", t.store.server());
  }

  /**
   * A scalable filter keeps room for all its possible layers (64 shards in its metadata) but holds
   * only those it has grown: it is described as its file is (its layers, the bytes they take), from
   * one consistent read of them, with the keys those layers are in.
   */
  private static Json scalableInfo(Target t, RedisScalableBloomFilter s, boolean json)
      throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    s.exportTo(bytes);
    MembershipFilter f =
        ProbkitFormat.INSTANCE.read(
            new ByteArrayInputStream(bytes.toByteArray()), Format.Kind.FILTER);
    int layers = ((ScalableBloomFilter) f).layers().size();
    // The metadata key, the layers' counts, then a key per layer.
    List<String> keys = s.redisKeys().subList(0, 2 + layers);
    return whereKept(FilterDescriptions.describe(f, json), t, s, keys);
  }

  // ---- cms

  @Override
  public int createCms(
      CmsShape shape, boolean force, boolean counts, Fill<CountMinSketch> fill, Keys in)
      throws IOException {
    with(
        t -> {
          replace(t, force);
          RedisCountMinSketch.create(
              t.store,
              t.name,
              shape.width(),
              shape.depth(),
              shape.conservative(),
              RedisOptions.defaults().hash(shape.hash()));
          return 0;
        });
    return in.from() == null ? 0 : addToCms(in, counts, fill);
  }

  @Override
  public int addToCms(Keys in, boolean counts, Fill<CountMinSketch> fill) throws IOException {
    return counts
        ? addCountsToCms(in.given(), in.from(), in.spec())
        : addItemsToCms(in.given(), in.from(), in.spec());
  }

  private int addItemsToCms(List<String> items, KeyOptions from, CommandSpec spec)
      throws IOException {
    return with(
        t -> {
          RedisCountMinSketch s = RedisCountMinSketch.open(t.store, t.name);
          batches(t, from, items, spec, s::addAll);
          return 0;
        });
  }

  /** {@code cms add --counts}: each line's item and count, a pipeline round trip per batch. */
  private int addCountsToCms(List<String> items, KeyOptions from, CommandSpec spec)
      throws IOException {
    return with(
        t -> {
          RedisCountMinSketch s = RedisCountMinSketch.open(t.store, t.name);
          int size = t.store.batchSize();
          // Arrays hash by identity: each line stays its own entry, repeated items included.
          Map<byte[], Long> pending = new LinkedHashMap<>();
          from.forEach(
              items,
              spec,
              CountedLines.counted(
                  (buf, off, len, count) -> {
                    pending.put(Arrays.copyOfRange(buf, off, off + len), count);
                    if (pending.size() == size) {
                      s.addAll(pending);
                      pending.clear();
                    }
                  }));
          if (!pending.isEmpty()) {
            s.addAll(pending);
          }
          return 0;
        });
  }

  /** As {@link #queryFilter}: a round trip per batch of items. */
  @Override
  public int queryCms(CountAnswer answer, OutputStream out, Reading reading) throws IOException {
    return with(
        t -> {
          RedisCountMinSketch s = RedisCountMinSketch.open(t.store, t.name);
          return answerInBatches(t, answer, out, reading, s::estimateAll);
        });
  }

  @Override
  public int queryWindowedCms(CountAnswer answer, OutputStream out, Reading reading, Window window)
      throws IOException {
    return with(
        t -> {
          RedisWindowedCountMin w = RedisWindowedCountMin.open(t.store, t.name);
          Duration span = window.spanOf(w.sliceCount(), w.sliceMillis());
          return answerInBatches(
              t, answer, out, reading, batch -> w.estimateAll(batch, span, window.end()));
        });
  }

  /** Answers the items {@code reading} reads, a batch's estimates in one call to Redis. */
  private static int answerInBatches(
      Target t,
      CountAnswer answer,
      OutputStream out,
      Reading reading,
      java.util.function.Function<List<byte[]>, long[]> estimateAll)
      throws IOException {
    return reading.run(
        Inputs.KeySink.answeringInBatches(
            t.store.batchSize(),
            (lines, batch) -> {
              long[] estimates = estimateAll.apply(batch);
              for (int i = 0; i < batch.size(); i++) {
                answer.answer(batch.get(i), 0, batch.get(i).length, estimates[i]);
              }
            },
            null,
            out));
  }

  // ---- hll

  @Override
  public int createHll(CardinalitySketch empty, boolean force, Keys in) throws IOException {
    boolean ultra = empty.type() == StructureType.ULTRA_LOG_LOG;
    int precision = empty.precision();
    with(
        t -> {
          replace(t, force);
          if (ultra) {
            RedisCardinalitySketch.createUltraLogLog(
                t.store, t.name, precision, RedisOptions.defaults());
          } else {
            RedisCardinalitySketch.createHyperLogLog(
                t.store, t.name, precision, RedisOptions.defaults());
          }
          return 0;
        });
    return in.from() == null ? 0 : addToHll(itemsOf(in));
  }

  @Override
  public int addToHll(Keys in) throws IOException {
    return with(
        t -> {
          if (holdsNativeHll(t)) {
            // PFADD, as any other client of the key adds: the key stays Redis's own.
            byte[] key = t.name.getBytes(StandardCharsets.UTF_8);
            batches(
                t,
                in.from(),
                in.given(),
                in.spec(),
                keys -> t.store.jedis().pfadd(key, keys.toArray(new byte[0][])));
            return 0;
          }
          RedisCardinalitySketch s = RedisCardinalitySketch.open(t.store, t.name);
          batches(t, in.from(), in.given(), in.spec(), s::addAll);
          return 0;
        });
  }

  /** The library's sketch of the registers of a sketch in Redis (for count and merge). */
  @Override
  public CardinalitySketch readCardinality() {
    try {
      return with(
          t -> {
            if (holdsNativeHll(t)) {
              try {
                return RedisNativeHyperLogLog.of(t.store, t.name).toSketch();
              } catch (SketchFormatException e) {
                throw new CliException(uri + ": " + e.getMessage(), e);
              }
            }
            return RedisCardinalitySketch.open(t.store, t.name).toSketch();
          });
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /**
   * {@code hll merge} into Redis's own HyperLogLog: the union's registers PFMERGEd in by one script
   * ({@link RedisNativeHyperLogLog#merge}), so the key stays the HYLL string every client shares;
   * with {@code replace}, the key is deleted first. A union of another hashing or a precision below
   * 14 is refused in one line before anything is written.
   */
  private int mergeIntoNative(Target t, CardinalitySketch union, boolean replace) {
    if (!(union instanceof HyperLogLog)) {
      throw new CliException(
          uri
              + ": Redis's own HyperLogLog takes HyperLogLog registers, not a "
              + union.type().label());
    }
    HyperLogLog h = (HyperLogLog) union;
    try {
      RedisHyperLogLogFormat.write(h); // refuses another hashing or precision before any write
    } catch (IllegalArgumentException e) {
      throw new CliException(uri + ": " + e.getMessage(), e);
    }
    if (replace) {
      t.store.jedis().del(t.name);
    }
    RedisNativeHyperLogLog.of(t.store, t.name).merge(h);
    return 0;
  }

  /**
   * Whether the URI's key is Redis's own HyperLogLog, the {@code HYLL} string {@code PFADD} built
   * (by any client), rather than a probkit structure: no probkit structure has that name, and a key
   * of that name exists. Its registers are read as they are; a string that is not a HYLL is refused
   * by the reader.
   */
  private static boolean holdsNativeHll(Target t) {
    return !t.store.exists(t.name) && t.store.jedis().exists(t.name);
  }

  /**
   * Merges the sketch files {@code sources} into the sketch in Redis (created like the first when
   * missing).
   */
  /**
   * {@code hll merge} into a sketch in Redis: the union of {@code sources} (files or URIs, at the
   * lowest of their precisions) merged in place, register by register, by one atomic script. A
   * missing DEST (or, with {@code replace}, the one deleted) is created as that union, with the
   * default layout (one shard). A sketch of another type, precision or hashing is refused before
   * anything is written.
   */
  @Override
  public int mergeHll(List<Path> sources, boolean replace, WriteOptions writing)
      throws IOException {
    CardinalitySketch union = Merges.union(sources);
    if (with(RedisLocation::holdsNativeHll)) {
      return with(t -> mergeIntoNative(t, union, replace));
    }
    return mergeInto(
        sources.get(0),
        replace,
        union::writeTo,
        s -> {
          if (!(s instanceof RedisCardinalitySketch)) {
            throw new CliException(uri + ": a " + s.describe() + ", not a cardinality sketch");
          }
          RedisCardinalitySketch c = (RedisCardinalitySketch) s;
          if (union.type() != c.type()
              || union.precision() != c.precision()
              || !union.hashStrategy().equals(c.hashStrategy())) {
            throw new IllegalArgumentException(
                String.format(
                    Locale.ROOT,
                    "cannot merge a %s of precision %d and %s into '%s', a %s",
                    union.type().label(),
                    union.precision(),
                    union.hashStrategy(),
                    c.name(),
                    c.describe()));
          }
          return () -> c.merge(union);
        });
  }

  // ---- merge

  /** The structure a URI names, read whole (its export) by {@code reader}: a merge's SRC. */
  @Override
  @SuppressWarnings("unchecked")
  public <T> T read(Format.Kind<T> kind) {
    if (kind == Format.Kind.CARDINALITY) {
      return (T) readCardinality(); // also Redis's own HyperLogLog at the key
    }
    try {
      return with(
          t -> {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            t.store.open(t.name).exportTo(bytes);
            // Redis keeps a structure as probkit's bytes, whatever format it came from.
            return ProbkitFormat.INSTANCE.read(new ByteArrayInputStream(bytes.toByteArray()), kind);
          });
    } catch (IOException e) {
      throw new CliException(CliException.describe(uri, e), e);
    }
  }

  /**
   * {@code filter merge} into a filter in Redis: the union of {@code sources} (files or URIs, each
   * read whole) ORed into a Bloom or blocked filter, or added into a counting filter, in place.
   */
  @Override
  public int mergeFilters(
      List<Path> sources, boolean replace, CommandSpec spec, WriteOptions writing)
      throws IOException {
    refuseDestination(sources, replace);
    MembershipFilter union = Merges.merge(sources);
    return mergeInto(
        sources.get(0),
        replace,
        union::writeTo,
        s -> {
          if (s instanceof RedisBloomFilter) {
            RedisBloomFilter b = (RedisBloomFilter) s;
            b.checkMergeable(union);
            return () -> b.merge(union);
          }
          if (s instanceof RedisCountingBloomFilter && union instanceof CountingBloomFilter) {
            RedisCountingBloomFilter c = (RedisCountingBloomFilter) s;
            c.checkMergeable((CountingBloomFilter) union);
            return () -> c.merge((CountingBloomFilter) union);
          }
          if (s instanceof RedisCountingBloomFilter) {
            throw new IllegalArgumentException(
                "cannot merge a "
                    + union.type().label()
                    + " filter into '"
                    + s.name()
                    + "', a "
                    + s.describe());
          }
          throw new CliException(
              uri
                  + ": a "
                  + s.describe()
                  + "; merging into Redis is supported for bloom, blocked and counting filters");
        });
  }

  /** {@code cms merge} into a sketch in Redis: the sum of {@code sources} added in place. */
  @Override
  public int mergeCms(List<Path> sources, boolean replace, WriteOptions writing)
      throws IOException {
    refuseDestination(sources, replace);
    if (Merges.windowed(sources)) {
      WindowedCountMin windows = Merges.sumWindowed(sources);
      return mergeInto(
          sources.get(0),
          replace,
          windows::writeTo,
          s -> {
            RedisWindowedCountMin w = mergeTarget(s, RedisWindowedCountMin.class, "a windowed");
            w.checkMergeable(windows);
            return () -> w.merge(windows);
          });
    }
    CountMinSketch sum = Merges.sum(sources);
    return mergeInto(
        sources.get(0),
        replace,
        sum::writeTo,
        s -> {
          if (s instanceof RedisWindowedCountMin) {
            throw Merges.notWindowed(Location.of(sources.get(0)), this);
          }
          RedisCountMinSketch c = mergeTarget(s, RedisCountMinSketch.class, "a");
          c.checkMergeable(sum);
          return () -> c.merge(sum);
        });
  }

  /** {@code s} as the count-min sketch of {@code type} a merge adds to, or its refusal. */
  private <T extends RedisStructure> T mergeTarget(RedisStructure s, Class<T> type, String a) {
    if (!type.isInstance(s)) {
      throw new CliException(uri + ": a " + s.describe() + ", not " + a + " count-min sketch");
    }
    return type.cast(s);
  }

  /**
   * Refuses a source that is the destination itself, as for files (counts would add twice). Two
   * URIs may name one structure in many ways (127.0.0.1 or localhost, db 0 or none, a replica): the
   * structures' ids, random per creation, decide.
   */
  private void refuseDestination(List<Path> sources, boolean replace) throws IOException {
    if (replace) {
      return;
    }
    String dest = null;
    for (Path src : sources) {
      String other = RedisUri.of(src);
      if (uri.equals(other)) {
        throw SketchFiles.includedAlready(other);
      }
      if (other != null) {
        dest = dest != null ? dest : with(t -> t.store.exists(t.name) ? id(t) : "");
        if (!dest.isEmpty() && dest.equals(with(other, RedisLocation::id))) {
          throw SketchFiles.includedAlready(other);
        }
      }
    }
  }

  private static String id(Target t) {
    return t.store.open(t.name).id();
  }

  /** What a merge does to an existing structure, once {@link Merger#check} has accepted it. */
  interface Merger {
    Runnable check(RedisStructure dest);
  }

  /**
   * Merges {@code union} (the sources' union, already read, in the library) into the structure
   * {@code p} names: a missing one (or, with {@code replace}, the one deleted) is created from it;
   * an existing one is checked, before anything is written, and merged in place.
   */
  private int mergeInto(Path firstSource, boolean replace, SketchFiles.Content union, Merger merger)
      throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    union.write(bytes);
    return with(
        t -> {
          if (replace) {
            t.store.delete(t.name);
          }
          if (!t.store.exists(t.name)) {
            try {
              t.store.importFrom(
                  t.name, new ByteArrayInputStream(bytes.toByteArray()), RedisOptions.defaults());
              return 0;
            } catch (RedisStoreException e) {
              if (!t.store.exists(t.name)) {
                throw e;
              }
              // another client created it meanwhile: merge into that one
            }
          }
          Runnable merge;
          try {
            merge = merger.check(t.store.open(t.name));
          } catch (IllegalArgumentException e) {
            throw new CliException(
                Location.of(firstSource) + ": " + e.getMessage() + "; nothing was changed");
          }
          merge.run();
          return 0;
        });
  }

  // ---- windowed structures (time slices): probkit-redis's, one Redis string per slice

  /**
   * A window filter of time, shaped as the library's {@code empty} (the same sizing from its
   * window, keys per window and rate, so that the export is that file's bytes), filled with the
   * keys of {@code in} at their times. A window of a count of keys is refused: a fleet of writers
   * has no common count of adds.
   */
  @Override
  public int createWindowFilter(
      AgePartitionedBloomFilter empty, boolean force, Keys in, Duration maxSkew)
      throws IOException {
    if (!empty.timeBased()) {
      throw new IllegalArgumentException(
          "a window filter in Redis is a window of time (--window 7d): writers sharing it have no"
              + " common count of keys, was --window "
              + empty.window());
    }
    RedisOptions o = skewed(maxSkew).hash(empty.hashStrategy());
    return with(
        t -> {
          replace(t, force);
          RedisWindowedBloomFilter.create(
              t.store,
              t.name,
              Duration.ofMillis(empty.requestedWindow()),
              empty.generationKeys() * empty.survivingGenerations(),
              empty.targetFpp(),
              o);
          return in.from() == null
              ? 0
              : filterAdd(t, List.of(), in.from(), false, false, in.spec());
        });
  }

  /** The options of a new window: probkit-redis's default skew unless --max-skew gave one. */
  private static RedisOptions skewed(Duration maxSkew) {
    return maxSkew == null ? RedisOptions.defaults() : RedisOptions.defaults().maxSkew(maxSkew);
  }

  /** As {@link #batches}, each key with its time: the clock's, or that of {@code --time-field}. */
  private static void timedBatches(
      Target t, KeyOptions from, List<String> keys, CommandSpec spec, TimedBatch batch)
      throws IOException {
    int size = t.store.batchSize();
    List<byte[]> pending = new ArrayList<>(size);
    long[] times = new long[size];
    TimedKeys.forEach(
        keys,
        from,
        spec,
        (buf, off, len, time) -> {
          times[pending.size()] = time;
          pending.add(Arrays.copyOfRange(buf, off, off + len));
          if (pending.size() == size) {
            batch.accept(pending, times);
            pending.clear();
          }
        });
    if (!pending.isEmpty()) {
      batch.accept(pending, Arrays.copyOf(times, pending.size()));
    }
  }

  interface TimedBatch {
    void accept(List<byte[]> keys, long[] timesMillis);
  }

  /**
   * For each key of {@code batch}, whether the window filter holds it at its time: the keys of one
   * generation (the unit of time the filter answers in) go in one round trip.
   */
  private static boolean[] windowQuery(
      RedisWindowedBloomFilter w, List<byte[]> batch, long[] timesMillis) {
    boolean[] out = new boolean[batch.size()];
    Map<Long, List<Integer>> byGeneration = new LinkedHashMap<>();
    for (int i = 0; i < batch.size(); i++) {
      long g = Math.floorDiv(timesMillis[i], w.generationMillis());
      byGeneration.computeIfAbsent(g, x -> new ArrayList<>()).add(i);
    }
    for (Map.Entry<Long, List<Integer>> e : byGeneration.entrySet()) {
      List<byte[]> keys = new ArrayList<>(e.getValue().size());
      for (int i : e.getValue()) {
        keys.add(batch.get(i));
      }
      boolean[] in = w.mightContainAll(keys, timesMillis[e.getValue().get(0)]);
      for (int j = 0; j < in.length; j++) {
        out[e.getValue().get(j)] = in[j];
      }
    }
    return out;
  }

  /**
   * A windowed distinct count shaped as the library's {@code empty}: its slices, window, and sketch
   * type and precision, so that the export is that file's bytes.
   */
  @Override
  public int createWindowedHll(WindowedCardinality empty, boolean force, Keys in, Duration maxSkew)
      throws IOException {
    // An empty ring's sketch of any window is its empty sketch: the type and precision asked for.
    CardinalitySketch sketch = empty.sketchOfLast(Duration.ZERO, 0);
    with(
        t -> {
          replace(t, force);
          RedisWindowedCardinality.create(
              t.store,
              t.name,
              windowOf(empty.sliceCount(), empty.sliceMillis()),
              Duration.ofMillis(empty.sliceMillis()),
              sketch.type() == StructureType.ULTRA_LOG_LOG,
              sketch.precision(),
              skewed(maxSkew));
          return 0;
        });
    return in.from() == null ? 0 : addToWindowedHll(itemsOf(in));
  }

  @Override
  public int addToWindowedHll(Keys in) throws IOException {
    return with(
        t -> {
          RedisWindowedCardinality w = RedisWindowedCardinality.open(t.store, t.name);
          timedBatches(t, in.from(), in.given(), in.spec(), w::addAll);
          return 0;
        });
  }

  /**
   * A windowed count-min sketch shaped as the library's {@code empty}: its slices, window, width,
   * depth and hashing, so that the export is that file's bytes. Slices in Redis take the standard
   * update only (a conservative add reads before it writes, which many writers cannot share).
   */
  @Override
  public CardinalitySketch windowedHllOf(Window window) {
    try {
      return with(
          t -> {
            RedisWindowedCardinality w = RedisWindowedCardinality.open(t.store, t.name);
            return w.sketchOfLast(window.spanOf(w.sliceCount(), w.sliceMillis()), window.end());
          });
    } catch (IOException e) {
      throw new CliException(CliException.describe(uri, e), e);
    }
  }

  @Override
  public int createWindowedCms(WindowedCountMin empty, boolean force, Keys in, Duration maxSkew)
      throws IOException {
    CountMinSketch slice = empty.sketchOfLast(Duration.ZERO, 0);
    if (slice.isConservative()) {
      throw new IllegalArgumentException(
          "--conservative is not kept by a window in Redis (its slices take standard adds from"
              + " many writers); drop it, or keep the window in a file");
    }
    with(
        t -> {
          replace(t, force);
          RedisWindowedCountMin.create(
              t.store,
              t.name,
              windowOf(empty.sliceCount(), empty.sliceMillis()),
              Duration.ofMillis(empty.sliceMillis()),
              slice.width(),
              slice.depth(),
              skewed(maxSkew).hash(slice.hashStrategy()));
          return 0;
        });
    return in.from() == null ? 0 : addToWindowedCms(itemsOf(in));
  }

  @Override
  public int addToWindowedCms(Keys in) throws IOException {
    return with(
        t -> {
          RedisWindowedCountMin w = RedisWindowedCountMin.open(t.store, t.name);
          timedBatches(
              t,
              in.from(),
              in.given(),
              in.spec(),
              (keys, times) -> {
                long[] ones = new long[keys.size()];
                Arrays.fill(ones, 1);
                w.addAll(keys, ones, times);
              });
          return 0;
        });
  }

  /**
   * The events of {@code top --window --save redis://...}, in batches, into a window shaped as the
   * command's: every writer of a fleet running the same command shares it.
   */
  @Override
  public WindowSave saveWindowedTop(boolean force, WriteOptions writing, Duration maxSkew) {
    Target t;
    try {
      t = new Target(uri);
    } catch (RedisStoreException e) {
      throw new CliException(e.getMessage());
    }
    int size = t.store.batchSize();
    List<byte[]> pending = new ArrayList<>(size);
    long[] times = new long[size];
    RedisWindowedHeavyHitters[] w = {null};
    return new WindowSave() {
      @Override
      public void start(WindowedHeavyHitters empty) {
        try {
          replace(t, force);
          w[0] =
              RedisWindowedHeavyHitters.create(
                  t.store,
                  t.name,
                  windowOf(empty.sliceCount(), empty.sliceMillis()),
                  Duration.ofMillis(empty.sliceMillis()),
                  empty.capacity(),
                  skewed(maxSkew).openIfExists(true));
        } catch (RedisStoreException e) {
          throw new CliException(e.getMessage());
        }
      }

      @Override
      public void add(byte[] item, int off, int len, long timeMillis) {
        times[pending.size()] = timeMillis;
        pending.add(Arrays.copyOfRange(item, off, off + len));
        if (pending.size() == size) {
          flush();
        }
      }

      private void flush() {
        if (pending.isEmpty()) {
          return;
        }
        long[] ones = new long[pending.size()];
        Arrays.fill(ones, 1);
        try {
          w[0].addAll(pending, ones, Arrays.copyOf(times, pending.size()));
        } catch (RedisStoreException e) {
          throw new CliException(e.getMessage());
        }
        pending.clear();
      }

      @Override
      public void finish(WindowedHeavyHitters counted) {
        flush();
      }

      @Override
      public void close() {
        t.close();
      }
    };
  }

  // ---- export and import

  /**
   * Writes the structure as a probkit file, as every command writes its files ({@link SketchFiles}:
   * locked, through a temporary file, fsync and a rename; an existing file only with {@code
   * force}).
   */
  @Override
  public int exportTo(Path file, boolean force, PrintWriter err) throws IOException {
    try (SketchFiles.Lock lock = SketchFiles.lockNew(file, force, true, err)) {
      return with(
          t -> {
            RedisStructure s = t.store.open(t.name);
            lock.write(s::exportTo);
            return 0;
          });
    }
  }

  /**
   * Publishes a probkit file as the structure in Redis, validated whole before anything is written.
   */
  @Override
  public int importFrom(Path file, boolean force, boolean spread, int shards) throws IOException {
    RedisOptions o = RedisOptions.defaults().layout(spread ? Layout.SPREAD : Layout.SLOT);
    if (shards > 0) {
      o = o.shards(shards);
    }
    RedisOptions options = o;
    return with(
        t -> {
          try (InputStream in = new BufferedInputStream(Files.newInputStream(file), 1 << 16)) {
            replace(t, force);
            t.store.importFrom(t.name, in, options);
          }
          return 0;
        });
  }
}
