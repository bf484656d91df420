package io.github.probkit.cli.location;

import io.github.probkit.cli.output.CliException;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * What every command that writes a structure file shares: it locks the file for its whole
 * read-modify-write, waiting for another writer unless {@code --no-wait}.
 */
public final class WriteOptions {
  @Spec(Spec.Target.MIXEE)
  CommandSpec spec;

  @Option(
      names = "--no-wait",
      description =
          "Fail at once (exit 1) when another probkit process is writing the file,"
              + " instead of waiting for it to finish.")
  boolean noWait;

  /** Locks {@code file}, which may not exist yet, for a rewrite (merge). */
  SketchFiles.Lock lock(Path file) {
    return SketchFiles.lock(file, !noWait, spec.commandLine().getErr());
  }

  /**
   * Locks {@code file}, which must exist, for a rewrite (add, remove): a mistyped name fails before
   * a lock file is made for it.
   */
  SketchFiles.Lock lockExisting(Path file) {
    if (!Files.exists(file)) {
      throw new CliException(file + ": no such file");
    }
    return lock(file);
  }

  /** Locks {@code file} for create, refusing an existing file unless {@code force}. */
  SketchFiles.Lock lockNew(Path file, boolean force) {
    return SketchFiles.lockNew(file, force, !noWait, spec.commandLine().getErr());
  }
}
