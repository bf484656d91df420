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
    try {
      return MappedFilter.open(file);
    } catch (SketchFormatException e) {
      throw new CliException(file + ": " + e.getMessage(), e);
    } catch (IOException e) {
      throw new CliException(CliException.describe(file, e), e);
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
