package io.github.probkit.cli.command;

import io.github.probkit.cli.format.Format;
import io.github.probkit.cli.input.InputFormat;
import io.github.probkit.cli.input.Inputs;
import io.github.probkit.cli.input.LineReader;
import io.github.probkit.cli.input.StandardStreams;
import io.github.probkit.cli.location.Location;
import io.github.probkit.cli.location.WriteOptions;
import io.github.probkit.cli.output.Json;
import io.github.probkit.frequency.HeavyHitters;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code probkit top}: the most frequent lines of a stream, in bounded memory (Space-Saving). */
@Command(
    name = "top",
    mixinStandardHelpOptions = true,
    description = {
      "Print the K most frequent lines of the inputs (stdin when none), most frequent first.",
      "",
      "Each as COUNT<TAB>AT_LEAST<TAB>LINE: the line occurred at most COUNT and at least AT_LEAST times, exactly COUNT when the two are equal.",
      "",
      "With --window the counts are those of the last span of the input only: the last N lines (--window 10000), or the last span of time (--window 1h) ending at the latest time read with --time-field F (the time in field F of each line, as for dedupe --time-field; --field names what is counted), or without it when the input ends, each line timed by the clock as it arrives. The window is counted in 24 slices, each a summary of its own (--capacity C is per slice), merged at the end: it covers the last W and the part of the slice before it (up to a 24th more). A line up to a window late is counted in its slice.",
      "",
      "With --save FILE (and a time --window) the window's slices are kept in FILE as well (a probkit file of type window-heavy-hitters, written whole or not at all; an existing FILE is an error without --force). FILE may be redis://[user@]host[:port][/db]/KEY: the lines then go to the window in Redis as they are read, and every probkit of a fleet saving the same --window and --capacity to KEY adds to one shared window (created when absent, replaced with --force; one of another shape is an error; --max-skew D as for cms create --window). Give --capacity then: without it the capacity depends on each machine's memory.",
      "",
      "With --from FILE the lines and counts are those of a heavy-hitters summary saved in a probkit file or a redis:// key (the sketch of Spark's probkit_topk_agg, or a summary the library wrote), printed the same way. A window saved by --save prints the top of its whole window ending with its latest slice, as the run that saved it did; --last W counts its last W only, and --at TIME ends the window at TIME (ISO-8601 with an offset, or epoch seconds or ms).",
      "",
      "Without --capacity every distinct line is kept, so the list and its counts are exact, as long as they fit in a quarter of the JVM's heap (JAVA_OPTS=-Xmx...); past that the candidates are halved, by a merge that keeps the bounds below, as often as needed, never below max(1000, 100 * K). With --capacity C at most C candidate lines are kept (Space-Saving). Once candidates were dropped, counts are ranges, no more than N/C wide (N the number of lines), and every line occurring more than N/C times is a candidate. A warning on stderr then says whether the K lines are certainly the top K. --json gives each count's error bound and whether the line is certainly in the top K. Lines are counted without a CR ending them (CRLF). A progress bar shows on stderr when it is a terminal.",
    },
    footer = {
      "",
      "Examples:",
      "  probkit top -k 20 access.log",
      "  probkit top -k 20 access.log | cut -f1,3-",
      "  cut -f3 queries.tsv | probkit top --capacity 100000 --json",
      "  probkit top --from queries.topk -k 20",
      "  probkit top --window 1h --time-field 1 --field 3 access.tsv",
      "  probkit top --window 1h --time-field 1 --field 3 --save top.bin access.tsv",
      "  probkit top --from top.bin --last 15m -k 20",
      "  probkit top --window 1h --time-field 1 --field 3 --capacity 5000 --save redis://cache/top access.tsv",
      "  probkit top --from redis://cache/top --last 15m -k 20",
      "  tail -f queries.log | probkit top --window 10000",
    })
public final class TopCommand implements Callable<Integer> {
  /** The fewest candidates a summary kept within the memory is halved to, or 100 * K if more. */
  private static final int FLOOR = 1000;

  /** What a candidate of a short line takes: about 100 bytes of arrays, and the line's bytes. */
  private static final int CANDIDATE_BYTES = 128;

  @Spec CommandSpec spec;

  @Option(
      names = {"-k", "--k"},
      paramLabel = "K",
      defaultValue = "10",
      description = "Lines to print (default: 10).")
  int k;

  @Option(
      names = "--capacity",
      paramLabel = "C",
      description =
          "Candidate lines kept in memory (default: every distinct line while a quarter of"
              + " the memory holds them).")
  Integer capacity;

  @Option(names = "--json", description = "Print one JSON object with count bounds.")
  boolean json;

  @Option(
      names = "--from",
      paramLabel = "FILE",
      description =
          "Print the top of the heavy-hitters summary in FILE instead of counting inputs.")
  Path from;

  @Option(
      names = "--window",
      paramLabel = "W",
      description =
          "Count the last W lines (10000, 10k) or the last W of time (30s, 15m, 1h, 7d) of the"
              + " input only.")
  String window;

  @Mixin LineTimeField timeField;

  @Option(
      names = "--save",
      paramLabel = "FILE",
      description =
          "With a time --window, also keep the window's slices in FILE, for top --from and info.")
  Path save;

  @Option(
      names = "--force",
      description =
          "With --save, replace FILE if it exists (without it, an existing FILE is an error).")
  boolean force;

  @Option(
      names = "--last",
      paramLabel = "W",
      description =
          "With --from a window saved by --save: count its last W only (30s, 15m, 1h; default: its"
              + " whole window).")
  String last;

  @Option(
      names = "--at",
      paramLabel = "TIME",
      description =
          "With --from a window saved by --save: the window ends at TIME (ISO-8601 with an offset,"
              + " or epoch seconds or ms; default: the end of its latest slice).")
  String at;

  @Mixin InputFormat format;

  @Mixin WriteOptions writing;

  @Mixin MaxSkew maxSkew;

  @Parameters(
      paramLabel = "INPUT",
      arity = "0..*",
      description = "Input files ('-' for stdin; gzip, xz and zstd are decompressed).")
  List<String> inputs = new ArrayList<>();

  @Override
  public Integer call() throws IOException {
    if (k < 1) {
      throw new IllegalArgumentException("-k must be positive, was " + k);
    }
    if (k > HeavyHitters.MAX_CAPACITY) {
      throw new IllegalArgumentException(
          "-k "
              + k
              + " is more lines than top can keep in memory: at most "
              + HeavyHitters.MAX_CAPACITY);
    }
    if (capacity != null && capacity < k) {
      throw new IllegalArgumentException(
          "--capacity must be at least K (" + k + "), was " + capacity);
    }
    if (from != null) {
      String counting = countingOption();
      if (counting != null) {
        throw new IllegalArgumentException(
            "--from " + from + " prints a saved summary: give no " + counting);
      }
      HeavyHitters saved;
      if (WindowTop.isWindowed(from)) {
        saved = WindowTop.lastOf(from, last, at);
      } else {
        String windowOnly = last != null ? "--last" : at != null ? "--at" : null;
        if (windowOnly != null) {
          throw new IllegalArgumentException(
              windowOnly
                  + " is for a window saved by top --window --save; "
                  + from
                  + " is not one");
        }
        saved = load(from);
      }
      List<HeavyHitters.Entry> entries = saved.top(k);
      print(saved, entries);
      warn(saved, entries);
      return 0;
    }
    if (window == null && timeField.value != null) {
      throw new IllegalArgumentException("--time-field needs a time --window (such as 1h)");
    }
    if (last != null || at != null) {
      throw new IllegalArgumentException(
          (last != null ? "--last" : "--at")
              + " is for top --from FILE, a window saved by top --window --save");
    }
    if (force && save == null) {
      throw new IllegalArgumentException("--force is for --save FILE");
    }
    if (maxSkew.value != null && save == null) {
      throw new IllegalArgumentException("--max-skew is for --save redis://..., a shared window");
    }
    if (save != null && window == null) {
      throw new IllegalArgumentException(
          "--save keeps the slices of a --window (such as 1h); give --window");
    }
    long budget = Long.getLong("probkit.top.bytes", Runtime.getRuntime().maxMemory() / 4);
    int floor = (int) Math.min(HeavyHitters.MAX_CAPACITY, Math.max(FLOOR, 100L * k));
    if (window != null) {
      // The file is locked (and an existing one refused) before the input is read.
      try (Location.WindowSave saving =
          save == null ? null : WindowTop.save(save, force, writing, maxSkew.of(window))) {
        WindowTop.Counted counted =
            WindowTop.count(
                window,
                timeField.value,
                capacity,
                budget,
                floor,
                CANDIDATE_BYTES,
                inputs,
                format,
                StandardStreams.stdin(spec),
                saving);
        if (saving != null) {
          saving.finish(counted.ring());
        }
        HeavyHitters summary = counted.summary();
        List<HeavyHitters.Entry> entries = summary.top(k);
        print(summary, entries);
        warn(summary, entries);
      }
      return 0;
    }
    Summary top;
    if (capacity != null) {
      top = new Summary(HeavyHitters.withCapacity(capacity), Long.MAX_VALUE, capacity);
    } else {
      // As many candidates as short lines fit in the budget: the arrays grow as lines come.
      int c = (int) Math.max(floor, Math.min(HeavyHitters.MAX_CAPACITY, budget / CANDIDATE_BYTES));
      top = new Summary(HeavyHitters.withCapacity(c), budget, floor);
    }
    Inputs.forEachLine(
        inputs.isEmpty() ? List.of("-") : inputs, StandardStreams.stdin(spec), format, top);
    List<HeavyHitters.Entry> entries = top.summary.top(k);
    print(top.summary, entries);
    warn(top.summary, entries);
    return 0;
  }

  /**
   * The first option given that only counting lines uses, null when none: with --from there are no
   * lines to count, so such an option is refused rather than silently ignored.
   */
  private String countingOption() {
    if (!inputs.isEmpty()) {
      return "INPUT " + inputs.get(0);
    }
    if (capacity != null) {
      return "--capacity";
    }
    if (window != null) {
      return "--window";
    }
    if (save != null) {
      return "--save";
    }
    if (maxSkew.value != null) {
      return "--max-skew";
    }
    if (format.format != null) {
      return "--format";
    }
    if (format.field != null) {
      return "--field";
    }
    if (format.delimiter != null) {
      return "--delimiter";
    }
    return format.header ? "--header" : null;
  }

  /** The heavy-hitters summary in {@code file}; a file of another structure is refused. */
  static HeavyHitters load(Path file) {
    return Location.of(file).read(Format.Kind.HEAVY_HITTERS);
  }

  static Json describe(HeavyHitters h) {
    return new Json()
        .put("type", h.type().label())
        .put("capacity", h.capacity())
        .put("distinctTracked", h.size())
        .put("totalCount", h.totalCount())
        .put("maxError", h.maxError())
        .put("bytes", h.byteSize());
  }

  /**
   * A summary kept within {@code budget} bytes: once its items take more, it is merged into one of
   * half as many candidates (a merge keeps every Space-Saving bound), down to {@code floor}.
   */
  private static final class Summary implements LineReader.LineConsumer {
    /** Adds between two looks at the size of the items, when the count of them does not grow. */
    private static final int CHECK_EVERY = 1 << 22;

    HeavyHitters summary;
    private final long budget;
    private final int floor;
    private int untilCheck = CHECK_EVERY;
    private int checkAtSize = 1 << 12;

    Summary(HeavyHitters summary, long budget, int floor) {
      this.summary = summary;
      this.budget = budget;
      this.floor = floor;
    }

    @Override
    public void accept(byte[] buf, int off, int len) {
      summary.add(buf, off, len);
      if (budget != Long.MAX_VALUE && (--untilCheck == 0 || summary.size() >= checkAtSize)) {
        check();
      }
    }

    private void check() {
      untilCheck = CHECK_EVERY;
      while (bytes() > budget && summary.capacity() > floor) {
        HeavyHitters fewer = HeavyHitters.withCapacity(Math.max(floor, summary.size() / 2));
        summary = fewer.merge(summary);
      }
      // Sizes double between looks, so looking costs O(1) per add.
      checkAtSize = summary.size() < summary.capacity() ? 2 * summary.size() : Integer.MAX_VALUE;
    }

    /** The summary's arrays and items, and a header of 16 bytes per item, which it leaves out. */
    private long bytes() {
      return summary.byteSize() + 16L * summary.size();
    }
  }

  /** One line on stderr when a printed count is a range, saying what that means and the remedy. */
  private void warn(HeavyHitters summary, List<HeavyHitters.Entry> entries) {
    boolean certain = entries.stream().allMatch(HeavyHitters.Entry::isCertain);
    boolean exact = entries.stream().allMatch(e -> e.error() == 0);
    // With no line dropped every count is exact: a tie at the K-th count is no uncertainty.
    if (summary.maxError() == 0 || certain && exact) {
      return;
    }
    PrintWriter err = spec.commandLine().getErr();
    err.println(
        String.format(
            Locale.ROOT,
            "probkit: warning: top: %s: more distinct lines came than the %,d candidates kept, so a count is a range (AT_LEAST to COUNT) and a line not listed may have occurred up to %,d times; for exact counts %s",
            certain
                ? "these are the top " + entries.size() + " lines, but their order may be wrong"
                : "these may not be the top " + k + " lines",
            summary.capacity(),
            summary.maxError(),
            from != null
                ? "build the summary in "
                    + from
                    + " with a capacity above the number of distinct lines"
                : "give more candidates (--capacity above the number of distinct lines, which probkit distinct estimates) or more memory (JAVA_OPTS=-Xmx...)"));
    err.flush();
  }

  private void print(HeavyHitters summary, List<HeavyHitters.Entry> entries) throws IOException {
    if (json) {
      PrintWriter out = spec.commandLine().getOut();
      List<Json> items = new ArrayList<>();
      for (HeavyHitters.Entry e : entries) {
        items.add(
            new Json()
                .putBytes("item", e.item(), 0, e.item().length)
                .put("count", e.count())
                .put("error", e.error())
                .put("lowerBound", e.lowerBound())
                .put("certain", e.isCertain()));
      }
      out.println(
          new Json()
              .put("k", k)
              .put("capacity", summary.capacity())
              .put("totalCount", summary.totalCount())
              .put("distinctTracked", summary.size())
              .put("maxError", summary.maxError())
              .put("items", items));
      out.flush();
    } else {
      // The lines as they came, bytes and all; the line last, since it may hold tabs.
      OutputStream out = StandardStreams.stdout(spec);
      for (HeavyHitters.Entry e : entries) {
        out.write((e.count() + "\t" + e.lowerBound() + "\t").getBytes(StandardCharsets.US_ASCII));
        out.write(e.item());
        out.write('\n');
      }
      out.flush();
    }
  }
}
