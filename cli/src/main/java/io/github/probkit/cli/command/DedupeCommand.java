package io.github.probkit.cli.command;

import io.github.probkit.cli.format.FilterTypes;
import io.github.probkit.cli.input.EventTimes;
import io.github.probkit.cli.input.InputFormat;
import io.github.probkit.cli.input.Inputs;
import io.github.probkit.cli.input.LineReader;
import io.github.probkit.cli.input.Numbers;
import io.github.probkit.cli.input.StandardStreams;
import io.github.probkit.filter.AgePartitionedBloomFilter;
import io.github.probkit.filter.BlockedBloomFilter;
import io.github.probkit.filter.MutableFilter;
import io.github.probkit.filter.ScalableBloomFilter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.time.Duration;
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

/** {@code probkit dedupe}: each line the first time it is seen, in fixed memory. */
@Command(
    name = "dedupe",
    mixinStandardHelpOptions = true,
    description = {
      "Print each line of the inputs (stdin when none) the first time it is seen.",
      "",
      "In input order: awk '!seen[$0]++' for inputs too large to remember, in a Bloom filter.",
      "",
      "The error is one-sided: a line is never printed twice, but a line seen for the first time is dropped, wrongly, with probability about P at most (--fpp: the filter's false-positive rate; such a line is not told from a repeat). With --expected N the filter is sized for N distinct lines (or --field keys) and holds that bound while at most N have come; past N the rate grows, and a warning at the end says to what. Without --expected the filter grows as lines come (a scalable Bloom filter, whose layers' rates add up to P), so the bound holds however many come, in memory that grows with them: 2 to 4 bytes per distinct line at 1 %%, against 1.24 with --expected. How many lines were kept and dropped is printed on stderr at the end. Lines from a pipe or a terminal are printed as they come.",
      "",
      "With --window the lines are remembered for a sliding window only: a line is printed unless the same line occurred within the last N lines (--window 10000) or the last span of time (--window 1h), every occurrence counting, printed or not. Such a line is never printed (the same one-sided error); a line whose last occurrence left the window may still be dropped for a while after (the slack: a quarter of the window at 1 %% and at 0.1 %%), and after that with probability P at most. The filter is an age-partitioned Bloom filter of fixed size: for N lines, about 2.5 bytes a line of the window at 1 %%; for a time window, sized for --expected lines per window (default 1M), past which the rate grows (a warning at the end says to what) but no line of the window is forgotten.",
      "",
      "The time of a line is the clock's when it is read, or with --time-field the time in that field, so that a log replays as it was lived: an ISO-8601 instant with an offset (2025-12-02T13:07:39Z, 2025-12-02T14:07:39.5+01:00) or epoch seconds or milliseconds, told apart by size: below 100000000000 (10^11) seconds, which may have a fraction (1764680859.25), from it milliseconds (10^11 ms is 1973-03-03, 10^11 s the year 5138). The window ends at the latest time read so far; a line may come up to a window late (out of order) and is then compared with that window and remembered as of its own time; a line later than that is compared but not remembered, as it is outside the window already. A time that cannot be read stops dedupe with its line number (its record number for csv; counted across the inputs, headers included).",
      "",
      "Lines are printed byte for byte as they came, a CR before the newline (CRLF) included, and compared so too: 'x' and 'x<CR>' are two lines, as for awk and sort -u. With --field the key is the field, without a line-ending CR; a line that has no such field has the empty key (as awk's $F is empty), so the first of them is kept. A UTF-8 byte-order mark starting an input is not part of it.",
    },
    footer = {
      "",
      "Examples:",
      "  probkit dedupe urls.txt > unique-urls.txt",
      "  probkit dedupe --expected 50M --fpp 0.001 logs/*.gz",
      "  probkit dedupe --format csv --header --field email users.csv",
      "  tail -f events.log | probkit dedupe",
      "  probkit dedupe --window 10000 alerts.txt",
      "  probkit dedupe --window 1h --field 2 --time-field 1 --expected 5M app.log",
    })
public final class DedupeCommand implements Callable<Integer> {
  /** The first layer of the growing filter: 1.2 MB at 1 %, and 5 layers for 20 million lines. */
  public static final long GROWING_FROM = 1_000_000;

  @Spec CommandSpec spec;

  @Option(
      names = "--expected",
      paramLabel = "N",
      description =
          "The distinct lines to size the filter for: 1000000, 1e6 or 1M (default: grow as they come)."
              + " With a time --window, the lines expected per window (default: 1M).")
  Long expected;

  /** A time window's default --expected: 2.5 MB at 1 %. */
  static final long WINDOW_EXPECTED = 1_000_000;

  @Option(
      names = "--window",
      paramLabel = "W",
      description =
          "Print a line unless it occurred within the last W lines (10000, 10k) or the last W of"
              + " time (30s, 15m, 1h, 7d: seconds, minutes, hours, days; 1m is a minute, 1M a"
              + " million lines).")
  String window;

  @Mixin LineTimeField timeField;

  @Option(
      names = "--fpp",
      paramLabel = "P",
      description =
          "The most a new line may be dropped, in (0, 1): 0.01, 1e-2 or 1%% (default: 0.01).")
  Double fpp;

  @Mixin InputFormat format = new InputFormat();

  @Parameters(
      paramLabel = "INPUT",
      description = "Files ('-' for stdin; gzip, xz and zstd are decompressed).")
  List<String> inputs = new ArrayList<>();

  @Override
  public Integer call() throws IOException {
    double p =
        FilterTypes.checkFpp(
            expected == null ? "scalable" : "blocked",
            fpp == null ? FilterTypes.DEFAULT_FPP : fpp,
            Numbers.typed(spec, "--fpp", FilterTypes.DEFAULT_FPP));
    if (expected != null && expected <= 0) {
      throw new IllegalArgumentException("--expected must be positive, was " + expected);
    }
    format.check();
    format.missingFieldIsEmpty = true;
    // The whole line, CR and all, unless a field is the key.
    boolean wholeLine = format.field == null;
    SlidingWindow w = window == null ? null : SlidingWindow.parse(window);
    if (w == null && timeField.value != null) {
      throw new IllegalArgumentException("--time-field needs a time --window (such as 1h)");
    }
    if (w != null && w.lines > 0 && (expected != null || timeField.value != null)) {
      throw new IllegalArgumentException(
          (expected != null ? "--expected" : "--time-field")
              + " is for a time --window; a window of "
              + window
              + " lines is sized by its lines");
    }
    EventTimes times = timeField.value == null ? null : new EventTimes(timeField.value, format);
    AgePartitionedBloomFilter recent =
        w == null
            ? null
            : w.lines > 0
                ? AgePartitionedBloomFilter.create(w.lines, p)
                : AgePartitionedBloomFilter.create(
                    w.time, expected == null ? WINDOW_EXPECTED : expected, p);
    MutableFilter seen =
        recent != null
            ? recent
            : expected != null
                ? BlockedBloomFilter.create(expected, p)
                : ScalableBloomFilter.create(GROWING_FROM, p);
    OutputStream out = StandardStreams.stdout(spec);
    long[] kept = {0};
    long lines =
        Inputs.forEachLine(
            inputs.isEmpty() ? List.of("-") : inputs,
            StandardStreams.stdin(spec),
            format,
            Inputs.KeySink.answering(
                (line, off, len, key, keyOff, keyLen) -> {
                  byte[] k = wholeLine ? line : key;
                  int ko = wholeLine ? off : keyOff;
                  int kl = wholeLine ? len : keyLen;
                  boolean first;
                  if (recent == null) {
                    first = seen.add(k, ko, kl);
                  } else if (w.lines > 0) {
                    // Every occurrence is added, printed or not; add's answer is no test of
                    // presence here, as the key may sit in older slices only.
                    first = !recent.mightContain(k, ko, kl);
                    recent.add(k, ko, kl);
                  } else {
                    long t = times == null ? System.currentTimeMillis() : times.of(line, off, len);
                    first = !recent.mightContain(k, ko, kl, t);
                    recent.add(k, ko, kl, t);
                  }
                  if (first) {
                    out.write(line, off, len);
                    out.write('\n');
                    kept[0]++;
                  }
                },
                times == null
                    ? LineReader.firstLineTo(out)
                    : times.headerThen(LineReader.firstLineTo(out)),
                out));
    out.flush();
    PrintWriter err = spec.commandLine().getErr();
    err.println(
        String.format(
            Locale.ROOT,
            "probkit: dedupe: kept %,d of %,d lines, dropped %,d (in a filter of %s)",
            kept[0],
            lines,
            lines - kept[0],
            bytes(seen.byteSize())));
    // The rate of the fill at the end is at most p when the window took --expected lines; half as
    // much again is more than chance, so too many came.
    if (recent != null && w.lines == 0 && recent.expectedFpp() > p * 1.5) {
      err.println(
          String.format(
              Locale.ROOT,
              "probkit: warning: more lines came per window than the %,d of --expected: a line"
                  + " that left the window is now dropped with probability %.3g, not %s",
              expected == null ? WINDOW_EXPECTED : expected,
              recent.expectedFpp(),
              p));
    } else if (recent == null && expected != null && kept[0] > expected + 3 * Math.sqrt(expected)) {
      err.println(
          String.format(
              Locale.ROOT,
              "probkit: warning: dedupe kept %,d distinct lines, more than the %,d"
                  + " of --expected: a new line is now dropped with probability %.3g, not %s",
              kept[0],
              expected,
              seen.expectedFpp(),
              p));
    }
    err.flush();
    return 0;
  }

  /** A --window: a count of lines, or a span of time. */
  public static final class SlidingWindow {
    public final long lines;
    public final Duration time;

    private SlidingWindow(long lines, Duration time) {
      this.lines = lines;
      this.time = time;
    }

    public static SlidingWindow parse(String text) {
      return parse("--window", text, true);
    }

    /**
     * The span of time an option such as {@code --last} gives, in the forms of {@code --window}; a
     * count of lines, zero or another unit is refused naming {@code option}.
     */
    public static Duration time(String option, String text) {
      return parse(option, text, false).time;
    }

    private static SlidingWindow parse(String option, String text, boolean lines) {
      String t = text.strip();
      // Lower-case units only: 1m is a minute, 1M a million lines.
      int unit = t.isEmpty() ? -1 : "smhd".indexOf(t.charAt(t.length() - 1));
      try {
        if (unit >= 0) {
          long n = Long.parseLong(t.substring(0, t.length() - 1));
          long[] seconds = {1, 60, 3600, 86400};
          if (n > 0) {
            return new SlidingWindow(0, Duration.ofSeconds(Math.multiplyExact(n, seconds[unit])));
          }
        } else if (lines) {
          long n = Numbers.count(t, 1, Long.MAX_VALUE);
          return new SlidingWindow(n, null);
        }
      } catch (RuntimeException e) {
        // Reported below, with the forms that are accepted.
      }
      throw new IllegalArgumentException(
          option
              + " must be "
              + (lines ? "a number of lines (10000, 10k) or " : "")
              + "a time (30s, 15m, 1h, 7d) above 0, was '"
              + text
              + "'");
    }
  }

  private static String bytes(long n) {
    return n >= 1 << 20
        ? String.format(Locale.ROOT, "%.1f MiB", n / 1048576.0)
        : String.format(Locale.ROOT, "%.1f KiB", n / 1024.0);
  }
}
