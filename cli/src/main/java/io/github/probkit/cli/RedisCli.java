package io.github.probkit.cli;

import io.github.probkit.filter.CountingBloomFilter;
import io.github.probkit.filter.MembershipFilter;
import io.github.probkit.frequency.CountMinSketch;
import io.github.probkit.hash.HashStrategy;
import io.github.probkit.redis.Layout;
import io.github.probkit.redis.RedisBloomFilter;
import io.github.probkit.redis.RedisCardinalitySketch;
import io.github.probkit.redis.RedisCountMinSketch;
import io.github.probkit.redis.RedisCountingBloomFilter;
import io.github.probkit.redis.RedisOptions;
import io.github.probkit.redis.RedisScalableBloomFilter;
import io.github.probkit.redis.RedisStore;
import io.github.probkit.redis.RedisStoreException;
import io.github.probkit.redis.RedisStructure;
import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * The commands' side of {@code redis://[user@]host[:port][/db]/KEY} (and {@code rediss://})
 * wherever they take a file: the structure KEY in that Redis, through probkit-redis. The password
 * comes from the URI or from {@code PROBKIT_REDIS_PASSWORD}, never from an option.
 *
 * <p>Every reference to probkit-redis and Jedis is in this class, which the commands call only for
 * such a URI ({@link RedisUri} tells): a run on files never loads them, and starts as fast as
 * before.
 */
final class RedisCli {
  static final String PASSWORD_ENV = "PROBKIT_REDIS_PASSWORD";

  private RedisCli() {}

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
  private static <T> T with(Path p, Work<T> work) throws IOException {
    try (Target t = new Target(RedisUri.of(p))) {
      return work.run(t);
    } catch (RedisStoreException e) {
      throw new CliException(e.getMessage());
    }
  }

  interface Batch {
    void accept(List<byte[]> keys);
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

  /**
   * {@code uri} for a warning: {@code redis://user:secret@host/k} as {@code redis://user@host/k}.
   */
  static String withoutPassword(String uri) {
    return uri.replaceFirst("^(rediss?://[^:@/]*):[^@/]*@", "$1@");
  }

  /** Deletes the structure when {@code force}, as {@code --force} replaces a file. */
  private static void replace(Target t, boolean force) {
    if (force) {
      t.store.delete(t.name);
    }
  }

  // ---- filter

  static int filterCreate(
      Path p,
      String type,
      Long expected,
      double fpp,
      HashStrategy hash,
      boolean force,
      KeyOptions from,
      boolean ifAbsent,
      CommandSpec spec)
      throws IOException {
    if (expected == null) {
      throw new IllegalArgumentException(
          "missing required option --expected=N (needed by --type " + type + ")");
    }
    RedisOptions o = RedisOptions.defaults().hash(hash);
    return with(
        p,
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
                  "a filter in Redis is of --type bloom, blocked, counting or scalable, was "
                      + type);
          }
          return filterAdd(t, List.of(), from, false, ifAbsent, spec);
        });
  }

  static int filterAdd(
      Path p,
      List<String> keys,
      KeyOptions from,
      boolean multiset,
      boolean ifAbsent,
      CommandSpec spec)
      throws IOException {
    return with(p, t -> filterAdd(t, keys, from, multiset, ifAbsent, spec));
  }

  /**
   * Adds the keys as {@link FilterCommand#addKeys} adds them to a file: a counting filter counts
   * every add unless {@code ifAbsent}, and names the keys whose counters saturate.
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
    FilterCommand.ifAbsent(
        multiset,
        ifAbsent,
        s instanceof RedisCountingBloomFilter,
        "a " + s.type().label() + " filter");
    FilterCommand.Saturated saturated =
        new FilterCommand.Saturated(withoutPassword(t.uri), spec.commandLine().getErr());
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
      FilterCommand.Saturated saturated) {
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

  /** A structure in Redis that answers a batch of keys with one round trip. */
  interface BatchQuery<R> {
    int batchSize();

    R query(List<byte[]> keys);
  }

  /** What a query command does with a {@link BatchQuery}: reads its keys and prints the answers. */
  interface Answering<R> {
    int run(BatchQuery<R> structure) throws IOException;
  }

  private static <R> BatchQuery<R> batchQuery(
      Target t, java.util.function.Function<List<byte[]>, R> query) {
    int size = t.store.batchSize();
    return new BatchQuery<>() {
      @Override
      public int batchSize() {
        return size;
      }

      @Override
      public R query(List<byte[]> keys) {
        return query.apply(keys);
      }
    };
  }

  /** Runs a filter query against the URI's filter; the command prints the answers. */
  static int filterQuery(Path p, Answering<boolean[]> command) throws IOException {
    return with(
        p,
        t -> {
          RedisStructure s = t.store.open(t.name);
          java.util.function.Function<List<byte[]>, boolean[]> query;
          if (s instanceof RedisBloomFilter) {
            query = ((RedisBloomFilter) s)::mightContainAll;
          } else if (s instanceof RedisScalableBloomFilter) {
            query = ((RedisScalableBloomFilter) s)::mightContainAll;
          } else if (s instanceof RedisCountingBloomFilter) {
            query = ((RedisCountingBloomFilter) s)::mightContainAll;
          } else {
            throw new CliException(t.uri + ": a " + s.type().label() + ", not a filter");
          }
          return command.run(batchQuery(t, query));
        });
  }

  static int filterRemove(Path p, List<String> keys, KeyOptions from, CommandSpec spec)
      throws IOException {
    long[] removed = {0};
    long[] stayed = {0};
    FilterCommand.Saturated saturated =
        new FilterCommand.Saturated(withoutPassword(RedisUri.of(p)), spec.commandLine().getErr());
    long total;
    try {
      total =
          with(
              p,
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
                    from,
                    keys,
                    spec,
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
    FilterCommand.summary(spec, removed[0], stayed[0], total);
    return 0;
  }

  /** {@code info} of any structure in Redis: its shape, its keys there and their memory. */
  static Json info(Path p) throws IOException {
    return with(
        p,
        t -> {
          RedisStructure s = t.store.open(t.name);
          Json j = new Json().put("type", s.type().label()).put("structure", s.describe());
          if (s instanceof RedisBloomFilter) {
            RedisBloomFilter b = (RedisBloomFilter) s;
            j.put("bits", b.bitSize())
                .put("hashes", b.hashCount())
                .put("expectedKeys", b.expectedKeys())
                .put("fpp", b.targetFpp())
                .put("bitsSet", b.bitCount());
          } else if (s instanceof RedisCountMinSketch) {
            RedisCountMinSketch c = (RedisCountMinSketch) s;
            j.put("width", c.width())
                .put("depth", c.depth())
                .put("updateRule", c.isConservative() ? "conservative" : "standard")
                .put("totalCount", c.totalCount());
          } else if (s instanceof RedisCardinalitySketch) {
            RedisCardinalitySketch c = (RedisCardinalitySketch) s;
            j.put("precision", c.precision()).put("estimate", Math.round(c.estimate()));
          } else if (s instanceof RedisScalableBloomFilter) {
            j.put("layers", ((RedisScalableBloomFilter) s).layerCount());
          }
          return j.put("bytes", s.byteSize())
              .put("redisKeys", String.join(" ", s.redisKeys()))
              .put("memoryUsage", s.memoryUsage())
              .put("layout", s.layout().name().toLowerCase(Locale.ROOT))
              .put("server", t.store.server());
        });
  }

  // ---- cms

  static int cmsCreate(
      Path p, int width, int depth, boolean conservative, HashStrategy hash, boolean force)
      throws IOException {
    return with(
        p,
        t -> {
          replace(t, force);
          RedisCountMinSketch.create(
              t.store, t.name, width, depth, conservative, RedisOptions.defaults().hash(hash));
          return 0;
        });
  }

  static int cmsAdd(Path p, List<String> items, KeyOptions from, CommandSpec spec)
      throws IOException {
    return with(
        p,
        t -> {
          RedisCountMinSketch s = RedisCountMinSketch.open(t.store, t.name);
          batches(t, from, items, spec, s::addAll);
          return 0;
        });
  }

  /** {@code cms add --counts}: each line's item and count, a pipeline round trip per batch. */
  static int cmsAddCounts(Path p, List<String> items, KeyOptions from, CommandSpec spec)
      throws IOException {
    return with(
        p,
        t -> {
          RedisCountMinSketch s = RedisCountMinSketch.open(t.store, t.name);
          int size = t.store.batchSize();
          // Arrays hash by identity: each line stays its own entry, repeated items included.
          Map<byte[], Long> pending = new LinkedHashMap<>();
          from.forEach(
              items,
              spec,
              CmsCommand.counted(
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

  /** Runs a count-min query against the URI's sketch; the command prints the answers. */
  static int cmsQuery(Path p, Answering<long[]> command) throws IOException {
    return with(
        p, t -> command.run(batchQuery(t, RedisCountMinSketch.open(t.store, t.name)::estimateAll)));
  }

  // ---- hll

  static int hllCreate(Path p, boolean ultra, int precision, boolean force) throws IOException {
    return with(
        p,
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
  }

  static int hllAdd(Path p, List<String> items, KeyOptions from, CommandSpec spec)
      throws IOException {
    return with(
        p,
        t -> {
          RedisCardinalitySketch s = RedisCardinalitySketch.open(t.store, t.name);
          batches(t, from, items, spec, s::addAll);
          return 0;
        });
  }

  /** The library's sketch of the registers of a sketch in Redis (for count and merge). */
  static io.github.probkit.cardinality.CardinalitySketch sketch(Path p) {
    try {
      return with(p, t -> RedisCardinalitySketch.open(t.store, t.name).toSketch());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /**
   * Merges the sketch files {@code sources} into the sketch in Redis (created like the first when
   * missing).
   */
  static int hllMerge(Path p, List<Path> sources) throws IOException {
    return with(
        p,
        t -> {
          for (Path src : sources) {
            RedisCardinalitySketch into = RedisCardinalitySketch.open(t.store, t.name);
            if (RedisUri.is(src)) {
              try (Target other = new Target(RedisUri.of(src))) {
                into.merge(RedisCardinalitySketch.open(other.store, other.name));
              }
            } else {
              into.merge(HllCommand.load(src));
            }
          }
          return 0;
        });
  }

  /**
   * {@code hll merge --replace}: the union of {@code sources} (files or URIs, the DEST among them
   * too), read whole before DEST changes, then written in DEST's place. Between the delete and the
   * import a reader may find DEST missing; the new sketch has the default layout (one shard).
   */
  static int hllReplace(Path p, List<Path> sources) throws IOException {
    ByteArrayOutputStream union = new ByteArrayOutputStream();
    HllCommand.union(sources).writeTo(union);
    return with(
        p,
        t -> {
          t.store.delete(t.name);
          t.store.importFrom(
              t.name, new ByteArrayInputStream(union.toByteArray()), RedisOptions.defaults());
          return 0;
        });
  }

  // ---- merge

  /** The structure a URI names, read whole (its export) by {@code reader}: a merge's SRC. */
  static <T> T read(Path p, SketchFiles.Reader<T> reader) {
    try {
      return with(
          p,
          t -> {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            t.store.open(t.name).exportTo(bytes);
            return reader.read(new ByteArrayInputStream(bytes.toByteArray()));
          });
    } catch (IOException e) {
      throw new CliException(Main.describe(RedisUri.of(p), e), e);
    }
  }

  /**
   * {@code filter merge} into a filter in Redis: the union of {@code sources} (files or URIs, each
   * read whole) ORed into a Bloom or blocked filter, or added into a counting filter, in place.
   */
  static int filterMerge(Path p, List<Path> sources, boolean replace) throws IOException {
    refuseDestination(p, sources, replace);
    MembershipFilter union = FilterCommand.Merge.merge(sources);
    return mergeInto(
        p,
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
              RedisUri.of(p)
                  + ": a "
                  + s.describe()
                  + "; merging into Redis is supported for bloom, blocked and counting filters");
        });
  }

  /** {@code cms merge} into a sketch in Redis: the sum of {@code sources} added in place. */
  static int cmsMerge(Path p, List<Path> sources, boolean replace) throws IOException {
    refuseDestination(p, sources, replace);
    CountMinSketch sum = CmsCommand.Merge.sum(sources);
    return mergeInto(
        p,
        sources.get(0),
        replace,
        sum::writeTo,
        s -> {
          if (!(s instanceof RedisCountMinSketch)) {
            throw new CliException(
                RedisUri.of(p) + ": a " + s.describe() + ", not a count-min sketch");
          }
          RedisCountMinSketch c = (RedisCountMinSketch) s;
          c.checkMergeable(sum);
          return () -> c.merge(sum);
        });
  }

  /**
   * Refuses a source that is the destination itself, as for files (counts would add twice). Two
   * URIs may name one structure in many ways (127.0.0.1 or localhost, db 0 or none, a replica): the
   * structures' ids, random per creation, decide.
   */
  private static void refuseDestination(Path p, List<Path> sources, boolean replace)
      throws IOException {
    if (replace) {
      return;
    }
    String dest = null;
    for (Path src : sources) {
      if (RedisUri.of(p).equals(RedisUri.of(src))) {
        throw SketchFiles.includedAlready(RedisUri.of(src));
      }
      if (RedisUri.is(src)) {
        dest = dest != null ? dest : with(p, t -> t.store.exists(t.name) ? id(t) : "");
        if (!dest.isEmpty() && dest.equals(with(src, RedisCli::id))) {
          throw SketchFiles.includedAlready(RedisUri.of(src));
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
  private static int mergeInto(
      Path p, Path firstSource, boolean replace, SketchFiles.Content union, Merger merger)
      throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    union.write(bytes);
    return with(
        p,
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
            throw new CliException(firstSource + ": " + e.getMessage() + "; nothing was changed");
          }
          merge.run();
          return 0;
        });
  }

  // ---- export and import

  /**
   * Writes the structure as a probkit file, as every command writes its files ({@link SketchFiles}:
   * locked, through a temporary file, fsync and a rename; an existing file only with {@code
   * force}).
   */
  static int export(Path p, Path file, boolean force, PrintWriter err) throws IOException {
    try (SketchFiles.Lock lock = SketchFiles.lockNew(file, force, true, err)) {
      return with(
          p,
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
  static int importFile(Path file, Path p, boolean force, boolean spread, int shards)
      throws IOException {
    RedisOptions o = RedisOptions.defaults().layout(spread ? Layout.SPREAD : Layout.SLOT);
    if (shards > 0) {
      o = o.shards(shards);
    }
    RedisOptions options = o;
    return with(
        p,
        t -> {
          try (InputStream in = new BufferedInputStream(Files.newInputStream(file), 1 << 16)) {
            replace(t, force);
            t.store.importFrom(t.name, in, options);
          }
          return 0;
        });
  }
}
