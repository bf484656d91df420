package io.github.probkit.cli.location;

import io.github.probkit.cli.format.FilterKeys;
import io.github.probkit.cli.input.LineReader;
import io.github.probkit.cli.output.CliException;
import io.github.probkit.filter.BlockedBloomFilter;
import io.github.probkit.filter.BloomFilter;
import io.github.probkit.filter.MappedFilter;
import io.github.probkit.hash.HashStrategy;
import io.github.probkit.io.SketchFormatException;
import io.github.probkit.io.SketchReader;
import io.github.probkit.io.SketchWriter;
import io.github.probkit.io.StructureType;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;
import java.util.zip.CRC32C;

/**
 * Adding a few keys to a large Bloom or blocked Bloom filter file in place, behind a redo log
 * (docs/FORMAT.md, "The redo log"): rewriting a file of a GB to set a few bits costs seconds and
 * the file's size in memory, while the bits fall in a few 64 KiB chunks of a version-2 file.
 *
 * <p>Under the file's lock, the writer first writes {@code NAME.redo} beside it: the new contents
 * and checksums of the changed chunks, the file's new last checksum, and a checksum over the log
 * itself; forces it and its directory to disk; then replays it into the file (chunks, their
 * checksums, the last checksum), forces the file, and deletes the log. A crash before the log is
 * complete leaves the file untouched (the log's own checksum fails and the log is deleted unused);
 * after, the file may be torn but the log is whole, and replaying it (idempotent: it holds whole
 * chunks) completes the update. Every writer replays a log when it takes the lock ({@link
 * SketchFiles#lock}); every reader first makes sure none is pending ({@link #settle}), so nobody
 * answers from a torn file.
 */
final class RedoLog {
  private RedoLog() {}

  private static final int MAGIC = 0x4c524b50; // "PKRL" little-endian

  private static final int VERSION = 1;

  /**
   * The log's trailer: magic, version, file size, payload offset, payload length, the old and the
   * new last checksum, the number of entries, and the CRC32C of every byte of the log before it.
   */
  private static final int TRAIL_BYTES = 4 + 4 + 8 + 8 + 8 + 4 + 4 + 4 + 4;

  private static final int CHUNK = SketchWriter.CHUNK_BYTES;

  /** The keys to add, read only once the file is known to take them in place. */
  @FunctionalInterface
  interface Keys {
    void forEach(LineReader.LineConsumer sink) throws IOException;
  }

  /** The log of {@code target}, the real file a write replaces. */
  static Path of(Path target) {
    return target.resolveSibling(target.getFileName() + ".redo");
  }

  /**
   * Whether a file that starts with {@code lead} (6 bytes or more) is one an add may write in
   * place: a probkit file of version 2 holding a Bloom or blocked Bloom filter, whose adds only set
   * bits of a payload laid out alike. Compressed and foreign files are read whole and rewritten.
   */
  static boolean takesAddsInPlace(byte[] lead) {
    return lead.length >= 6
        && new String(lead, 0, 4, StandardCharsets.US_ASCII).equals("PKIT")
        && lead[4] == 2
        && (lead[5] == StructureType.BLOOM_FILTER.id()
            || lead[5] == StructureType.BLOCKED_BLOOM_FILTER.id());
  }

  /** {@link #takesAddsInPlace(byte[])} of the file {@code target}; false when it cannot be read. */
  static boolean takesAddsInPlace(Path target) {
    byte[] lead = new byte[6];
    try (var in = Files.newInputStream(target)) {
      return in.readNBytes(lead, 0, lead.length) == lead.length && takesAddsInPlace(lead);
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * Adds {@code keys} to the Bloom or blocked Bloom filter in {@code target} in place, under {@code
   * lock}; returns false, having changed nothing, when the file is not a version-2 one or when more
   * than a quarter of its chunks would change: then a whole rewrite costs about as much, and the
   * caller does that.
   */
  static boolean addToBloom(SketchFiles.Lock lock, Keys keys, PrintWriter err) {
    Path target = lock.target();
    try (FileChannel ch =
        FileChannel.open(target, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer lead = ByteBuffer.allocate(6);
      ch.read(lead, 0);
      // Only a probkit file of version 2 and type Bloom or blocked Bloom, whose adds only set
      // bits of a payload laid out alike (compressed and foreign files go the way of every other:
      // read whole, rewritten).
      if (lead.position() < 6 || !takesAddsInPlace(lead.array())) {
        return false;
      }
      SketchReader r = SketchReader.open(Channels.newInputStream(ch));
      boolean blocked = r.type() == StructureType.BLOCKED_BLOOM_FILTER;
      if ((r.type() != StructureType.BLOOM_FILTER && !blocked) || !r.chunked()) {
        return false;
      }
      long m = r.paramLong("bits");
      if (blocked) {
        long max = BlockedBloomFilter.MAX_BITS;
        int block = BlockedBloomFilter.BLOCK_BITS;
        r.check(
            m >= block && m <= max && m % block == 0,
            "bits",
            m,
            "a multiple of " + block + " in [" + block + ", " + max + "]");
      } else {
        r.check(
            m >= 1 && m <= BloomFilter.MAX_BITS, "bits", m, "in [1, " + BloomFilter.MAX_BITS + "]");
      }
      int k = r.paramInt("hashes");
      int maxK = blocked ? BlockedBloomFilter.MAX_HASHES : 255;
      r.check(k >= 1 && k <= maxK, "hashes", k, "in [1, " + maxK + "]");
      long expected = r.paramLong("expectedKeys"); // and the fpp: checked by every reader
      r.paramDouble("fpp");
      r.expectPayloadLength(8 * ((m + 63) >>> 6));
      int[] sums = r.checkMapped(ch); // the last checksum, verified: the sums are the file's
      List<byte[]> given = new ArrayList<>();
      keys.forEach((buf, off, len) -> given.add(Arrays.copyOfRange(buf, off, off + len)));
      TreeMap<Integer, long[]> bitsByChunk = positions(r.hash(), m, k, given, blocked);
      if (4L * bitsByChunk.size() > sums.length) {
        return false;
      }
      Path log = of(target);
      long[] sample = new long[2];
      if (writeLog(ch, r, sums, bitsByChunk, log, sample) && !replay(ch, log)) {
        // Never reported done unless written.
        throw new CliException(
            lock.file() + ": the redo log did not read back whole; the file was left as it was");
      }
      if (mayBeOverfull(sample, m, k, expected)) {
        // As the rewrite warns; counted from the whole file, so only when the sample says it may.
        try (MappedFilter f = MappedFilter.open(target)) {
          FilterKeys.warnIfOverfull(lock.file(), f, err);
        }
      }
      return true;
    } catch (SketchFormatException e) {
      throw new CliException(lock.file() + ": " + e.getMessage(), e);
    } catch (IOException e) {
      throw new CliException(lock.file() + ": cannot write: " + CliException.describe(e), e);
    }
  }

  /** The bits the keys set, by the chunk of the payload they lie in: byte offset * 8 + bit. */
  private static TreeMap<Integer, long[]> positions(
      HashStrategy hash, long m, int k, List<byte[]> keys, boolean blocked) {
    TreeMap<Integer, long[]> byChunk = new TreeMap<>();
    long[] p = new long[k];
    for (byte[] key : keys) {
      if (blocked) {
        BlockedBloomFilter.positions(hash, m, k, key, 0, key.length, p);
      } else {
        BloomFilter.positions(hash, m, k, key, 0, key.length, p);
      }
      for (long bit : p) {
        // Bit i is bit i mod 64 of little-endian word i / 64: byte i / 8, bit i mod 8.
        long byteAt = bit >>> 3;
        int c = (int) (byteAt >>> SketchWriter.CHUNK_BITS);
        long[] bits = byChunk.computeIfAbsent(c, x -> new long[0]);
        long[] grown = Arrays.copyOf(bits, bits.length + 1);
        grown[bits.length] = bit;
        byChunk.put(c, grown);
      }
    }
    return byChunk;
  }

  /**
   * Writes the log: each changed chunk read, checked against its checksum, its bits set, and
   * written with its new checksum; then the trailer with the new last checksum and the log's own;
   * forces it and its directory. A chunk whose bits were all set already is left out; when none
   * changed, no log.
   */
  private static boolean writeLog(
      FileChannel ch,
      SketchReader r,
      int[] sums,
      TreeMap<Integer, long[]> bitsByChunk,
      Path log,
      long[] sample)
      throws IOException {
    long payload = r.payloadOffset();
    long length = r.payloadLength();
    long size = ch.size();
    int[] newSums = sums.clone();
    ByteBuffer chunk = ByteBuffer.allocate(CHUNK).order(ByteOrder.LITTLE_ENDIAN);
    ByteBuffer entryHead = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
    CRC32C logSum = new CRC32C();
    int changed = 0;
    try (FileChannel out =
        FileChannel.open(
            log,
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE)) {
      for (var e : bitsByChunk.entrySet()) {
        int c = e.getKey();
        long start = (long) c * CHUNK;
        int len = (int) Math.min(CHUNK, length - start);
        chunk.clear().limit(len);
        readFully(ch, chunk, payload + start);
        SketchReader.checkChunk(c, sums[c], crc(chunk));
        boolean any = false;
        for (long bit : e.getValue()) {
          int at = (int) ((bit >>> 3) - start);
          byte b = chunk.get(at);
          byte set = (byte) (b | (1 << (bit & 7)));
          any |= set != b;
          chunk.put(at, set);
        }
        sample[0] += setBits(chunk);
        sample[1] += 8L * len;
        if (!any) {
          continue;
        }
        newSums[c] = crc(chunk);
        entryHead.clear().putInt(c).putInt(newSums[c]).flip();
        logSum.update(entryHead.duplicate());
        logSum.update(chunk.duplicate());
        writeFully(out, entryHead);
        writeFully(out, chunk);
        changed++;
        TestStops.reached("log-entry", changed == 1);
      }
      if (changed == 0) {
        out.close();
        Files.delete(log);
        return false;
      }
      ByteBuffer trail = ByteBuffer.allocate(TRAIL_BYTES).order(ByteOrder.LITTLE_ENDIAN);
      trail.putInt(MAGIC).putInt(VERSION).putLong(size).putLong(payload).putLong(length);
      trail.putInt(lastSum(ch, size)).putInt(newLastSum(ch, payload, newSums)).putInt(changed);
      logSum.update(trail.array(), 0, trail.position());
      trail.putInt((int) logSum.getValue()).flip();
      writeFully(out, trail);
      out.force(true);
    }
    syncDirectory(log.getParent());
    TestStops.reached("log-written", true);
    return true;
  }

  private static long setBits(ByteBuffer chunk) {
    long n = 0;
    for (int i = 0; i + 8 <= chunk.limit(); i += 8) {
      n += Long.bitCount(chunk.getLong(i));
    }
    for (int i = chunk.limit() & ~7; i < chunk.limit(); i++) {
      n += Integer.bitCount(chunk.get(i) & 0xFF);
    }
    return n;
  }

  /**
   * Whether the filter may hold more keys than it was sized for, judged from the chunks the add
   * read ({@code sample}: bits set, bits read), which its keys' hashes chose at random. A chunk has
   * 2^19 bits: the fill it shows is within 0.3 % of the file's at 4 standard deviations, so a
   * filter whose sample shows under 90 % of its keys is not full; one that shows more, or a sample
   * of less than a chunk, is counted whole.
   */
  private static boolean mayBeOverfull(long[] sample, long m, int k, long expected) {
    if (expected <= 0) {
      return false; // built by shape: no size to pass
    }
    if (sample[1] < 8L * CHUNK) {
      return true;
    }
    double fill = (double) sample[0] / sample[1];
    return fill >= 1 || -(double) m / k * Math.log1p(-fill) > 0.9 * expected;
  }

  /** The file's last checksum as stored. */
  private static int lastSum(FileChannel ch, long size) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
    readFully(ch, b, size - 4);
    return b.getInt(0);
  }

  /** The last checksum with {@code sums}: of the header and parameters, then the chunk sums. */
  private static int newLastSum(FileChannel ch, long payload, int[] sums) throws IOException {
    CRC32C crc = new CRC32C();
    ByteBuffer head = ByteBuffer.allocate((int) payload);
    readFully(ch, head, 0);
    crc.update(head);
    ByteBuffer s = ByteBuffer.allocate(4 * sums.length).order(ByteOrder.LITTLE_ENDIAN);
    s.asIntBuffer();
    for (int v : sums) {
      s.putInt(v);
    }
    s.flip();
    crc.update(s);
    return (int) crc.getValue();
  }

  private static int crc(ByteBuffer b) {
    CRC32C c = new CRC32C();
    c.update(b.duplicate());
    return (int) c.getValue();
  }

  // ---- replay

  /**
   * Deals with a log that a writer killed before deleting it, under the file's lock: replays a
   * complete one that belongs to the file, deletes it either way.
   */
  static void recover(Path file, Path target) {
    Path log = of(target);
    if (!Files.exists(log, LinkOption.NOFOLLOW_LINKS) || !Files.exists(target)) {
      return;
    }
    try (FileChannel ch =
        FileChannel.open(target, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      replay(ch, log);
    } catch (IOException e) {
      throw new CliException(
          file
              + ": cannot complete the interrupted update in "
              + log
              + ": "
              + CliException.describe(e),
          e);
    }
  }

  /**
   * Replays {@code log} into {@code ch} when it is complete (its checksum matches) and belongs to
   * this file (its size and layout, and a last checksum the old or the new one), then forces the
   * file and deletes the log; returns whether it replayed it. Nothing is written from a log that
   * fails a check.
   */
  private static boolean replay(FileChannel ch, Path log) throws IOException {
    Header h;
    try (FileChannel in = FileChannel.open(log, StandardOpenOption.READ)) {
      h = verified(in, ch);
      if (h != null) {
        apply(in, ch, h);
        ch.force(true);
        TestStops.reached("applied", true);
      }
    } catch (NoSuchFileException e) {
      return false;
    }
    Files.deleteIfExists(log);
    syncDirectory(log.getParent());
    return h != null;
  }

  private record Header(long payload, long length, int newLast, int entries) {}

  /** The log's trailer when the log is complete and belongs to the file in {@code ch}, or null. */
  private static Header verified(FileChannel in, FileChannel ch) throws IOException {
    long logSize = in.size();
    if (logSize < TRAIL_BYTES) {
      return null;
    }
    ByteBuffer t = ByteBuffer.allocate(TRAIL_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    long entriesEnd = logSize - TRAIL_BYTES;
    readFully(in, t, entriesEnd);
    if (t.getInt(0) != MAGIC || t.getInt(4) != VERSION) {
      return null;
    }
    CRC32C crc = new CRC32C();
    ByteBuffer buf = ByteBuffer.allocate(CHUNK);
    for (long at = 0; at < entriesEnd; ) {
      buf.clear().limit((int) Math.min(CHUNK, entriesEnd - at));
      readFully(in, buf, at);
      crc.update(buf);
      at += buf.limit();
    }
    crc.update(t.array(), 0, TRAIL_BYTES - 4);
    if (t.getInt(TRAIL_BYTES - 4) != (int) crc.getValue()) {
      return null;
    }
    Header h = new Header(t.getLong(16), t.getLong(24), t.getInt(36), t.getInt(40));
    long size = t.getLong(8);
    long chunks = (h.length + CHUNK - 1) / CHUNK;
    if (size != ch.size()
        || h.payload < 28
        || h.length <= 0
        || h.payload + h.length + 4 * chunks + 4 != size
        || h.entries <= 0
        || h.entries > chunks) {
      return null;
    }
    int last = lastSum(ch, size);
    if (last != t.getInt(32) && last != h.newLast) {
      return null; // a log of another version of the file
    }
    // The entries must fill the log exactly, in increasing chunk order.
    ByteBuffer entryHead = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
    long at = 0;
    int previous = -1;
    for (int i = 0; i < h.entries; i++) {
      if (at + 8 > entriesEnd) {
        return null;
      }
      entryHead.clear();
      readFully(in, entryHead, at);
      int c = entryHead.getInt(0);
      if (c <= previous || c >= chunks) {
        return null;
      }
      previous = c;
      at += 8 + Math.min(CHUNK, h.length - (long) c * CHUNK);
    }
    return at == entriesEnd ? h : null;
  }

  /** Writes the log's chunks and their checksums into the file, then its new last checksum. */
  private static void apply(FileChannel in, FileChannel ch, Header h) throws IOException {
    ByteBuffer entryHead = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
    ByteBuffer chunk = ByteBuffer.allocate(CHUNK);
    ByteBuffer sum = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
    long sums = h.payload + h.length;
    long at = 0;
    for (int i = 0; i < h.entries; i++) {
      entryHead.clear();
      readFully(in, entryHead, at);
      int c = entryHead.getInt(0);
      long start = (long) c * CHUNK;
      int len = (int) Math.min(CHUNK, h.length - start);
      chunk.clear().limit(len);
      readFully(in, chunk, at + 8);
      at += 8 + len;
      if (crc(chunk) != entryHead.getInt(4)) {
        // Checked as a whole already; read again here, so checked again.
        throw new IOException("redo log chunk " + c + " does not match its checksum");
      }
      if (i == 0 && TestStops.at("chunk-half")) {
        writeFully(ch, chunk.duplicate().limit(len / 2), h.payload + start);
        TestStops.reached("chunk-half", true);
      }
      writeFully(ch, chunk, h.payload + start);
      TestStops.reached("chunk-written", i == 0);
      sum.clear().putInt(0, entryHead.getInt(4));
      writeFully(ch, sum, sums + 4L * c);
    }
    TestStops.reached("sums-written", true);
    sum.clear().putInt(0, h.newLast);
    writeFully(ch, sum, ch.size() - 4);
  }

  // ---- readers

  /**
   * Makes sure no update of {@code file} is half done before a reader reads it: when a log is
   * there, takes the lock (which replays it) and lets go. A reader that may not write the file
   * (read-only file or directory) cannot: it fails when the log is complete, since the file may be
   * torn, and reads on when it is not (its writer died before touching the file).
   */
  static void settle(Path file, PrintWriter err) {
    Path target = SketchFiles.target(file);
    Path log = of(target);
    if (!Files.exists(log, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try {
      SketchFiles.lock(file, true, err).close();
    } catch (CliException e) {
      if (complete(log, target)) {
        throw new CliException(
            file
                + ": an interrupted update is pending in "
                + log.getFileName()
                + ", which a user who may write the file completes by any probkit write to it"
                + " (cannot here: "
                + e.getMessage()
                + ")");
      }
    }
  }

  private static boolean complete(Path log, Path target) {
    try (FileChannel in = FileChannel.open(log, StandardOpenOption.READ);
        FileChannel ch = FileChannel.open(target, StandardOpenOption.READ)) {
      return verified(in, ch) != null;
    } catch (IOException e) {
      return true; // unreadable: the file may be torn, so do not read it
    }
  }

  // ---- helpers

  private static void readFully(FileChannel ch, ByteBuffer buf, long at) throws IOException {
    int start = buf.position();
    while (buf.hasRemaining()) {
      if (ch.read(buf, at + buf.position() - start) < 0) {
        throw new SketchFormatException(
            "truncated: the file ended at byte " + (at + buf.position()));
      }
    }
    buf.flip();
  }

  private static void writeFully(FileChannel ch, ByteBuffer buf, long at) throws IOException {
    ByteBuffer b = buf.duplicate();
    int start = b.position();
    while (b.hasRemaining()) {
      ch.write(b, at + b.position() - start);
    }
  }

  private static void writeFully(FileChannel ch, ByteBuffer buf) throws IOException {
    ByteBuffer b = buf.duplicate();
    while (b.hasRemaining()) {
      ch.write(b);
    }
  }

  /** Forces a directory's entries (a new or deleted log) to disk; best effort where refused. */
  private static void syncDirectory(Path dir) {
    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
      d.force(true);
    } catch (IOException e) {
      // Some file systems refuse to open a directory: its entries are then as durable as they get.
    }
  }

  /**
   * For tests that kill a writer at each step of an update: with {@code
   * -Dprobkit.test.stopUpdate=STEP,MARKER}, the writer creates the file MARKER on reaching STEP and
   * sleeps until killed. Without it, nothing.
   */
  static final class TestStops {
    private static final String STOP = System.getProperty("probkit.test.stopUpdate");

    static boolean at(String step) {
      return STOP != null && STOP.startsWith(step + ",");
    }

    static void reached(String step, boolean first) {
      if (STOP == null || !first || !STOP.startsWith(step + ",")) {
        return;
      }
      try {
        Files.write(
            Path.of(STOP.substring(step.length() + 1)), step.getBytes(StandardCharsets.UTF_8));
        Thread.sleep(Long.MAX_VALUE);
      } catch (IOException | InterruptedException e) {
        Runtime.getRuntime().halt(137);
      }
    }
  }
}
