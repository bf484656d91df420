package io.github.probkit.cli.command;

import io.github.probkit.cardinality.CardinalitySketch;
import io.github.probkit.cardinality.HyperLogLog;
import io.github.probkit.cardinality.UltraLogLog;
import io.github.probkit.cli.input.InputFormat;
import io.github.probkit.cli.input.KeyOptions;
import io.github.probkit.cli.location.ForeignFiles;
import io.github.probkit.cli.location.Location;
import io.github.probkit.cli.location.Merges;
import io.github.probkit.cli.location.RedisUri;
import io.github.probkit.cli.location.WriteOptions;
import io.github.probkit.cli.output.Json;
import io.github.probkit.cli.output.TextTable;
import io.github.probkit.foreign.RedisHyperLogLogFormat;
import io.github.probkit.hash.HashStrategy;
import io.github.probkit.io.StructureType;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code probkit hll ...}: distinct-count sketches kept in files, filled and merged over time. */
@Command(
    name = "hll",
    mixinStandardHelpOptions = true,
    description = {
      "HyperLogLog sketches in files: distinct counts over time and machines.",
      "",
      "Create a sketch, add items to it over time, merge the sketches of different days or machines, and count their union.",
    })
public final class HllCommand implements Runnable {
  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  static int checkPrecision(int precision) {
    if (precision < HyperLogLog.MIN_PRECISION || precision > HyperLogLog.MAX_PRECISION) {
      throw new IllegalArgumentException(
          String.format(
              Locale.ROOT,
              "--precision must be in [%d, %d], was %d",
              HyperLogLog.MIN_PRECISION,
              HyperLogLog.MAX_PRECISION,
              precision));
    }
    return precision;
  }

  /** The hashing {@code hll create --hash} names, for a HyperLogLog of {@code precision}. */
  static HashStrategy hllHash(String label, int precision) {
    switch (label) {
      case "xxh3":
        return HashStrategy.xxh3();
      case "redis":
        return HashStrategy.redis();
      case "datasketches":
        return HashStrategy.datasketches(precision);
      default:
        throw new IllegalArgumentException(
            "--hash must be one of xxh3, redis, datasketches, was '" + label + "'");
    }
  }

  /**
   * {@code PFCOUNT}'s answer, for registers Redis could hold: a HyperLogLog of Redis's hashing at
   * precision 14 with no martingale estimate (a key PFADD built, a HYLL file, their merges with
   * probkit sketches of that hashing). Redis's estimator is then the one that counts them, so that
   * probkit and PFCOUNT answer alike for one key; empty for any other sketch.
   */
  static OptionalLong pfcount(CardinalitySketch s) {
    return s instanceof HyperLogLog
            && s.precision() == RedisHyperLogLogFormat.PRECISION
            && s.hashStrategy().equals(HashStrategy.redis())
            && s.martingaleEstimate().isEmpty()
        ? OptionalLong.of(RedisHyperLogLogFormat.count((HyperLogLog) s))
        : OptionalLong.empty();
  }

  static CardinalitySketch load(Path file) {
    return Location.of(file).readCardinality();
  }

  /** The estimate and its error: the martingale estimate when the sketch has one. */
  static Json estimateJson(CardinalitySketch s) {
    double estimate = s.bestEstimate();
    double rse = s.bestRelativeStandardError();
    OptionalLong pfcount = pfcount(s);
    return new Json()
        .put("estimate", pfcount.orElse(Math.round(estimate)))
        .put("standardError", Math.round(estimate * rse * 10) / 10.0)
        .put("relativeStandardError", rse)
        .put(
            "estimator",
            s.martingaleEstimate().isPresent()
                ? "martingale"
                : pfcount.isPresent() ? "redis (PFCOUNT's)" : "registers")
        .put("type", s.type().label())
        .put("precision", s.precision())
        .put("bytes", s.byteSize());
  }

  @Command(
      name = "create",
      mixinStandardHelpOptions = true,
      description = {
        "Create a sketch of 2^P registers.",
        "",
        "It takes the items of --items F..., or of stdin unless it is a terminal (an empty sketch then; </dev/null reads none).",
        "",
        "With --window the sketch counts over a sliding window of time: one sketch per --slice (default: a 24th of the window), each item added to the slice of its time (the clock's, or with --time-field F the time in field F of its line, as for dedupe --time-field), slices older than the window dropped as time moves on. hll count --last 24h merges the slices of the last 24 h (and of the part of a slice before it: up to one slice more), so its error is the sketch's.",
      },
      footer = {
        "",
        "Examples:",
        "  probkit hll create visitors.hll",
        "  cut -f2 access.tsv | probkit hll create visitors.hll",
        "  probkit hll create visitors.ull --precision 12 --type ultraloglog --items today.txt.gz",
        "  probkit hll create visitors.hll --window 24h --slice 1h",
        "  probkit hll create visitors.hll --window 7d --slice 1h --time-field 1 --field 3 --items access.tsv",
      })
  public static final class Create implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Parameters(
        index = "0",
        paramLabel = "FILE",
        description = "The sketch file to write." + RedisUri.HLL)
    Path file;

    @Mixin KeyOptions.Items itemFiles;

    @Mixin InputFormat format = new InputFormat();

    @Option(
        names = {"-p", "--precision"},
        paramLabel = "P",
        defaultValue = "14",
        description = "Precision in [4, 18] (default: 14: 12 KiB, 0.81 %%).")
    int precision;

    @Option(
        names = "--type",
        paramLabel = "TYPE",
        defaultValue = "hyperloglog",
        completionCandidates = Types.class,
        description =
            "hyperloglog (default; 6-bit registers) or ultraloglog (8-bit registers, "
                + "the same error in 2/3 of the memory at one precision lower).")
    String type;

    /** The values of --type, for completion. */
    static final class Types extends ArrayList<String> {
      private static final long serialVersionUID = 1L;

      Types() {
        super(List.of(StructureType.HYPER_LOG_LOG.label(), StructureType.ULTRA_LOG_LOG.label()));
      }
    }

    @Option(
        names = "--hash",
        paramLabel = "H",
        defaultValue = "xxh3",
        description =
            "xxh3 (default); redis: Redis's own (MurmurHash64A), so that at precision 14 the"
                + " registers are those PFADD sets for the same items and the sketch merges with"
                + " keys PFADD built (hll export --format redis); datasketches: Apache"
                + " DataSketches' HLL hashing at this precision (hll export --format"
                + " datasketches). HyperLogLog only.")
    String hash;

    @Option(
        names = "--window",
        paramLabel = "W",
        description =
            "Count over a sliding window of time of up to W (30s, 15m, 24h, 7d): hll count"
                + " --last takes any part of it.")
    String window;

    @Option(
        names = "--slice",
        paramLabel = "S",
        description =
            "With --window, one sketch per span S (default: a 24th of the window): a count is of"
                + " whole slices.")
    String slice;

    @Mixin SketchTimeField timeField;

    @Mixin MaxSkew maxSkew;

    @Mixin Overwrite overwrite;

    @Mixin WriteOptions writing;

    @Override
    public Integer call() throws IOException {
      checkPrecision(precision);
      timeField.refuseWithoutWindow(window, slice);
      maxSkew.of(window);
      // Items piped in are counted, as filter create adds its keys: not silently dropped.
      KeyOptions from = itemFiles.in(format).orNoneAtATerminal(spec);
      CardinalitySketch s;
      if (type.equalsIgnoreCase(StructureType.HYPER_LOG_LOG.label())
          || type.equalsIgnoreCase("hll")) {
        s = HyperLogLog.create(precision, hllHash(hash, precision));
      } else if (type.equalsIgnoreCase(StructureType.ULTRA_LOG_LOG.label())
          || type.equalsIgnoreCase("ull")) {
        if (!hash.equals("xxh3")) {
          throw new IllegalArgumentException(
              "--hash "
                  + hash
                  + " is a HyperLogLog's (--type hyperloglog); ultraloglog hashes xxh3");
        }
        s = UltraLogLog.create(precision);
      } else {
        throw new IllegalArgumentException(
            "--type must be hyperloglog or ultraloglog, was '" + type + "'");
      }
      if (window != null) {
        timeField.applyTo(from);
        return Location.of(file)
            .createWindowedHll(
                WindowHll.create(window, slice, s),
                overwrite.force,
                new Location.Keys(List.of(), from, spec, writing),
                maxSkew.of(window));
      }
      return Location.of(file)
          .createHll(s, overwrite.force, new Location.Keys(List.of(), from, spec, writing));
    }
  }

  @Command(
      name = "add",
      mixinStandardHelpOptions = true,
      description = {
        "Add items to a sketch: the arguments, the lines of --items F..., or stdin.",
        "Items read from a pipe (tail -f ... |) are written every 5 s and when stopped by Ctrl-C or kill.",
      },
      footer = {
        "",
        "Examples:",
        "  probkit hll add visitors.hll alice bob",
        "  probkit hll add visitors.hll --items today.txt.gz",
        "  cut -f2 access.tsv | probkit hll add visitors.hll",
      })
  public static final class Add implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Parameters(
        index = "0",
        paramLabel = "FILE",
        description = "The sketch file, rewritten in place." + RedisUri.HLL)
    Path file;

    @Parameters(
        index = "1..*",
        paramLabel = "ITEM",
        description = "Items (or --items F..., or stdin).")
    List<String> items = new ArrayList<>();

    @Mixin KeyOptions.Items itemFiles;

    @Mixin InputFormat format = new InputFormat();

    @Mixin SketchTimeField timeField;

    @Mixin WriteOptions writing;

    @Override
    public Integer call() throws IOException {
      KeyOptions from = itemFiles.in(format).require(items, spec);
      if (WindowHll.isWindowed(file)) {
        timeField.applyTo(from);
        return Location.of(file).addToWindowedHll(new Location.Keys(items, from, spec, writing));
      }
      timeField.refuseWithoutWindow(file, "hll");
      return Location.of(file).addToHll(new Location.Keys(items, from, spec, writing));
    }
  }

  @Command(
      name = "count",
      mixinStandardHelpOptions = true,
      description = {
        "Print the estimated number of distinct items in the union of the sketches.",
        "",
        "Sketches of different precisions are combined at the lowest of them.",
        "",
        "A sketch filled key by key is estimated with its martingale estimator, whose error is about 20 %% lower than the registers' estimate. A merge ends it, so a union of several sketches is estimated from its registers, except when the union equals one of them (count A A, or A and a subset of it): then that one's estimate still holds, and count A A prints what count A prints.",
        "",
        "A sketch with a window (hll create --window) is counted over the last span of it, --last (default: the whole window), ending now or at --at TIME: the slices from the one holding TIME - LAST to the one holding TIME, merged (so up to one slice more than LAST). One such sketch is counted at a time.",
      },
      footer = {
        "",
        "Examples:",
        "  probkit hll count visitors.hll",
        "  probkit hll count day1.hll day2.hll day3.hll",
        "  probkit hll count visitors.hll --last 24h",
        "  probkit hll count visitors.hll --last 1h --at 2025-12-02T18:00:00Z",
      })
  public static final class Count implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Parameters(arity = "1..*", paramLabel = "FILE", description = "Sketch files." + RedisUri.HLL)
    List<Path> files;

    @Option(
        names = "--json",
        description = "Print one JSON object with the standard error, precision and bytes.")
    boolean json;

    @Mixin LastWindow window;

    @Option(
        names = "--format",
        paramLabel = "NAME",
        description =
            "The FILEs' format: probkit, redis (a HYLL string, as GET returns a key PFADD built),"
                + " datasketches (an Apache DataSketches HLL sketch). Each is recognized by its"
                + " first bytes anyway; naming one refuses a FILE in another.")
    String format;

    @Override
    public Integer call() {
      for (Path f : files) {
        ForeignFiles.formatOf(f, "--format", format);
      }
      CardinalitySketch s;
      if (files.size() == 1 && WindowHll.isWindowed(files.get(0))) {
        s = Location.of(files.get(0)).windowedHllOf(window.of(files.get(0), "hll create --window"));
      } else {
        if (window.given()) {
          throw new IllegalArgumentException(
              window.option()
                  + " counts a sketch with a window (hll create --window), one at a time; "
                  + (files.size() > 1
                      ? files.size() + " FILEs were given"
                      : files.get(0) + " has none"));
        }
        s = Merges.union(files);
      }
      if (json) {
        TextTable.print(spec, estimateJson(s), true);
      } else {
        PrintWriter out = spec.commandLine().getOut();
        out.println(pfcount(s).orElse(Math.round(s.bestEstimate())));
        out.flush();
      }
      return 0;
    }
  }

  @Command(
      name = "merge",
      mixinStandardHelpOptions = true,
      description = {
        "Merge the SRC sketches into DEST, as Redis's PFMERGE: an existing DEST is part of the union.",
        "With --replace, DEST becomes the union of the SRCs alone. At the lowest of their precisions.",
      },
      footer = {
        "",
        "Examples:",
        "  probkit hll merge all.hll mon.hll tue.hll",
        "  probkit hll merge --replace week.hll mon.hll tue.hll",
      })
  public static final class Merge implements Callable<Integer> {
    @Parameters(
        index = "0",
        paramLabel = "DEST",
        description = "The sketch to merge into (created if missing)." + RedisUri.HLL)
    Path out;

    @Parameters(
        index = "1..*",
        arity = "1..*",
        paramLabel = "SRC",
        description = "Sketches to merge." + RedisUri.SOURCES)
    List<Path> sources;

    @Option(names = "--replace", description = "Write the union of the SRCs alone, replacing DEST.")
    boolean replace;

    @Mixin WriteOptions writing;

    @Override
    public Integer call() throws IOException {
      return Location.of(out).mergeHll(sources, replace, writing);
    }
  }

  @Command(
      name = "info",
      mixinStandardHelpOptions = true,
      description =
          "Describe a sketch: type, precision, form, estimates and their errors, size, hashing.",
      footer = {"", "Example:", "  probkit hll info visitors.hll --json"})
  public static final class Info extends InfoCommand {
    @Option(
        names = "--format",
        paramLabel = "NAME",
        description =
            "The file's format: probkit, redis (a HYLL string), datasketches; recognized by its"
                + " first bytes anyway, naming one refuses a file in another.")
    String format;

    @Override
    Json describe(Path f, boolean json) {
      ForeignFiles.formatOf(f, "--format", format);
      return WindowHll.isWindowed(f)
          ? WindowHll.describe(f, json)
          : HllCommand.describe(load(f), json);
    }
  }

  static Json describe(CardinalitySketch s, boolean json) {
    Json j =
        new Json()
            .put("type", s.type().label())
            .put("precision", s.precision())
            .put("registers", 1 << s.precision());
    if (s instanceof HyperLogLog) {
      HyperLogLog h = (HyperLogLog) s;
      j.put("representation", h.isSparse() ? "sparse" : "dense");
      if (h.isSparse()) {
        j.put("sparseEntries", h.sparseEntries());
      }
    } else {
      j.put("representation", "dense");
    }
    pfcount(s).ifPresent(n -> j.put("pfcount", n));
    j.put("estimate", Math.round(s.estimate()))
        .put("relativeStandardError", s.relativeStandardError());
    if (s.martingaleEstimate().isPresent()) {
      j.put("martingaleEstimate", Math.round(s.martingaleEstimate().getAsDouble()))
          .put("martingaleRelativeStandardError", s.martingaleRelativeStandardError());
    } else {
      j.put("martingaleEstimate", json ? null : "none (ended by a merge)");
    }
    return j.put("bytes", s.byteSize())
        .put("hash", s.hashStrategy().algorithm().label())
        .put("hashSeed", String.format(Locale.ROOT, "0x%x", s.hashStrategy().seed()));
  }
}
