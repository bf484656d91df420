package io.github.probkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Compressed input made of several members (gzip) or streams/frames (xz, zstd), as {@code (cat
 * a.gz; sleep 4; cat b.gz) | probkit dedupe} gives it: every part is read however the pipe pauses
 * between them, and a damaged part after the first is one line and exit 1, as {@code gzip -dc}
 * fails.
 */
class CompressedStreamsTest {
  private static byte[] lines(String prefix) {
    StringBuilder s = new StringBuilder();
    for (int i = 1; i <= 1000; i++) {
      s.append(prefix).append(i).append('\n');
    }
    return s.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] compress(String format, byte[] data) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    try (OutputStream o =
        switch (format) {
          case "gzip" -> new GZIPOutputStream(b);
          case "xz" -> new org.tukaani.xz.XZOutputStream(b, new org.tukaani.xz.LZMA2Options());
          default -> new io.airlift.compress.zstd.ZstdOutputStream(b);
        }) {
      o.write(data);
    }
    return b.toByteArray();
  }

  /** Standard input that gives {@code parts} with a pause before each after the first. */
  private static InputStream pausing(byte[]... parts) throws IOException {
    PipedInputStream in = new PipedInputStream(1 << 16);
    PipedOutputStream out = new PipedOutputStream(in);
    Thread t =
        new Thread(
            () -> {
              try (out) {
                for (int i = 0; i < parts.length; i++) {
                  if (i > 0) {
                    Thread.sleep(300);
                  }
                  out.write(parts[i]);
                  out.flush();
                }
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "pausing-writer");
    t.setDaemon(true);
    t.start();
    return in;
  }

  /** {@code dedupe} of the parts through a pipe that pauses between them: it fails, exit 1. */
  private static Cli dedupeFails(byte[]... parts) throws IOException {
    Cli c = Cli.runWithInput(pausing(parts), "dedupe");
    assertThat(c.exit).as(c.toString()).isEqualTo(1);
    return c;
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] c = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, c, a.length, b.length);
    return c;
  }

  @ParameterizedTest
  @ValueSource(strings = {"gzip", "xz", "zstd"})
  void everyPartIsReadWhenThePipePausesBetweenThem(String format) throws Exception {
    Cli c =
        Cli.runWithInput(
            pausing(compress(format, lines("a")), compress(format, lines("b"))), "dedupe");
    assertThat(c.exit).as(c.err).isZero();
    assertThat(c.out.lines().count()).isEqualTo(2000);
    assertThat(c.out).startsWith("a1\n").endsWith("b1000\n");
  }

  /** A second gzip member whose CRC is wrong, after a pause: one line naming the input, exit 1. */
  @ParameterizedTest
  @ValueSource(strings = {"crc", "length"})
  void aDamagedSecondGzipMemberIsAnError(String field) throws Exception {
    byte[] b = compress("gzip", lines("b"));
    b[b.length - (field.equals("crc") ? 8 : 4)] ^= 1;
    Cli c = dedupeFails(compress("gzip", lines("a")), b);
    assertThat(c.err)
        .isEqualTo(
            "probkit: <stdin>: corrupt gzip data ("
                + (field.equals("crc") ? "CRC" : field)
                + " mismatch)\n");
  }

  @ParameterizedTest
  @ValueSource(strings = {"gzip", "xz", "zstd"})
  void aTruncatedSecondPartIsAnError(String format) throws Exception {
    byte[] b = compress(format, lines("b"));
    Cli c = dedupeFails(compress(format, lines("a")), Arrays.copyOf(b, b.length / 2));
    // The zstd decoder says "corrupt zstd data (Not enough input bytes)".
    assertThat(c.err)
        .matches(
            "probkit: <stdin>: (truncated "
                + format
                + " data|corrupt "
                + format
                + " data \\(Not enough input bytes\\))\n");
  }

  @ParameterizedTest
  @ValueSource(strings = {"gzip", "xz", "zstd"})
  void garbageAfterThePartsIsAnError(String format) throws Exception {
    byte[] a = compress(format, lines("a"));
    Cli c = dedupeFails(a, "not compressed\n".getBytes(StandardCharsets.US_ASCII));
    assertThat(c.err).startsWith("probkit: <stdin>: corrupt " + format + " data (");
    assertThat(c.err.lines()).hasSize(1);
  }

  /** The same without pauses, from a file: one damaged byte anywhere in the second member. */
  @ParameterizedTest
  @ValueSource(strings = {"gzip", "xz", "zstd"})
  void aSecondPartWithAGarbledHeaderIsAnError(String format) throws Exception {
    byte[] b = compress(format, lines("b"));
    b[1] ^= 0x40;
    Cli c =
        Cli.runWithInput(
            new java.io.ByteArrayInputStream(concat(compress(format, lines("a")), b)), "dedupe");
    assertThat(c.exit).as(c.toString()).isEqualTo(1);
    assertThat(c.err).startsWith("probkit: <stdin>: corrupt " + format + " data (");
  }
}
