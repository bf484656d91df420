package io.github.probkit.cli.command;

import io.github.probkit.cli.format.Format;
import io.github.probkit.cli.format.ProbkitFormat;
import io.github.probkit.cli.location.ForeignFiles;
import io.github.probkit.cli.location.WriteOptions;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code filter|cms|hll import --format F SRC DEST} (SRC in F to a probkit file) and {@code export}
 * (a probkit file to DEST in F). Lossless where both formats hold the same answers; refused in one
 * line naming why where not, before DEST is touched.
 */
public final class Conversions {
  private Conversions() {}

  /** What the six commands share: the format, the two files, and the way DEST is written. */
  abstract static class Conversion implements Callable<Integer> {
    @Option(
        names = "--format",
        paramLabel = "NAME",
        description = "The foreign file's format (default probkit: a checked copy).")
    String format;

    @Parameters(index = "0", paramLabel = "SRC", description = "The file to read.")
    Path source;

    @Parameters(index = "1", paramLabel = "DEST", description = "The file to write.")
    Path target;

    @Option(names = "--force", description = "Replace DEST if it exists.")
    boolean force;

    @Mixin WriteOptions writing;

    /** The kind of structure the command's family reads. */
    private final Format.Kind<?> kind;

    /** Whether SRC is in the named format (import) rather than DEST (export). */
    private final boolean importing;

    Conversion(Format.Kind<?> kind, boolean importing) {
      this.kind = kind;
      this.importing = importing;
    }

    @Override
    public Integer call() {
      Format from =
          importing
              ? ForeignFiles.formatOf(source, "--format", format == null ? "probkit" : format)
              : ForeignFiles.formatOf(source, "--format", null);
      Format to =
          importing ? ProbkitFormat.INSTANCE : Format.named(format == null ? "probkit" : format);
      Object structure = ForeignFiles.read(source, from, kind);
      ForeignFiles.write(target, to, structure, force, writing);
      return 0;
    }
  }

  private static final String IMPORT_FILTER =
      "Convert a filter file of another library to a probkit filter file. A Guava or Spark"
          + " filter becomes a Bloom filter of hash guava (guava32 for Guava's older strategy) or"
          + " spark, whose probes are that library's: the same answers, key for key (strings as"
          + " UTF-8, byte arrays, longs with filter query --long), under probkit's checksum; filter"
          + " export --format guava|spark gives back the very same bytes.";

  @Command(
      name = "import",
      mixinStandardHelpOptions = true,
      description = {IMPORT_FILTER, "", "--format: probkit, guava, spark."},
      footer = {"", "Example:", "  probkit filter import --format guava seen.guava seen.bin"})
  public static final class FilterImport extends Conversion {
    public FilterImport() {
      super(Format.Kind.FILTER, true);
    }
  }

  @Command(
      name = "export",
      mixinStandardHelpOptions = true,
      description = {
        "Write a probkit filter file in another library's format: guava and spark take a Bloom"
            + " filter of their hash (hash guava, guava32 or spark, as filter import makes it),"
            + " written as the library writes it; any other filter is refused in one line.",
        "",
        "--format: probkit, guava, spark.",
      },
      footer = {"", "Example:", "  probkit filter export --format guava seen.bin seen.guava"})
  public static final class FilterExport extends Conversion {
    public FilterExport() {
      super(Format.Kind.FILTER, false);
    }
  }

  @Command(
      name = "import",
      mixinStandardHelpOptions = true,
      description = {
        "Convert a count-min sketch of another library to a probkit file. Spark's sketch places"
            + " items by its own Murmur3 columns, which probkit's does not: refused with one line"
            + " saying so (query it as it is: cms query; it is recognized by its first bytes).",
        "",
        "--format: probkit, spark.",
      },
      footer = {"", "Example:", "  probkit cms import --format probkit old.cms copy.cms"})
  public static final class CmsImport extends Conversion {
    public CmsImport() {
      super(Format.Kind.COUNT_MIN, true);
    }
  }

  @Command(
      name = "export",
      mixinStandardHelpOptions = true,
      description = {
        "Write a probkit count-min sketch in another library's format: refused in one line where"
            + " that format cannot hold it with the same estimates (spark).",
        "",
        "--format: probkit, spark.",
      },
      footer = {"", "Example:", "  probkit cms export terms.cms copy.cms"})
  public static final class CmsExport extends Conversion {
    public CmsExport() {
      super(Format.Kind.COUNT_MIN, false);
    }
  }

  @Command(
      name = "import",
      mixinStandardHelpOptions = true,
      description = {
        "Convert a HyperLogLog of another library to a probkit sketch file, register for register.",
        "",
        "--format redis: a HYLL string (what GET returns for a key PFADD built; dense or sparse)"
            + " or, as SRC, redis://host[:port]/KEY itself; the sketch has precision 14 and Redis's"
            + " hashing (MurmurHash64A), so it merges with probkit sketches of --hash redis and hll"
            + " count gives PFCOUNT's answer. --format datasketches: an Apache DataSketches HLL"
            + " sketch (HLL_4/6/8, any mode; Spark's hll_sketch_agg), at its lgK (19..21 folded to"
            + " 18) with DataSketches' hashing. Both are recognized by their first bytes; a file"
            + " that is not the named format is refused in one line. Neither format has a checksum:"
            + " what is read is checked for what no writer makes (a register out of range, a wrong"
            + " length).",
      },
      footer = {
        "",
        "Examples:",
        "  redis-cli --raw GET visitors > visitors.hyll",
        "  probkit hll import --format redis visitors.hyll visitors.hll",
        "  probkit hll import --format redis redis://localhost/visitors visitors.hll",
        "  probkit hll import --format datasketches day.ds day.hll",
      })
  public static final class HllImport extends Conversion {
    public HllImport() {
      super(Format.Kind.CARDINALITY, true);
    }
  }

  @Command(
      name = "export",
      mixinStandardHelpOptions = true,
      description = {
        "Write a probkit HyperLogLog in another library's format, register for register.",
        "",
        "--format redis: the dense HYLL string that PFCOUNT and PFMERGE accept (load it with"
            + " redis-cli -x SET KEY < FILE); the sketch must have Redis's hashing (hll create"
            + " --hash redis) at precision 14 or more (folded to 14). --format datasketches: a"
            + " compact HLL_8 sketch that datasketches-java reads; the sketch must have"
            + " DataSketches' hashing of its precision. Another hashing or precision is refused in"
            + " one line naming both: the registers would not be that library's.",
      },
      footer = {
        "",
        "Examples:",
        "  probkit hll export --format redis visitors.hll visitors.hyll",
        "  redis-cli -x SET visitors < visitors.hyll && redis-cli PFCOUNT visitors",
      })
  public static final class HllExport extends Conversion {
    public HllExport() {
      super(Format.Kind.CARDINALITY, false);
    }
  }
}
