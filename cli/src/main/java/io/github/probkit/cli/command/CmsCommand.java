package io.github.probkit.cli.command;

import io.github.probkit.cli.format.ForeignCounts;
import io.github.probkit.cli.format.ForeignFilter;
import io.github.probkit.cli.format.Format;
import io.github.probkit.cli.format.ProbkitFormat;
import io.github.probkit.cli.input.CountedLines;
import io.github.probkit.cli.input.InputFormat;
import io.github.probkit.cli.input.Inputs;
import io.github.probkit.cli.input.KeyOptions;
import io.github.probkit.cli.input.StandardStreams;
import io.github.probkit.cli.location.ForeignFiles;
import io.github.probkit.cli.location.Location;
import io.github.probkit.cli.location.RedisUri;
import io.github.probkit.cli.location.WriteOptions;
import io.github.probkit.cli.output.Json;
import io.github.probkit.frequency.CountMinSketch;
import io.github.probkit.hash.HashStrategy;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code probkit cms ...}: build, fill, query, inspect and merge count-min sketches. */
@Command(
    name = "cms",
    mixinStandardHelpOptions = true,
    description = {
      "Count-min sketches: how often has each item appeared?",
      "",
      "Estimates are never too low, and too high by more than epsilon * N (N the total count) only with probability delta.",
    })
public final class CmsCommand implements Runnable {
  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** The sketch in {@code file}, or of a {@code redis://} URI (read whole, its export). */
  static CountMinSketch load(Path file) {
    return Location.of(file).read(Format.Kind.COUNT_MIN);
  }

  @Command(
      name = "create",
      mixinStandardHelpOptions = true,
      description = {
        "Create a sketch, sized by its error or by its dimensions.",
        "",
        "It counts the items of --items F..., or of stdin unless it is a terminal (an empty sketch then; </dev/null reads none).",
        "",
        "--epsilon and --delta give ceil(e/epsilon) counters by ceil(ln(1/delta)) rows; --width and --depth set them directly.",
        "",
        "With --window the sketch counts over a sliding window of time: one sketch of that shape per --slice (default: a 24th of the window), each item counted in the slice of its time (the clock's, or with --time-field F the time in field F of its line, as for dedupe --time-field), slices older than the window dropped as time moves on. cms query --last 1h adds up the item's estimates in the slices of the last hour (and of the part of a slice before it: up to one slice more): never below its true count there, and above it by more than epsilon times that window's total only with probability delta per slice.",
      },
      footer = {
        "",
        "Examples:",
        "  probkit cms create terms.cms --epsilon 0.001 --delta 0.01      (5 rows of 2,719 counters)",
        "  probkit cms create terms.cms --width 2719 --depth 5 --conservative",
        "  cut -f2 queries.tsv | probkit cms create terms.cms --epsilon 0.001 --delta 0.01",
        "  probkit cms create terms.cms --window 1h --slice 1m --epsilon 0.001 --delta 0.01",
        "  probkit cms create terms.cms --window 1d --slice 1h --epsilon 0.001 --delta 0.01 --time-field 1 --field 2 --items q.tsv",
      })
  public static final class Create implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Parameters(
        index = "0",
        paramLabel = "FILE",
        description = "The sketch file to write." + RedisUri.CMS)
    Path file;

    @Mixin Counted input;

    @ArgGroup(exclusive = true, multiplicity = "1")
    Sizing sizing;

    static final class Sizing {
      @ArgGroup(exclusive = false, multiplicity = "1")
      ByError byError;

      @ArgGroup(exclusive = false, multiplicity = "1")
      ByDimensions byDimensions;
    }

    static final class ByError {
      @Option(
          names = "--epsilon",
          required = true,
          paramLabel = "E",
          description = "Error factor, in (0, 1).")
      double epsilon;

      @Option(
          names = "--delta",
          required = true,
          paramLabel = "D",
          description = "Failure probability, in (0, 1).")
      double delta;
    }

    static final class ByDimensions {
      @Option(
          names = "--width",
          required = true,
          paramLabel = "W",
          description = "Counters per row.")
      int width;

      @Option(names = "--depth", required = true, paramLabel = "D", description = "Rows.")
      int depth;
    }

    @Option(
        names = "--conservative",
        description = "Use conservative update: lower overestimates, merges stay upper bounds.")
    boolean conservative;

    @Option(
        names = "--hash",
        paramLabel = "ALGO",
        defaultValue = "xxh3",
        description =
            "Hash: xxh3 (default) or fnv1a (the specification's walkthrough; at most 2 rows).")
    String hash;

    @Option(
        names = "--window",
        paramLabel = "W",
        description =
            "Count over a sliding window of time of up to W (30s, 15m, 1h, 7d): cms query --last"
                + " takes any part of it.")
    String window;

    @Option(
        names = "--slice",
        paramLabel = "S",
        description =
            "With --window, one sketch per span S (default: a 24th of the window): a query is of"
                + " whole slices.")
    String slice;

    @Mixin SketchTimeField timeField;

    @Mixin MaxSkew maxSkew;

    @Mixin Overwrite overwrite;

    @Mixin WriteOptions writing;

    @Override
    public Integer call() throws IOException {
      timeField.refuseWithoutWindow(window, slice);
      maxSkew.of(window);
      HashStrategy strategy = KeyOptions.hashStrategy(hash);
      // Items piped in are counted, as filter create adds its keys: not silently dropped.
      KeyOptions from = input.keys().orNoneAtATerminal(spec);
      CountMinSketch.UpdateRule rule =
          conservative
              ? CountMinSketch.UpdateRule.CONSERVATIVE
              : CountMinSketch.UpdateRule.STANDARD;
      if (window != null) {
        input.refuseCountsIn("cms create --window");
        timeField.applyTo(from);
        return Location.of(file)
            .createWindowedCms(
                WindowCms.create(window, slice, sketch(strategy, rule)),
                overwrite.force,
                new Location.Keys(List.of(), from, spec, writing),
                maxSkew.of(window));
      }
      int width =
          sizing.byError != null
              ? CountMinSketch.widthFor(sizing.byError.epsilon, sizing.byError.delta)
              : sizing.byDimensions.width;
      int depth =
          sizing.byError != null
              ? CountMinSketch.depthFor(sizing.byError.delta)
              : sizing.byDimensions.depth;
      return Location.of(file)
          .createCms(
              new Location.CmsShape(
                  width, depth, conservative, strategy, () -> sketch(strategy, rule)),
              overwrite.force,
              input.counts,
              s -> input.add(s, List.of(), from, spec),
              new Location.Keys(List.of(), from, spec, writing));
    }

    /** An empty sketch of the size asked for. */
    private CountMinSketch sketch(HashStrategy strategy, CountMinSketch.UpdateRule rule) {
      return sizing.byError != null
          ? CountMinSketch.create(sizing.byError.epsilon, sizing.byError.delta, strategy, rule)
          : CountMinSketch.withDimensions(
              sizing.byDimensions.width, sizing.byDimensions.depth, strategy, rule);
    }
  }

  @Command(
      name = "add",
      mixinStandardHelpOptions = true,
      description = {
        "Count items (from arguments, --items FILE..., or stdin).",
        "",
        "Each ITEM argument or line is one occurrence; with --counts each line is ITEM<TAB>COUNT. Items read from a pipe (tail -f ... |) are written every 5 s and when stopped by Ctrl-C or kill.",
      },
      footer = {
        "",
        "Examples:",
        "  probkit cms add terms.cms cricket rain cricket",
        "  cut -f2 queries.tsv | probkit cms add terms.cms",
        "  probkit cms add terms.cms --counts --items daily-counts.tsv",
        "  probkit cms add terms.cms --time-field 1 --field 2 --items q.tsv   (a sketch with a --window)",
      })
  public static final class Add implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Parameters(
        index = "0",
        paramLabel = "FILE",
        description = "The sketch file, rewritten in place." + RedisUri.CMS)
    Path file;

    @Parameters(
        index = "1..*",
        paramLabel = "ITEM",
        description = "Items (or --items F..., or stdin).")
    List<String> items = new ArrayList<>();

    @Mixin Counted input;

    @Mixin SketchTimeField timeField;

    @Mixin WriteOptions writing;

    @Override
    public Integer call() throws IOException {
      KeyOptions from = input.keys().require(items, spec);
      if (WindowCms.isWindowed(file)) {
        input.refuseCountsIn(file + ", a sketch with a window,");
        timeField.applyTo(from);
        return Location.of(file).addToWindowedCms(new Location.Keys(items, from, spec, writing));
      }
      timeField.refuseWithoutWindow(file, "cms");
      return Location.of(file)
          .addToCms(
              new Location.Keys(items, from, spec, writing),
              input.counts,
              s -> input.add(s, items, from, spec));
    }
  }

  /** Where create and add take their items from, and how they read them. */
  static final class Counted {
    @Mixin KeyOptions.Items itemFiles;

    @Option(
        names = "--counts",
        description = "Each item is ITEM<TAB>COUNT (split at the last tab).")
    boolean counts;

    @Mixin InputFormat format = new InputFormat();

    /** The item sources named by the options. */
    KeyOptions keys() {
      if (counts && format.field != null) {
        throw new IllegalArgumentException("--field cannot be combined with --counts");
      }
      return itemFiles.in(format);
    }

    /** A window counts each line as one occurrence at its time: no ITEM<TAB>COUNT lines. */
    void refuseCountsIn(String what) {
      if (counts) {
        throw new IllegalArgumentException(
            "--counts is not taken by " + what + " which counts each line once at its time");
      }
    }

    /**
     * Counts the items into {@code s}: each an occurrence, or {@code ITEM<TAB>COUNT} with --counts.
     */
    void add(CountMinSketch s, List<String> items, KeyOptions from, CommandSpec spec)
        throws IOException {
      if (counts) {
        from.forEach(items, spec, CountedLines.counted(s::add));
      } else {
        // Standard-mode adds commute and are lock-free; conservative ones depend on their order.
        from.forEach(
            items,
            spec,
            s.isConservative()
                ? Inputs.KeySink.inOrder(s::add)
                : Inputs.KeySink.concurrently(s::add));
      }
    }
  }

  @Command(
      name = "query",
      mixinStandardHelpOptions = true,
      description = {
        "Print ITEM<TAB>ESTIMATE for each item, in order.",
        "",
        "The estimate is never below the true count. A sketch with a window (cms create --window) is queried over the last span of it, --last (default: the whole window), ending now or at --at TIME: the item's estimates in the slices from the one holding TIME - LAST to the one holding TIME, added up (so up to one slice more than LAST). --json prints one JSON object per item (JSON Lines): {\"item\": \"rain\", \"estimate\": 5}; an item that is not UTF-8 has U+FFFD for its bad bytes, and itemBase64 its exact bytes. Items from a pipe or a terminal are answered as each line comes.",
      },
      footer = {
        "",
        "Examples:",
        "  probkit cms query terms.cms cricket chess",
        "  tail -f q.log | probkit cms query terms.cms --json",
        "  probkit cms query terms.cms --last 15m --at 2025-12-02T18:00:00Z cricket chess",
      })
  public static final class Query implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Parameters(index = "0", paramLabel = "FILE", description = "The sketch file." + RedisUri.CMS)
    Path file;

    @Parameters(
        index = "1..*",
        paramLabel = "ITEM",
        description = "Items (or --items F..., or stdin).")
    List<String> items = new ArrayList<>();

    @Option(names = "--json", description = "Print one JSON object per item.")
    boolean json;

    @Option(
        names = "--file-format",
        paramLabel = "NAME",
        description =
            "The sketch file's format: probkit (default) or spark (Spark's sketch"
                + " CountMinSketch.writeTo, recognized by its first bytes); a Spark sketch gives"
                + " Spark's estimates. (--format names the input's line format.)")
    String fileFormat;

    @Option(
        names = "--long",
        description =
            "Each item is a decimal long, estimated as Spark estimates an item it was given as a"
                + " long (addLong): Spark files only.")
    boolean longItems;

    @Mixin LastWindow window;

    @Mixin KeyOptions.Items itemFiles;

    @Mixin InputFormat format;

    /** An item's estimate from a sketch read whole. */
    private interface Estimates {
      long of(byte[] item, int off, int len);
    }

    @Override
    public Integer call() throws IOException {
      KeyOptions from = itemFiles.in(format).require(items, spec);
      OutputStream out = StandardStreams.stdout(spec);
      Format structure = ForeignFiles.formatOf(file, "--file-format", fileFormat);
      if (structure != ProbkitFormat.INSTANCE) {
        ForeignCounts s = ForeignFiles.counts(file, structure);
        return answerEach(
            from,
            out,
            longItems
                ? (item, off, len) -> s.estimate(ForeignFilter.longKey(item, off, len))
                : s::estimate);
      }
      if (longItems) {
        throw new IllegalArgumentException(
            "--long estimates items a Spark sketch was given as longs; "
                + file
                + " is a probkit sketch, whose items are bytes");
      }
      Location.CountAnswer answer =
          (item, off, len, estimate) -> answer(out, item, off, len, estimate);
      Location.Reading reading =
          sink -> {
            from.forEach(items, spec, sink);
            out.flush();
            return 0;
          };
      if (WindowCms.isWindowed(file)) {
        return Location.of(file)
            .queryWindowedCms(answer, out, reading, window.of(file, "cms create --window"));
      }
      if (window.given()) {
        throw new IllegalArgumentException(
            window.option()
                + " queries a sketch with a window (cms create --window); "
                + file
                + " has none");
      }
      return Location.of(file).queryCms(answer, out, reading);
    }

    private int answerEach(KeyOptions from, OutputStream out, Estimates estimates)
        throws IOException {
      from.forEach(
          items,
          spec,
          Inputs.KeySink.answering(
              (line, off, len, item, itemOff, itemLen) ->
                  answer(out, item, itemOff, itemLen, estimates.of(item, itemOff, itemLen)),
              null,
              out));
      out.flush();
      return 0;
    }

    private void answer(OutputStream out, byte[] item, int off, int len, long estimate)
        throws IOException {
      if (json) {
        out.write(
            (new Json().putBytes("item", item, off, len).put("estimate", estimate) + "\n")
                .getBytes(StandardCharsets.UTF_8));
      } else {
        out.write(item, off, len);
        out.write(('\t' + Long.toString(estimate) + '\n').getBytes(StandardCharsets.US_ASCII));
      }
    }
  }

  @Command(
      name = "info",
      mixinStandardHelpOptions = true,
      description =
          "Describe a sketch: dimensions, update rule, total count, error bound, size, hashing;"
              + " of a sketch with a window, its window and slices too.",
      footer = {"", "Example:", "  probkit cms info terms.cms --json"})
  public static final class Info extends InfoCommand {
    @Option(
        names = "--format",
        paramLabel = "NAME",
        description =
            "The file's format: probkit (default) or spark (recognized by its first bytes). A"
                + " Spark sketch has no checksum: it is described from unverified bytes.")
    String format;

    @Override
    Json describe(Path f, boolean json) {
      Format foreign = ForeignFiles.formatOf(f, "--format", format);
      if (foreign != ProbkitFormat.INSTANCE) {
        return ForeignFiles.counts(f, foreign).describe();
      }
      return WindowCms.isWindowed(f) ? WindowCms.describe(f) : CmsCommand.describe(load(f));
    }
  }

  static Json describe(CountMinSketch s) {
    return new Json()
        .put("type", "count-min")
        .put("width", s.width())
        .put("depth", s.depth())
        .put("update", s.updateRule())
        .put("totalCount", s.totalCount())
        .put("epsilon", s.epsilon())
        .put("delta", s.delta())
        .put("errorBound", s.epsilon() * s.totalCount())
        .put("bytes", s.byteSize())
        .put("hash", s.hashStrategy().algorithm().label())
        .put("hashSeed", String.format(Locale.ROOT, "0x%x", s.hashStrategy().seed()));
  }

  @Command(
      name = "merge",
      mixinStandardHelpOptions = true,
      description = {
        "Add the SRC sketches into DEST, as Redis's PFMERGE: an existing DEST is part of the sum.",
        "With --replace, DEST becomes the sum of the SRCs alone. Same dimensions and hashing.",
        "",
        "Any SRC may be a redis:// URI (read whole). Into a redis:// DEST each counter is added in place by an atomic saturating increment (a conservative sketch's total first), so no count other clients add meanwhile is lost. A missing DEST is created as the sum of the SRCs; --replace deletes DEST and writes that sum.",
        "",
        "Windowed sketches (cms create --window), files or redis:// windows, are summed slice by slice (into a redis:// DEST in one atomic script): the same window and slice length and the same sketch shape, each brought to the newest slice of any of them (a slice one no longer keeps is left out, as a late event would be); a window of another shape, or a plain sketch among windows, is refused naming it.",
      },
      footer = {
        "",
        "Examples:",
        "  probkit cms merge all.cms monday.cms tuesday.cms",
        "  probkit cms merge --replace week.cms monday.cms tuesday.cms",
        "  probkit cms merge redis://cache:6379/terms today.cms",
      })
  public static final class Merge implements Callable<Integer> {
    @Parameters(
        index = "0",
        paramLabel = "DEST",
        description = "The sketch to merge into (created if missing)." + RedisUri.CMS)
    Path out;

    @Parameters(
        index = "1..*",
        arity = "1..*",
        paramLabel = "SRC",
        description = "Sketches to merge." + RedisUri.SOURCES)
    List<Path> sources;

    @Option(names = "--replace", description = "Write the sum of the SRCs alone, replacing DEST.")
    boolean replace;

    @Mixin WriteOptions writing;

    @Override
    public Integer call() throws IOException {
      return Location.of(out).mergeCms(sources, replace, writing);
    }
  }
}
