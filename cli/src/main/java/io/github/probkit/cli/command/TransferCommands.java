package io.github.probkit.cli.command;

import io.github.probkit.cli.location.Location;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code probkit export} and {@code probkit import}: structures between Redis and probkit files.
 */
public final class TransferCommands {
  private TransferCommands() {}

  /** Both directions take the same URI: one text, so that their help cannot drift apart. */
  private static final String REDIS_KEY =
      "redis://[user@]host[:port][/db]/KEY (rediss:// for TLS).";

  @Command(
      name = "export",
      mixinStandardHelpOptions = true,
      description = {
        "Write a structure kept in Redis to a probkit file: the file the library writes for the same keys.",
        "",
        "The password comes from the URI or from PROBKIT_REDIS_PASSWORD.",
      },
      footer = {"", "Example:", "  probkit export redis://localhost/urls urls.bin"})
  public static final class Export implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Parameters(index = "0", paramLabel = "URI", description = REDIS_KEY)
    Path uri;

    @Parameters(index = "1", paramLabel = "FILE", description = "The file to write.")
    Path file;

    @Option(names = "--force", description = "Replace FILE if it exists.")
    boolean force;

    @Override
    public Integer call() throws IOException {
      return Location.of(uri).exportTo(file, force, spec.commandLine().getErr());
    }
  }

  @Command(
      name = "import",
      mixinStandardHelpOptions = true,
      description = {
        "Publish a probkit file to Redis: checked whole first, readers see it once every byte is there.",
        "",
        "Bloom, blocked, counting, scalable, count-min, HyperLogLog and UltraLogLog structures. The password comes from the URI or from PROBKIT_REDIS_PASSWORD.",
      },
      footer = {"", "Example:", "  probkit import urls.bin redis://localhost/urls --force"})
  public static final class Import implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "FILE", description = "The probkit file to read.")
    Path file;

    @Parameters(index = "1", paramLabel = "URI", description = REDIS_KEY)
    Path uri;

    @Option(names = "--force", description = "Replace the structure if it exists.")
    boolean force;

    @Option(
        names = "--spread",
        description = "Spread the shards over a Redis Cluster (Bloom and blocked filters).")
    boolean spread;

    @Option(
        names = "--shards",
        paramLabel = "N",
        description = "Split into N shards (default: as few as fit).")
    int shards;

    @Override
    public Integer call() throws IOException {
      return Location.of(uri).importFrom(file, force, spread, shards);
    }
  }
}
