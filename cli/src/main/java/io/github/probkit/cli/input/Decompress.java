package io.github.probkit.cli.input;

import io.github.probkit.cli.output.CliException;
import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.zip.CRC32;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * Compressed inputs, told by their magic bytes rather than their names: gzip, xz and zstd are
 * decompressed; bzip2, zip, lz4 and 7z are refused with one line, rather than read as lines of
 * binary. The xz and zstd decoders come from libraries that only a run with such input loads.
 */
public final class Decompress {
  private Decompress() {}

  private static final int[] GZIP = {0x1f, 0x8b};
  private static final int[] XZ = {0xfd, '7', 'z', 'X', 'Z', 0};
  private static final int[] ZSTD = {0x28, 0xb5, 0x2f, 0xfd};
  private static final int[] BZIP2 = {'B', 'Z', 'h', -1, 0x31, 0x41, 0x59, 0x26, 0x53, 0x59};
  private static final int[] ZIP = {'P', 'K', 3, 4};
  private static final int[] LZ4 = {0x04, 0x22, 0x4d, 0x18};
  private static final int[] SEVEN_Z = {'7', 'z', 0xbc, 0xaf, 0x27, 0x1c};

  /**
   * {@code raw}, buffered, and decompressed when it starts with the magic bytes of gzip, xz or
   * zstd; {@code name} is used in errors. Looks only at the bytes the first read brings (and any
   * already waiting), so that a line typed or piped alone is not held back.
   */
  static InputStream open(InputStream raw, String name) throws IOException {
    BufferedInputStream in = new BufferedInputStream(raw, 1 << 16);
    int[] head = new int[10];
    int n = 0;
    in.mark(head.length);
    for (int c; n < head.length && (n == 0 || in.available() > 0) && (c = in.read()) >= 0; ) {
      head[n++] = c;
    }
    in.reset();
    String format =
        starts(head, n, GZIP)
            ? "gzip"
            : starts(head, n, XZ) ? "xz" : starts(head, n, ZSTD) ? "zstd" : null;
    if (format != null) {
      try {
        // The decoders read their stream's header here already.
        InputStream d =
            format.equals("gzip")
                ? new GzipMembers(in, name)
                : format.equals("xz") ? Codecs.xz(in) : Codecs.zstd(in, name);
        return decoding(d, format, name);
      } catch (IOException e) {
        throw failure(e, format, name);
      }
    }
    String refused =
        starts(head, n, BZIP2)
            ? "bzip2"
            : starts(head, n, ZIP)
                ? "zip"
                : starts(head, n, LZ4) ? "lz4" : starts(head, n, SEVEN_Z) ? "7z" : null;
    if (refused != null) {
      throw new CliException(
          name
              + ": "
              + refused
              + " data, which probkit does not read (gzip, xz and zstd it"
              + " does): decompress it into a pipe, as in '"
              + (refused.equals("zip") ? "unzip -p" : refused + " -dc")
              + " "
              + name
              + " | probkit ...'");
    }
    return in;
  }

  private static boolean starts(int[] head, int n, int[] magic) {
    if (n < magic.length) {
      return false;
    }
    for (int i = 0; i < magic.length; i++) {
      if (magic[i] >= 0 && head[i] != magic[i]) {
        return false;
      }
    }
    return true;
  }

  /**
   * {@code in}, whose failures to decode become one line naming the input and the format; failures
   * of the stream beneath (a disk error) pass through as they are.
   */
  private static InputStream decoding(InputStream in, String format, String name) {
    return new FilterInputStream(in) {
      @Override
      public int read() throws IOException {
        try {
          return super.read();
        } catch (IOException e) {
          throw failure(e, format, name);
        } catch (RuntimeException e) {
          throw malformed(e, format, name);
        }
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        try {
          return super.read(b, off, len);
        } catch (IOException e) {
          throw failure(e, format, name);
        } catch (RuntimeException e) {
          throw malformed(e, format, name);
        }
      }
    };
  }

  /** A decoder's failure as one line naming the input; a failure of the stream beneath as it is. */
  private static IOException failure(IOException e, String format, String name) {
    String type = e.getClass().getName();
    if (e instanceof EOFException) {
      throw new CliException(name + ": truncated " + format + " data", e);
    }
    StackTraceElement[] at = e.getStackTrace();
    if (type.startsWith("java.util.zip.")
        || type.startsWith("org.tukaani.xz.")
        || (at.length > 0 && at[0].getClassName().startsWith("io.airlift.compress."))) {
      throw new CliException(name + ": corrupt " + format + " data (" + e.getMessage() + ")", e);
    }
    return e;
  }

  /** The zstd decoder reports corrupt data as unchecked exceptions of its own: one line too. */
  private static RuntimeException malformed(RuntimeException e, String format, String name) {
    if (e.getClass().getName().startsWith("io.airlift.compress.")) {
      throw new CliException(name + ": corrupt " + format + " data (" + e.getMessage() + ")", e);
    }
    return e;
  }

  /**
   * Every member of a gzip stream, as {@code gzip -dc} reads it. Not the JDK's GZIPInputStream,
   * which looks for a next member only when {@code available()} says bytes are waiting: on a pipe
   * that pauses between two members it ended the input after the first, and it ignored a damaged
   * member after the first. Here whether another member follows is decided by a blocking read; each
   * member's CRC and length are checked; after the last one only zero bytes may follow (as gzip
   * allows for tape padding).
   */
  static final class GzipMembers extends InputStream {
    private final InputStream in;
    private final String name;
    private final byte[] buf = new byte[1 << 16];
    private int pos;
    private int lim;
    private long bufStart; // the input offset of buf[0]
    private final Inflater inflater = new Inflater(true);
    private final CRC32 crc = new CRC32();
    private long size;
    private boolean end;

    GzipMembers(InputStream in, String name) throws IOException {
      this.in = in;
      this.name = name;
      header(byteOrEnd());
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (len == 0) {
        return 0;
      }
      while (!end) {
        int n;
        try {
          n = inflater.inflate(b, off, len);
        } catch (DataFormatException e) {
          throw corrupt(e.getMessage());
        }
        if (n > 0) {
          crc.update(b, off, n);
          size += n;
          return n;
        }
        if (inflater.finished()) {
          pos = lim - inflater.getRemaining();
          trailer();
          int next = byteOrEnd();
          if (next < 0) {
            end = true;
          } else if (next == 0) {
            zerosToTheEnd();
            end = true;
          } else {
            header(next);
          }
        } else if (inflater.needsDictionary()) {
          throw corrupt("a preset dictionary, which gzip does not use");
        } else if (inflater.needsInput()) {
          if (!fill()) {
            throw new CliException(name + ": truncated gzip data");
          }
          inflater.setInput(buf, pos, lim - pos);
          pos = lim;
        }
      }
      return -1;
    }

    /** Whether bytes are in {@code buf[pos, lim)}, reading more when it is empty; false at EOF. */
    private boolean fill() throws IOException {
      if (pos < lim) {
        return true;
      }
      int n = in.read(buf, 0, buf.length);
      if (n <= 0) {
        return false;
      }
      bufStart += lim;
      pos = 0;
      lim = n;
      return true;
    }

    private int byteOrEnd() throws IOException {
      return fill() ? buf[pos++] & 0xFF : -1;
    }

    private int u8() throws IOException {
      int c = byteOrEnd();
      if (c < 0) {
        throw new CliException(name + ": truncated gzip data");
      }
      return c;
    }

    private long u32() throws IOException {
      return u8() | u8() << 8 | u8() << 16 | (long) u8() << 24;
    }

    /** Reads a member's header, whose first byte {@code first} was read already. */
    private void header(int first) throws IOException {
      long at = bufStart + pos - 1;
      if (first != 0x1f || u8() != 0x8b) {
        throw new CliException(
            name + ": corrupt gzip data (at byte " + at + ": not the start of a gzip member)");
      }
      if (u8() != 8) {
        throw corrupt("unsupported compression method");
      }
      int flags = u8();
      if ((flags & 0xE0) != 0) {
        throw corrupt("reserved header flags set");
      }
      for (int i = 0; i < 6; i++) {
        u8(); // modification time, extra flags, operating system
      }
      if ((flags & 4) != 0) {
        for (int n = u8() | u8() << 8; n > 0; n--) {
          u8();
        }
      }
      for (int field = 8; field <= 16; field <<= 1) { // file name, comment: zero-terminated
        if ((flags & field) != 0) {
          while (u8() != 0) {
            // skipped
          }
        }
      }
      if ((flags & 2) != 0) {
        u8(); // header CRC16
        u8();
      }
      inflater.reset();
      crc.reset();
      size = 0;
    }

    private void trailer() throws IOException {
      if (u32() != crc.getValue()) {
        throw corrupt("CRC mismatch");
      }
      if (u32() != (size & 0xFFFFFFFFL)) {
        throw corrupt("length mismatch");
      }
    }

    private void zerosToTheEnd() throws IOException {
      for (int c; (c = byteOrEnd()) >= 0; ) {
        if (c != 0) {
          throw new CliException(
              name
                  + ": corrupt gzip data (garbage after the last member, at byte "
                  + (bufStart + pos - 1)
                  + ")");
        }
      }
    }

    private CliException corrupt(String what) {
      return new CliException(name + ": corrupt gzip data (" + what + ")");
    }

    @Override
    public void close() throws IOException {
      inflater.end();
      in.close();
    }
  }

  /**
   * The decoders of the optional libraries, in a class of their own so that they load only when
   * used.
   */
  private static final class Codecs {
    static InputStream xz(InputStream in) throws IOException {
      // A corrupt or hostile header may ask for a dictionary of up to 4 GiB: allow half the heap.
      long kib = Runtime.getRuntime().maxMemory() / 2 / 1024;
      return new org.tukaani.xz.XZInputStream(in, (int) Math.min(Integer.MAX_VALUE, kib));
    }

    static InputStream zstd(InputStream in, String name) {
      // aircompressor: pure Java (no native library to load on any platform), 250 KB.
      return new io.airlift.compress.zstd.ZstdInputStream(in);
    }
  }
}
