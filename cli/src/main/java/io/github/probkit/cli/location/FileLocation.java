package io.github.probkit.cli.location;

import io.github.probkit.cardinality.CardinalitySketch;
import io.github.probkit.cardinality.WindowedCardinality;
import io.github.probkit.cli.format.FilterKeys;
import io.github.probkit.cli.format.FilterTypes;
import io.github.probkit.cli.format.Format;
import io.github.probkit.cli.format.ProbkitFormat;
import io.github.probkit.cli.format.WindowFilters;
import io.github.probkit.cli.input.Inputs;
import io.github.probkit.cli.input.LineReader;
import io.github.probkit.cli.input.TimedKeys;
import io.github.probkit.cli.output.CliException;
import io.github.probkit.cli.output.Json;
import io.github.probkit.filter.AgePartitionedBloomFilter;
import io.github.probkit.filter.CountingBloomFilter;
import io.github.probkit.filter.DeletableFilter;
import io.github.probkit.filter.MembershipFilter;
import io.github.probkit.filter.MutableFilter;
import io.github.probkit.frequency.CountMinSketch;
import io.github.probkit.frequency.WindowedCountMin;
import io.github.probkit.frequency.WindowedHeavyHitters;
import io.github.probkit.io.StructureType;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import picocli.CommandLine.Model.CommandSpec;

/**
 * A structure in a probkit file: read whole (or mapped, for a filter's queries), changed in memory
 * and written back through {@link SketchFiles} (locked, a temporary file, fsync and a rename).
 */
final class FileLocation implements Location {
  private final Path file;

  FileLocation(Path file) {
    this.file = file;
  }

  @Override
  public String toString() {
    return file.toString();
  }

  @Override
  public <T> T read(Format.Kind<T> kind) {
    return SketchFiles.read(file, in -> Format.of(in).read(in, kind));
  }

  // ---- filters

  @Override
  public int createFilter(FilterShape shape, boolean force, boolean ifAbsent, Keys in)
      throws IOException {
    if (FilterTypes.isStatic(shape.type())) {
      try (SketchFiles.Lock lock = in.writing().lockNew(file, force)) {
        lock.write(
            FilterTypes.buildStatic(
                    shape.type(),
                    shape.expected(),
                    shape.fpp(),
                    shape.typedFpp(),
                    shape.hash(),
                    in.from(),
                    in.spec())
                ::writeTo);
      }
      return 0;
    }
    if (shape.expected() == null) {
      throw new IllegalArgumentException(
          "missing required option --expected=N (needed by --type " + shape.type() + ")");
    }
    if (shape.expected() <= 0) {
      throw new IllegalArgumentException("--expected must be positive, was " + shape.expected());
    }
    try (SketchFiles.Lock lock = in.writing().lockNew(file, force)) {
      lock.write(
          FilterTypes.create(
                  shape.type(),
                  shape.expected(),
                  shape.checkedFpp(),
                  shape.hash(),
                  in.from(),
                  ifAbsent,
                  in.spec(),
                  file)
              ::writeTo);
    }
    return 0;
  }

  @Override
  public int addToFilter(Keys in, boolean multiset, boolean ifAbsent) throws IOException {
    try (SketchFiles.Lock lock = in.writing().lockExisting(file)) {
      if (!multiset
          && !ifAbsent
          && in.from().argumentsOnly(in.given())
          && RedoLog.addToBloom(
              lock,
              sink -> in.from().forEach(in.given(), in.spec(), sink),
              in.spec().commandLine().getErr())) {
        return 0;
      }
      MutableFilter f = FilterFiles.loadMutable(file);
      try (StreamCommits commits =
          StreamCommits.commitsTo(in.from(), lock, f::writeTo, in.spec())) {
        FilterKeys.addKeys(
            f,
            in.given(),
            in.from(),
            FilterKeys.ifAbsent(
                multiset,
                ifAbsent,
                f instanceof DeletableFilter,
                "a " + f.type().label() + " filter"),
            in.spec(),
            file);
        commits.write();
      }
    }
    return 0;
  }

  @Override
  public int removeFromFilter(Keys in) throws IOException {
    long[] removed = {0};
    long[] stayed = {0};
    long total;
    FilterKeys.Saturated saturated =
        new FilterKeys.Saturated(file, in.spec().commandLine().getErr());
    try (SketchFiles.Lock lock = in.writing().lockExisting(file)) {
      MembershipFilter f = FilterFiles.load(file);
      if (!(f instanceof DeletableFilter)) {
        throw new CliException(
            file
                + ": a "
                + f.type().label()
                + " filter cannot delete keys (counting and cuckoo filters can); the file was not changed");
      }
      DeletableFilter d = (DeletableFilter) f;
      CountingBloomFilter counting =
          f instanceof CountingBloomFilter ? (CountingBloomFilter) f : null;
      total =
          in.from()
              .forEach(
                  in.given(),
                  in.spec(),
                  (buf, off, len) -> {
                    if (!d.remove(buf, off, len)) {
                      return;
                    }
                    if (counting != null
                        && counting.count(buf, off, len) == CountingBloomFilter.MAX_COUNT) {
                      // Nothing changed: saturated counters are never decremented.
                      saturated.stays(buf, off, len);
                      stayed[0]++;
                    } else {
                      removed[0]++;
                    }
                  });
      lock.write(f::writeTo);
    } finally {
      saturated.finish();
    }
    FilterKeys.summary(in.spec(), removed[0], stayed[0], total);
    return 0;
  }

  @Override
  public int queryFilter(
      FilterAnswer answer,
      LineReader.LineConsumer header,
      OutputStream out,
      Reading reading,
      QueryTime time)
      throws IOException {
    try (FilterFiles.Queried q = new FilterFiles.Queried(file)) {
      LineReader.RecordConsumer each;
      if (time == null) {
        each =
            (line, off, len, key, keyOff, keyLen) ->
                answer.answer(
                    line, off, len, key, keyOff, keyLen, q.mightContain(key, keyOff, keyLen));
      } else {
        // A window filter is read whole (its checksums checked then), never written in place.
        AgePartitionedBloomFilter w = WindowFilters.timeBased(q.filter(), file, time.option());
        each =
            (line, off, len, key, keyOff, keyLen) ->
                answer.answer(
                    line,
                    off,
                    len,
                    key,
                    keyOff,
                    keyLen,
                    w.mightContain(key, keyOff, keyLen, time.of().of(line, off, len)));
      }
      return reading.run(Inputs.KeySink.answering(each, header, out));
    } catch (InternalError e) {
      throw FilterFiles.truncatedWhileMapped(file, e);
    }
  }

  @Override
  public int mergeFilters(
      List<Path> sources, boolean replace, CommandSpec spec, WriteOptions writing)
      throws IOException {
    try (SketchFiles.Lock lock = writing.lock(file)) {
      MembershipFilter union = Merges.merge(SketchFiles.mergeInputs(file, sources, replace));
      FilterKeys.warnIfOverfull(file, union, spec.commandLine().getErr());
      lock.write(union::writeTo);
    }
    return 0;
  }

  // ---- count-min sketches

  @Override
  public int createCms(
      CmsShape shape, boolean force, boolean counts, Fill<CountMinSketch> fill, Keys in)
      throws IOException {
    try (SketchFiles.Lock lock = in.writing().lockNew(file, force)) {
      CountMinSketch s = shape.inMemory().get();
      if (in.from() != null) {
        fill.into(s);
      }
      lock.write(s::writeTo);
    }
    return 0;
  }

  @Override
  public int addToCms(Keys in, boolean counts, Fill<CountMinSketch> fill) throws IOException {
    try (SketchFiles.Lock lock = in.writing().lockExisting(file)) {
      CountMinSketch s = read(Format.Kind.COUNT_MIN);
      try (StreamCommits commits =
          StreamCommits.commitsTo(in.from(), lock, s::writeTo, in.spec())) {
        fill.into(s);
        commits.write();
      }
    }
    return 0;
  }

  @Override
  public int queryCms(CountAnswer answer, OutputStream out, Reading reading) throws IOException {
    CountMinSketch s = read(Format.Kind.COUNT_MIN);
    return answerEach(answer, out, reading, s::estimate);
  }

  @Override
  public int queryWindowedCms(CountAnswer answer, OutputStream out, Reading reading, Window window)
      throws IOException {
    WindowedCountMin w = read(Format.Kind.WINDOWED_COUNT_MIN);
    Duration span = window.spanOf(w.sliceCount(), w.sliceMillis());
    return answerEach(
        answer, out, reading, (item, off, len) -> w.estimate(item, off, len, span, window.end()));
  }

  /** An item's estimate from a sketch read whole. */
  private interface Estimates {
    long of(byte[] item, int off, int len);
  }

  private static int answerEach(
      CountAnswer answer, OutputStream out, Reading reading, Estimates estimates)
      throws IOException {
    return reading.run(
        Inputs.KeySink.answering(
            (line, off, len, item, itemOff, itemLen) ->
                answer.answer(item, itemOff, itemLen, estimates.of(item, itemOff, itemLen)),
            null,
            out));
  }

  @Override
  public int mergeCms(List<Path> sources, boolean replace, WriteOptions writing)
      throws IOException {
    return mergeInto(
        sources,
        replace,
        writing,
        inputs -> {
          // A window is summed slice by slice; a plain sketch among windows is refused by name.
          if (Merges.windowed(inputs)) {
            return Merges.sumWindowed(inputs)::writeTo;
          }
          return Merges.sum(inputs)::writeTo;
        });
  }

  // ---- cardinality sketches

  @Override
  public CardinalitySketch readCardinality() {
    return read(Format.Kind.CARDINALITY);
  }

  @Override
  public int createHll(CardinalitySketch empty, boolean force, Keys in) throws IOException {
    try (SketchFiles.Lock lock = in.writing().lockNew(file, force)) {
      if (in.from() != null) {
        in.from()
            .forEach(
                List.of(), in.spec(), Inputs.KeySink.hashes(empty.hashStrategy(), empty::addHash));
      }
      lock.write(empty::writeTo);
    }
    return 0;
  }

  @Override
  public int addToHll(Keys in) throws IOException {
    try (SketchFiles.Lock lock = in.writing().lockExisting(file)) {
      CardinalitySketch s = readCardinality();
      try (StreamCommits commits =
          StreamCommits.commitsTo(in.from(), lock, s::writeTo, in.spec())) {
        in.from()
            .forEach(in.given(), in.spec(), Inputs.KeySink.hashes(s.hashStrategy(), s::addHash));
        commits.write();
      }
    }
    return 0;
  }

  @Override
  public int mergeHll(List<Path> sources, boolean replace, WriteOptions writing)
      throws IOException {
    return mergeInto(sources, replace, writing, inputs -> Merges.union(inputs)::writeTo);
  }

  /**
   * Replaces the file, under its lock, with what {@code union} makes of the SRCs (and the file
   * itself unless {@code replace}).
   */
  private int mergeInto(
      List<Path> sources,
      boolean replace,
      WriteOptions writing,
      Function<List<Path>, SketchFiles.Content> union)
      throws IOException {
    try (SketchFiles.Lock lock = writing.lock(file)) {
      lock.write(union.apply(SketchFiles.mergeInputs(file, sources, replace)));
    }
    return 0;
  }

  // ---- windowed structures (time slices)

  @Override
  public int createWindowFilter(
      AgePartitionedBloomFilter empty, boolean force, Keys in, Duration maxSkew)
      throws IOException {
    refuseSkew(maxSkew);
    try (SketchFiles.Lock lock = in.writing().lockNew(file, force)) {
      if (in.from() != null) {
        FilterKeys.addKeys(empty, in.given(), in.from(), false, in.spec(), file);
      }
      lock.write(empty::writeTo);
    }
    return 0;
  }

  @Override
  public int createWindowedHll(WindowedCardinality empty, boolean force, Keys in, Duration maxSkew)
      throws IOException {
    refuseSkew(maxSkew);
    return createTimed(force, in, empty::add, empty::writeTo);
  }

  @Override
  public int addToWindowedHll(Keys in) throws IOException {
    return addTimed(in, Format.Kind.WINDOWED_CARDINALITY, w -> w::add, w -> w::writeTo);
  }

  @Override
  public CardinalitySketch windowedHllOf(Window window) {
    WindowedCardinality w = read(Format.Kind.WINDOWED_CARDINALITY);
    return w.sketchOfLast(window.spanOf(w.sliceCount(), w.sliceMillis()), window.end());
  }

  @Override
  public WindowSave saveWindowedTop(boolean force, WriteOptions writing, Duration maxSkew) {
    refuseSkew(maxSkew);
    SketchFiles.Lock lock = writing.lockNew(file, force);
    return new WindowSave() {
      @Override
      public void start(WindowedHeavyHitters empty) {}

      @Override
      public void add(byte[] item, int off, int len, long timeMillis) {}

      @Override
      public void finish(WindowedHeavyHitters counted) {
        lock.write(counted::writeTo);
      }

      @Override
      public void close() {
        lock.close();
      }
    };
  }

  @Override
  public int createWindowedCms(WindowedCountMin empty, boolean force, Keys in, Duration maxSkew)
      throws IOException {
    refuseSkew(maxSkew);
    return createTimed(force, in, (b, off, len, t) -> empty.add(b, off, len, 1, t), empty::writeTo);
  }

  @Override
  public int addToWindowedCms(Keys in) throws IOException {
    return addTimed(
        in,
        Format.Kind.WINDOWED_COUNT_MIN,
        w -> (b, off, len, t) -> w.add(b, off, len, 1, t),
        w -> w::writeTo);
  }

  /** A file has one writer at a time, with one clock: --max-skew is for a window in Redis. */
  private void refuseSkew(Duration maxSkew) {
    if (maxSkew != null) {
      throw new IllegalArgumentException(
          "--max-skew is for a window kept in Redis, shared by writers whose clocks disagree; "
              + file
              + " is a file");
    }
  }

  /** Writes a new windowed structure, once {@code add} has taken the keys of {@code in}. */
  private int createTimed(boolean force, Keys in, TimedKeys.Sink add, SketchFiles.Content write)
      throws IOException {
    try (SketchFiles.Lock lock = in.writing().lockNew(file, force)) {
      if (in.from() != null) {
        TimedKeys.forEach(in.given(), in.from(), in.spec(), add);
      }
      lock.write(write);
    }
    return 0;
  }

  /** Adds the keys of {@code in}, each at its time, to the windowed structure of {@code kind}. */
  private <W> int addTimed(
      Keys in,
      Format.Kind<W> kind,
      Function<W, TimedKeys.Sink> add,
      Function<W, SketchFiles.Content> write)
      throws IOException {
    try (SketchFiles.Lock lock = in.writing().lockExisting(file)) {
      W w = read(kind);
      try (StreamCommits commits =
          StreamCommits.commitsTo(in.from(), lock, write.apply(w), in.spec())) {
        TimedKeys.forEach(in.given(), in.from(), in.spec(), add.apply(w));
        commits.write();
      }
    }
    return 0;
  }

  // ---- any structure

  /**
   * The type the header of the file names. A file that is not regular is not opened: opening a FIFO
   * to peek would wait for a writer forever; the reader the command falls to refuses it.
   */
  @Override
  public StructureType type() {
    if (!Files.isRegularFile(file)) {
      return null;
    }
    try (InputStream in = Inputs.open(file)) {
      byte[] head = in.readNBytes(6);
      return head.length == 6 && ProbkitFormat.INSTANCE.recognizes(head)
          ? StructureType.byId(head[5] & 0xFF)
          : null;
    } catch (IOException e) {
      return null; // the reader the command falls to says why the file cannot be read
    }
  }

  @Override
  public Json info(Description description, boolean json) {
    return description.of(file, json);
  }

  @Override
  public int exportTo(Path target, boolean force, PrintWriter err) {
    throw notRedis();
  }

  @Override
  public int importFrom(Path source, boolean force, boolean spread, int shards) {
    throw notRedis();
  }

  /** export and import move structures between files and Redis: a file is not their URI. */
  private IllegalArgumentException notRedis() {
    return new IllegalArgumentException(
        "expected redis://[user@]host[:port][/db]/KEY or rediss://..., was '" + file + "'");
  }
}
