package io.github.probkit.cli.command;

import io.github.probkit.Concurrency;
import io.github.probkit.cli.ProbkitCommand;
import io.github.probkit.cli.format.FilterTypes;
import io.github.probkit.cli.format.Format;
import io.github.probkit.cli.format.ProbkitFormat;
import io.github.probkit.cli.input.Inputs;
import io.github.probkit.cli.input.KeyOptions;
import io.github.probkit.cli.input.LineReader;
import io.github.probkit.cli.input.Numbers;
import io.github.probkit.cli.location.Location;
import io.github.probkit.cli.location.RedisUri;
import io.github.probkit.cli.location.WriteOptions;
import io.github.probkit.cli.output.CliException;
import io.github.probkit.cli.output.Json;
import io.github.probkit.cli.output.Stdout;
import io.github.probkit.filter.BinaryFuseFilter;
import io.github.probkit.filter.BlockedBloomFilter;
import io.github.probkit.filter.BloomFilter;
import io.github.probkit.filter.CountingBloomFilter;
import io.github.probkit.filter.CuckooFilter;
import io.github.probkit.filter.DeletableFilter;
import io.github.probkit.filter.MappedFilter;
import io.github.probkit.filter.MembershipFilter;
import io.github.probkit.filter.MutableFilter;
import io.github.probkit.filter.ScalableBloomFilter;
import io.github.probkit.hash.HashStrategy;
import io.github.probkit.io.SketchFormatException;
import io.github.probkit.io.StructureType;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.math.BigDecimal;
import java.math.MathContext;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code probkit filter ...}: build, fill, query, inspect and merge membership filters. */
@Command(
    name = "filter",
    mixinStandardHelpOptions = true,
    description = "Build and query membership filters (\"is this key in the set?\").")
public final class FilterCommand implements Runnable {
  /** The help of {@code --multiset}, kept for scripts that name the default. */
  static final String MULTISET =
      "Counting and cuckoo filters: count every add of a key, however often it repeats. The"
          + " default now; kept for scripts.";

  static final String IF_ABSENT =
      "Counting and cuckoo filters: add a key only when it reads absent, so that a repeated key"
          + " takes one count or slot. This can later cause false negatives: a key that is a false"
          + " positive when it comes is not stored, and removing the keys it collides with makes it"
          + " read absent.";

  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** The filter in {@code file}, or of a {@code redis://} URI (read whole, its export). */
  public static MembershipFilter load(Path file) {
    return Location.of(file).read(Format.Kind.FILTER);
  }

  /**
   * The filter in {@code file} for queries: a {@link MappedFilter} (nothing loaded: a query reads
   * only the pages its probes touch) when the file is a plain probkit file of a type that maps,
   * else the filter read in full. Close it when it is a MappedFilter.
   */
  public static MembershipFilter open(Path file) {
    if (!mappable(file)) {
      return load(file);
    }
    try {
      return MappedFilter.open(file);
    } catch (SketchFormatException e) {
      throw new CliException(file + ": " + e.getMessage(), e);
    } catch (IOException e) {
      throw new CliException(CliException.describe(file, e), e);
    }
  }

  /**
   * The error for a mapped file truncated while it was read. The JVM reports the SIGBUS of a read
   * past the file's new end as an InternalError, which compiled code raises at its next safepoint
   * rather than in the read: after MappedFilter's query returned, so it is caught around the whole
   * work on the file.
   */
  public static CliException truncatedWhileMapped(Path file, InternalError e) {
    return new CliException(
        file + ": truncated while mapped (a file must not be changed in place while it is read)",
        e);
  }

  /**
   * Whether {@code file} starts as a probkit file of a type that maps (a compressed one does not).
   */
  private static boolean mappable(Path file) {
    if (!Files.isRegularFile(file)) {
      return false; // load() says what is wrong with it
    }
    try (InputStream in = Files.newInputStream(file)) {
      return ProbkitFormat.INSTANCE.maps(in.readNBytes(Format.HEAD_BYTES));
    } catch (IOException e) {
      return false;
    }
  }

  /** The filter in {@code file}, to be written: see {@link #addKeys} for which threads add. */
  public static MutableFilter loadMutable(Path file) {
    MembershipFilter f = load(file);
    if (!(f instanceof MutableFilter)) {
      throw new CliException(
          file + ": " + f.type().label() + " is a static filter, rebuild it with filter create");
    }
    return (MutableFilter) f;
  }

  /**
   * Adds the keys to {@code f} in memory. A counting or cuckoo filter counts every add, so that a
   * key added more often than removed is never reported absent; with {@code ifAbsent} it takes only
   * keys that read absent ({@link DeletableFilter#addIfAbsent}). A counting filter names on stderr
   * each key whose counters saturate ({@link Saturated}). A cuckoo filter that cannot take a key
   * fails the command, naming the key when its two buckets are full of its copies; since this
   * happens before the write, {@code file} is left as it was. Warns when a Bloom-type filter ends
   * up holding more keys than it was sized for.
   */
  public static void addKeys(
      MutableFilter f,
      List<String> keys,
      KeyOptions from,
      boolean ifAbsent,
      CommandSpec spec,
      Path file)
      throws IOException {
    boolean concurrent =
        f instanceof BloomFilter && ((BloomFilter) f).concurrency() == Concurrency.CONCURRENT
            || f instanceof BlockedBloomFilter
                && ((BlockedBloomFilter) f).concurrency() == Concurrency.CONCURRENT;
    if (!(f instanceof DeletableFilter) && f.hashSuffices()) {
      // Every core hashes the keys of its blocks and adds them through the batch path, which
      // overlaps the cache misses of many keys: a concurrent Bloom or blocked filter on the worker
      // threads at once (bits are only ever ORed in: the same bits in any order), any other (a
      // scalable filter, whose layers depend on the order) on this thread, block by block in order.
      from.forEach(
          keys,
          spec,
          Inputs.KeySink.hashBatches(
              f.hashStrategy(), (h, n) -> f.addAllHashes(h, 0, n), concurrent));
    } else if (concurrent) {
      // Bloom hashed with FNV-1a: its probes need the keys.
      from.forEach(keys, spec, Inputs.KeySink.concurrently(f::add));
    } else if (f instanceof CuckooFilter) {
      CuckooFilter c = (CuckooFilter) f;
      long[] added = {0};
      from.forEach(
          keys,
          spec,
          (buf, off, len) -> {
            if (ifAbsent
                ? c.addIfAbsent(buf, off, len) || c.mightContain(buf, off, len)
                : c.add(buf, off, len)) {
              added[0]++;
              return;
            }
            // A key whose buckets are full of its own copies, or of other keys that repeat (the
            // refusal comes at a load far below a full table's), is named as such.
            int copies = c.count(buf, off, len);
            int max = c.maxCopies(buf, off, len);
            if (copies >= max || copies > 0 && c.load() < 0.9) {
              throw new CliException(
                  String.format(
                      Locale.ROOT,
                      "%s: key %s comes a %s time and finds no room: a cuckoo filter holds a key at"
                          + " most %d times, fewer when keys that repeat share its two buckets; for"
                          + " repeated keys use --type counting, de-duplicate them first (sort -u),"
                          + " or add with --if-absent; the file was left as it was",
                      file,
                      shown(buf, off, len),
                      ordinal(copies + 1),
                      max));
            }
            throw new CliException(
                String.format(
                    Locale.ROOT,
                    "%s: the cuckoo filter is full after adding %d keys (load %.1f %%, the maximum is about 95 %%);"
                        + " the file was left as it was",
                    file,
                    added[0],
                    100 * c.load()));
          });
    } else {
      // A counting filter (or another hashed with FNV-1a), key by key in order.
      CountingBloomFilter counting =
          f instanceof CountingBloomFilter ? (CountingBloomFilter) f : null;
      Saturated saturated = new Saturated(file, spec.commandLine().getErr());
      from.forEach(
          keys,
          spec,
          (buf, off, len) -> {
            if (counting == null) {
              f.add(buf, off, len);
            } else if (ifAbsent) {
              counting.addIfAbsent(buf, off, len);
            } else {
              counting.add(buf, off, len);
              if (counting.count(buf, off, len) == CountingBloomFilter.MAX_COUNT) {
                saturated.added(buf, off, len);
              }
            }
          });
      saturated.finish();
    }
    warnIfOverfull(file, f, spec.commandLine().getErr());
  }

  /**
   * Checks {@code --multiset} and {@code --if-absent} for a filter that is {@code what} ("a bloom
   * filter", "--type scalable") and can remove keys when {@code deletable}; returns whether keys
   * are added only when absent. {@code --multiset}, the default now, is still refused where it
   * means nothing, as before.
   */
  public static boolean ifAbsent(
      boolean multiset, boolean ifAbsent, boolean deletable, String what) {
    if (multiset && ifAbsent) {
      throw new IllegalArgumentException("--multiset and --if-absent exclude each other");
    }
    if ((multiset || ifAbsent) && !deletable) {
      throw new IllegalArgumentException(
          (multiset ? "--multiset" : "--if-absent")
              + " applies to counting and cuckoo filters, not to "
              + what);
    }
    return ifAbsent;
  }

  /**
   * The keys of a command whose counters, in a counting filter, are all saturated (at 15), said on
   * stderr: one line for each of the first {@link #NAMED} such keys, then one with how many more
   * there were. Such a key reads present however often it is removed (a false positive, never a
   * false negative). They are rare (each needs 15 adds of one key), so all are remembered.
   */
  public static final class Saturated {
    static final int NAMED = 10;

    private final Object where;
    private final PrintWriter err;
    private final Set<ByteBuffer> keys = new HashSet<>();

    public Saturated(Object where, PrintWriter err) {
      this.where = where;
      this.err = err;
    }

    /** An add left the key's counters saturated. */
    public void added(byte[] buf, int off, int len) {
      say(
          buf,
          off,
          len,
          "key %s has saturated its counters (at %d, after as many adds): it will read present"
              + " however often it is removed");
    }

    /** A remove of the key changed nothing: its counters are saturated. */
    public void stays(byte[] buf, int off, int len) {
      say(
          buf,
          off,
          len,
          "key %s stays present: its counters are saturated (at %d), so no remove takes it out");
    }

    /** The number of distinct keys seen saturated. */
    long count() {
      return keys.size();
    }

    private void say(byte[] buf, int off, int len, String what) {
      if (keys.add(ByteBuffer.wrap(Arrays.copyOfRange(buf, off, off + len)))
          && keys.size() <= NAMED) {
        err.println(
            String.format(
                Locale.ROOT,
                "probkit: %s: warning: " + what,
                where,
                shown(buf, off, len),
                CountingBloomFilter.MAX_COUNT));
      }
    }

    /** Says how many saturated keys were not named. */
    public void finish() {
      if (keys.size() > NAMED) {
        err.println(
            String.format(
                Locale.ROOT,
                "probkit: %s: warning: %d more keys have saturated counters (only the first %d are"
                    + " named)",
                where,
                keys.size() - NAMED,
                NAMED));
      }
      err.flush();
    }
  }

  /** A key for a message: quoted, its control characters as '?', cut after 80 characters. */
  static String shown(byte[] buf, int off, int len) {
    String k = new String(buf, off, len, StandardCharsets.UTF_8);
    StringBuilder sb = new StringBuilder("'");
    for (int i = 0; i < k.length() && i < 80; i++) {
      char c = k.charAt(i);
      sb.append(c < 0x20 || c == 0x7f ? '?' : c);
    }
    return sb.append(k.length() > 80 ? "...'" : "'").toString();
  }

  /** 9th, 21st, 2nd, 3rd, 11th. */
  private static String ordinal(int n) {
    int tens = n % 100;
    String suffix =
        tens >= 11 && tens <= 13
            ? "th"
            : n % 10 == 1 ? "st" : n % 10 == 2 ? "nd" : n % 10 == 3 ? "rd" : "th";
    return n + suffix;
  }

  /**
   * Says once on {@code err} when a Bloom-type filter holds more keys than it was sized for, with
   * the false-positive rate it now has. The estimate of its keys must pass the expected number by
   * more than 3 sqrt(n), which is 4.5 to 20 of its standard deviations (0.15 to 0.66 sqrt(n) at the
   * optimal number of hashes), so that a filter given exactly its n keys never warns.
   */
  public static void warnIfOverfull(Path file, MembershipFilter f, PrintWriter err) {
    long expected;
    double target;
    if (f instanceof BloomFilter) {
      expected = ((BloomFilter) f).expectedKeys();
      target = ((BloomFilter) f).targetFpp();
    } else if (f instanceof BlockedBloomFilter) {
      expected = ((BlockedBloomFilter) f).expectedKeys();
      target = ((BlockedBloomFilter) f).targetFpp();
    } else if (f instanceof CountingBloomFilter) {
      expected = ((CountingBloomFilter) f).expectedKeys();
      target = ((CountingBloomFilter) f).targetFpp();
    } else {
      return;
    }
    long n = ((MutableFilter) f).approximateCount();
    if (expected <= 0 || n <= expected + 3 * Math.sqrt(expected)) {
      return;
    }
    err.println(
        String.format(
            Locale.ROOT,
            "probkit: warning: %s %s, more than the %,d it was sized for: its false-positive rate is now %s %%"
                + " (sized for %s %%)",
            file,
            n == Long.MAX_VALUE
                ? "is saturated"
                : String.format(Locale.ROOT, "holds about %,d keys", n),
            expected,
            percent(f.expectedFpp()),
            percent(target)));
    err.flush();
  }

  /** {@code p} as a percentage to 3 significant digits: 14.6, 1, 0.0001. */
  private static String percent(double p) {
    return new BigDecimal(100 * p).round(new MathContext(3)).stripTrailingZeros().toPlainString();
  }

  @Command(
      name = "create",
      mixinStandardHelpOptions = true,
      description = {
        "Create a filter sized for N keys at false-positive rate P, optionally adding keys.",
        "",
        "Keys come from --keys FILE..., or from stdin unless it is a terminal: inside a 'while read' loop, give </dev/null, or create reads the loop's input (it says on stderr how many keys it read). An existing FILE is refused unless --force.",
      },
      footer = {
        "",
        "Example:",
        "  probkit filter create users.bin --expected 1000000 --fpp 0.01 --keys users.txt",
        "  probkit filter create users.fuse --type binary-fuse8 --keys users.txt",
      })
  public static final class Create implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Parameters(
        index = "0",
        paramLabel = "FILE",
        description = "The filter file to write." + RedisUri.FILTER)
    Path file;

    @Option(
        names = "--expected",
        paramLabel = "N",
        description =
            "Keys the filter is sized for (scalable: its initial capacity; it grows beyond):"
                + " 1000000, 1e6 or 1M. Not needed by the binary fuse types, which count their keys.")
    Long expected;

    @Option(
        names = "--fpp",
        paramLabel = "P",
        description =
            "Target false-positive rate, in (0, 1): 0.01, 1e-2 or 1%% (default: 0.01)."
                + " Binary fuse types have 2^-8 or 2^-16.")
    Double fpp;

    @Option(
        names = "--hash",
        paramLabel = "ALGO",
        defaultValue = "xxh3",
        description = "Hash: xxh3 (default) or fnv1a (the specification's walkthrough scheme).")
    String hash;

    @Option(
        names = "--type",
        paramLabel = "TYPE",
        defaultValue = "bloom",
        description = "Filter type: ${COMPLETION-CANDIDATES} (default: bloom).",
        completionCandidates = FilterTypes.Names.class)
    String type;

    @Option(names = "--multiset", description = MULTISET)
    boolean multiset;

    @Option(names = "--if-absent", description = IF_ABSENT)
    boolean ifAbsent;

    @Option(
        names = "--force",
        description = "Replace FILE if it exists (without it, an existing FILE is an error).")
    boolean force;

    @Mixin KeyOptions keyOptions;

    @Mixin WriteOptions writing;

    @Override
    public Integer call() throws IOException {
      HashStrategy strategy = KeyOptions.hashStrategy(hash);
      // The values first: a bad one is the error to name, not an option it makes seem missing.
      FilterTypes.checkType(type);
      String typedFpp = Numbers.typed(spec, "--fpp", FilterTypes.DEFAULT_FPP);
      double p = FilterTypes.checkFpp(type, fpp == null ? FilterTypes.DEFAULT_FPP : fpp, typedFpp);
      // Keys from --keys, or from stdin unless it is a terminal: a new filter may well start empty.
      KeyOptions from = keyOptions.orNoneAtATerminal(spec);
      ifAbsent(
          multiset, ifAbsent, type.equals("counting") || type.equals("cuckoo"), "--type " + type);
      return Location.of(file)
          .createFilter(
              new Location.FilterShape(type, expected, fpp, typedFpp, p, strategy),
              force,
              ifAbsent,
              new Location.Keys(List.of(), from, spec, writing));
    }
  }

  @Command(
      name = "add",
      mixinStandardHelpOptions = true,
      description = {
        "Add keys to a filter (from arguments, --keys FILE..., or stdin).",
        "",
        "A counting or cuckoo filter counts every add: a key added twice takes two removes. Writers of one file take turns (a lock beside it); --no-wait fails instead of waiting. A symbolic link is followed; a read-only file or one of several hard links is refused. Keys read from a pipe (tail -f ... |) are written every 5 s and when stopped by Ctrl-C or kill.",
      },
      footer = {
        "",
        "Examples:",
        "  probkit filter add users.bin carol dave",
        "  cat new.txt | probkit filter add users.bin",
        "  probkit filter add users.bin --keys logs/*.gz",
      })
  public static final class Add implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Parameters(
        index = "0",
        paramLabel = "FILE",
        description = "The filter file, rewritten in place." + RedisUri.FILTER)
    Path file;

    @Parameters(
        index = "1..*",
        paramLabel = "KEY",
        description = "Keys (or --keys FILE..., or stdin).")
    List<String> keys = new ArrayList<>();

    @Option(names = "--multiset", description = MULTISET)
    boolean multiset;

    @Option(names = "--if-absent", description = IF_ABSENT)
    boolean ifAbsent;

    @Mixin KeyOptions keyOptions;

    @Mixin WriteOptions writing;

    @Override
    public Integer call() throws IOException {
      keyOptions.require(keys, spec);
      return Location.of(file)
          .addToFilter(new Location.Keys(keys, keyOptions, spec, writing), multiset, ifAbsent);
    }
  }

  @Command(
      name = "remove",
      mixinStandardHelpOptions = true,
      description = {
        "Remove keys from a counting or cuckoo filter (from arguments, --keys FILE, or stdin).",
        "Remove only keys that were added: removing another key can make a present key look absent. A key added n times takes n removes. Keys that are certainly absent are left alone and counted in the summary line; so are the keys of a counting filter whose counters are saturated (15 adds), which stay present, each named on stderr.",
      },
      footer = {"", "Example:", "  probkit filter remove sessions.bin expired-1 expired-2"})
  public static final class Remove implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Parameters(
        index = "0",
        paramLabel = "FILE",
        description = "The filter file, rewritten in place." + RedisUri.FILTER)
    Path file;

    @Parameters(
        index = "1..*",
        paramLabel = "KEY",
        description = "Keys (or --keys FILE..., or stdin).")
    List<String> keys = new ArrayList<>();

    @Mixin KeyOptions keyOptions;

    @Mixin WriteOptions writing;

    @Override
    public Integer call() throws IOException {
      keyOptions.require(keys, spec);
      return Location.of(file).removeFromFilter(new Location.Keys(keys, keyOptions, spec, writing));
    }
  }

  /**
   * The line {@code filter remove} ends with: "removed R of N keys (A certainly absent)", and when
   * some removes found the key's counters saturated, ", S stay present: saturated counters" inside
   * the parentheses. Each of N keys is one of the three.
   */
  public static void summary(CommandSpec spec, long removed, long stayed, long total) {
    PrintWriter out = spec.commandLine().getOut();
    out.printf(
        Locale.ROOT,
        "removed %d of %d keys (%d certainly absent%s)%n",
        removed,
        total,
        total - removed - stayed,
        stayed == 0 ? "" : ", " + stayed + " stay present: saturated counters");
    out.flush();
  }

  @Command(
      name = "query",
      mixinStandardHelpOptions = true,
      description = {
        "Print KEY<TAB>present or KEY<TAB>absent for each key (present: probably).",
        "",
        "Like grep, --present and --absent print only the input lines whose key is (probably) present or (certainly) absent, whole, also when --field picks the key; --count prints how many; -q prints nothing. With any of these the exit status is the answer, as grep's: 0 when some key was selected, 1 when none was, 2 on an error. --json prints one JSON object per key (JSON Lines): {\"key\": \"alice\", \"present\": true}; a key that is not UTF-8 has U+FFFD for its bad bytes, and keyBase64 its exact bytes. Keys from a pipe or a terminal are answered as each line comes.",
      },
      footer = {
        "",
        "Examples:",
        "  probkit filter query users.bin alice zed",
        "  probkit filter query -q users.bin alice && echo known",
        "  probkit filter query seen.bin --absent --field 2 < log.tsv",
        "  tail -f access.log | probkit filter query bots.bin --absent",
      })
  public static final class Query implements Callable<Integer>, StatusAnswers {
    @Spec CommandSpec spec;

    @Parameters(
        index = "0",
        paramLabel = "FILE",
        description = "The filter file." + RedisUri.FILTER)
    Path file;

    @Parameters(
        index = "1..*",
        paramLabel = "KEY",
        description = "Keys (or --keys FILE..., or stdin).")
    List<String> keys = new ArrayList<>();

    @Option(
        names = "--present",
        description =
            "Print only the lines whose key is probably present, byte for byte as they came (the"
                + " CR of a CRLF line too, which is not part of the key).")
    boolean present;

    @Option(names = "--absent", description = "Print only the lines whose key is certainly absent.")
    boolean absent;

    @Option(
        names = {"-c", "--count"},
        description = "Print only how many keys are present (--absent: absent).")
    boolean count;

    @Option(
        names = {"-q", "--quiet"},
        description =
            "Print nothing: exit 0 as soon as a key is present (--absent: absent), else 1.")
    boolean quiet;

    @Option(
        names = "--json",
        description = "One JSON object per key, or with --count one for the counts.")
    boolean json;

    @Mixin KeyOptions keyOptions;

    private static final byte[] PRESENT = "\tpresent\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] ABSENT = "\tabsent\n".getBytes(StandardCharsets.US_ASCII);

    @Override
    public boolean statusAnswers() {
      return present || absent || count || quiet;
    }

    @Override
    public Integer call() throws IOException {
      if (present && absent) {
        throw new IllegalArgumentException("--present and --absent exclude each other");
      }
      if (quiet && (count || json)) {
        throw new IllegalArgumentException(
            "-q prints nothing: it excludes " + (count ? "--count" : "--json"));
      }
      keyOptions.require(keys, spec);
      OutputStream out = ProbkitCommand.stdout(spec);
      boolean select = statusAnswers();
      LineReader.LineConsumer header =
          select && !quiet && !count && !json ? Stdout.firstLineTo(out) : null;
      return Location.of(file)
          .queryFilter(
              (line, off, len, key, keyOff, keyLen, in) ->
                  answer(out, line, off, len, key, keyOff, keyLen, in),
              header,
              out,
              sink -> finish(out, sink));
    }

    private long selected;
    private long total;

    /**
     * Answers every key through {@code sink}; prints the count when asked; returns the exit status.
     */
    private int finish(OutputStream out, Inputs.KeySink sink) throws IOException {
      keyOptions.forEach(keys, spec, sink);
      if (count) {
        String n =
            json
                ? new Json()
                    .put(absent ? "absent" : "present", selected)
                    .put("keys", total)
                    .toString()
                : Long.toString(selected);
        out.write((n + "\n").getBytes(StandardCharsets.UTF_8));
      }
      out.flush();
      return statusAnswers() && selected == 0 ? 1 : 0;
    }

    /** Prints (or counts) the answer {@code in} for one key and its line, as the options say. */
    private void answer(
        OutputStream out,
        byte[] line,
        int off,
        int len,
        byte[] key,
        int keyOff,
        int keyLen,
        boolean in)
        throws IOException {
      total++;
      boolean select = statusAnswers();
      if (select && in == absent) {
        return;
      }
      selected++;
      if (quiet) {
        throw new Inputs.Stop();
      }
      if (count) {
        return;
      }
      if (json) {
        Json j = new Json().putBytes("key", key, keyOff, keyLen).put("present", in);
        if (select && (line != key || off != keyOff || len != keyLen)) {
          j.putBytes("line", line, off, len);
        }
        out.write((j + "\n").getBytes(StandardCharsets.UTF_8));
      } else if (select) {
        out.write(line, off, len);
        out.write('\n');
      } else {
        out.write(key, keyOff, keyLen);
        out.write(in ? PRESENT : ABSENT);
      }
    }
  }

  @Command(
      name = "info",
      mixinStandardHelpOptions = true,
      description = "Describe a filter: type, size, hashing, fill and estimated keys.",
      footer = {"", "Example:", "  probkit filter info users.bin --json"})
  public static final class Info extends InfoCommand {
    @Option(
        names = "--verify",
        description =
            "Also say that every checksum was checked (info checks them in any case: a mapped"
                + " filter's as it scans its bits).")
    boolean verify;

    @Override
    public Json describe(Path f, boolean json) {
      MembershipFilter filter = open(f);
      if (!(filter instanceof MappedFilter)) {
        // Read in full: its checksum was checked.
        Json j = FilterCommand.describe(filter, json);
        return verify ? j.put("checksum", "verified") : j;
      }
      try (MappedFilter m = (MappedFilter) filter) {
        if (verify) {
          m.verify();
        }
        Json j = describeMapped(m, json);
        return verify ? j.put("checksum", "verified") : j;
      } catch (InternalError e) {
        throw truncatedWhileMapped(f, e);
      } catch (SketchFormatException e) {
        throw new CliException(f + ": " + e.getMessage(), e);
      } catch (IOException e) {
        throw new CliException(CliException.describe(f, e), e);
      }
    }
  }

  /**
   * {@link #describe} of a mapped Bloom, blocked Bloom or binary fuse filter: the same fields in
   * the same order, the counts from a scan of the file through a small buffer.
   */
  static Json describeMapped(MappedFilter m, boolean json) throws IOException {
    if (m.type() == StructureType.BINARY_FUSE_FILTER) {
      return describe(
          m.load(), json); // its shape fields are the loaded filter's; it is not scanned
    }
    Json j = new Json().put("type", m.type().label()).put("bits", m.bitSize());
    if (m.type() == StructureType.BLOCKED_BLOOM_FILTER) {
      j.put("blocks", m.bitSize() / BlockedBloomFilter.BLOCK_BITS);
    }
    j.put("hashes", m.hashCount())
        .put("expectedKeys", m.expectedKeys())
        .put("fpp", m.targetFpp())
        .put("bitsSet", m.bitCount());
    return finishDescription(j, m.approximateCount(), m, json);
  }

  public static Json describe(MembershipFilter f, boolean json) {
    Json j = new Json().put("type", f.type().label()).put("bits", f.bitSize());
    if (f instanceof BloomFilter) {
      BloomFilter b = (BloomFilter) f;
      j.put("hashes", b.hashCount())
          .put("expectedKeys", b.expectedKeys())
          .put("fpp", b.targetFpp())
          .put("bitsSet", b.bitCount());
    } else if (f instanceof CountingBloomFilter) {
      CountingBloomFilter c = (CountingBloomFilter) f;
      j.put("counters", c.counterCount())
          .put("counterBits", CountingBloomFilter.COUNTER_BITS)
          .put("hashes", c.hashCount())
          .put("expectedKeys", c.expectedKeys())
          .put("fpp", c.targetFpp())
          .put("nonZeroCounters", c.nonZeroCounters())
          .put("saturatedCounters", c.saturatedCounters());
    } else if (f instanceof CuckooFilter) {
      CuckooFilter c = (CuckooFilter) f;
      j.put("buckets", c.bucketCount())
          .put("slotsPerBucket", CuckooFilter.SLOTS_PER_BUCKET)
          .put("fingerprintBits", c.fingerprintBits())
          .put("expectedKeys", c.expectedKeys())
          .put("fpp", c.targetFpp())
          .put("keys", c.size())
          .put("load", c.load());
    } else if (f instanceof ScalableBloomFilter) {
      ScalableBloomFilter s = (ScalableBloomFilter) f;
      j.put("initialCapacity", s.initialCapacity())
          .put("fpp", s.targetFpp())
          .put("growth", s.growth())
          .put("tightening", s.tightening())
          .put("capacity", s.capacity());
      List<Json> layers = new ArrayList<>();
      for (ScalableBloomFilter.LayerInfo l : s.layers()) {
        layers.add(
            new Json()
                .put("capacity", l.capacity())
                .put("keys", l.keys())
                .put("bits", l.bits())
                .put("hashes", l.hashes())
                .put("fpp", l.fpp()));
      }
      if (json) {
        j.put("layers", layers);
      } else {
        // Text: a line per layer, "layer 1: capacity 1000, keys 1000, bits 9586, hashes 7, fpp
        // 0.005".
        j.put("layers", layers.size());
        for (int i = 0; i < layers.size(); i++) {
          StringBuilder line = new StringBuilder();
          layers
              .get(i)
              .fields()
              .forEach(
                  (k, v) ->
                      line.append(line.length() == 0 ? "" : ", ").append(k).append(' ').append(v));
          j.put("layer " + (i + 1), line);
        }
      }
    } else if (f instanceof BlockedBloomFilter) {
      BlockedBloomFilter b = (BlockedBloomFilter) f;
      j.put("blocks", b.blockCount())
          .put("hashes", b.hashCount())
          .put("expectedKeys", b.expectedKeys())
          .put("fpp", b.targetFpp())
          .put("bitsSet", b.bitCount());
    } else if (f instanceof BinaryFuseFilter) {
      BinaryFuseFilter b = (BinaryFuseFilter) f;
      j.put("fingerprintBits", b.fingerprintBits().bits())
          .put("keys", b.keyCount())
          .put("segmentLength", b.segmentLength())
          .put("segmentCount", b.segmentCount())
          .put("bitsPerKey", b.bitsPerKey());
    }
    return finishDescription(
        j, f instanceof MutableFilter ? ((MutableFilter) f).approximateCount() : null, f, json);
  }

  /** The fields every description ends with; {@code count} is null for a static filter. */
  private static Json finishDescription(Json j, Long count, MembershipFilter f, boolean json) {
    if (count != null) {
      long n = count;
      if (n != Long.MAX_VALUE) {
        j.put("approximateCount", n);
      } else if (json) {
        j.put("approximateCount", null).put("saturated", true);
      } else {
        j.put("approximateCount", "saturated (too full to estimate: any key may read present)");
      }
    }
    j.put("expectedFpp", f.expectedFpp())
        .put("bytes", f.byteSize())
        .put("hash", f.hashStrategy().algorithm().label())
        .put("hashSeed", String.format(Locale.ROOT, "0x%x", f.hashStrategy().seed()));
    return j;
  }

  @Command(
      name = "merge",
      mixinStandardHelpOptions = true,
      description = {
        "Merge the SRC filters into DEST, as Redis's PFMERGE: an existing DEST is part of the union.",
        "With --replace, DEST becomes the union of the SRCs alone. Bloom, blocked, counting and cuckoo filters of one type, size and hashing merge.",
        "",
        "Any SRC may be a redis:// URI (read whole). A redis:// DEST (a bloom, blocked or counting filter) takes the union in place, losing none of the keys other clients add meanwhile: each 1 MiB of bits is ORed, or each counter added, by one atomic Redis command. A missing DEST is created as the union of the SRCs; --replace deletes DEST and writes that union.",
      },
      footer = {
        "",
        "Examples:",
        "  probkit filter merge all.bin monday.bin tuesday.bin",
        "  probkit filter merge --replace week.bin monday.bin tuesday.bin",
        "  probkit filter merge redis://cache:6379/seen today.bin",
      })
  public static final class Merge implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Parameters(
        index = "0",
        paramLabel = "DEST",
        description = "The filter to merge into (created if missing)." + RedisUri.FILTER)
    Path out;

    @Parameters(
        index = "1..*",
        arity = "1..*",
        paramLabel = "SRC",
        description = "Filters to merge." + RedisUri.SOURCES)
    List<Path> sources;

    @Option(names = "--replace", description = "Write the union of the SRCs alone, replacing DEST.")
    boolean replace;

    @Mixin WriteOptions writing;

    @Override
    public Integer call() throws IOException {
      return Location.of(out).mergeFilters(sources, replace, spec, writing);
    }

    /** The union of the filters in {@code inputs}; one that cannot be merged is refused, named. */
    public static MembershipFilter merge(List<Path> inputs) {
      MembershipFilter union = load(inputs.get(0));
      if (!(union instanceof BloomFilter
          || union instanceof BlockedBloomFilter
          || union instanceof CountingBloomFilter
          || union instanceof CuckooFilter)) {
        throw new CliException(
            Location.of(inputs.get(0))
                + ": merging "
                + union.type().label()
                + " filters is not supported (bloom, blocked, counting and cuckoo filters merge)");
      }
      for (Path p : inputs.subList(1, inputs.size())) {
        MembershipFilter f = load(p);
        if (f.getClass() != union.getClass()) {
          throw new CliException(
              Location.of(p)
                  + ": cannot merge a "
                  + f.type().label()
                  + " filter into a "
                  + union.type().label()
                  + " filter");
        }
        try {
          if (union instanceof BloomFilter) {
            ((BloomFilter) union).merge((BloomFilter) f);
          } else if (union instanceof BlockedBloomFilter) {
            ((BlockedBloomFilter) union).merge((BlockedBloomFilter) f);
          } else if (union instanceof CountingBloomFilter) {
            ((CountingBloomFilter) union).merge((CountingBloomFilter) f);
          } else {
            ((CuckooFilter) union).merge((CuckooFilter) f);
          }
        } catch (IllegalArgumentException | IllegalStateException e) {
          throw new CliException(Location.of(p) + ": " + e.getMessage());
        }
      }
      return union;
    }
  }
}
