package io.github.probkit.cli.location;

import io.github.probkit.cli.format.Format;
import io.github.probkit.cli.format.ProbkitFormat;
import io.github.probkit.cli.output.CliException;
import io.github.probkit.filter.MappedFilter;
import io.github.probkit.filter.MembershipFilter;
import io.github.probkit.filter.MutableFilter;
import io.github.probkit.io.SketchFormatException;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** A filter read from its location: whole, to change it, or mapped, to query it. */
public final class FilterFiles {
  private FilterFiles() {}

  /** The filter in {@code file}, or of a {@code redis://} URI (read whole, its export). */
  public static MembershipFilter load(Path file) {
    return Location.of(file).read(Format.Kind.FILTER);
  }

  /**
   * The filter in {@code file} for queries: a {@link MappedFilter} (nothing loaded: a query reads
   * only the pages its probes touch) when the file is a plain probkit file of a type that maps,
   * else the filter read in full. Close it when it is a MappedFilter.
   */
  public static MembershipFilter open(Path file) {
    if (!mappable(file)) {
      return load(file);
    }
    RedoLog.settle(file, new PrintWriter(System.err, true));
    RacingReads.Stamp opened = RacingReads.stamp(file);
    try {
      return map(file);
    } catch (CliException e) {
      // The checksums read at open may be those of an add in place half done.
      return RacingReads.again(file, opened, e, () -> map(file));
    }
  }

  private static MappedFilter map(Path file) {
    try {
      return MappedFilter.open(file);
    } catch (SketchFormatException e) {
      throw new CliException(file + ": " + e.getMessage(), e);
    } catch (IOException e) {
      throw new CliException(CliException.describe(file, e), e);
    }
  }

  /** Work on an opened filter ({@link #open}), which {@link #read} closes when it is mapped. */
  @FunctionalInterface
  public interface Use<T> {
    T apply(MembershipFilter f) throws IOException;
  }

  /**
   * What {@code use} makes of the filter in {@code file} opened for reading ({@link #open}): when a
   * checksum fails in it, done again where no add in place races it, so that only a corrupt file
   * fails. For work that can be repeated (it writes nothing before it returns).
   */
  public static <T> T read(Path file, Use<T> use) {
    RacingReads.Stamp opened = RacingReads.stamp(file);
    try {
      return useOnce(file, use);
    } catch (CliException e) {
      return RacingReads.again(file, opened, e, () -> useOnce(file, use));
    }
  }

  private static <T> T useOnce(Path file, Use<T> use) {
    MembershipFilter f = open(file);
    try {
      return use.apply(f);
    } catch (InternalError e) {
      throw truncatedWhileMapped(file, e);
    } catch (UncheckedIOException e) {
      if (e.getCause() instanceof SketchFormatException) {
        // The message names the file already (MappedFilter's).
        throw new CliException(e.getCause().getMessage(), e.getCause());
      }
      throw new CliException(CliException.describe(file, e.getCause()), e.getCause());
    } catch (SketchFormatException e) {
      throw new CliException(file + ": " + e.getMessage(), e);
    } catch (IOException e) {
      throw new CliException(CliException.describe(file, e), e);
    } finally {
      release(f);
    }
  }

  /**
   * A filter opened for queries ({@link #open}) that answers each key from verified bytes though an
   * add in place races it: when a chunk's checksum fails (it changed after the checksums were
   * read), the file is opened again under its lock, that key answered there, and the rest from the
   * new view. Only a failure under the lock is reported.
   */
  public static final class Queried implements AutoCloseable {
    private final Path file;
    private MembershipFilter f;
    private RacingReads.Stamp opened;

    public Queried(Path file) {
      this.file = file;
      this.opened = RacingReads.stamp(file);
      this.f = open(file);
    }

    /** The filter as opened last; its queries do not read again. */
    public MembershipFilter filter() {
      return f;
    }

    public boolean mightContain(byte[] key, int off, int len) {
      try {
        return f.mightContain(key, off, len);
      } catch (UncheckedIOException e) {
        RacingReads.Stamp now = RacingReads.stamp(file);
        MembershipFilter[] fresh = new MembershipFilter[1];
        boolean in =
            RacingReads.again(
                file,
                opened,
                e,
                () -> {
                  MembershipFilter g = map(file);
                  try {
                    boolean answer = g.mightContain(key, off, len);
                    fresh[0] = g;
                    return answer;
                  } finally {
                    if (fresh[0] == null) {
                      release(g);
                    }
                  }
                });
        close();
        f = fresh[0];
        opened = now;
        return in;
      }
    }

    @Override
    public void close() {
      release(f);
    }
  }

  /** Closes a mapped filter's file; a read-only channel has nothing to lose on close. */
  private static void release(MembershipFilter f) {
    if (f instanceof MappedFilter) {
      try {
        ((MappedFilter) f).close();
      } catch (IOException e) {
        // Nothing was written through it.
      }
    }
  }

  /**
   * The error for a mapped file truncated while it was read. The JVM reports the SIGBUS of a read
   * past the file's new end as an InternalError, which compiled code raises at its next safepoint
   * rather than in the read: after MappedFilter's query returned, so it is caught around the whole
   * work on the file.
   */
  public static CliException truncatedWhileMapped(Path file, InternalError e) {
    return new CliException(
        file + ": truncated while mapped (a file must not be changed in place while it is read)",
        e);
  }

  /**
   * Whether {@code file} starts as a probkit file of a type that maps (a compressed one does not).
   */
  private static boolean mappable(Path file) {
    if (!Files.isRegularFile(file)) {
      return false; // load() says what is wrong with it
    }
    try (InputStream in = Files.newInputStream(file)) {
      return ProbkitFormat.INSTANCE.maps(in.readNBytes(Format.HEAD_BYTES));
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * The filter in {@code file}, to be written: see {@code FilterKeys.addKeys} for which threads
   * add.
   */
  public static MutableFilter loadMutable(Path file) {
    MembershipFilter f = load(file);
    if (!(f instanceof MutableFilter)) {
      throw new CliException(
          file + ": " + f.type().label() + " is a static filter, rebuild it with filter create");
    }
    return (MutableFilter) f;
  }
}
