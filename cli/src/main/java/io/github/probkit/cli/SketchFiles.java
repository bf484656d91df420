package io.github.probkit.cli;

import io.github.probkit.io.SketchFormatException;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
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
   * A new empty file {@code .NAME.RANDOM.tmp} in {@code dir}. Not Files.createTempFile, which makes
   * it readable by its owner only whatever the umask: the rename would pass that on to the file.
   */
  private static Path createTemporary(Path dir, String name) throws IOException {
    while (true) {
      Path tmp = dir.resolve("." + name + "."
          + Long.toUnsignedString(ThreadLocalRandom.current().nextLong(), 36) + ".tmp");
      try {
        Files.newByteChannel(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE).close();
        return tmp;
      } catch (FileAlreadyExistsException e) {
        // another name
      }
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
    Path tmp = null;
    try {
      tmp = createTemporary(dir, abs.getFileName().toString());
      if (Files.exists(abs)) {
        keepPermissions(abs, tmp);
      }
      try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE);
          OutputStream out =
              new BufferedOutputStream(java.nio.channels.Channels.newOutputStream(ch), 1 << 16)) {
        writer.write(out);
        out.flush();
        ch.force(true);
      }
      try {
        Files.move(tmp, abs, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, abs, StandardCopyOption.REPLACE_EXISTING);
      }
      tmp = null;
    } catch (NoSuchFileException e) {
      throw new CliException(file + (Files.isDirectory(dir)
          ? ": cannot write: " + Main.describe(e) // e.g. a directory of /proc, where nothing can be created
          : ": directory does not exist"));
    } catch (IOException e) {
      throw new CliException(file + ": cannot write: " + Main.describe(e), e);
    } finally {
      if (tmp != null) {
        try {
          Files.deleteIfExists(tmp);
        } catch (IOException ignored) {
          // The write already failed; its error is the one to report.
        }
      }
    }
  }
}
