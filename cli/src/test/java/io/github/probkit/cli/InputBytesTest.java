package io.github.probkit.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.cli.input.Inputs;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

/**
 * What the commands make of the bytes that come in: a UTF-8 byte-order mark starting an input is
 * not part of the first key or header name, in files, compressed files, standard input and CSV; a
 * CRLF line's CR is not part of its key, and commands that print lines print it back.
 */
class InputBytesTest extends InTempDir {
  private static final String BOM = "\uFEFF";

  private Path write(String name, String text) throws IOException {
    Path p = dir.resolve(name);
    Files.write(p, text.getBytes(UTF_8));
    return p;
  }

  private Path gzip(String name, String text) throws IOException {
    Path p = dir.resolve(name);
    try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(p))) {
      out.write(text.getBytes(UTF_8));
    }
    return p;
  }

  @Test
  void aByteOrderMarkIsNotPartOfTheFirstKey() throws IOException {
    Path keys = write("keys.txt", BOM + "alice\nbob\n");
    Path gz = gzip("more.txt.gz", BOM + "carol\n");
    assertThat(
            Cli.run(
                    "filter",
                    "create",
                    f("f.bin"),
                    "--expected",
                    "1000",
                    "--keys",
                    keys.toString(),
                    gz.toString())
                .exit)
        .isZero();
    Cli.runWithInput(BOM + "dave\n", "filter", "add", f("f.bin"));
    Cli q = Cli.run("filter", "query", f("f.bin"), "alice", "bob", "carol", "dave");
    assertThat(q.out).isEqualTo("alice\tpresent\nbob\tpresent\ncarol\tpresent\ndave\tpresent\n");
    // The lines printed back have no mark either, and the counts see one "a".
    assertThat(Cli.runWithInput(BOM + "a\nb\na\n", "dedupe").out).isEqualTo("a\nb\n");
    assertThat(Cli.runWithInput(BOM + "a\nb\na\n", "top", "-k", "1").out).isEqualTo("2\t2\ta\n");
    assertThat(Cli.run("distinct", write("d.txt", BOM + "a\na\n").toString()).out).isEqualTo("1\n");
  }

  @Test
  void aByteOrderMarkIsNotPartOfTheFirstHeaderName() throws IOException {
    Path csv = write("users.csv", BOM + "name,age\r\nalice,3\r\nbob,4\r\nalice,5\r\n");
    Cli r = Cli.run("dedupe", "--format", "csv", "--header", "--field", "name", csv.toString());
    assertThat(r.exit).as(r.toString()).isZero();
    assertThat(r.out).isEqualTo("name,age\r\nalice,3\r\nbob,4\r\n");
    Path tsv = write("users.tsv", BOM + "name\tage\nalice\t3\n");
    Cli t = Cli.run("top", "--header", "--field", "name", tsv.toString());
    assertThat(t.exit).as(t.toString()).isZero();
    assertThat(t.out).isEqualTo("1\t1\talice\n");
  }

  /** The bytes {@code args} print for {@code in} on standard input. */
  private static byte[] output(byte[] in, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int code =
        Main.run(
            new ByteArrayInputStream(in),
            false,
            out,
            new java.io.PrintWriter(new java.io.StringWriter(), true),
            args);
    assertThat(code).isZero();
    return out.toByteArray();
  }

  @Test
  void onlyAWholeMarkIsSkipped() {
    // The mark's first two bytes then others, and a mark after the start: all are line bytes.
    byte[] in = {(byte) 0xEF, (byte) 0xBB, 'x', '\n', (byte) 0xEF, (byte) 0xBB, (byte) 0xBF, '\n'};
    assertThat(output(in, "dedupe")).isEqualTo(in);
    byte[] marked = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF, (byte) 0xEF, (byte) 0xBB, '\n'};
    assertThat(output(marked, "dedupe")).isEqualTo(new byte[] {(byte) 0xEF, (byte) 0xBB, '\n'});
    // A mark alone is an empty input; a lone 0xEF is a line.
    assertThat(output(BOM.getBytes(UTF_8), "dedupe")).isEmpty();
    assertThat(output(new byte[] {(byte) 0xEF}, "dedupe"))
        .isEqualTo(new byte[] {(byte) 0xEF, '\n'});
  }

  @Test
  void queryPrintsCrlfLinesAsTheyCameAndLooksUpTheKeyWithoutTheCr() {
    Cli.run("filter", "create", f("f.bin"), "--expected", "1000");
    // A filter made from CRLF lines holds the keys without their CR, as before.
    Cli.runWithInput("alice\r\ncarol\r\n", "filter", "add", f("f.bin"));
    assertThat(Cli.run("filter", "query", f("f.bin"), "alice", "carol").out)
        .isEqualTo("alice\tpresent\ncarol\tpresent\n");
    String in = "alice\r\nbob\r\ncarol\ndave\r\n";
    assertThat(Cli.runWithInput(in, "filter", "query", f("f.bin"), "--present").out)
        .isEqualTo("alice\r\ncarol\n");
    assertThat(Cli.runWithInput(in, "filter", "query", f("f.bin"), "--absent").out)
        .isEqualTo("bob\r\ndave\r\n");
    // The status answer names the key, without the CR.
    assertThat(Cli.runWithInput("alice\r\n", "filter", "query", f("f.bin")).out)
        .isEqualTo("alice\tpresent\n");
  }

  @Test
  void lookingForTheMarkHoldsNoLineOfAPipeBack() {
    // A pipe that brings an empty line, then would wait: the line is answered (and flushed) before
    // the next read, as without the look for a mark.
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int[] answeredBeforeSecondRead = {-1};
    InputStream pipe =
        new BulkInputStream() {
          private int reads;

          @Override
          public int read(byte[] b, int off, int len) {
            if (reads++ == 0) {
              b[off] = '\n';
              return 1;
            }
            if (answeredBeforeSecondRead[0] < 0) {
              answeredBeforeSecondRead[0] = out.size();
            }
            return -1;
          }

          @Override
          public int available() {
            return 0;
          }
        };
    int code =
        Main.run(
            new Inputs.Stdin(pipe, false, true),
            out,
            new java.io.PrintWriter(new java.io.StringWriter(), true),
            "dedupe");
    assertThat(code).isZero();
    assertThat(out.toByteArray()).isEqualTo(new byte[] {'\n'});
    assertThat(answeredBeforeSecondRead[0]).isEqualTo(1);
  }
}
