package io.github.probkit.cli.command;

import io.github.probkit.cli.format.ProbkitFormat;
import io.github.probkit.cli.input.Inputs;
import io.github.probkit.cli.location.Location;
import io.github.probkit.cli.location.RedisUri;
import io.github.probkit.cli.output.CliException;
import io.github.probkit.cli.output.Json;
import io.github.probkit.cli.output.TextTable;
import io.github.probkit.io.StructureType;
import java.io.IOException;
import java.io.InputStream;
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
        "Describe the structure in a file, whatever its type: a filter as filter info does, a count-min sketch as cms info, a HyperLogLog or UltraLogLog as hll info, a heavy-hitters summary (probkit_topk_agg from Spark; its top lines: probkit top --from FILE) by its capacity, the lines it tracks, its total count and its largest count error.",
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
      if (type == StructureType.WINDOWED_CARDINALITY || type == StructureType.WINDOWED_COUNT_MIN) {
        throw new CliException(
            f + ": a " + type.label() + " structure, which info does not describe");
      }
      // A filter, or bytes whose type is not known: the filter reader names what is wrong.
      return new FilterCommand.Info().describe(f, json);
    }

    /** The structure type a probkit file's header names; null when its head is not one. */
    private static StructureType typeOf(Path f) {
      try (InputStream in = Inputs.open(f)) {
        byte[] head = in.readNBytes(6);
        return head.length == 6 && ProbkitFormat.INSTANCE.recognizes(head)
            ? StructureType.byId(head[5] & 0xFF)
            : null;
      } catch (IOException e) {
        return null; // the reader the description falls to says why the file cannot be read
      }
    }
  }
}
