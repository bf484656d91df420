package io.github.probkit.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.github.probkit.cli.format.ParquetFilters;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.IntFunction;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.values.bloomfilter.BloomFilter;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.BloomFilterReader;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code probkit filter query FILE.parquet --column C}: the Bloom filters of Parquet files that
 * parquet-java itself wrote, answered key for key as parquet-java's own {@code BloomFilter}
 * answers, and damaged files refused in one line.
 *
 * <p>The files are written with parquet-java's Hadoop-free API (LocalOutputFile,
 * PlainParquetConfiguration); hadoop-client-api is on the test classpath only because javac must
 * see the Hadoop types that the builders' overloads name.
 */
class ParquetFiltersCliTest {
  private static final int ROWS = 20_000;

  private static final MessageType SCHEMA =
      MessageTypeParser.parseMessageType(
          "message m {"
              + " required binary user_id (STRING);"
              + " required int32 n32;"
              + " required int64 id;"
              + " optional group address { optional binary city (STRING); }"
              + " required int32 day (DATE);"
              + " required int64 price (DECIMAL(12, 2));"
              + " required int32 small (INTEGER(8, false));"
              + " required fixed_len_byte_array(16) uuid (UUID);"
              + " required float ratio;"
              + " required double score;"
              + " }");

  @TempDir static Path dir;
  static Path file;

  /**
   * A column with a Bloom filter: the value of row {@code i} as text (null: no value), a value no
   * row holds, how parquet-java writes a value and how it hashes one.
   */
  record Col(
      String name,
      IntFunction<String> present,
      IntFunction<String> absent,
      BiConsumer<Group, String> write,
      BiFunction<BloomFilter, String, Long> hash) {}

  private static byte[] uuid(String v) {
    UUID u = UUID.fromString(v);
    return ByteBuffer.allocate(16)
        .putLong(u.getMostSignificantBits())
        .putLong(u.getLeastSignificantBits())
        .array();
  }

  private static long unscaled(String v) {
    return new BigDecimal(v).movePointRight(2).longValueExact();
  }

  static final List<Col> COLUMNS =
      List.of(
          new Col(
              "user_id",
              i -> "user-" + i,
              i -> "user-" + (ROWS + i),
              (g, v) -> g.append("user_id", v),
              (f, v) -> f.hash(Binary.fromString(v))),
          new Col(
              "n32",
              i -> Integer.toString(7 * i - 100_000),
              i -> Integer.toString(7 * i - 100_000 + 3),
              (g, v) -> g.append("n32", Integer.parseInt(v)),
              (f, v) -> f.hash(Integer.parseInt(v))),
          new Col(
              "id",
              i -> Long.toString((1L << 40) + 1_000_003L * i),
              i -> Long.toString((1L << 40) + 1_000_003L * i + 1),
              (g, v) -> g.append("id", Long.parseLong(v)),
              (f, v) -> f.hash(Long.parseLong(v))),
          new Col(
              "address.city",
              i -> i % 5 == 0 ? null : "city-" + (i % 3000),
              i -> "town-" + i,
              (g, v) -> g.getGroup("address", 0).append("city", v),
              (f, v) -> f.hash(Binary.fromString(v))),
          new Col(
              "day",
              i -> LocalDate.of(2000, 1, 1).plusDays(i % 5000).toString(),
              i -> LocalDate.of(2100, 1, 1).plusDays(i).toString(),
              (g, v) -> g.append("day", (int) LocalDate.parse(v).toEpochDay()),
              (f, v) -> f.hash((int) LocalDate.parse(v).toEpochDay())),
          new Col(
              "price",
              i -> BigDecimal.valueOf(37L * i + 5, 2).toPlainString(),
              i -> BigDecimal.valueOf(37L * i + 6, 2).toPlainString(),
              (g, v) -> g.append("price", unscaled(v)),
              (f, v) -> f.hash(unscaled(v))),
          new Col(
              "small",
              i -> Integer.toString(i % 200),
              i -> Integer.toString(200 + i % 56),
              (g, v) -> g.append("small", Integer.parseInt(v)),
              (f, v) -> f.hash(Integer.parseInt(v))),
          new Col(
              "uuid",
              i -> new UUID(i, 31L * i).toString(),
              i -> new UUID(-1 - i, i).toString(),
              (g, v) -> g.append("uuid", Binary.fromConstantByteArray(uuid(v))),
              (f, v) -> f.hash(Binary.fromConstantByteArray(uuid(v)))),
          new Col(
              "ratio",
              i -> Float.toString(0.25f * i),
              i -> Float.toString(0.25f * i + 0.125f),
              (g, v) -> g.append("ratio", Float.parseFloat(v)),
              (f, v) -> f.hash(Float.parseFloat(v))));

  @BeforeAll
  static void write() throws IOException {
    file = dir.resolve("data.parquet");
    write(file, ROWS, 256 * 1024);
  }

  static void write(Path f, int rows, long rowGroupBytes) throws IOException {
    ExampleParquetWriter.Builder b =
        ExampleParquetWriter.builder(new LocalOutputFile(f))
            .withConf(new PlainParquetConfiguration())
            .withType(SCHEMA)
            .withRowGroupSize(rowGroupBytes)
            .withPageSize(16 * 1024);
    for (Col c : COLUMNS) {
      b = b.withBloomFilterEnabled(c.name, true).withBloomFilterNDV(c.name, rows);
    }
    SimpleGroupFactory groups = new SimpleGroupFactory(SCHEMA);
    try (ParquetWriter<Group> w = b.build()) {
      for (int i = 0; i < rows; i++) {
        Group g = groups.newGroup();
        g.addGroup("address");
        for (Col c : COLUMNS) {
          String v = c.present.apply(i);
          if (v != null) {
            c.write.accept(g, v);
          }
        }
        w.write(g.append("score", i * 0.5));
      }
    }
  }

  @Test
  void everyAnswerIsParquetJavasAndEveryPresentKeyMaybe() throws IOException {
    ParquetFilters ours = ParquetFilters.open(file);
    try (ParquetFileReader reader =
        ParquetFileReader.open(
            new LocalInputFile(file),
            ParquetReadOptions.builder(new PlainParquetConfiguration()).build())) {
      List<BlockMetaData> blocks = reader.getRowGroups();
      assertThat(blocks).as("several row groups").hasSizeGreaterThan(2);
      assertThat(ours.rowGroupCount()).isEqualTo(blocks.size());
      // The first row of each row group, to find the group of a present row.
      long[] firstRow = new long[blocks.size() + 1];
      for (int g = 0; g < blocks.size(); g++) {
        firstRow[g + 1] = firstRow[g] + blocks.get(g).getRowCount();
      }
      long withFilters = 0;
      for (Col column : COLUMNS) {
        List<BloomFilter> theirs = new ArrayList<>();
        for (BlockMetaData block : blocks) {
          BloomFilterReader r = reader.getBloomFilterDataReader(block);
          for (ColumnChunkMetaData c : block.getColumns()) {
            if (c.getPath().toDotString().equals(column.name)) {
              theirs.add(r.readBloomFilter(c));
            }
          }
        }
        assertThat(theirs).as(column.name).hasSize(blocks.size());
        // parquet-java leaves out the filter of a chunk that its dictionary covers whole: those
        // row groups have none, and must say so.
        long filtered = theirs.stream().filter(f -> f != null).count();
        withFilters += filtered;
        ParquetFilters.Column col = ours.column(column.name);
        long absentAnswers = 0;
        long absentKeys = 0;
        for (boolean present : new boolean[] {true, false}) {
          for (int i = 0; i < ROWS; i++) {
            String v = (present ? column.present : column.absent).apply(i);
            if (v == null) {
              continue;
            }
            byte[] key = v.getBytes(StandardCharsets.UTF_8);
            ParquetFilters.Answer[] a = col.query(key, 0, key.length);
            for (int g = 0; g < a.length; g++) {
              BloomFilter f = theirs.get(g);
              ParquetFilters.Answer expected =
                  f == null
                      ? ParquetFilters.Answer.NO_FILTER
                      : f.findHash(column.hash.apply(f, v))
                          ? ParquetFilters.Answer.MAYBE
                          : ParquetFilters.Answer.ABSENT;
              if (a[g] != expected) {
                fail(
                    "%s %s in row group %d: %s, parquet-java %s",
                    column.name, v, g, a[g], expected);
              }
              absentAnswers += expected == ParquetFilters.Answer.ABSENT ? 1 : 0;
            }
            if (present) {
              int g = 0;
              while (firstRow[g + 1] <= i) {
                g++;
              }
              if (!a[g].couldHold()) {
                fail("%s %s, row %d, in row group %d: %s", column.name, v, i, g, a[g]);
              }
            } else {
              absentKeys++;
            }
          }
        }
        // The filters are not trivially full: most absent keys are absent from most row groups.
        assertThat(absentAnswers)
            .as(column.name)
            .isGreaterThanOrEqualTo(absentKeys * filtered * 9 / 10);
      }
      assertThat(withFilters).as("row groups with filters").isGreaterThan(blocks.size() * 6L);
    }
  }

  @Test
  void perRowGroupLinesAndASummary() throws IOException {
    Cli c = Cli.run("filter", "query", file.toString(), "--column", "user_id", "user-7", "user-x");
    assertThat(c.exit).as(c.err).isZero();
    List<String> lines = c.out.lines().toList();
    int groups = ParquetFilters.open(file).rowGroupCount();
    assertThat(lines).hasSize(2 * (groups + 1));
    assertThat(lines.get(0)).isEqualTo("user-7\trow group 0: maybe");
    assertThat(lines.get(groups)).startsWith("user-7\tmaybe: in ");
    assertThat(lines.get(2 * groups + 1)).startsWith("user-x\t");
    // A column without filters could hold anything: never "absent".
    Cli score = Cli.run("filter", "query", file.toString(), "--column", "score", "1.5", "-3");
    assertThat(score.exit).as(score.err).isZero();
    assertThat(score.out)
        .contains("1.5\trow group 0: no filter (could hold it)")
        .doesNotContain("absent");
  }

  @Test
  void presentKeysAreNeverAbsentThroughTheCommandLine() throws IOException {
    for (Col col : COLUMNS) {
      String column = col.name;
      List<String> keys = new ArrayList<>();
      for (int i = 0; i < ROWS; i++) {
        String v = col.present.apply(i);
        if (v != null) {
          keys.add(v);
        }
      }
      Path k = dir.resolve(column + ".keys");
      Files.write(k, keys, StandardCharsets.UTF_8);
      Cli c =
          Cli.run(
              "filter",
              "query",
              file.toString(),
              "--column",
              column,
              "--absent",
              "--count",
              "--keys",
              k.toString());
      assertThat(c.out.strip()).as(column + " " + c.err).isEqualTo("0");
      assertThat(c.exit).isEqualTo(1);
    }
  }

  @Test
  void jsonNamesEachRowGroup() {
    Cli c =
        Cli.run("filter", "query", file.toString(), "--column", "id", "--json", "1099511627776");
    assertThat(c.exit).as(c.err).isZero();
    assertThat(c.out)
        .startsWith("{\"key\": \"1099511627776\", \"present\": true, \"rowGroups\": [\"maybe\"");
  }

  @Test
  void columnsAndKeysAreCheckedInOneLine() {
    Cli none = Cli.run("filter", "query", file.toString(), "alice");
    assertThat(none.exit).isEqualTo(2);
    assertThat(none.err.strip())
        .doesNotContain("\n")
        .contains("--column")
        .contains("user_id, ")
        .contains("address.city");
    Cli missing = Cli.run("filter", "query", file.toString(), "--column", "nope", "alice");
    assertThat(missing.exit).isEqualTo(2);
    assertThat(missing.err.strip()).doesNotContain("\n").contains("no column nope").contains("n32");
    Cli badKey = Cli.run("filter", "query", file.toString(), "--column", "n32", "12x");
    assertThat(badKey.exit).isEqualTo(2);
    assertThat(badKey.err.strip()).doesNotContain("\n").contains("\"12x\"").contains("INT32");
    assertThat(badKey.out).isEmpty();
    String[][] badValues = {
      {"n32", "2147483648"},
      {"small", "256"},
      {"small", "-1"},
      {"day", "2024-13-01"},
      {"price", "1.234"},
      {"uuid", "not-a-uuid"},
      {"ratio", "x"}
    };
    for (String[] bad : badValues) {
      Cli c = Cli.run("filter", "query", file.toString(), "--column", bad[0], bad[1]);
      assertThat(c.exit).as(bad[0] + " " + bad[1]).isEqualTo(2);
      assertThat(c.err.strip()).doesNotContain("\n").contains("\"" + bad[1] + "\"");
    }
  }

  /** One line on stderr, nothing on stdout, exit 1: never a stack trace or an answer. */
  private static void assertRefused(Cli c, String what) {
    assertThat(c.exit).as(what + ": " + c.err).isEqualTo(1);
    assertThat(c.out).as(what).isEmpty();
    assertThat(c.err.strip()).as(what).doesNotContain("\n").doesNotContain("Exception");
  }

  @Test
  void aFileThatIsNotParquetIsAUsageErrorNamingIt() throws IOException {
    // Empty, shorter than the magic, another format: --column was misused (exit 2), not a damaged
    // Parquet file (exit 1).
    Path probkit = dir.resolve("users.bin");
    assertThat(
            Cli.runWithInput("a\n", "filter", "create", probkit.toString(), "--expected", "100")
                .exit)
        .isZero();
    Path empty = Files.write(dir.resolve("empty.parquet"), new byte[0]);
    Path three = Files.write(dir.resolve("three.parquet"), new byte[] {'P', 'A', 'R'});
    for (Path p : new Path[] {probkit, empty, three}) {
      Cli c = Cli.run("filter", "query", p.toString(), "--column", "user_id", "user-1");
      assertThat(c.exit).as(c.err).isEqualTo(2);
      assertThat(c.out).isEmpty();
      assertThat(c.err.strip())
          .doesNotContain("\n")
          .contains(p + ": not a Parquet file")
          .contains("--column");
    }
  }

  @Test
  void damagedFootersAreOneLine() throws IOException {
    Path small = dir.resolve("small.parquet");
    write(small, 300, 1 << 20);
    byte[] good = Files.readAllBytes(small);
    int footer =
        java.nio.ByteBuffer.wrap(good, good.length - 8, 4)
            .order(java.nio.ByteOrder.LITTLE_ENDIAN)
            .getInt();
    Path bad = dir.resolve("bad.parquet");

    // A footer length beyond the file.
    byte[] b = good.clone();
    b[b.length - 5] = 0x7f;
    Files.write(bad, b);
    assertRefused(
        Cli.run("filter", "query", bad.toString(), "--column", "user_id", "user-1"), "length");

    // Truncated: without its end, or with only the footer left (the filters' offsets past the
    // data).
    for (int len : new int[] {4, 11, good.length / 2, good.length - 1}) {
      Files.write(bad, Arrays.copyOf(good, len));
      assertRefused(
          Cli.run("filter", "query", bad.toString(), "--column", "user_id", "user-1"),
          "cut " + len);
    }
    byte[] tail = new byte[4 + footer + 8];
    System.arraycopy("PAR1".getBytes(StandardCharsets.US_ASCII), 0, tail, 0, 4);
    System.arraycopy(good, good.length - footer - 8, tail, 4, footer + 8);
    Files.write(bad, tail);
    assertRefused(
        Cli.run("filter", "query", bad.toString(), "--column", "user_id", "user-1"), "tail");

    // Every seventh byte of the footer flipped in turn: an answer, or one line (no checksum guards
    // a
    // footer, so a flip inside a string or an unread field may go unnoticed), never a trace.
    int refused = 0;
    for (int i = good.length - 8 - footer; i < good.length - 8; i += 7) {
      b = good.clone();
      b[i] ^= (byte) 0xff;
      Files.write(bad, b);
      Cli c = Cli.run("filter", "query", bad.toString(), "--column", "user_id", "user-1");
      assertThat(c.err.strip()).as("flip %d", i).doesNotContain("\n").doesNotContain("Exception");
      assertThat(c.exit).as("flip %d: %s", i, c.err).isIn(0, 1, 2);
      if (c.exit != 0) {
        assertThat(c.out).as("flip %d", i).isEmpty();
        refused++;
      }
    }
    // Footers of random bytes, of random lengths.
    java.util.Random random = new java.util.Random(28);
    for (int t = 0; t < 100; t++) {
      int n = 1 + random.nextInt(600);
      byte[] r = new byte[4 + n + 8];
      random.nextBytes(r);
      System.arraycopy(tail, 0, r, 0, 4);
      java.nio.ByteBuffer.wrap(r, 4 + n, 4).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(n);
      System.arraycopy(tail, tail.length - 4, r, r.length - 4, 4);
      Files.write(bad, r);
      Cli c = Cli.run("filter", "query", bad.toString(), "--column", "user_id", "user-1");
      assertThat(c.err.strip()).as("random %d", t).doesNotContain("\n").doesNotContain("Exception");
      assertThat(c.exit).as("random %d: %s", t, c.err).isIn(1, 2);
      assertThat(c.out).isEmpty();
    }
    assertThat(refused).as("flips refused").isGreaterThan(footer / 70);
  }
}
