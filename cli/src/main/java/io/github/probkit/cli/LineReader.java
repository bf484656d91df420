package io.github.probkit.cli;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.zip.GZIPInputStream;

/**
 * Splits a byte stream into lines without making a String per line: each line is handed over as a
 * slice of a shared buffer, valid only during the call. A trailing '\r' is stripped, so CRLF files
 * give the same keys as LF files. Gzip input is recognised by its magic bytes and decompressed.
 */
final class LineReader {
  /** Receives one line as {@code buf[off, off + len)}. */
  @FunctionalInterface
  interface LineConsumer {
    void accept(byte[] buf, int off, int len) throws IOException;
  }

  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  /** Lines longer than this are refused rather than buffered without bound. */
  static final int MAX_LINE = 64 << 20;

  private LineReader() {}

  /** Wraps {@code in} in a gzip decoder when it starts with the gzip magic bytes. */
  static InputStream maybeGunzip(InputStream in) throws IOException {
    BufferedInputStream b = new BufferedInputStream(in, 1 << 16);
    b.mark(2);
    int a = b.read();
    int c = b.read();
    b.reset();
    return a == 0x1f && c == 0x8b ? new GZIPInputStream(b, 1 << 16) : b;
  }

  /** Feeds every line of {@code in} to {@code sink}; {@code name} is used in error messages. */
  static long forEachLine(InputStream in, String name, LineConsumer sink) throws IOException {
    byte[] buf = new byte[1 << 18];
    int start = 0;
    int end = 0;
    long lines = 0;
    while (true) {
      int n = in.read(buf, end, buf.length - end);
      if (n < 0) {
        break;
      }
      // Bytes before end - n were scanned already and hold no newline.
      int from = end;
      end += n;
      for (int nl; (nl = indexOfNewline(buf, from, end)) >= 0; from = start) {
        emit(buf, start, nl, sink);
        lines++;
        start = nl + 1;
      }
      if (start == end) {
        start = end = 0;
      } else if (end == buf.length) {
        if (start > 0) {
          System.arraycopy(buf, start, buf, 0, end - start);
          end -= start;
          start = 0;
        } else {
          if (buf.length >= MAX_LINE) {
            throw new CliException(
                name + ": line " + (lines + 1) + " is longer than " + (MAX_LINE >> 20) + " MiB");
          }
          buf = java.util.Arrays.copyOf(buf, Math.min(MAX_LINE, buf.length * 2));
        }
      }
    }
    if (start < end) {
      emit(buf, start, end, sink);
      lines++;
    }
    return lines;
  }

  /**
   * The index of the first '\n' in {@code buf[from, to)}, or -1. Eight bytes at a time: a byte of
   * {@code w ^ 0x0a..0a} is zero where w holds a newline, and {@code (x - 0x01..01) & ~x & 0x80..80}
   * marks the lowest zero byte exactly (borrows only disturb the bytes above it).
   */
  static int indexOfNewline(byte[] buf, int from, int to) {
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

  private static void emit(byte[] buf, int from, int to, LineConsumer sink) throws IOException {
    if (to > from && buf[to - 1] == '\r') {
      to--;
    }
    sink.accept(buf, from, to - from);
  }
}
