package io.github.probkit.cli;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
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
    byte[] buf = new byte[1 << 16];
    int start = 0;
    int end = 0;
    long lines = 0;
    while (true) {
      int n = in.read(buf, end, buf.length - end);
      if (n < 0) {
        break;
      }
      end += n;
      int scan = end - n;
      for (int i = scan; i < end; i++) {
        if (buf[i] == '\n') {
          emit(buf, start, i, sink);
          lines++;
          start = i + 1;
        }
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

  private static void emit(byte[] buf, int from, int to, LineConsumer sink) throws IOException {
    if (to > from && buf[to - 1] == '\r') {
      to--;
    }
    sink.accept(buf, from, to - from);
  }
}
