package io.github.probkit.cli.command;

import picocli.CommandLine.Option;

/** {@code --force} of the create commands: an existing FILE is replaced instead of refused. */
final class Overwrite {
  @Option(
      names = "--force",
      description = "Replace FILE if it exists (without it, an existing FILE is an error).")
  boolean force;
}
