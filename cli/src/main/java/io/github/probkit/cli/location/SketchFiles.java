package io.github.probkit.cli.location;

import io.github.probkit.cli.format.Format;
import io.github.probkit.cli.input.Inputs;
import io.github.probkit.cli.output.CliException;
import io.github.probkit.io.SketchFormatException;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * Reading and writing structure files. Reads name the file in every error and take no lock: a file
 * is replaced whole, by a rename, except for the few chunks a small add to a Bloom filter writes in
 * place behind a redo log ({@link RedoLog}), which a reader completes first when one is left.
 * Writers hold an exclusive {@link Lock} across their whole read-modify-write, write a temporary
 * file in the same directory, force it to disk and rename it over the target: a crash at any moment
 * leaves the old file or the new one, and two writers never lose each other's keys. The target is
 * the real file, symbolic links followed; a read-only file and one of several hard links (which a
 * rename would split) are refused.
 *
 * <p>The lock is a {@code FileChannel} lock on {@code .NAME.lock} beside the target, which holds
 * the pid of the process that has it. The lock file stays: deleting it would let a writer that
 * opened the old one and a writer that created a new one both hold "the" lock. A channel lock is
 * held by the whole JVM, so threads of one JVM first take turns on a semaphore per file.
 *
 * <p>Temporary files are {@code .NAME.probkit-RANDOM.tmp}, locked while written; SIGINT, SIGTERM
 * and SIGHUP delete them (a shutdown hook) before the JVM exits with 130, 143 or 129. What a
 * SIGKILL or a power loss leaves behind is deleted by the next write into the same directory,
 * whatever its target: any such file that no process holds locked.
 */
public final class SketchFiles {
  private SketchFiles() {}

  /** What a file is written from: a structure's writeTo, which writes the file's bytes. */
  @FunctionalInterface
  public interface Content {
    void write(OutputStream out) throws IOException;
  }

  /** Reads {@code file} with {@code reader}; failures become a CliException naming the file. */
  public static <T> T read(Path file, Format.Reader<T> reader) {
    if (Files.isDirectory(file)) {
      throw new CliException(file + ": is a directory");
    }
    RedoLog.settle(file, new PrintWriter(System.err, true));
    RacingReads.Stamp opened = RacingReads.stamp(file);
    try {
      return readOnce(file, reader);
    } catch (CliException e) {
      // A checksum that failed may be an add in place that raced this read.
      return RacingReads.again(file, opened, e, () -> readOnce(file, reader));
    }
  }

  private static <T> T readOnce(Path file, Format.Reader<T> reader) {
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
      throw new CliException(CliException.describe(file, e), e);
    }
  }

  // ---- the writers' lock

  /** How long a writer waits before it says on stderr whom it waits for. */
  static final long SAY_WAITING_AFTER_MILLIS = 1000;

  private static final long POLL_MILLIS = 10;

  /**
   * One semaphore per lock file, so that threads of this JVM take turns before the channel lock.
   */
  private static final ConcurrentHashMap<Path, Semaphore> TURNS = new ConcurrentHashMap<>();

  /**
   * The targets each thread holds locked: a thread that holds a file's lock must not wait for it
   * again (the turns are not reentrant), and no one changes that file under it.
   */
  private static final ThreadLocal<Set<Path>> HELD = ThreadLocal.withInitial(HashSet::new);

  /** Whether this thread holds the lock of {@code target}. */
  static boolean holds(Path target) {
    return HELD.get().contains(target);
  }

  /** Whether this thread holds the lock of any file. */
  static boolean holdsAny() {
    return !HELD.get().isEmpty();
  }

  /**
   * The exclusive right to rewrite {@code file}, from before it is read to after it is replaced,
   * for one thread of one process. Readers need no lock.
   */
  public static final class Lock implements AutoCloseable {
    private final Path file;
    private final Path target;
    private final Semaphore turn;
    private final FileChannel channel;
    private final FileLock lock;

    private Lock(Path file, Path target, Semaphore turn, FileChannel channel, FileLock lock) {
      this.file = file;
      this.target = target;
      this.turn = turn;
      this.channel = channel;
      this.lock = lock;
    }

    /** The file as the command was given it. */
    public Path file() {
      return file;
    }

    /** The real file that a write replaces (symbolic links followed). */
    Path target() {
      return target;
    }

    /** Replaces the locked file with what {@code writer} writes (temporary file, fsync, rename). */
    public void write(Content writer) {
      SketchFiles.write(file, target, writer);
    }

    @Override
    public void close() {
      try {
        lock.release();
        channel.close();
      } catch (IOException e) {
        // Closing the channel releases the lock whatever else fails; the JVM's exit would too.
      } finally {
        HELD.get().remove(target);
        turn.release();
      }
    }
  }

  /**
   * Locks {@code file} for a rewrite. When another writer holds it: fails at once naming its pid
   * unless {@code wait}; else waits, saying once on {@code err} after a second whom it waits for.
   */
  static Lock lock(Path file, boolean wait, PrintWriter err) {
    Path abs = target(file);
    Path dir = abs.getParent();
    if (!Files.isDirectory(dir)) {
      throw new CliException(file + ": directory does not exist");
    }
    if (Files.isDirectory(abs)) {
      throw new CliException(file + ": is a directory");
    }
    refuseNonRegular(file);
    refuseToReplace(file, abs);
    Path lockFile = dir.resolve("." + abs.getFileName() + ".lock");
    Semaphore turn = TURNS.computeIfAbsent(lockFile, k -> new Semaphore(1));
    long start = System.nanoTime();
    boolean said = false;
    try {
      if (!turn.tryAcquire()) {
        long self = ProcessHandle.current().pid();
        if (!wait) {
          throw busy(file, self);
        }
        while (!turn.tryAcquire(POLL_MILLIS, TimeUnit.MILLISECONDS)) {
          said = sayWaiting(file, self, start, said, err);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CliException(file + ": interrupted while waiting for the lock");
    }
    FileChannel ch = null;
    try {
      boolean created = !Files.exists(lockFile);
      ch =
          FileChannel.open(
              lockFile,
              StandardOpenOption.CREATE,
              StandardOpenOption.READ,
              StandardOpenOption.WRITE);
      if (created && Files.exists(abs)) {
        // Whoever may write the file may lock it: a group-writable file gets a group-writable lock.
        keepPermissions(abs, lockFile);
      }
      FileLock l;
      while ((l = tryLock(ch)) == null) {
        if (!wait) {
          throw busy(file, holder(ch));
        }
        said = sayWaiting(file, holder(ch), start, said, err);
        Thread.sleep(POLL_MILLIS);
      }
      byte[] pid = (ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII);
      ch.truncate(0);
      ch.write(ByteBuffer.wrap(pid), 0);
      // Another writer may have made the file read-only or linked it while this one waited.
      refuseToReplace(file, abs);
      // A writer killed in an update in place left its redo log: every writer completes it first.
      RedoLog.recover(file, abs);
      HELD.get().add(abs);
      return new Lock(file, abs, turn, ch, l);
    } catch (IOException | InterruptedException | RuntimeException e) {
      try {
        if (ch != null) {
          ch.close();
        }
      } catch (IOException ignored) {
        // The failure below is what to report.
      }
      turn.release();
      if (e instanceof CliException) {
        throw (CliException) e;
      }
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
        throw new CliException(file + ": interrupted while waiting for the lock");
      }
      if (e instanceof IOException) {
        throw new CliException(file + ": cannot write: " + CliException.describe(e), e);
      }
      throw (RuntimeException) e;
    }
  }

  /**
   * Locks {@code file} for {@code create}: refuses an existing file unless {@code force}, both
   * before waiting for the lock and once it is held (another create may have written it meanwhile).
   */
  static Lock lockNew(Path file, boolean force, boolean wait, PrintWriter err) {
    refuseExisting(file, force);
    Lock lock = lock(file, wait, err);
    try {
      refuseExisting(file, force);
      return lock;
    } catch (RuntimeException e) {
      lock.close();
      throw e;
    }
  }

  /**
   * Refuses a device, pipe or socket: a write replaces the file by a rename, which would put a
   * regular file where {@code /dev/full} or a FIFO was (as root, even in /dev).
   */
  private static void refuseNonRegular(Path file) {
    if (Files.exists(file) && !Files.isRegularFile(file)) {
      throw new CliException(
          file
              + ": not a regular file (a device, pipe or socket); probkit writes regular files only");
    }
  }

  /**
   * The file that a write to {@code file} replaces: its absolute real path, with symbolic links
   * followed (a dangling one too: create makes its target), so that the lock file and the temporary
   * file lie beside the real file and the rename replaces it, not the link.
   */
  static Path target(Path file) {
    Path p = file.toAbsolutePath();
    for (int hops = 0; Files.isSymbolicLink(p); hops++) {
      if (hops == 40) {
        throw new CliException(file + ": too many levels of symbolic links");
      }
      try {
        p = realDirectory(p).resolve(Files.readSymbolicLink(p));
      } catch (IOException e) {
        throw new CliException(CliException.describe(file, e), e);
      }
    }
    return realDirectory(p).resolve(p.getFileName());
  }

  /** The real path of {@code p}'s directory, or the directory as it is when it does not exist. */
  private static Path realDirectory(Path p) {
    Path dir = p.getParent();
    try {
      return dir.toRealPath();
    } catch (IOException e) {
      return dir; // a missing directory: the caller says so
    }
  }

  /**
   * Refuses to replace a read-only file (as root too, who may write any file) and a file of several
   * hard links, whose other names would keep the old contents after the rename.
   */
  private static void refuseToReplace(Path file, Path target) {
    if (!Files.isRegularFile(target)) {
      return;
    }
    try {
      Set<PosixFilePermission> mode = null;
      try {
        mode = Files.getPosixFilePermissions(target);
      } catch (UnsupportedOperationException e) {
        // not a POSIX file system: Files.isWritable alone decides
      }
      boolean anyWrite =
          mode == null
              || mode.contains(PosixFilePermission.OWNER_WRITE)
              || mode.contains(PosixFilePermission.GROUP_WRITE)
              || mode.contains(PosixFilePermission.OTHERS_WRITE);
      if (!anyWrite || !Files.isWritable(target)) {
        throw new CliException(
            file
                + ": is read-only"
                + (mode == null ? "" : " (" + PosixFilePermissions.toString(mode) + ")")
                + "; probkit does not replace it (chmod u+w makes it writable)");
      }
      Object links;
      try {
        links = Files.getAttribute(target, "unix:nlink");
      } catch (UnsupportedOperationException | IllegalArgumentException e) {
        return; // no link count on this file system
      }
      if (links instanceof Integer && (Integer) links > 1) {
        throw new CliException(
            file
                + ": has "
                + links
                + " hard links, which probkit's replace-by-rename would split (each name keeping"
                + " other contents); give it a copy of its own first, as in 'cp "
                + file
                + " "
                + file
                + ".copy && mv "
                + file
                + ".copy "
                + file
                + "'");
      }
    } catch (IOException e) {
      throw new CliException(file + ": cannot write: " + CliException.describe(e), e);
    }
  }

  private static void refuseExisting(Path file, boolean force) {
    if (Files.isDirectory(file)) {
      throw new CliException(file + ": is a directory");
    }
    refuseNonRegular(file);
    if (!force && Files.exists(file, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      throw new CliException(file + ": already exists (--force replaces it)");
    }
  }

  /**
   * What a merge into {@code dest} reads, as Redis's PFMERGE: {@code dest} itself first when it
   * exists (unless {@code replace}), then the sources. A source that is {@code dest} is refused
   * there, since counts would be added twice.
   */
  static List<Path> mergeInputs(Path dest, List<Path> sources, boolean replace) {
    List<Path> parts = new ArrayList<>();
    if (!replace && Files.exists(dest)) {
      for (Path p : sources) {
        if (sameFile(p, dest)) {
          throw includedAlready(p);
        }
      }
      parts.add(dest);
    }
    parts.addAll(sources);
    return parts;
  }

  /** The error for a merge's source that is its destination (counts would be added twice). */
  static CliException includedAlready(Object source) {
    return new CliException(
        source
            + ": is the destination, which merge includes already"
            + " (--replace merges the sources alone)");
  }

  private static boolean sameFile(Path a, Path b) {
    try {
      return Files.isSameFile(a, b);
    } catch (IOException e) {
      return false; // a missing source: reading it will say so
    }
  }

  private static CliException busy(Path file, long pid) {
    return new CliException(file + ": " + holderText(pid) + " is writing it (--no-wait)");
  }

  private static boolean sayWaiting(
      Path file, long pid, long start, boolean said, PrintWriter err) {
    long waited = System.nanoTime() - start;
    // A new holder locks before it writes its pid: give it a moment rather than name nobody.
    if (said
        || waited < TimeUnit.MILLISECONDS.toNanos(SAY_WAITING_AFTER_MILLIS)
        || (pid <= 0 && waited < TimeUnit.MILLISECONDS.toNanos(5 * SAY_WAITING_AFTER_MILLIS))) {
      return said;
    }
    err.println("probkit: waiting for " + holderText(pid) + ", which is writing " + file);
    err.flush();
    return true;
  }

  private static String holderText(long pid) {
    if (pid == ProcessHandle.current().pid()) {
      return "another thread of this process (pid " + pid + ")";
    }
    return pid > 0 ? "process " + pid : "another process";
  }

  /** The channel's lock, or null while another process (or, by another path, this one) holds it. */
  private static FileLock tryLock(FileChannel ch) throws IOException {
    try {
      return ch.tryLock();
    } catch (OverlappingFileLockException e) {
      return null;
    }
  }

  /** The pid the lock's holder wrote into the lock file, or -1. */
  private static long holder(FileChannel ch) {
    try {
      ByteBuffer b = ByteBuffer.allocate(24);
      ch.read(b, 0);
      String s = new String(b.array(), 0, b.position(), StandardCharsets.US_ASCII).strip();
      return s.matches("[0-9]{1,18}") ? Long.parseLong(s) : -1;
    } catch (IOException e) {
      return -1;
    }
  }

  // ---- temporary files

  /** Temporary files of this JVM that are being written: the shutdown hook deletes them. */
  private static final Set<Path> LIVE = new HashSet<>();

  /** Set by the shutdown hook, under LIVE's monitor: no rename may follow. */
  private static boolean exiting;

  private static boolean hooked;

  private static final Pattern TEMPORARY = Pattern.compile("\\..*\\.probkit-[0-9a-z]{1,13}\\.tmp");

  /** The last commits of adds that read streams, which the shutdown hook runs first. */
  private static final List<Runnable> BEFORE_EXIT = new CopyOnWriteArrayList<>();

  /**
   * Registers {@code tmp} as live; installs the hook that deletes live files when the JVM is
   * stopped.
   */
  private static void register(Path tmp) {
    synchronized (LIVE) {
      if (exiting) {
        throw new CliException("interrupted");
      }
      hook();
      LIVE.add(tmp);
    }
  }

  private static void hook() {
    synchronized (LIVE) {
      if (!hooked) {
        Runtime.getRuntime().addShutdownHook(new Thread(SketchFiles::atExit, "probkit-cleanup"));
        hooked = true;
      }
    }
  }

  /**
   * Has the shutdown hook run {@code commit} (a write through a {@link Lock}) before it deletes the
   * temporary files and lets no more renames happen.
   */
  static void beforeExit(Runnable commit) {
    hook();
    BEFORE_EXIT.add(commit);
  }

  static void noLongerBeforeExit(Runnable commit) {
    BEFORE_EXIT.remove(commit);
  }

  /** The shutdown hook: SIGINT, SIGTERM or SIGHUP (or an exit). */
  private static void atExit() {
    for (Runnable r : BEFORE_EXIT) {
      r.run();
    }
    deleteLive();
  }

  /** A stop that came before the rename: the temporary files go. */
  private static void deleteLive() {
    synchronized (LIVE) {
      exiting = true;
      for (Path p : LIVE) {
        try {
          Files.deleteIfExists(p);
        } catch (IOException e) {
          // Nothing more can be done while the JVM exits; the next write will find it unlocked.
        }
      }
      LIVE.clear();
    }
  }

  /**
   * A new empty file {@code .NAME.probkit-RANDOM.tmp} in {@code dir}, open for writing and locked:
   * the lock tells {@link #removeStale} that a live process owns it. Not Files.createTempFile,
   * which makes it readable by its owner only whatever the umask: the rename would pass that on to
   * the file.
   */
  private static FileChannel createTemporary(Path dir, String name, Path[] created)
      throws IOException {
    while (true) {
      Path tmp =
          dir.resolve(
              "."
                  + name
                  + ".probkit-"
                  + Long.toUnsignedString(ThreadLocalRandom.current().nextLong(), 36)
                  + ".tmp");
      register(tmp);
      created[0] = tmp;
      FileChannel ch;
      try {
        ch = FileChannel.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
      } catch (FileAlreadyExistsException e) {
        unregister(tmp);
        continue; // another name
      }
      try {
        ch.lock();
      } catch (IOException | RuntimeException e) {
        ch.close();
        throw e;
      }
      // Between its creation and the lock, another process's removeStale may have found the file
      // unlocked and deleted it: then start again under another name.
      if (Files.exists(tmp)) {
        return ch;
      }
      ch.close();
      unregister(tmp);
    }
  }

  private static void unregister(Path tmp) {
    synchronized (LIVE) {
      LIVE.remove(tmp);
    }
  }

  /**
   * Deletes the temporary files in {@code dir} that killed writes (kill -9, power loss) left
   * behind, of any target: those no process holds locked. Files of this JVM's own writes are not
   * even opened, since closing a channel drops every lock the process holds on that file. Best
   * effort: whatever fails is left alone.
   */
  static void removeStale(Path dir) {
    Set<Path> mine;
    synchronized (LIVE) {
      mine = new HashSet<>(LIVE);
    }
    try (DirectoryStream<Path> entries =
        Files.newDirectoryStream(
            dir, p -> TEMPORARY.matcher(p.getFileName().toString()).matches())) {
      for (Path p : entries) {
        if (mine.contains(p)) {
          continue;
        }
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.WRITE);
            FileLock lock = ch.tryLock()) {
          if (lock != null) {
            Files.deleteIfExists(p);
          }
        } catch (OverlappingFileLockException | IOException e) {
          // in use by this JVM, gone already, or not ours to delete
        }
      }
    } catch (IOException e) {
      // an unreadable directory: the write itself will report what is wrong
    }
  }

  /** Gives {@code to} the permissions of {@code from} (where POSIX). */
  private static void keepPermissions(Path from, Path to) throws IOException {
    try {
      Files.setPosixFilePermissions(to, Files.getPosixFilePermissions(from));
    } catch (UnsupportedOperationException e) {
      // not a POSIX file system: the new file has the default permissions
    }
  }

  /**
   * Writes {@code file} atomically (temporary file, fsync, rename); the caller holds its lock. The
   * temporary file stays locked until after the rename, so that no other write's removeStale can
   * take it for a killed one.
   */
  private static void write(Path file, Path abs, Content writer) {
    Path dir = abs.getParent();
    Path[] created = {null};
    boolean moved = false;
    try {
      String name = abs.getFileName().toString();
      removeStale(dir);
      try (FileChannel ch = createTemporary(dir, name, created)) {
        OutputStream out =
            new BufferedOutputStream(TestHook.pausing(Channels.newOutputStream(ch)), 1 << 16);
        if (Files.exists(abs)) {
          keepPermissions(abs, created[0]);
        }
        writer.write(out);
        out.flush();
        ch.force(true);
        synchronized (LIVE) {
          if (exiting) {
            throw new CliException(file + ": interrupted; the file was left as it was");
          }
          try {
            Files.move(
                created[0],
                abs,
                StandardCopyOption.ATOMIC_MOVE,
                StandardCopyOption.REPLACE_EXISTING);
          } catch (AtomicMoveNotSupportedException e) {
            Files.move(created[0], abs, StandardCopyOption.REPLACE_EXISTING);
          }
          LIVE.remove(created[0]);
          moved = true;
        }
      }
    } catch (NoSuchFileException e) {
      throw new CliException(file + ": cannot write: " + CliException.describe(e));
    } catch (IOException e) {
      throw new CliException(file + ": cannot write: " + CliException.describe(e), e);
    } finally {
      if (!moved && created[0] != null) {
        try {
          Files.deleteIfExists(created[0]);
        } catch (IOException ignored) {
          // The write already failed; its error is the one to report.
        }
        unregister(created[0]);
      }
    }
  }

  /**
   * For tests that signal a process in the middle of a write: with {@code
   * -Dprobkit.test.pauseWrite=MARKER}, a write creates the file MARKER once its first MiB is in the
   * temporary file, then sleeps until the process is stopped. Without it, nothing.
   */
  private static final class TestHook {
    private static final String MARKER = System.getProperty("probkit.test.pauseWrite");

    static OutputStream pausing(OutputStream out) {
      if (MARKER == null) {
        return out;
      }
      return new FilterOutputStream(out) {
        private long written;

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
          out.write(b, off, len);
          written += len;
          if (written >= 1 << 20) {
            out.flush();
            Files.write(Path.of(MARKER), new byte[0]);
            try {
              Thread.sleep(Long.MAX_VALUE);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              throw new java.io.InterruptedIOException("paused write interrupted");
            }
          }
        }
      };
    }
  }
}
