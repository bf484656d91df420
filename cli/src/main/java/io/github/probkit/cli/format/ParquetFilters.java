package io.github.probkit.cli.format;

import io.github.probkit.Concurrency;
import io.github.probkit.cli.output.CliException;
import io.github.probkit.filter.SplitBlockBloomFilter;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * The split-block Bloom filters of a Parquet file, one per row group and column where the writer
 * made one: "could this file hold KEY?" from the footer and the filters alone, never the data
 * pages.
 *
 * <p>The footer is Thrift's compact protocol. It is read here by hand rather than with a Thrift or
 * parquet-format library: a few dozen lines read the handful of fields needed (the schema, and per
 * column chunk its path and its filter's offset and length) and skip the rest, where a library
 * would bring in a dependency, and parquet-java Hadoop's API, for those few fields. Every length
 * and count in the footer is checked against the bytes that remain, so that a damaged file is one
 * line, never a hang or an allocation larger than the file.
 *
 * <p>Parquet hashes a value's plain encoding: INT32 and FLOAT as 4 little-endian bytes, INT64 and
 * DOUBLE as 8, BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY as their bytes. A key from the command line is
 * text, parsed by the column's type ({@link Column#plain}).
 */
public final class ParquetFilters {
  private static final byte[] MAGIC = "PAR1".getBytes(StandardCharsets.US_ASCII);

  /** parquet-format's physical types, as numbered in its Thrift file. */
  private static final String[] TYPES = {
    "BOOLEAN", "INT32", "INT64", "INT96", "FLOAT", "DOUBLE", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"
  };

  private static final int INT32 = 1;
  private static final int INT64 = 2;
  private static final int FLOAT = 4;
  private static final int DOUBLE = 5;
  private static final int BYTE_ARRAY = 6;
  private static final int FIXED = 7;

  /** Nesting deeper than this in a footer is taken for damage (real schemas nest a few levels). */
  private static final int MAX_DEPTH = 64;

  /** What one row group's filter says of a key. */
  public enum Answer {
    MAYBE("maybe"),
    ABSENT("absent"),
    NO_FILTER("no filter (could hold it)");

    /** The answer in --json: maybe, absent, noFilter. */
    public String json() {
      return this == NO_FILTER ? "noFilter" : text;
    }

    private final String text;

    Answer(String text) {
      this.text = text;
    }

    /** Whether the row group could hold the key: only an answer from a filter rules it out. */
    public boolean couldHold() {
      return this != ABSENT;
    }

    @Override
    public String toString() {
      return text;
    }
  }

  /** Whether some row group could hold the key (a file of no row groups holds nothing). */
  public static boolean couldHold(Answer[] rowGroups) {
    for (Answer a : rowGroups) {
      if (a.couldHold()) {
        return true;
      }
    }
    return false;
  }

  /**
   * The summary line: "maybe: in 2 of 7 row groups: 0, 4 (filter: maybe), 6 (no filter)", or
   * "absent: in none of 7 row groups".
   */
  public static String summary(Answer[] rowGroups) {
    List<String> maybe = new ArrayList<>();
    List<String> unfiltered = new ArrayList<>();
    for (int i = 0; i < rowGroups.length; i++) {
      if (rowGroups[i] == Answer.MAYBE) {
        maybe.add(Integer.toString(i));
      } else if (rowGroups[i] == Answer.NO_FILTER) {
        unfiltered.add(Integer.toString(i));
      }
    }
    if (maybe.isEmpty() && unfiltered.isEmpty()) {
      return "absent: in none of " + rowGroups.length + " row groups";
    }
    List<String> which = new ArrayList<>();
    if (!maybe.isEmpty()) {
      which.add(String.join(", ", maybe) + " (filter: maybe)");
    }
    if (!unfiltered.isEmpty()) {
      which.add(String.join(", ", unfiltered) + " (no filter)");
    }
    return "maybe: in "
        + (maybe.size() + unfiltered.size())
        + " of "
        + rowGroups.length
        + " row groups: "
        + String.join(", ", which);
  }

  private final Path file;
  private final long dataEnd;
  private final List<Leaf> leaves;
  private final List<List<Chunk>> rowGroups;

  private ParquetFilters(Path file, long dataEnd, List<Leaf> leaves, List<List<Chunk>> rowGroups) {
    this.file = file;
    this.dataEnd = dataEnd;
    this.leaves = leaves;
    this.rowGroups = rowGroups;
  }

  /** Whether {@code file} is a regular file with Parquet's magic at both ends. */
  public static boolean isParquet(Path file) {
    if (!Files.isRegularFile(file)) {
      return false;
    }
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      long n = ch.size();
      return n >= 12
          && java.util.Arrays.equals(read(ch, 0, 4), MAGIC)
          && java.util.Arrays.equals(read(ch, n - 4, 4), MAGIC);
    } catch (IOException e) {
      return false;
    }
  }

  /** Reads the footer of {@code file}; a file that is not Parquet or is damaged is one line. */
  public static ParquetFilters open(Path file) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      long n = ch.size();
      if (n < 4 || !java.util.Arrays.equals(read(ch, 0, 4), MAGIC)) {
        // A usage error (exit 2): --column names a column of a Parquet file, and this is none.
        throw new IllegalArgumentException(
            file
                + ": not a Parquet file (it does not start with PAR1); --column is for Parquet files");
      }
      if (n < 12 || !java.util.Arrays.equals(read(ch, n - 4, 4), MAGIC)) {
        throw damaged(file, "it does not end with PAR1 (truncated?)");
      }
      long footer =
          Integer.toUnsignedLong(
              ByteBuffer.wrap(read(ch, n - 8, 4)).order(ByteOrder.LITTLE_ENDIAN).getInt());
      if (footer > n - 12) {
        throw damaged(file, "its footer length " + footer + " exceeds the file's " + n + " bytes");
      }
      Compact in = new Compact(file, read(ch, n - 8 - footer, (int) footer));
      return readFileMetaData(file, n - 8 - footer, in);
    }
  }

  private static CliException damaged(Path file, String what) {
    return new CliException(file + ": damaged Parquet footer: " + what);
  }

  private static byte[] read(FileChannel ch, long pos, int len) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(len);
    while (b.hasRemaining()) {
      if (ch.read(b, pos + b.position()) < 0) {
        throw new IOException("unexpected end of file at byte " + (pos + b.position()));
      }
    }
    return b.array();
  }

  // ---- the footer (parquet.thrift: FileMetaData, SchemaElement, RowGroup, ColumnChunk)

  /** A leaf of the schema: a column that holds values. */
  private static final class Leaf {
    String path;
    int type = -1;
    int typeLength;
    int convertedType = -1;
    int scale;
    int logicalType; // the field id of the LogicalType union, 0 when absent
    int bitWidth = 32;
    boolean signed = true;
  }

  /** One column chunk of one row group: its path, and its filter's place (-1 when none). */
  private record Chunk(String path, long offset, int length) {}

  private static ParquetFilters readFileMetaData(Path file, long end, Compact in) {
    List<Leaf> schema = List.of();
    List<List<Chunk>> rowGroups = List.of();
    for (int field = in.field(); field != 0; field = in.field()) {
      if (field == 2 && in.type == Compact.LIST) {
        int n = in.list(Compact.STRUCT);
        List<Leaf> elements = new ArrayList<>(n);
        List<Integer> children = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          children.add(readSchemaElement(in, elements));
        }
        schema = leaves(file, elements, children);
      } else if (field == 4 && in.type == Compact.LIST) {
        int n = in.list(Compact.STRUCT);
        rowGroups = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          rowGroups.add(readRowGroup(in, end));
        }
      } else {
        in.skip(in.type);
      }
    }
    return new ParquetFilters(file, end, schema, rowGroups);
  }

  /** Reads one SchemaElement into {@code elements}; returns its number of children. */
  private static int readSchemaElement(Compact in, List<Leaf> elements) {
    Leaf e = new Leaf();
    int children = 0;
    in.begin();
    for (int field = in.field(); field != 0; field = in.field()) {
      boolean i32 = in.type == Compact.I32;
      if (i32 && field == 1) {
        e.type = in.i32();
      } else if (i32 && field == 2) {
        e.typeLength = in.i32();
      } else if (i32 && field == 5) {
        children = in.i32();
      } else if (i32 && field == 6) {
        e.convertedType = in.i32();
      } else if (i32 && field == 7) {
        e.scale = in.i32();
      } else if (field == 4 && in.type == Compact.BINARY) {
        e.path = new String(in.binary(), StandardCharsets.UTF_8);
      } else if (field == 10 && in.type == Compact.STRUCT) {
        readLogicalType(in, e);
      } else {
        in.skip(in.type);
      }
    }
    in.end();
    if (e.path == null) {
      throw in.damaged("a schema element without a name");
    }
    elements.add(e);
    return children;
  }

  /** LogicalType is a union: the one field present names the type; INTEGER and DECIMAL matter. */
  private static void readLogicalType(Compact in, Leaf e) {
    in.begin();
    for (int field = in.field(); field != 0; field = in.field()) {
      if (in.type != Compact.STRUCT) {
        in.skip(in.type);
        continue;
      }
      e.logicalType = field;
      in.begin();
      for (int f = in.field(); f != 0; f = in.field()) {
        if (field == 10 && f == 1 && in.type == Compact.BYTE) {
          e.bitWidth = in.i8();
        } else if (field == 10 && f == 2 && in.type <= Compact.FALSE) {
          e.signed = in.bool();
        } else if (field == 5 && f == 1 && in.type == Compact.I32) {
          e.scale = in.i32();
        } else {
          in.skip(in.type);
        }
      }
      in.end();
    }
    in.end();
  }

  /** The leaves of the schema (elements in depth-first order), named by their dotted path. */
  private static List<Leaf> leaves(Path file, List<Leaf> elements, List<Integer> children) {
    List<Leaf> leaves = new ArrayList<>();
    int[] next = {1}; // element 0 is the root, the message itself
    walk(file, elements, children, children.isEmpty() ? 0 : children.get(0), "", next, leaves, 0);
    return leaves;
  }

  private static void walk(
      Path file,
      List<Leaf> elements,
      List<Integer> children,
      int count,
      String prefix,
      int[] next,
      List<Leaf> leaves,
      int depth) {
    if (depth > MAX_DEPTH) {
      throw damaged(file, "the schema nests deeper than " + MAX_DEPTH);
    }
    for (int c = 0; c < count; c++) {
      int i = next[0]++;
      if (i >= elements.size()) {
        throw damaged(file, "the schema names more children than it has elements");
      }
      Leaf e = elements.get(i);
      e.path = prefix + e.path;
      if (children.get(i) > 0) {
        walk(file, elements, children, children.get(i), e.path + ".", next, leaves, depth + 1);
      } else {
        leaves.add(e);
      }
    }
  }

  private static List<Chunk> readRowGroup(Compact in, long end) {
    List<Chunk> chunks = List.of();
    in.begin();
    for (int field = in.field(); field != 0; field = in.field()) {
      if (field == 1 && in.type == Compact.LIST) {
        int n = in.list(Compact.STRUCT);
        chunks = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          chunks.add(readColumnChunk(in, end));
        }
      } else {
        in.skip(in.type);
      }
    }
    in.end();
    return chunks;
  }

  /** A ColumnChunk; its ColumnMetaData (field 3) is absent where the column is encrypted. */
  private static Chunk readColumnChunk(Compact in, long end) {
    Chunk chunk = new Chunk(null, -1, -1);
    in.begin();
    for (int field = in.field(); field != 0; field = in.field()) {
      if (field == 3 && in.type == Compact.STRUCT) {
        chunk = readColumnMetaData(in, end);
      } else {
        in.skip(in.type);
      }
    }
    in.end();
    return chunk;
  }

  private static Chunk readColumnMetaData(Compact in, long end) {
    String path = null;
    long offset = -1;
    int length = -1;
    in.begin();
    for (int field = in.field(); field != 0; field = in.field()) {
      if (field == 3 && in.type == Compact.LIST) {
        int n = in.list(Compact.BINARY);
        StringBuilder p = new StringBuilder();
        for (int i = 0; i < n; i++) {
          p.append(i == 0 ? "" : ".").append(new String(in.binary(), StandardCharsets.UTF_8));
        }
        path = p.toString();
      } else if (field == 14 && in.type == Compact.I64) {
        offset = in.i64();
        if (offset < 4 || offset >= end) {
          throw in.damaged("a Bloom filter offset " + offset + " outside the data");
        }
      } else if (field == 15 && in.type == Compact.I32) {
        length = in.i32();
        if (length < 0 || length > end - Math.max(offset, 4)) {
          throw in.damaged("a Bloom filter length " + length + " beyond the data");
        }
      } else {
        in.skip(in.type);
      }
    }
    in.end();
    if (offset >= 0 && length > end - offset) {
      throw in.damaged("a Bloom filter of " + length + " bytes at " + offset + " beyond the data");
    }
    return new Chunk(path, offset, length);
  }

  // ---- columns and keys

  /** The dotted paths of the columns that have a Bloom filter in some row group. */
  public Set<String> columnsWithFilters() {
    Set<String> s = new LinkedHashSet<>();
    for (Leaf l : leaves) {
      for (List<Chunk> g : rowGroups) {
        for (Chunk c : g) {
          if (c.offset >= 0 && l.path.equals(c.path)) {
            s.add(l.path);
          }
        }
      }
    }
    return s;
  }

  /** The number of row groups. */
  public int rowGroupCount() {
    return rowGroups.size();
  }

  /**
   * The column at dotted {@code path} with its filters read, or one line naming the columns that
   * have filters.
   */
  public Column column(String path) throws IOException {
    Set<String> named = columnsWithFilters();
    String choice =
        named.isEmpty()
            ? "this file has no Bloom filter in any column"
            : "columns with Bloom filters: " + String.join(", ", named);
    if (path == null) {
      throw new IllegalArgumentException(
          file + " is a Parquet file: name a column with --column (" + choice + ")");
    }
    Leaf leaf = null;
    for (Leaf l : leaves) {
      if (l.path.equals(path)) {
        leaf = l;
      }
    }
    if (leaf == null) {
      throw new IllegalArgumentException(file + " has no column " + path + " (" + choice + ")");
    }
    List<SplitBlockBloomFilter> filters = new ArrayList<>(rowGroups.size());
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      for (List<Chunk> g : rowGroups) {
        SplitBlockBloomFilter f = null;
        for (Chunk c : g) {
          if (c.offset >= 0 && path.equals(c.path)) {
            f = readFilter(ch, c);
          }
        }
        filters.add(f);
      }
    }
    return new Column(leaf, filters);
  }

  /** A BloomFilterHeader and its bitset at the chunk's offset, all within the data. */
  private SplitBlockBloomFilter readFilter(FileChannel ch, Chunk c) throws IOException {
    // The header is some 20 bytes: a window of 256 holds it (the bitset is read after it).
    int head = (int) Math.min(Math.min(c.length >= 0 ? c.length : 256, 256), dataEnd - c.offset);
    Compact in = new Compact(file, read(ch, c.offset, head));
    int numBytes = -1;
    for (int field = in.field(); field != 0; field = in.field()) {
      if (field == 1 && in.type == Compact.I32) {
        numBytes = in.i32();
      } else if (field >= 2 && field <= 4 && in.type == Compact.STRUCT) {
        // algorithm BLOCK, hash XXHASH, compression UNCOMPRESSED: each a union whose field 1 is it.
        in.begin();
        int kind = in.field();
        if (kind != 1 || in.type != Compact.STRUCT) {
          throw new CliException(
              file
                  + ": column "
                  + c.path
                  + " has a Bloom filter of another "
                  + new String[] {"algorithm", "hash", "compression"}[field - 2]
                  + " than split-block, XXH64, uncompressed; probkit reads only those");
        }
        in.skip(Compact.STRUCT);
        while (in.field() != 0) {
          in.skip(in.type);
        }
        in.end();
      } else {
        in.skip(in.type);
      }
    }
    long start = c.offset + in.pos;
    if (numBytes < SplitBlockBloomFilter.MIN_BYTES
        || numBytes % SplitBlockBloomFilter.BLOCK_BYTES != 0
        || numBytes > dataEnd - start
        || (c.length >= 0 && numBytes > c.length - in.pos)) {
      throw damaged(
          file,
          "the Bloom filter of "
              + c.path
              + " at byte "
              + c.offset
              + " has "
              + numBytes
              + " bytes, not a multiple of 32 within its space");
    }
    byte[] bits = read(ch, start, numBytes);
    return SplitBlockBloomFilter.fromParquetBitset(bits, 0, numBytes, Concurrency.SINGLE_WRITER);
  }

  /** One column: its type, and its filter in each row group ({@code null} where it has none). */
  public static final class Column {
    private final Leaf leaf;
    private final List<SplitBlockBloomFilter> filters;

    private Column(Leaf leaf, List<SplitBlockBloomFilter> filters) {
      this.leaf = leaf;
      this.filters = filters;
    }

    /** What each row group's filter says of the key {@code key[off, off + len)} (as text). */
    public Answer[] query(byte[] key, int off, int len) {
      byte[] plain = plain(key, off, len);
      Answer[] a = new Answer[filters.size()];
      for (int i = 0; i < a.length; i++) {
        SplitBlockBloomFilter f = filters.get(i);
        a[i] =
            f == null
                ? Answer.NO_FILTER
                : f.mightContain(plain, 0, plain.length) ? Answer.MAYBE : Answer.ABSENT;
      }
      return a;
    }

    /**
     * The plain encoding of the key, parsed from text by the column's type: integers (signed or
     * unsigned as the column's logical type says), a DECIMAL's number, a DATE's yyyy-mm-dd or day
     * number, a float, a UUID; strings and other byte arrays as the key's bytes.
     */
    public byte[] plain(byte[] key, int off, int len) {
      String text = new String(key, off, len, StandardCharsets.UTF_8);
      try {
        switch (leaf.type) {
          case INT32:
            return le(4, int32(text));
          case INT64:
            return le(8, int64(text));
          case FLOAT:
            return le(4, Float.floatToRawIntBits(Float.parseFloat(text)));
          case DOUBLE:
            return le(8, Double.doubleToRawLongBits(Double.parseDouble(text)));
          case BYTE_ARRAY:
            return java.util.Arrays.copyOfRange(key, off, off + len);
          case FIXED:
            return fixed(key, off, len, text);
          default:
            throw new IllegalArgumentException(
                "column "
                    + leaf.path
                    + " is "
                    + typeName()
                    + ": Parquet writes no Bloom filter for that type");
        }
      } catch (NumberFormatException | ArithmeticException | java.time.DateTimeException e) {
        throw new IllegalArgumentException(
            "key \"" + text + "\" is not a value of column " + leaf.path + " (" + typeName() + ")");
      }
    }

    private String typeName() {
      String t =
          leaf.type >= 0 && leaf.type < TYPES.length ? TYPES[leaf.type] : "type " + leaf.type;
      return unsigned() ? t + ", unsigned" : decimal() ? t + ", DECIMAL scale " + leaf.scale : t;
    }

    private boolean unsigned() {
      return leaf.logicalType == 10
          ? !leaf.signed
          : leaf.convertedType >= 11 && leaf.convertedType <= 14;
    }

    private boolean decimal() {
      return leaf.logicalType == 5 || leaf.convertedType == 5;
    }

    private BigInteger unscaled(String text) {
      return new BigDecimal(text).setScale(leaf.scale).unscaledValue();
    }

    private int int32(String text) {
      if (decimal()) {
        return unscaled(text).intValueExact();
      }
      if (leaf.logicalType == 6 || leaf.convertedType == 6) { // DATE: days since 1970-01-01
        return text.indexOf('-', 1) > 0
            ? Math.toIntExact(LocalDate.parse(text).toEpochDay())
            : Integer.parseInt(text);
      }
      int bits = leaf.logicalType == 10 ? leaf.bitWidth : 32;
      long v = unsigned() ? Long.parseLong(text) : Integer.parseInt(text);
      long min = unsigned() ? 0 : -(1L << (bits - 1));
      long max = unsigned() ? (1L << bits) - 1 : (1L << (bits - 1)) - 1;
      if (v < min || v > max) {
        throw new NumberFormatException(text);
      }
      return (int) v;
    }

    private long int64(String text) {
      if (decimal()) {
        return unscaled(text).longValueExact();
      }
      return unsigned() ? Long.parseUnsignedLong(text) : Long.parseLong(text);
    }

    private byte[] fixed(byte[] key, int off, int len, String text) {
      if (leaf.logicalType == 14) { // UUID: 16 bytes, big-endian
        UUID u;
        try {
          u = UUID.fromString(text);
        } catch (IllegalArgumentException e) {
          throw new NumberFormatException(text);
        }
        return ByteBuffer.allocate(16)
            .putLong(u.getMostSignificantBits())
            .putLong(u.getLeastSignificantBits())
            .array();
      }
      if (decimal()) {
        byte[] b = unscaled(text).toByteArray();
        if (b.length > leaf.typeLength) {
          throw new ArithmeticException();
        }
        byte[] v = new byte[leaf.typeLength];
        java.util.Arrays.fill(v, 0, v.length - b.length, (byte) (b[0] < 0 ? -1 : 0));
        System.arraycopy(b, 0, v, v.length - b.length, b.length);
        return v;
      }
      if (len != leaf.typeLength) {
        throw new IllegalArgumentException(
            "key \""
                + text
                + "\" has "
                + len
                + " bytes; column "
                + leaf.path
                + " holds "
                + leaf.typeLength);
      }
      return java.util.Arrays.copyOfRange(key, off, off + len);
    }

    private static byte[] le(int bytes, long v) {
      byte[] b = new byte[bytes];
      for (int i = 0; i < bytes; i++) {
        b[i] = (byte) (v >>> (8 * i));
      }
      return b;
    }
  }

  // ---- Thrift's compact protocol, reading only

  /**
   * A reader of Thrift's compact protocol over bytes: field headers, varints, zigzag integers,
   * binaries, lists, and skipping of whatever is not needed. Every length is checked against the
   * bytes that remain, so that damage is a {@link CliException}, never an allocation beyond them.
   */
  private static final class Compact {
    static final int TRUE = 1;
    static final int FALSE = 2;
    static final int BYTE = 3;
    static final int I16 = 4;
    static final int I32 = 5;
    static final int I64 = 6;
    static final int DOUBLE = 7;
    static final int BINARY = 8;
    static final int LIST = 9;
    static final int SET = 10;
    static final int MAP = 11;
    static final int STRUCT = 12;

    private final Path file;
    private final byte[] b;
    int pos;

    /** The type of the field just read by {@link #field}. */
    int type;

    private int lastField;
    private final int[] lastFields = new int[MAX_DEPTH + 1];
    private int depth;

    Compact(Path file, byte[] b) {
      this.file = file;
      this.b = b;
    }

    CliException damaged(String what) {
      return ParquetFilters.damaged(file, what + " (at footer byte " + pos + ")");
    }

    private int u8() {
      if (pos >= b.length) {
        throw damaged("it ends early");
      }
      return b[pos++] & 0xff;
    }

    private long varint() {
      long v = 0;
      for (int shift = 0; shift < 64; shift += 7) {
        int x = u8();
        v |= (long) (x & 0x7f) << shift;
        if ((x & 0x80) == 0) {
          return v;
        }
      }
      throw damaged("a varint longer than 10 bytes");
    }

    /** Enters a struct: field ids are deltas from the previous one within it. */
    void begin() {
      if (depth >= MAX_DEPTH) {
        throw damaged("it nests deeper than " + MAX_DEPTH);
      }
      lastFields[depth++] = lastField;
      lastField = 0;
    }

    void end() {
      lastField = lastFields[--depth];
    }

    /** The next field's id (its type in {@link #type}), or 0 at the struct's end. */
    int field() {
      int h = u8();
      type = h & 0x0f;
      if (type == 0) {
        return 0;
      }
      int delta = h >>> 4;
      lastField = delta != 0 ? lastField + delta : (short) zigzag(varint());
      if (type > STRUCT) {
        throw damaged("a field of unknown type " + type);
      }
      return lastField;
    }

    private static long zigzag(long v) {
      return (v >>> 1) ^ -(v & 1);
    }

    boolean bool() {
      return type == TRUE;
    }

    int i8() {
      return (byte) u8();
    }

    int i32() {
      long v = zigzag(varint());
      if (v != (int) v) {
        throw damaged("an i32 out of range");
      }
      return (int) v;
    }

    long i64() {
      return zigzag(varint());
    }

    byte[] binary() {
      long n = varint();
      if (n > b.length - pos) {
        throw damaged("a string of " + n + " bytes beyond the footer's end");
      }
      byte[] v = java.util.Arrays.copyOfRange(b, pos, pos + (int) n);
      pos += (int) n;
      return v;
    }

    /** A list's size, its elements of type {@code element}; each takes at least one byte. */
    int list(int element) {
      int h = u8();
      long n = (h >>> 4) == 15 ? varint() : h >>> 4;
      if (n > b.length - pos) {
        throw damaged("a list of " + n + " elements beyond the footer's end");
      }
      if (n > 0 && (h & 0x0f) != element) {
        throw damaged("a list of type " + (h & 0x0f) + " where " + element + " was expected");
      }
      return (int) n;
    }

    /** Skips a value of type {@code t}. */
    void skip(int t) {
      skip(t, 0);
    }

    private void skip(int t, int level) {
      if (level > MAX_DEPTH) {
        throw damaged("it nests deeper than " + MAX_DEPTH);
      }
      switch (t) {
        case TRUE, FALSE -> {}
        case BYTE -> u8();
        case I16, I32, I64 -> varint();
        case DOUBLE -> {
          if (b.length - pos < 8) {
            throw damaged("it ends early");
          }
          pos += 8;
        }
        case BINARY -> binary();
        case LIST, SET -> {
          int h = u8();
          long n = (h >>> 4) == 15 ? varint() : h >>> 4;
          if (n > b.length - pos) {
            throw damaged("a list of " + n + " elements beyond the footer's end");
          }
          int e = h & 0x0f;
          for (long i = 0; i < n; i++) {
            // In a list a bool is one byte.
            skip(e == TRUE || e == FALSE ? BYTE : e, level + 1);
          }
        }
        case MAP -> {
          long n = varint();
          if (n > b.length - pos) {
            throw damaged("a map of " + n + " entries beyond the footer's end");
          }
          if (n > 0) {
            int kv = u8();
            for (long i = 0; i < n; i++) {
              skip((kv >>> 4) == TRUE || (kv >>> 4) == FALSE ? BYTE : kv >>> 4, level + 1);
              skip((kv & 15) == TRUE || (kv & 15) == FALSE ? BYTE : kv & 15, level + 1);
            }
          }
        }
        case STRUCT -> {
          begin();
          while (field() != 0) {
            skip(type, level + 1);
          }
          end();
        }
        default -> throw damaged("a value of unknown type " + t);
      }
    }
  }
}
