package io.github.probkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.cli.input.Numbers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** --format, --field, --header and --delimiter, and the numbers and rates options take. */
class InputFormatTest {
  @TempDir Path dir;

  /**
   * The records dedupe prints are the input's own bytes, whatever quoting and line ends they have.
   */
  @Test
  void csvRecordsComeOutAsTheyWentIn() {
    String in =
        "a,\"x, y\"\r\n\"b\",\"say \"\"hi\"\"\"\r\n,\r\n\"multi\r\nline\",z\r\n\r\nlast,\"no newline\"";
    Cli r = Cli.runWithInput(in, "dedupe", "--format", "csv");
    assertThat(r.exit).as(r.err).isZero();
    assertThat(r.out)
        .isEqualTo(
            "a,\"x, y\"\r\n\"b\",\"say \"\"hi\"\"\"\r\n,\r\n\"multi\r\nline\",z\r\n\r\n"
                + "last,\"no newline\"\n");
    // The keys are the unquoted fields.
    Cli first =
        Cli.runWithInput(
            in + "\nb,again\n\"a\",again\n", "dedupe", "--format", "csv", "--field", "1");
    assertThat(first.out)
        .isEqualTo(
            "a,\"x, y\"\r\n\"b\",\"say \"\"hi\"\"\"\r\n,\r\n\"multi\r\nline\",z\r\n"
                + "last,\"no newline\"\n");
    assertThat(first.err).contains("kept 5 of 8 lines, dropped 3");
  }

  @Test
  void aQuoteInsideAnUnquotedFieldIsJustACharacter() {
    Cli r = Cli.runWithInput("5'11\",tall\nx,y\n", "dedupe", "--format", "csv", "--field", "2");
    assertThat(r.out).isEqualTo("5'11\",tall\nx,y\n");
  }

  @Test
  void otherDelimitersAndUtf8Keys() throws Exception {
    Path f = dir.resolve("f.bin");
    byte[] csv = "name;city\nzoë;\"Zürich; CH\"\n".getBytes(StandardCharsets.UTF_8);
    Cli create =
        Cli.runWithInput(
            new java.io.ByteArrayInputStream(csv),
            "filter",
            "create",
            f.toString(),
            "--expected",
            "10",
            "--format",
            "csv",
            "--delimiter",
            ";",
            "--header",
            "--field",
            "city");
    assertThat(create.exit).as(create.err).isZero();
    assertThat(Cli.run("filter", "query", f.toString(), "Zürich; CH", "zoë").out)
        .isEqualTo("Zürich; CH\tpresent\nzoë\tabsent\n");
    assertThat(Files.size(f)).isPositive();
  }

  @Test
  void tsvFieldsByNameAndTheHeaderPrintedOnce() throws Exception {
    Path a = Files.writeString(dir.resolve("a.tsv"), "user\tcity\nann\tOslo\nbo\tRome\n");
    Path b = Files.writeString(dir.resolve("b.tsv"), "city\tuser\nOslo\tcy\nLima\tdi\n");
    Cli r = Cli.run("dedupe", "--header", "--field", "city", a.toString(), b.toString());
    assertThat(r.out).as(r.err).isEqualTo("user\tcity\nann\tOslo\nbo\tRome\nLima\tdi\n");
    Cli missing = Cli.run("dedupe", "--header", "--field", "country", a.toString());
    assertThat(missing.exit).isEqualTo(1);
    assertThat(missing.err)
        .isEqualTo("probkit: " + a + ": no field named 'country' in its header (user, city)\n");
  }

  @Test
  void badFormatOptionsFailBeforeAnyInputIsRead() {
    java.util.Map<java.util.List<String>, String> cases =
        java.util.Map.of(
            java.util.List.of("--field", "0"),
            "--field counts from 1 (without --field the key is the whole line), was 0",
            java.util.List.of("--field", "city"),
            "--field city names a field: add --header, whose first line has the names (or give the field's number, from 1)",
            java.util.List.of("--format", "json"),
            "--format must be lines, tsv or csv, was 'json'",
            java.util.List.of("--format", "lines", "--field", "2"),
            "--field picks a field of tsv or csv input, not of --format lines",
            java.util.List.of("--delimiter", "ab", "--field", "1"),
            "--delimiter must be one ASCII character other than a newline or quote, or \\t; was 'ab'");
    cases.forEach(
        (options, message) -> {
          java.util.List<String> args =
              new java.util.ArrayList<>(java.util.List.of("dedupe", "no-such-file"));
          args.addAll(options);
          Cli r = Cli.run(args.toArray(String[]::new));
          assertThat(r.exit).as(r.toString()).isEqualTo(2);
          assertThat(r.err).isEqualTo("probkit: " + message + "\n");
        });
  }

  @Test
  void numbersWithUnitsAndRatesAsPercentages() {
    assertThat(Numbers.count("1k", 0, Long.MAX_VALUE)).isEqualTo(1000);
    assertThat(Numbers.count("1K", 0, Long.MAX_VALUE)).isEqualTo(1000);
    assertThat(Numbers.count("20_000_000", 0, Long.MAX_VALUE)).isEqualTo(20_000_000);
    assertThat(Numbers.count("2e7", 0, Long.MAX_VALUE)).isEqualTo(20_000_000);
    assertThat(Numbers.count("1.5M", 0, Long.MAX_VALUE)).isEqualTo(1_500_000);
    assertThat(Numbers.count("2T", 0, Long.MAX_VALUE)).isEqualTo(2_000_000_000_000L);
    assertThat(Numbers.rate("1%")).isEqualTo(0.01);
    assertThat(Numbers.rate("0.5 %")).isEqualTo(0.005);
    assertThat(Numbers.rate("1e-3")).isEqualTo(0.001);
    String[][] bad = {
      {"1.5", "'1.5' is not a whole number"},
      {"3G", "'3G' is too large (at most 2147483647)"},
      {"1e30", "'1e30' is too large (at most 2147483647)"},
      {"-3G", "'-3G' is too small (at least -2147483648)"},
      {"ten", "'ten' is not a number (write 20000000, 20_000_000, 2e7, 20M or 1k)"},
      {"10m", "'10m' is not a number (write 20000000, 20_000_000, 2e7, 20M or 1k)"},
    };
    for (String[] b : bad) {
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> new Numbers.Ints().convert(b[0]))
          .hasMessage(b[1]);
    }
    for (String r : new String[] {"NaN", "Infinity", "0x1p-3", "1%%", "1d"}) {
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> Numbers.rate(r))
          .hasMessage("'" + r + "' is not a number (write 0.01, 1e-2 or 1%)");
    }
  }
}
