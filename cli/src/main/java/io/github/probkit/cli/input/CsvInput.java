package io.github.probkit.cli.input;

import io.github.probkit.cli.output.CliException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import org.apache.commons.csv.CSVException;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;

/**
 * CSV input (RFC 4180) through commons-csv, in a class of its own so that only runs with {@code
 * --format csv} load the library. Records are read one after another on the calling thread: a
 * quoted field may hold a newline, so the input cannot be cut into blocks at newlines.
 *
 * <p>Keys stay bytes: the input is decoded as ISO-8859-1, one char per byte, which commons-csv
 * parses as it would UTF-8 (the delimiter and quote are ASCII, and no byte of a multi-byte UTF-8
 * character is), and each field is encoded back the same way. Each record is also handed over as
 * the bytes it was in the input, quotes and all, so that commands that print records print them as
 * they came.
 */
public final class CsvInput {
  private CsvInput() {}

  /**
   * Hands each record of {@code in} to {@code sink} with field {@code format}'s key; the first to
   * {@code header} when the format has one. Returns the number of records, header excluded; counts
   * in {@code skipped} those without the field.
   */
  static long forEach(
      InputStream in,
      String name,
      InputFormat format,
      Inputs.KeySink sink,
      LineReader.RecordConsumer records,
      long[] skipped)
      throws IOException {
    char delimiter = format.delimiterChar();
    Recorder text = new Recorder(new InputStreamReader(in, StandardCharsets.ISO_8859_1));
    CSVFormat csv = CSVFormat.RFC4180.builder().setDelimiter(delimiter).get();
    long n = 0;
    try (CSVParser parser = csv.parse(text)) {
      Iterator<CSVRecord> it = parser.iterator();
      int field = format.header ? -1 : format.fieldIndex(null, name);
      while (it.hasNext()) {
        CSVRecord r = it.next();
        byte[] line = text.record(r.getCharacterPosition(), delimiter);
        if (field < 0) {
          field = format.fieldIndex(r.toList(), name);
          sink.header(line, 0, line.length);
          continue;
        }
        n++;
        if (field == 0) {
          records.accept(line, 0, line.length, line, 0, LineReader.withoutCr(line, 0, line.length));
        } else if (field <= r.size()) {
          byte[] key = r.get(field - 1).getBytes(StandardCharsets.ISO_8859_1);
          records.accept(line, 0, line.length, key, 0, key.length);
        } else if (format.missingFieldIsEmpty) {
          records.accept(line, 0, line.length, line, 0, 0);
        } else {
          skipped[0]++;
        }
      }
      if (field < 0) {
        format.fieldIndex(null, name); // an empty input has no header to name the field
      }
    } catch (UncheckedIOException e) {
      throw failure(e.getCause(), name);
    } catch (IOException e) {
      throw failure(e, name);
    }
    return n;
  }

  /** The fields of one record as it came (bytes as ISO-8859-1 chars); none for an empty one. */
  public static List<String> fields(byte[] buf, int off, int len, char delimiter) {
    CSVFormat csv = CSVFormat.RFC4180.builder().setDelimiter(delimiter).get();
    try (CSVParser parser =
        csv.parse(
            new InputStreamReader(
                new ByteArrayInputStream(buf, off, len), StandardCharsets.ISO_8859_1))) {
      Iterator<CSVRecord> it = parser.iterator();
      return it.hasNext() ? it.next().toList() : List.of();
    } catch (IOException | UncheckedIOException e) {
      return List.of();
    }
  }

  private static IOException failure(IOException e, String name) {
    if (e instanceof CSVException) {
      throw new CliException(name + ": not valid CSV: " + e.getMessage(), e);
    }
    return e;
  }

  /**
   * The chars the parser has read, from the start of the record it returned last, so that the
   * record's own text can be cut out of them.
   */
  private static final class Recorder extends Reader {
    private final Reader in;
    private char[] buf = new char[1 << 14];

    /** The input position of {@code buf[0]}. */
    private long base;

    private int len;

    Recorder(Reader in) {
      this.in = in;
    }

    @Override
    public int read(char[] c, int off, int n) throws IOException {
      int r = in.read(c, off, n);
      if (r > 0) {
        if (len + r > buf.length) {
          buf = Arrays.copyOf(buf, Math.max(len + r, 2 * buf.length));
        }
        System.arraycopy(c, off, buf, len, r);
        len += r;
      }
      return r;
    }

    /**
     * The bytes of the record that starts at input position {@code start}, up to its line break
     * (not included, but for the '\r' of a CRLF, which is printed as it came); drops what came
     * before. The parser has read the whole record by now. The record ends at the first CR or LF
     * outside quotes, where a quote opens a quoted field only as its first char, and inside one a
     * doubled quote stands for a quote: RFC 4180, as commons-csv reads it.
     */
    byte[] record(long start, char delimiter) {
      int from = (int) (start - base);
      int i = from;
      boolean fieldStart = true;
      boolean quoted = false;
      for (; i < len; i++) {
        char c = buf[i];
        if (quoted) {
          if (c == '"') {
            if (i + 1 < len && buf[i + 1] == '"') {
              i++;
            } else {
              quoted = false;
            }
          }
        } else if (c == '\n') {
          break;
        } else if (c == '\r') {
          // The parser looked past the CR for an LF, so the LF is here if there is one.
          if (i + 1 < len && buf[i + 1] == '\n') {
            i++;
          }
          break;
        } else if (c == delimiter) {
          fieldStart = true;
          continue;
        } else if (c == '"' && fieldStart) {
          quoted = true;
        }
        fieldStart = false;
      }
      byte[] out = new byte[i - from];
      for (int j = 0; j < out.length; j++) {
        out[j] = (byte) buf[from + j];
      }
      // Keep only what follows this record's first char: the next records start after it.
      System.arraycopy(buf, from, buf, 0, len - from);
      len -= from;
      base += from;
      return out;
    }

    @Override
    public void close() throws IOException {
      in.close();
    }
  }
}
