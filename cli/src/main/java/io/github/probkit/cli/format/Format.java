package io.github.probkit.cli.format;

import io.github.probkit.cardinality.CardinalitySketch;
import io.github.probkit.cardinality.CardinalitySketches;
import io.github.probkit.cardinality.WindowedCardinality;
import io.github.probkit.filter.Filters;
import io.github.probkit.filter.MembershipFilter;
import io.github.probkit.frequency.CountMinSketch;
import io.github.probkit.frequency.HeavyHitters;
import io.github.probkit.frequency.WindowedHeavyHitters;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;

/**
 * How a structure's bytes are laid out, apart from where they are kept ({@code Location}).
 * probkit's own format ({@link ProbkitFormat}) is the only one today. A foreign format (Redis's
 * {@code HYLL}, Guava's or Spark's serialized filters, Parquet's split-block filters: issue 28) is
 * one more implementation listed in {@link #KNOWN}: a command's {@code --format NAME} picks it by
 * {@link #named}, and a file's first bytes pick it otherwise ({@link #of}).
 */
public interface Format {
  /**
   * The formats a file may be in, probkit's first: the one a file in no known format is read as.
   */
  List<Format> KNOWN = List.of(ProbkitFormat.INSTANCE, DataSketchesHllFormat.INSTANCE);

  /** How many first bytes {@link #recognizes} is given. */
  int HEAD_BYTES = 8;

  /** The name {@code --format} gives. */
  String name();

  /**
   * Whether bytes that start with {@code head} (at most {@link #HEAD_BYTES}) are in this format.
   */
  boolean recognizes(byte[] head);

  /** Reads a structure of {@code kind}; a failure names the field and the bad value. */
  <T> T read(InputStream in, Kind<T> kind) throws IOException;

  /**
   * The format of a stream, from its first bytes, which are left unread ({@code in} must support
   * mark). One that no format recognizes is read as probkit's, whose reader names its bad magic.
   */
  static Format of(InputStream in) throws IOException {
    in.mark(HEAD_BYTES);
    byte[] head = in.readNBytes(HEAD_BYTES);
    in.reset();
    for (Format f : KNOWN) {
      if (f.recognizes(head)) {
        return f;
      }
    }
    return KNOWN.get(0);
  }

  /** The format {@code --format} names. */
  static Format named(String name) {
    for (Format f : KNOWN) {
      if (f.name().equals(name)) {
        return f;
      }
    }
    throw new IllegalArgumentException(
        "unknown --format '" + name + "' (known: probkit, datasketches-hll)");
  }

  /**
   * A family of structures, as a command reads it: a filter, a count-min sketch, a heavy-hitters
   * summary, a cardinality sketch or a windowed one.
   */
  final class Kind<T> {
    public static final Kind<MembershipFilter> FILTER = new Kind<>(Filters::readFrom);
    public static final Kind<CountMinSketch> COUNT_MIN = new Kind<>(CountMinSketch::readFrom);
    public static final Kind<HeavyHitters> HEAVY_HITTERS = new Kind<>(HeavyHitters::readFrom);
    public static final Kind<CardinalitySketch> CARDINALITY =
        new Kind<>(CardinalitySketches::readFrom);
    public static final Kind<WindowedCardinality> WINDOWED_CARDINALITY =
        new Kind<>(WindowedCardinality::readFrom);
    public static final Kind<WindowedHeavyHitters> WINDOWED_HEAVY_HITTERS =
        new Kind<>(WindowedHeavyHitters::readFrom);

    /** probkit's reader of the kind, which checks the structure type it finds. */
    final Reader<T> probkit;

    private Kind(Reader<T> probkit) {
      this.probkit = probkit;
    }
  }

  /** Reads a structure from its bytes, as a location hands them over. */
  @FunctionalInterface
  interface Reader<T> {
    T read(InputStream in) throws IOException;
  }
}
