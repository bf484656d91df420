package io.github.probkit.cli;

import io.github.probkit.frequency.HeavyHitters;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code probkit top}: the most frequent lines of a stream, in fixed memory (Space-Saving). */
@Command(
    name = "top",
    mixinStandardHelpOptions = true,
    description = {
      "Print the K most frequent lines of the inputs (stdin when none), most frequent first, as",
      "COUNT<TAB>LINE, keeping at most C candidate lines in memory. Each COUNT is an upper bound,",
      "exact while fewer than C distinct lines have been seen, and never more than N/C too high",
      "(N the number of lines); every line occurring more than N/C times is listed if in the top K.",
      "--json adds each count's error bound and whether the line is certainly in the top K.",
    },
    footer = {
      "",
      "Examples:",
      "  probkit top -k 20 access.log",
      "  cut -f3 queries.tsv | probkit top --capacity 100000 --json",
    })
public final class TopCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = {"-k", "--k"}, paramLabel = "K", defaultValue = "10", description = "Lines to print (default: 10).")
  int k;

  @Option(
      names = "--capacity",
      paramLabel = "C",
      description = "Candidate lines kept in memory (default: 100 * K, at least 1000).")
  Integer capacity;

  @Option(names = "--json", description = "Print one JSON object with count bounds.")
  boolean json;

  @Parameters(paramLabel = "INPUT", arity = "0..*", description = "Input files ('-' for stdin; .gz is decompressed).")
  List<String> inputs = new ArrayList<>();

  @Override
  public Integer call() throws IOException {
    if (k < 1) {
      throw new IllegalArgumentException("-k must be positive, was " + k);
    }
    int c = capacity != null ? capacity : (int) Math.min(HeavyHitters.MAX_CAPACITY, Math.max(1000L, 100L * k));
    if (c < k) {
      throw new IllegalArgumentException("--capacity must be at least K (" + k + "), was " + c);
    }
    HeavyHitters top = HeavyHitters.withCapacity(c);
    List<String> names = inputs.isEmpty() ? List.of("-") : inputs;
    Progress progress = new Progress(spec.commandLine().getErr(), "top", totalBytes(names), Progress.stderrIsTerminal());
    long[] lines = {0};
    for (String name : names) {
      boolean stdin = name.equals("-");
      try (InputStream raw = stdin ? null : Files.newInputStream(Path.of(name))) {
        InputStream in = LineReader.maybeGunzip(progress.count(stdin ? System.in : raw));
        LineReader.forEachLine(in, stdin ? "<stdin>" : name, (buf, off, len) -> {
          top.add(buf, off, len);
          if ((++lines[0] & 0x3FFF) == 0) {
            progress.update(lines[0]);
          }
        });
      }
    }
    progress.done();
    print(top, top.top(k));
    return 0;
  }

  /** The total size of the inputs, or -1 when one is stdin. */
  private static long totalBytes(List<String> names) throws IOException {
    long total = 0;
    for (String name : names) {
      if (name.equals("-") || !Files.isRegularFile(Path.of(name))) {
        return -1;
      }
      total += Files.size(Path.of(name));
    }
    return total;
  }

  private void print(HeavyHitters summary, List<HeavyHitters.Entry> entries) {
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      List<Json> items = new ArrayList<>();
      for (HeavyHitters.Entry e : entries) {
        items.add(new Json()
            .put("item", e.itemAsString())
            .put("count", e.count())
            .put("error", e.error())
            .put("lowerBound", e.lowerBound())
            .put("certain", e.isCertain()));
      }
      out.println(new Json()
          .put("k", k)
          .put("capacity", summary.capacity())
          .put("totalCount", summary.totalCount())
          .put("distinctTracked", summary.size())
          .put("maxError", summary.maxError())
          .put("items", items));
    } else {
      for (HeavyHitters.Entry e : entries) {
        out.print(e.count());
        out.print('\t');
        out.print(e.itemAsString());
        out.print('\n');
      }
    }
    out.flush();
  }
}
