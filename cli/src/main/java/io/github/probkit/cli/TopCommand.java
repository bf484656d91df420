package io.github.probkit.cli;

import io.github.probkit.frequency.HeavyHitters;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code probkit top}: the most frequent lines of a stream, in fixed memory (Space-Saving). */
@Command(
    name = "top",
    mixinStandardHelpOptions = true,
    description = {
      "Print the K most frequent lines of the inputs (stdin when none).",
      "",
      "Most frequent first, as",
      "COUNT<TAB>LINE, keeping at most C candidate lines in memory. Each COUNT is an upper bound,",
      "exact while fewer than C distinct lines have been seen, and never more than N/C too high",
      "(N the number of lines); every line occurring more than N/C times is listed if in the top K.",
      "--json adds each count's error bound and whether the line is certainly in the top K.",
      "A progress bar shows on stderr when it is a terminal.",
    },
    footer = {
      "",
      "Examples:",
      "  probkit top -k 20 access.log",
      "  cut -f3 queries.tsv | probkit top --capacity 100000 --json",
    })
public final class TopCommand implements Callable<Integer> {
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
      description = "Candidate lines kept in memory (default: 100 * K, at least 1000).")
  Integer capacity;

  @Option(names = "--json", description = "Print one JSON object with count bounds.")
  boolean json;

  @Mixin InputFormat format;

  @Parameters(
      paramLabel = "INPUT",
      arity = "0..*",
      description = "Input files ('-' for stdin; .gz is decompressed).")
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
    int c =
        capacity != null
            ? capacity
            : (int) Math.min(HeavyHitters.MAX_CAPACITY, Math.max(1000L, 100L * k));
    if (c < k) {
      throw new IllegalArgumentException("--capacity must be at least K (" + k + "), was " + c);
    }
    HeavyHitters top = HeavyHitters.withCapacity(c);
    Inputs.forEachLine(
        inputs.isEmpty() ? List.of("-") : inputs, ProbkitCommand.stdin(spec), format, top::add);
    print(top, top.top(k));
    return 0;
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
      // The lines as they came, bytes and all.
      OutputStream out = ProbkitCommand.stdout(spec);
      for (HeavyHitters.Entry e : entries) {
        out.write((e.count() + "\t").getBytes(StandardCharsets.US_ASCII));
        out.write(e.item());
        out.write('\n');
      }
      out.flush();
    }
  }
}
