package io.github.probkit.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** The shape every {@code info} command shares: one file described as a table, or as JSON. */
abstract class InfoCommand implements Callable<Integer> {
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
}
