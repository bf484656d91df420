package io.github.probkit.cli.command;

import io.github.probkit.cli.format.SparkFormat;
import io.github.probkit.cli.location.Location;
import io.github.probkit.cli.location.RedisUri;
import io.github.probkit.cli.output.Json;
import io.github.probkit.cli.output.TextTable;
import io.github.probkit.io.StructureType;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** The shape every {@code info} command shares: one file described as a table, or as JSON. */
public abstract class InfoCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(
      index = "0",
      paramLabel = "FILE",
      description = "The file to describe." + RedisUri.ANY)
  Path file;

  @Option(names = "--json", description = "Print one JSON object.")
  boolean json;

  /** What to print about {@code file}; {@code json} says which form it will be printed in. */
  abstract Json describe(Path file, boolean json);

  @Override
  public Integer call() throws IOException {
    TextTable.print(spec, Location.of(file).info(this::describe, json), json);
    return 0;
  }

  /** {@code probkit info}: any structure, described as the command of its family describes it. */
  @Command(
      name = "info",
      mixinStandardHelpOptions = true,
      description = {
        "Describe the structure in a file, whatever its type: a filter as filter info does, a count-min sketch as cms info, a HyperLogLog or UltraLogLog as hll info, a heavy-hitters summary (probkit_topk_agg from Spark; its top lines: probkit top --from FILE) by its capacity, the lines it tracks, its total count and its largest count error, a window filter (filter create --type window) by its window and slack, a windowed HyperLogLog (hll create --window), heavy-hitters summary (top --window --save) or count-min (cms create --window) by its window, its slices and the sketch of its whole window.",
      },
      footer = {"", "Examples:", "  probkit info users.bin", "  probkit info queries.topk --json"})
  public static final class Any extends InfoCommand {
    @Override
    Json describe(Path f, boolean json) {
      StructureType type = typeOf(f);
      if (type == StructureType.HEAVY_HITTERS) {
        return TopCommand.describe(TopCommand.load(f));
      }
      if (type == StructureType.COUNT_MIN_SKETCH) {
        return CmsCommand.describe(CmsCommand.load(f));
      }
      if (type == StructureType.HYPER_LOG_LOG || type == StructureType.ULTRA_LOG_LOG) {
        return HllCommand.describe(HllCommand.load(f), json);
      }
      if (type == StructureType.WINDOWED_CARDINALITY) {
        return WindowHll.describe(f, json);
      }
      if (type == StructureType.WINDOWED_COUNT_MIN) {
        return WindowCms.describe(f);
      }
      if (type == StructureType.WINDOWED_HEAVY_HITTERS) {
        return WindowTop.describe(f);
      }
      if (type == null && SparkFormat.holdsCountMin(f)) {
        return new CmsCommand.Info().describe(f, json); // a Spark count-min sketch
      }
      // A filter, or bytes whose type is not known: the filter reader names what is wrong.
      return new FilterCommand.Info().describe(f, json);
    }

    /** The structure type a probkit file's header names; null when it names none. */
    static StructureType typeOf(Path f) {
      return Location.of(f).type();
    }
  }
}
