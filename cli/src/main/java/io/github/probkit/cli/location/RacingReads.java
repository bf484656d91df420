package io.github.probkit.cli.location;

import io.github.probkit.cli.output.CliException;
import io.github.probkit.io.SketchFormatException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.Objects;

/**
 * Readers take no lock, so an add in place ({@link RedoLog}) may write chunks of a file while one
 * reads it: the chunk or the checksums it reads then do not match, though nothing is corrupt (the
 * bits of a Bloom filter are only ever set, so no answer "absent" can come from it: only a spurious
 * checksum error). A reader whose checksum fails therefore reads again under the file's lock, which
 * no writer holds then; only the same failure there is reported. A reader that may not take the
 * lock (a read-only file or directory) reads again without it, while the file shows it is being
 * written: a redo log, or a size, time or inode not those it opened.
 */
final class RacingReads {
  private RacingReads() {}

  /** How often a reader that may not lock reads again a file that is being written. */
  private static final int UNLOCKED_ATTEMPTS = 50;

  private static final long PAUSE_MILLIS = 20;

  /** How long such a reader waits for a redo log to go before it reads again. */
  private static final long LOG_WAIT_MILLIS = 2000;

  /** What a reader saw of the file as it opened it: any write in place changes the times. */
  record Stamp(Object key, long size, FileTime modified, Object changed) {}

  /** The real file's stamp now, or null when it cannot be read (then "changed", to be safe). */
  static Stamp stamp(Path file) {
    try {
      Path target = SketchFiles.target(file);
      BasicFileAttributes a = Files.readAttributes(target, BasicFileAttributes.class);
      Object ctime;
      try {
        ctime = Files.getAttribute(target, "unix:ctime");
      } catch (UnsupportedOperationException | IllegalArgumentException e) {
        ctime = null;
      }
      return new Stamp(a.fileKey(), a.size(), a.lastModifiedTime(), ctime);
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /** A read that throws a CliException or an UncheckedIOException when it fails. */
  @FunctionalInterface
  interface Read<T> {
    T read();
  }

  /** Whether {@code e} says a checksum or the format failed, which a racing write can explain. */
  static boolean formatFailure(RuntimeException e) {
    return e.getCause() instanceof SketchFormatException;
  }

  /**
   * After {@code failure} of a read of {@code file} opened when it was {@code opened}: the answer
   * of {@code read} done again where no write races it, or the failure when it is not explained by
   * one.
   */
  static <T> T again(Path file, Stamp opened, RuntimeException failure, Read<T> read) {
    if (!formatFailure(failure)) {
      throw failure;
    }
    Path target;
    try {
      target = SketchFiles.target(file);
    } catch (CliException e) {
      throw failure;
    }
    if (!Files.isRegularFile(target)) {
      throw failure; // standard input or a pipe: nothing writes it in place, and it is read once
    }
    if (!RedoLog.takesAddsInPlace(target)) {
      throw failure; // no add writes this file in place, so no write explains the failure
    }
    if (SketchFiles.holds(target)) {
      throw failure; // this thread is the file's only writer: the failure is the file's
    }
    Stamp now = stamp(file);
    if (opened != null
        && now != null
        && Objects.equals(now.key(), opened.key())
        && now.size() != opened.size()) {
      throw failure; // an add in place never changes the size: this file was cut or grown
    }
    SketchFiles.Lock lock;
    try {
      // A thread that holds another file's lock does not wait for this one: two such readers
      // could each wait for the other's.
      lock = SketchFiles.lock(file, !SketchFiles.holdsAny(), new PrintWriter(System.err, true));
    } catch (CliException cannot) {
      return unlocked(file, target, opened, failure, read);
    }
    try (lock) {
      return read.read();
    }
  }

  private static <T> T unlocked(
      Path file, Path target, Stamp opened, RuntimeException failure, Read<T> read) {
    RuntimeException last = failure;
    Stamp seen = opened;
    for (int i = 0; i < UNLOCKED_ATTEMPTS && written(target, seen, file); i++) {
      pause(target);
      seen = stamp(file);
      try {
        return read.read();
      } catch (CliException | UncheckedIOException e) {
        if (!formatFailure(e)) {
          throw e;
        }
        last = e;
      }
    }
    throw last;
  }

  /** Whether the file was written since {@code seen} or is being written (its log is there). */
  private static boolean written(Path target, Stamp seen, Path file) {
    return seen == null
        || Files.exists(RedoLog.of(target), LinkOption.NOFOLLOW_LINKS)
        || !Objects.equals(stamp(file), seen);
  }

  /** Waits a little, and for the redo log to go (its writer completes it within milliseconds). */
  private static void pause(Path target) {
    long deadline = System.nanoTime() + LOG_WAIT_MILLIS * 1_000_000;
    try {
      do {
        Thread.sleep(PAUSE_MILLIS);
      } while (Files.exists(RedoLog.of(target), LinkOption.NOFOLLOW_LINKS)
          && System.nanoTime() < deadline);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
