package io.github.probkit.cli;

import io.github.probkit.filter.BlockedBloomFilter;
import io.github.probkit.filter.MutableFilter;
import io.github.probkit.filter.ScalableBloomFilter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
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
      "Lines are printed byte for byte as they came, a CR before the newline (CRLF) included, and compared so too: 'x' and 'x<CR>' are two lines, as for awk and sort -u. With --field the key is the field, without a line-ending CR; a line that has no such field has the empty key (as awk's $F is empty), so the first of them is kept. A UTF-8 byte-order mark starting an input is not part of it.",
    },
    footer = {
      "",
      "Examples:",
      "  probkit dedupe urls.txt > unique-urls.txt",
      "  probkit dedupe --expected 50M --fpp 0.001 logs/*.gz",
      "  probkit dedupe --format csv --header --field email users.csv",
      "  tail -f events.log | probkit dedupe",
    })
final class DedupeCommand implements Callable<Integer> {
  /** The first layer of the growing filter: 1.2 MB at 1 %, and 5 layers for 20 million lines. */
  static final long GROWING_FROM = 1_000_000;

  @Spec CommandSpec spec;

  @Option(
      names = "--expected",
      paramLabel = "N",
      description =
          "The distinct lines to size the filter for: 1000000, 1e6 or 1M (default: grow as they come).")
  Long expected;

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
    MutableFilter seen =
        expected != null
            ? BlockedBloomFilter.create(expected, p)
            : ScalableBloomFilter.create(GROWING_FROM, p);
    OutputStream out = ProbkitCommand.stdout(spec);
    long[] kept = {0};
    long lines =
        Inputs.forEachLine(
            inputs.isEmpty() ? List.of("-") : inputs,
            ProbkitCommand.stdin(spec),
            format,
            Inputs.KeySink.answering(
                (line, off, len, key, keyOff, keyLen) -> {
                  if (wholeLine ? seen.add(line, off, len) : seen.add(key, keyOff, keyLen)) {
                    out.write(line, off, len);
                    out.write('\n');
                    kept[0]++;
                  }
                },
                Stdout.firstLineTo(out),
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
    if (expected != null && kept[0] > expected + 3 * Math.sqrt(expected)) {
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

  private static String bytes(long n) {
    return n >= 1 << 20
        ? String.format(Locale.ROOT, "%.1f MiB", n / 1048576.0)
        : String.format(Locale.ROOT, "%.1f KiB", n / 1024.0);
  }
}
