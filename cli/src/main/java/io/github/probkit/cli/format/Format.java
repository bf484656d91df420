package io.github.probkit.cli.format;

import io.github.probkit.cardinality.CardinalitySketch;
import io.github.probkit.cardinality.CardinalitySketches;
import io.github.probkit.cardinality.WindowedCardinality;
import io.github.probkit.cli.input.Inputs;
import io.github.probkit.cli.output.CliException;
import io.github.probkit.filter.BloomFilter;
import io.github.probkit.filter.Filters;
import io.github.probkit.filter.MembershipFilter;
import io.github.probkit.frequency.CountMinSketch;
import io.github.probkit.frequency.HeavyHitters;
import io.github.probkit.frequency.WindowedCountMin;
import io.github.probkit.frequency.WindowedHeavyHitters;
import io.github.probkit.io.SketchFormatException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Function;

/**
 * How a structure's bytes are laid out, apart from where they are kept ({@code Location}):
 * probkit's own format ({@link ProbkitFormat}) or one another library writes
 * (docs/FORMATS-FOREIGN.md), each listed in {@link #KNOWN}. A command's {@code --format NAME} (or
 * {@code --file-format NAME}, where {@code --format} names the input's lines) picks one by {@link
 * #named}, and a file's first bytes pick it otherwise ({@link #of}).
 *
 * <p>A foreign cardinality sketch is read as the probkit sketch of its registers, so every command
 * that reads one works on it. A foreign filter or count-min sketch answers only by its own
 * library's probes: {@link #filter} and {@link #counts} give it to the queries and {@code info}.
 */
public interface Format {
  /**
   * The formats a file may be in, probkit's first: the one a file in no known format is read as.
   */
  List<Format> KNOWN =
      List.of(
          ProbkitFormat.INSTANCE,
          RedisHllFormat.INSTANCE,
          DataSketchesHllFormat.INSTANCE,
          SparkFormat.INSTANCE,
          GuavaFormat.INSTANCE);

  /** How many first bytes {@link #recognizes} is given. */
  int HEAD_BYTES = 8;

  /** The name {@code --format} gives. */
  String name();

  /**
   * Whether bytes that start with {@code head} (at most {@link #HEAD_BYTES}) are in this format.
   */
  boolean recognizes(byte[] head);

  /**
   * Whether the format has a mark of its own that {@link #recognizes} looks for; Guava's has none,
   * so a Guava file is read only when named.
   */
  boolean hasMagic();

  /** Reads a structure of {@code kind}; a failure names the field and the bad value. */
  <T> T read(InputStream in, Kind<T> kind) throws IOException;

  /**
   * Writes {@code structure}, as probkit's reader gives it (a filter, a count-min sketch, a
   * cardinality sketch), in this format ({@code export}, {@code import}); refused with one line
   * naming why when the format cannot hold it with the same answers.
   *
   * <p>(No method here has a default body: an interface with one is initialized with each class
   * that implements it, and {@link #KNOWN} would then see the first of them half made.)
   */
  void write(Object structure, OutputStream out) throws IOException;

  /**
   * The filter in {@code in}, for a format whose filters answer by their library's own probes
   * (guava, spark); the others refuse in one line ({@link #holdsNo}).
   */
  ForeignFilter filter(InputStream in) throws IOException;

  /** The count-min sketch in {@code in}, for a format whose sketches probkit cannot hold. */
  ForeignCounts counts(InputStream in) throws IOException;

  /** What {@code structure} is, for a refusal: its type's label ("blocked", "count-min"). */
  static String typeOf(Object structure) {
    if (structure instanceof MembershipFilter) {
      return ((MembershipFilter) structure).type().label();
    }
    if (structure instanceof CountMinSketch) {
      return ((CountMinSketch) structure).type().label();
    }
    if (structure instanceof CardinalitySketch) {
      return ((CardinalitySketch) structure).type().label();
    }
    return structure.getClass().getSimpleName();
  }

  /**
   * A probkit Bloom filter converted by {@code convert} to a library's own (guava, spark), for
   * {@link #write}: another structure, or a conversion that refuses the filter (not of the
   * library's hashing), fails in one line naming the format.
   */
  static <T> T fromBloom(
      Format f, Object structure, String library, Function<BloomFilter, T> convert) {
    if (!(structure instanceof BloomFilter)) {
      throw new CliException(
          f.name()
              + ": holds Bloom filters of "
              + library
              + "'s hashing, not a "
              + typeOf(structure)
              + " structure");
    }
    try {
      return convert.apply((BloomFilter) structure);
    } catch (IllegalArgumentException e) {
      throw new CliException(f.name() + ": " + e.getMessage(), e);
    }
  }

  /** The refusal of a format asked for a structure it does not hold. */
  static SketchFormatException holdsNo(Format f, String what) {
    return new SketchFormatException(f.name() + ": holds no " + what + " probkit answers for");
  }

  /**
   * The format of a stream, from its first bytes, which are left unread ({@code in} must support
   * mark). One that no format recognizes is read as probkit's, whose reader names its bad magic.
   */
  static Format of(InputStream in) throws IOException {
    in.mark(HEAD_BYTES);
    byte[] head = in.readNBytes(HEAD_BYTES);
    in.reset();
    Format shown = shownBy(head);
    return shown == null ? KNOWN.get(0) : shown;
  }

  /** The format whose mark {@code head} starts with; null when none. */
  private static Format shownBy(byte[] head) {
    for (Format f : KNOWN) {
      if (f.recognizes(head)) {
        return f;
      }
    }
    return null;
  }

  /** The format {@code --format} names. */
  static Format named(String name) {
    for (Format f : KNOWN) {
      if (f.name().equals(name)) {
        return f;
      }
    }
    throw new IllegalArgumentException(
        "unknown structure format '" + name + "' (known: " + names() + ")");
  }

  /** The names of the formats, as help and messages list them. */
  static String names() {
    StringBuilder b = new StringBuilder();
    for (Format f : KNOWN) {
      b.append(b.length() == 0 ? "" : ", ").append(f.name());
    }
    return b.toString();
  }

  /**
   * The format of {@code file}: the one {@code name} names (null: the one its first bytes show). A
   * named format with a mark of its own must find it: a file in another format is refused in one
   * line naming both, before anything is read as the wrong structure.
   */
  static Format of(Path file, String name) {
    byte[] head = head(file);
    Format shown = shownBy(head);
    if (name == null) {
      return shown == null ? KNOWN.get(0) : shown;
    }
    Format named = named(name);
    if (!Files.isRegularFile(file)) {
      return named; // its reader says what is wrong with it (missing, a directory)
    }
    if (named.hasMagic() ? shown != named : shown != null) {
      throw new CliException(
          file
              + ": not a "
              + named.name()
              + " file"
              + (shown != null
                  ? " (" + whatIs(file, shown) + ")"
                  : named.hasMagic() && head.length > 0
                      ? " (its first bytes, " + hex(head) + ", are no known format's)"
                      : ""));
    }
    return named;
  }

  /** What a file in format {@code shown} is, for a refusal. */
  private static String whatIs(Path file, Format shown) {
    SparkFormat.Holds spark = shown == SparkFormat.INSTANCE ? SparkFormat.holds(file) : null;
    return spark != null
        ? "it is " + spark.description()
        : "its first bytes are a " + shown.name() + " file's";
  }

  private static String hex(byte[] head) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < Math.min(4, head.length); i++) {
      b.append(i == 0 ? "" : " ").append(String.format(java.util.Locale.ROOT, "%02x", head[i]));
    }
    return b.toString();
  }

  /**
   * The first {@link #HEAD_BYTES} of a regular file; none of anything else (a FIFO would be
   * consumed, and the reader says what is wrong with a missing file).
   */
  private static byte[] head(Path file) {
    if (!Files.isRegularFile(file)) {
      return new byte[0];
    }
    try (InputStream in = Inputs.open(file)) {
      return in.readNBytes(HEAD_BYTES);
    } catch (IOException e) {
      return new byte[0];
    }
  }

  /**
   * A family of structures, as a command reads it: a filter, a count-min sketch, a heavy-hitters
   * summary, a cardinality sketch or a windowed one.
   */
  final class Kind<T> {
    public static final Kind<MembershipFilter> FILTER = new Kind<>("a filter", Filters::readFrom);
    public static final Kind<CountMinSketch> COUNT_MIN =
        new Kind<>("a count-min sketch", CountMinSketch::readFrom);
    public static final Kind<HeavyHitters> HEAVY_HITTERS =
        new Kind<>("a heavy-hitters summary", HeavyHitters::readFrom);
    public static final Kind<CardinalitySketch> CARDINALITY =
        new Kind<>("a cardinality sketch", CardinalitySketches::readFrom);
    public static final Kind<WindowedCardinality> WINDOWED_CARDINALITY =
        new Kind<>("a windowed cardinality sketch", WindowedCardinality::readFrom);
    public static final Kind<WindowedHeavyHitters> WINDOWED_HEAVY_HITTERS =
        new Kind<>("a windowed heavy-hitters summary", WindowedHeavyHitters::readFrom);
    public static final Kind<WindowedCountMin> WINDOWED_COUNT_MIN =
        new Kind<>("a windowed count-min sketch", WindowedCountMin::readFrom);

    /** What the kind is, for messages: "a filter", "a count-min sketch". */
    private final String description;

    /** probkit's reader of the kind, which checks the structure type it finds. */
    final Reader<T> probkit;

    private Kind(String description, Reader<T> probkit) {
      this.description = description;
      this.probkit = probkit;
    }

    public String description() {
      return description;
    }
  }

  /** Reads a structure from its bytes, as a location hands them over. */
  @FunctionalInterface
  interface Reader<T> {
    T read(InputStream in) throws IOException;
  }
}
