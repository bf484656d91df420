package io.github.probkit.cli.location;

import io.github.probkit.cardinality.CardinalitySketch;
import io.github.probkit.cardinality.WindowedCardinality;
import io.github.probkit.cli.format.Format;
import io.github.probkit.cli.input.Inputs;
import io.github.probkit.cli.input.KeyOptions;
import io.github.probkit.cli.input.LineReader;
import io.github.probkit.cli.output.Json;
import io.github.probkit.filter.AgePartitionedBloomFilter;
import io.github.probkit.frequency.CountMinSketch;
import io.github.probkit.frequency.WindowedCountMin;
import io.github.probkit.frequency.WindowedHeavyHitters;
import io.github.probkit.hash.HashStrategy;
import io.github.probkit.io.StructureType;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Where a structure lives: a probkit file ({@link FileLocation}) or a key in Redis ({@link
 * RedisLocation}). The commands are written once against this interface; {@link #of} is the one
 * place that tells a {@code redis://} URI from a file name.
 *
 * <p>Each operation runs under the location's own exclusion: a file's lock and its atomic rename,
 * Redis's atomic scripts. What a location cannot hold it refuses with one line.
 */
public interface Location {
  /**
   * The location a command's FILE argument names. A file never loads a class of probkit-redis or
   * Jedis: {@link RedisLocation} is only reached for a URI.
   */
  static Location of(Path p) {
    String uri = RedisUri.of(p);
    return uri == null ? new FileLocation(p) : RedisLocation.of(p, uri);
  }

  /** The location as messages name it. */
  @Override
  String toString();

  /** The structure, of {@code kind}, read whole. */
  <T> T read(Format.Kind<T> kind);

  /** Runs the reading of a command's keys with a sink; returns the exit status. */
  interface Reading {
    int run(Inputs.KeySink sink) throws IOException;
  }

  /** A filter's answer for one line and its key. */
  interface FilterAnswer {
    void answer(byte[] line, int off, int len, byte[] key, int keyOff, int keyLen, boolean present)
        throws IOException;
  }

  /** A count-min sketch's estimate for one item. */
  interface CountAnswer {
    void answer(byte[] item, int off, int len, long estimate) throws IOException;
  }

  /** Fills a structure made in memory with a command's keys. */
  interface Fill<S> {
    void into(S structure) throws IOException;
  }

  /**
   * What {@code filter create} asks for: {@code fpp} as given (null when not), {@code typedFpp} as
   * typed, {@code checkedFpp} the rate to build with.
   */
  record FilterShape(
      String type,
      Long expected,
      Double fpp,
      String typedFpp,
      double checkedFpp,
      HashStrategy hash) {}

  /**
   * A command's keys or items: its arguments, where the rest come from ({@code from}; null for a
   * create that reads none), its spec (stdin, stderr) and how it locks a file.
   */
  record Keys(List<String> given, KeyOptions from, CommandSpec spec, WriteOptions writing) {}

  // ---- filters

  int createFilter(FilterShape shape, boolean force, boolean ifAbsent, Keys in) throws IOException;

  int addToFilter(Keys in, boolean multiset, boolean ifAbsent) throws IOException;

  int removeFromFilter(Keys in) throws IOException;

  /** The time of a key, in ms since the epoch, from its line. */
  interface LineTime {
    long of(byte[] line, int off, int len);
  }

  /**
   * When a window filter of time answers each key: at the time {@code of} its line gives, a fixed
   * one for {@code --at}, the line's own for {@code --time-field}. {@code option} names it in the
   * refusal of a filter that has no time.
   */
  record QueryTime(String option, LineTime of) {}

  /**
   * Answers the keys that {@code reading} reads through {@code answer}: the header line of each
   * input to {@code header} (may be null), {@code out} flushed whenever input would wait; a window
   * filter of time answers for {@code time} (null: now).
   */
  int queryFilter(
      FilterAnswer answer,
      LineReader.LineConsumer header,
      OutputStream out,
      Reading reading,
      QueryTime time)
      throws IOException;

  /** Merges the filters {@code sources} into this one (see {@code filter merge --help}). */
  int mergeFilters(List<Path> sources, boolean replace, CommandSpec spec, WriteOptions writing)
      throws IOException;

  // ---- count-min sketches

  /**
   * What {@code cms create} asks for: {@code width} by {@code depth}, and the same sketch made in
   * memory (for a file) by {@code inMemory}.
   */
  record CmsShape(
      int width,
      int depth,
      boolean conservative,
      HashStrategy hash,
      java.util.function.Supplier<CountMinSketch> inMemory) {}

  /**
   * Creates the sketch, then counts the items {@code fill} counts (lines ITEM TAB COUNT: counts).
   */
  int createCms(CmsShape shape, boolean force, boolean counts, Fill<CountMinSketch> fill, Keys in)
      throws IOException;

  int addToCms(Keys in, boolean counts, Fill<CountMinSketch> fill) throws IOException;

  int queryCms(CountAnswer answer, OutputStream out, Reading reading) throws IOException;

  int mergeCms(List<Path> sources, boolean replace, WriteOptions writing) throws IOException;

  /**
   * The window a query of a windowed structure asks for: its span, given the longest window the
   * structure keeps in ms (a longer one refused), and its end in ms since the epoch.
   */
  record Window(java.util.function.LongFunction<Duration> span, long end) {
    /** The span asked for, of a ring of {@code sliceCount} slices of {@code sliceMillis}. */
    public Duration spanOf(int sliceCount, long sliceMillis) {
      return span.apply(longestWindowMillis(sliceCount, sliceMillis));
    }
  }

  /**
   * The longest window a ring of {@code sliceCount} slices answers, in ms: one slice fewer, as the
   * ring keeps a slot more for the slice a window's start falls in (SliceRing.slotsFor).
   */
  static long longestWindowMillis(int sliceCount, long sliceMillis) {
    return (sliceCount - 1) * sliceMillis;
  }

  /**
   * As {@link #queryCms}, each item's estimate over {@code window} of the windowed count-min here:
   * the sum of its slices' estimates, never below its count there. Redis answers from its own
   * slices, the grace slices for clock skew included.
   */
  int queryWindowedCms(CountAnswer answer, OutputStream out, Reading reading, Window window)
      throws IOException;

  // ---- cardinality sketches

  /** The sketch, for a count or a merge. */
  CardinalitySketch readCardinality();

  /** Creates {@code empty} (its type and precision) with its items. */
  int createHll(CardinalitySketch empty, boolean force, Keys in) throws IOException;

  int addToHll(Keys in) throws IOException;

  int mergeHll(List<Path> sources, boolean replace, WriteOptions writing) throws IOException;

  // ---- windowed structures (time slices)

  /**
   * Creates the window filter {@code empty} (filter create --type window) with the keys of {@code
   * in}, each at its time (the caller has refused --multiset and --if-absent, as for a Bloom
   * filter). {@code maxSkew} (null: not given) is how far apart its writers' clocks may be: Redis
   * keeps slices for it, a file (one writer at a time) refuses it; the same for each window below.
   */
  int createWindowFilter(AgePartitionedBloomFilter empty, boolean force, Keys in, Duration maxSkew)
      throws IOException;

  /** Creates the windowed distinct count {@code empty} (hll create --window) with its items. */
  int createWindowedHll(WindowedCardinality empty, boolean force, Keys in, Duration maxSkew)
      throws IOException;

  /** Adds items, each at its time, to the windowed distinct count here. */
  int addToWindowedHll(Keys in) throws IOException;

  /**
   * The sketch of {@code window} of the windowed distinct count here, its slices merged; Redis's
   * from its own slices, the grace slices for clock skew included.
   */
  CardinalitySketch windowedHllOf(Window window);

  /**
   * Creates the windowed count-min sketch {@code empty} (cms create --window) with its items, each
   * at its time.
   */
  int createWindowedCms(WindowedCountMin empty, boolean force, Keys in, Duration maxSkew)
      throws IOException;

  /** Counts items, each at its time, into the windowed count-min sketch here. */
  int addToWindowedCms(Keys in) throws IOException;

  /**
   * Where {@code top --window --save} keeps the window it counts. A file is locked now (an existing
   * one refused without {@code force}) and written whole at the end. Redis gets the events as they
   * are read, into a window a fleet of writers may share: created when absent, added to when it has
   * the same shape, replaced with {@code force}, refused when it has another shape. {@code maxSkew}
   * (null: not given) as for the windows above.
   */
  WindowSave saveWindowedTop(boolean force, WriteOptions writing, Duration maxSkew);

  /** The window of a {@code top --window --save}, fed as its input is read. */
  interface WindowSave extends AutoCloseable {
    /** Before the first event: the shape of the window ({@code empty} has no events yet). */
    void start(WindowedHeavyHitters empty);

    /** One occurrence of the item at its time. */
    void add(byte[] item, int off, int len, long timeMillis);

    /** After the last event: {@code counted} is the window of the whole input. */
    void finish(WindowedHeavyHitters counted);

    @Override
    void close();
  }

  // ---- any structure

  /**
   * The type of the structure here; null when it is not known (not a probkit file, or not a regular
   * file: the command's reader then says why).
   */
  StructureType type();

  /** What {@code info} prints; a file's is {@code description}'s. */
  Json info(Description description, boolean json) throws IOException;

  /** A command's description of the structure in a file. */
  interface Description {
    Json of(Path file, boolean json);
  }

  /** Writes the structure to the probkit file {@code file} ({@code probkit export}). */
  int exportTo(Path file, boolean force, PrintWriter err) throws IOException;

  /** Publishes the probkit file {@code file} here ({@code probkit import}). */
  int importFrom(Path file, boolean force, boolean spread, int shards) throws IOException;
}
