package io.github.probkit.cli;

import io.github.probkit.io.SketchFormatException;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Reading and writing structure files. Reads name the file in every error; writes go to a temporary
 * file in the same directory, are forced to disk and then renamed over the target, so a crash at any
 * moment leaves either the old file or the new one, never half of one.
 */
final class SketchFiles {
  private SketchFiles() {}

  @FunctionalInterface
  interface Reader<T> {
    T read(InputStream in) throws IOException;
  }

  @FunctionalInterface
  interface Writer {
    void write(OutputStream out) throws IOException;
  }

  /** Reads {@code file} with {@code reader}; failures become a CliException naming the file. */
  static <T> T read(Path file, Reader<T> reader) {
    try (InputStream in = new BufferedInputStream(Inputs.open(file), 1 << 16)) {
      T t = reader.read(in);
      if (in.read() != -1) {
        throw new SketchFormatException("unexpected bytes after the end of the structure");
      }
      return t;
    } catch (NoSuchFileException e) {
      throw new CliException(file + ": no such file");
    } catch (SketchFormatException e) {
      throw new CliException(file + ": " + e.getMessage(), e);
    } catch (IOException e) {
      throw new CliException(file + ": " + Main.describe(e), e);
    }
  }

  /**
   * A new empty file {@code .NAME.RANDOM.tmp} in {@code dir}, open for writing and locked: the lock
   * tells {@link #removeStale} that a live process owns it. Not Files.createTempFile, which makes it
   * readable by its owner only whatever the umask: the rename would pass that on to the file.
   */
  private static FileChannel createTemporary(Path dir, String name, Path[] created) throws IOException {
    while (true) {
      Path tmp = dir.resolve("." + name + "."
          + Long.toUnsignedString(ThreadLocalRandom.current().nextLong(), 36) + ".tmp");
      FileChannel ch;
      try {
        ch = FileChannel.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
      } catch (FileAlreadyExistsException e) {
        continue; // another name
      }
      created[0] = tmp;
      try {
        ch.lock();
      } catch (IOException | RuntimeException e) {
        ch.close();
        throw e;
      }
      return ch;
    }
  }

  /** How old an unlocked temporary file must be before it counts as left behind by a killed write. */
  static final long STALE_MILLIS = 60_000;

  /**
   * Deletes the temporary files of {@code name} that a killed write (kill -9, power loss) left
   * behind: old, and locked by no process. Best effort: whatever fails is left alone.
   */
  static void removeStale(Path dir, String name) {
    String prefix = "." + name + ".";
    long now = System.currentTimeMillis();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir, p -> {
      String f = p.getFileName().toString();
      return f.startsWith(prefix) && f.endsWith(".tmp")
          && f.substring(prefix.length(), f.length() - 4).matches("[0-9a-z]{1,13}");
    })) {
      for (Path p : entries) {
        try {
          if (now - Files.getLastModifiedTime(p).toMillis() < STALE_MILLIS) {
            continue;
          }
          try (FileChannel ch = FileChannel.open(p, StandardOpenOption.WRITE);
              FileLock lock = ch.tryLock()) {
            if (lock != null) {
              Files.deleteIfExists(p);
            }
          } catch (OverlappingFileLockException e) {
            // locked by this very process: in use
          }
        } catch (IOException e) {
          // gone already, or not ours to delete
        }
      }
    } catch (IOException e) {
      // an unreadable directory: the write itself will report what is wrong
    }
  }

  /** Gives {@code tmp} the permissions of {@code file}, which it will replace (where POSIX). */
  private static void keepPermissions(Path file, Path tmp) throws IOException {
    try {
      Files.setPosixFilePermissions(tmp, Files.getPosixFilePermissions(file));
    } catch (UnsupportedOperationException e) {
      // not a POSIX file system: the new file has the default permissions
    }
  }

  /** Writes {@code file} atomically (temporary file, fsync, rename). */
  static void write(Path file, Writer writer) {
    Path abs = file.toAbsolutePath();
    Path dir = abs.getParent();
    if (Files.isDirectory(abs)) {
      throw new CliException(file + ": is a directory");
    }
    Path[] created = {null};
    boolean moved = false;
    try {
      String name = abs.getFileName().toString();
      if (Files.isDirectory(dir)) {
        removeStale(dir, name);
      }
      try (FileChannel ch = createTemporary(dir, name, created);
          OutputStream out =
              new BufferedOutputStream(java.nio.channels.Channels.newOutputStream(ch), 1 << 16)) {
        if (Files.exists(abs)) {
          keepPermissions(abs, created[0]);
        }
        writer.write(out);
        out.flush();
        ch.force(true);
      }
      try {
        Files.move(created[0], abs, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(created[0], abs, StandardCopyOption.REPLACE_EXISTING);
      }
      moved = true;
    } catch (NoSuchFileException e) {
      throw new CliException(file + (Files.isDirectory(dir)
          ? ": cannot write: " + Main.describe(e) // e.g. a directory of /proc, where nothing can be created
          : ": directory does not exist"));
    } catch (IOException e) {
      throw new CliException(file + ": cannot write: " + Main.describe(e), e);
    } finally {
      if (!moved && created[0] != null) {
        try {
          Files.deleteIfExists(created[0]);
        } catch (IOException ignored) {
          // The write already failed; its error is the one to report.
        }
      }
    }
  }
}
