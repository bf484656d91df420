package io.github.probkit.cli.input;

import io.github.probkit.cli.output.CliException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Splits a byte stream into lines without making a String per line. The stream is read as blocks of
 * whole lines, so that each block can be split on its own thread; each line is handed over as a
 * slice of the block's buffer, valid only during the call. A line is handed over as it came, a '\r'
 * before its newline included: commands that print lines print them unchanged, and {@link
 * InputFormat#select} leaves the '\r' out of the key, so that CRLF files give the same keys as LF
 * files.
 */
public final class LineReader {
  /** Receives one line as {@code buf[off, off + len)}. */
  @FunctionalInterface
  public interface LineConsumer {
    void accept(byte[] buf, int off, int len) throws IOException;
  }

  /**
   * Receives one input line (or CSV record) as {@code line[off, off + len)} with its key as {@code
   * key[keyOff, keyOff + keyLen)}: the whole line, a field of it, or an unquoted CSV field. Both
   * are valid only during the call.
   */
  @FunctionalInterface
  public interface RecordConsumer {
    void accept(byte[] line, int off, int len, byte[] key, int keyOff, int keyLen)
        throws IOException;
  }

  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private static final byte[] BOM = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};

  /** Lines longer than this are refused rather than buffered without bound. */
  static final int MAX_LINE = 64 << 20;

  /** The usual size of a block: big enough that handing it to a thread costs nothing per line. */
  public static final int BLOCK = 1 << 20;

  private final InputStream in;
  private final String name;
  private final boolean eager;
  private byte[] carry = new byte[0];
  private int carried;
  private long offset;
  private boolean eof;

  /**
   * Reads {@code in}; {@code name} is used in error messages. An {@code eager} reader hands over
   * the lines it has as soon as a read brings a newline, rather than filling a block first: for
   * lines that arrive one at a time on a pipe and are to be answered as they come.
   */
  LineReader(InputStream in, String name, boolean eager) {
    this.in = in;
    this.name = name;
    this.eager = eager;
  }

  /**
   * The next line on its own (a header), without its newline; null at the end of the stream. Call
   * it before {@link #next}, on a buffered stream.
   */
  byte[] readLine() throws IOException {
    java.io.ByteArrayOutputStream line = new java.io.ByteArrayOutputStream();
    int c;
    while ((c = in.read()) >= 0 && c != '\n') {
      if (line.size() == MAX_LINE) {
        throw new CliException(
            name + ": the line at byte " + offset + " is longer than " + (MAX_LINE >> 20) + " MiB");
      }
      line.write(c);
    }
    if (c < 0 && line.size() == 0) {
      return null;
    }
    offset += line.size() + (c < 0 ? 0 : 1);
    return line.toByteArray();
  }

  /** The length of {@code buf[off, off + len)} without a '\r' at its end (a CRLF line's). */
  public static int withoutCr(byte[] buf, int off, int len) {
    return len > 0 && buf[off + len - 1] == '\r' ? len - 1 : len;
  }

  /**
   * {@code in} without the UTF-8 byte-order mark (EF BB BF) that Excel's "CSV UTF-8" and Notepad
   * put at the start of a file, which would otherwise be part of the first key or header name.
   * Looks only at bytes the first read brings or that are waiting, as {@link Decompress#open} does,
   * and hands back those that are no mark on their own, so that a line piped alone is not held
   * back.
   */
  static InputStream withoutBom(InputStream in) throws IOException {
    byte[] head = new byte[BOM.length];
    // One read, which waits for the first bytes as any reader would, then only bytes that wait.
    int n = Math.max(0, in.read(head, 0, BOM.length));
    while (n > 0 && n < BOM.length && isBomPrefix(head, n) && in.available() > 0) {
      int c = in.read();
      if (c < 0) {
        break;
      }
      head[n++] = (byte) c;
    }
    if (n == BOM.length && isBomPrefix(head, n)) {
      return in;
    }
    return new SequenceInputStream(new ByteArrayInputStream(head, 0, n), in);
  }

  private static boolean isBomPrefix(byte[] head, int n) {
    return Arrays.equals(head, 0, n, BOM, 0, n);
  }

  /**
   * Fills {@code b} with the next run of whole lines (the stream's last line may lack its newline);
   * false at the end of the stream. The bytes after the block's last newline are kept for the next.
   */
  boolean next(Block b) throws IOException {
    byte[] buf = b.buf.length >= carried ? b.buf : new byte[carried];
    System.arraycopy(carry, 0, buf, 0, carried);
    int end = carried;
    int scanned = carried; // the carried bytes hold no newline
    carried = 0;
    while (true) {
      while (!eof && end < buf.length) {
        int n = in.read(buf, end, buf.length - end);
        if (n < 0) {
          eof = true;
        } else {
          end += n;
          if (eager && indexOfNewline(buf, end - n, end) >= 0) {
            break;
          }
        }
      }
      int cut = eof ? end : lastNewline(buf, scanned, end) + 1;
      if (cut > 0) {
        carried = end - cut;
        if (carry.length < carried) {
          carry = new byte[Math.max(carried, Math.min(MAX_LINE, 2 * carry.length))];
        }
        System.arraycopy(buf, cut, carry, 0, carried);
        b.fill(buf, cut);
        offset += cut;
        return true;
      }
      if (eof) {
        return false;
      }
      // A full buffer without a newline: one line longer than the buffer.
      if (buf.length >= MAX_LINE) {
        throw new CliException(
            name + ": the line at byte " + offset + " is longer than " + (MAX_LINE >> 20) + " MiB");
      }
      scanned = end;
      buf = Arrays.copyOf(buf, Math.min(MAX_LINE, buf.length * 2));
    }
  }

  private static int lastNewline(byte[] buf, int from, int to) {
    for (int i = to - 1; i >= from; i--) {
      if (buf[i] == '\n') {
        return i;
      }
    }
    return -1;
  }

  /**
   * Hands every line of {@code buf[0, len)} to {@code sink}; a final line without its newline
   * counts. Returns the number of lines.
   */
  static long split(byte[] buf, int len, LineConsumer sink) throws IOException {
    long lines = 0;
    int start = 0;
    for (int nl; (nl = indexOfNewline(buf, start, len)) >= 0; start = nl + 1) {
      sink.accept(buf, start, nl - start);
      lines++;
    }
    if (start < len) {
      sink.accept(buf, start, len - start);
      lines++;
    }
    return lines;
  }

  /**
   * The index of the first '\n' in {@code buf[from, to)}, or -1. Eight bytes at a time: a byte of
   * {@code w ^ 0x0a..0a} is zero where w holds a newline, and {@code (x - 0x01..01) & ~x &
   * 0x80..80} marks the lowest zero byte exactly (borrows only disturb the bytes above it).
   */
  public static int indexOfNewline(byte[] buf, int from, int to) {
    int i = from;
    for (; i + 8 <= to; i += 8) {
      long x = (long) LONGS.get(buf, i) ^ 0x0A0A0A0A0A0A0A0AL;
      long t = (x - 0x0101010101010101L) & ~x & 0x8080808080808080L;
      if (t != 0) {
        return i + (Long.numberOfTrailingZeros(t) >>> 3);
      }
    }
    for (; i < to; i++) {
      if (buf[i] == '\n') {
        return i;
      }
    }
    return -1;
  }

  /**
   * A run of whole lines, and what became of them: its line counts and, when hashed, the hashes.
   */
  public static final class Block {
    byte[] buf = new byte[BLOCK];
    int len;
    long lines;
    long skipped;
    long[] hashes = new long[0];
    int hashCount;

    void fill(byte[] buf, int len) {
      this.buf = buf;
      this.len = len;
      lines = skipped = 0;
      hashCount = 0;
    }

    void addHash(long h) {
      if (hashCount == hashes.length) {
        hashes = Arrays.copyOf(hashes, Math.max(1024, 2 * hashCount));
      }
      hashes[hashCount++] = h;
    }

    /** Drops a buffer grown for a long line, so that a recycled block holds no more than usual. */
    void shrink() {
      if (buf.length > BLOCK) {
        buf = new byte[BLOCK];
      }
    }
  }
}
