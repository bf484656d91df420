package io.github.probkit.cli.command;

import io.github.probkit.cli.format.FilterDescriptions;
import io.github.probkit.cli.format.FilterKeys;
import io.github.probkit.cli.format.FilterTypes;
import io.github.probkit.cli.format.ForeignFilter;
import io.github.probkit.cli.format.Format;
import io.github.probkit.cli.format.ParquetFilters;
import io.github.probkit.cli.format.ProbkitFormat;
import io.github.probkit.cli.input.EventTimes;
import io.github.probkit.cli.input.Inputs;
import io.github.probkit.cli.input.KeyOptions;
import io.github.probkit.cli.input.LineReader;
import io.github.probkit.cli.input.Numbers;
import io.github.probkit.cli.input.StandardStreams;
import io.github.probkit.cli.input.TimedKeys;
import io.github.probkit.cli.location.FilterFiles;
import io.github.probkit.cli.location.ForeignFiles;
import io.github.probkit.cli.location.Location;
import io.github.probkit.cli.location.RedisUri;
import io.github.probkit.cli.location.WriteOptions;
import io.github.probkit.cli.output.Json;
import io.github.probkit.filter.AgePartitionedBloomFilter;
import io.github.probkit.filter.MappedFilter;
import io.github.probkit.hash.HashStrategy;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
  /** {@code --multiset} and {@code --if-absent} of create and add: how a repeated key is added. */
  static final class Repeats {
    @Option(
        names = "--multiset",
        description =
            "Counting and cuckoo filters: count every add of a key, however often it repeats. The"
                + " default now; kept for scripts.")
    boolean multiset;

    @Option(
        names = "--if-absent",
        description =
            "Counting and cuckoo filters: add a key only when it reads absent, so that a repeated"
                + " key takes one count or slot. This can later cause false negatives: a key that"
                + " is a false positive when it comes is not stored, and removing the keys it"
                + " collides with makes it read absent.")
    boolean ifAbsent;
  }

  /** {@code --time-field} of create and add: the time a window filter of time adds a key at. */
  static final class AddTime {
    @Option(
        names = "--time-field",
        paramLabel = "F",
        description =
            "Window filters of time: add each key at the time in field F of its line (from 1, or a"
                + " --header name; tsv or csv; --field names the key): ISO-8601 with an offset, or"
                + " epoch seconds or milliseconds. Default: the clock's time.")
    String field;
  }

  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  @Command(
      name = "create",
      mixinStandardHelpOptions = true,
      description = {
        "Create a filter sized for N keys at false-positive rate P, optionally adding keys.",
        "",
        "Keys come from --keys FILE..., or from stdin unless it is a terminal: inside a 'while read' loop, give </dev/null, or create reads the loop's input (it says on stderr how many keys it read). An existing FILE is refused unless --force.",
        "",
        "--type window remembers keys for a sliding window only: the last N keys added (--window 10000) or the last span of time (--window 7d), every add counting. A key added within the window is never reported absent; one that left it is forgotten within the slack (filter info shows it: a quarter of the window at 1 %%), and then reads present with probability P at most. A window of time is sized for the keys it takes (--expected N per window, or --expected-rate 1M/day; default 1M per window): more make the rate grow, never a key of the window absent. Keys are added at the clock's time, or with --time-field F at the time in field F of their line (ISO-8601 with an offset, or epoch seconds or ms, as for dedupe --time-field), so that a log replays as it was lived; filter query answers for now, or --at TIME.",
      },
      footer = {
        "",
        "Example:",
        "  probkit filter create users.bin --expected 1000000 --fpp 0.01 --keys users.txt",
        "  probkit filter create users.fuse --type binary-fuse8 --keys users.txt",
        "  probkit filter create seen.bin --type window --window 7d --fpp 0.01 --expected-rate 1M/day",
        "  probkit filter create recent.bin --type window --window 10000",
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

    @Mixin Repeats repeats;

    @Option(
        names = "--window",
        paramLabel = "W",
        description =
            "--type window: the last W keys (10000, 10k) or the last W of time (30s, 15m, 1h, 7d:"
                + " seconds, minutes, hours, days).")
    String window;

    @Option(
        names = "--expected-rate",
        paramLabel = "R",
        description =
            "--type window of time: the keys expected per span of time, sizing the filter as"
                + " --expected does per window: 1M/day, 5000/h, 200/30s.")
    String expectedRate;

    @Mixin AddTime timeField;

    @Mixin Overwrite overwrite;

    @Mixin KeyOptions keyOptions;

    @Mixin MaxSkew maxSkew;

    @Mixin WriteOptions writing;

    @Override
    public Integer call() throws IOException {
      HashStrategy strategy = KeyOptions.hashStrategy(hash);
      // The values first: a bad one is the error to name, not an option it makes seem missing.
      FilterTypes.checkType(type);
      String typedFpp = Numbers.typed(spec, "--fpp", FilterTypes.DEFAULT_FPP);
      double p = FilterTypes.checkFpp(type, fpp == null ? FilterTypes.DEFAULT_FPP : fpp, typedFpp);
      boolean windowed = type.equals(WindowFilter.TYPE);
      String windowOption =
          window != null ? "--window" : expectedRate != null ? "--expected-rate" : null;
      if (!windowed && windowOption != null) {
        throw new IllegalArgumentException(
            windowOption + " is for --type window, not for --type " + type);
      }
      if (!windowed && timeField.field != null) {
        throw new IllegalArgumentException(
            "--time-field is for --type window, not for --type " + type);
      }
      maxSkew.of(window);
      AgePartitionedBloomFilter recent =
          windowed ? WindowFilter.create(window, expected, expectedRate, p, strategy) : null;
      // Keys from --keys, or from stdin unless it is a terminal: a new filter may well start empty.
      KeyOptions from = keyOptions.orNoneAtATerminal(spec);
      // A window filter is refused both options here, as a Bloom filter is, wherever it is kept.
      FilterKeys.ifAbsent(
          repeats.multiset,
          repeats.ifAbsent,
          type.equals("counting") || type.equals("cuckoo"),
          "--type " + type);
      if (windowed) {
        keyOptions.timeField = timeField.field;
        return Location.of(file)
            .createWindowFilter(
                recent,
                overwrite.force,
                new Location.Keys(List.of(), from, spec, writing),
                maxSkew.of(window));
      }
      return Location.of(file)
          .createFilter(
              new Location.FilterShape(type, expected, fpp, typedFpp, p, strategy),
              overwrite.force,
              repeats.ifAbsent,
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

    @Mixin Repeats repeats;

    @Mixin AddTime timeField;

    @Mixin KeyOptions keyOptions;

    @Mixin WriteOptions writing;

    @Override
    public Integer call() throws IOException {
      keyOptions.require(keys, spec);
      keyOptions.timeField = timeField.field;
      return Location.of(file)
          .addToFilter(
              new Location.Keys(keys, keyOptions, spec, writing),
              repeats.multiset,
              repeats.ifAbsent);
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
        "  probkit filter query seen.bin --absent --field 2 --time-field 1 < lookups.tsv",
        "  tail -f access.log | probkit filter query bots.bin --absent",
        "  probkit filter query data.parquet --column user_id alice zed",
      })
  public static final class Query implements Callable<Integer>, StatusAnswers {
    @Spec CommandSpec spec;

    @Parameters(
        index = "0",
        paramLabel = "FILE",
        description = "The filter file, or a Parquet file (--column)." + RedisUri.FILTER)
    Path file;

    @Parameters(
        index = "1..*",
        paramLabel = "KEY",
        description = "Keys (or --keys FILE..., or stdin).")
    List<String> keys = new ArrayList<>();

    @Option(
        names = "--column",
        paramLabel = "PATH",
        description =
            "FILE is a Parquet file: answer from the split-block Bloom filters of column PATH"
                + " (a nested one by its dotted path), one line per row group (maybe; absent; or"
                + " no filter, could hold it), then a summary line. The key is parsed by the"
                + " column's type. Only the footer and the filters are read, not the data.")
    String column;

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

    @Option(
        names = "--at",
        paramLabel = "TIME",
        description =
            "Window filters of time: answer for the window ending at TIME (ISO-8601 with an"
                + " offset, or epoch seconds or ms) instead of now. A TIME before the latest key's"
                + " is answered as of the latest: the slices older than its window are gone.")
    String at;

    @Option(
        names = "--time-field",
        paramLabel = "F",
        description =
            "Window filters of time: answer each key for the window ending at the time in field F"
                + " of its line (from 1, or a --header name; tsv or csv; --field names the key):"
                + " ISO-8601 with an offset, or epoch seconds or milliseconds, as filter add"
                + " --time-field reads it.")
    String timeField;

    @Option(
        names = "--file-format",
        paramLabel = "NAME",
        description =
            "The filter file's format: probkit (default), guava (Guava's BloomFilter.writeTo),"
                + " spark (Spark's sketch BloomFilter.writeTo). A Spark or probkit file is"
                + " recognized by its first bytes; a Guava file, which has no mark of its own, only"
                + " when named. Answers are the library's own. (--format names the input's line"
                + " format.)")
    String fileFormat;

    @Option(
        names = "--long",
        description =
            "Each key is a decimal long, answered as the library answers a long key (Guava's"
                + " longFunnel, Spark's putLong): Guava and Spark files only.")
    boolean longKeys;

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
      OutputStream out = StandardStreams.stdout(spec);
      boolean select = statusAnswers();
      LineReader.LineConsumer header =
          select && !quiet && !count && !json ? LineReader.firstLineTo(out) : null;
      if (column != null || ParquetFilters.isParquet(file)) {
        if (at != null || timeField != null) {
          throw new IllegalArgumentException(
              (at != null ? "--at" : "--time-field") + " is for window filters, not Parquet files");
        }
        ParquetFilters.Column c = ParquetFilters.open(file).column(column);
        return finish(
            out,
            Inputs.KeySink.answering(
                (line, off, len, key, keyOff, keyLen) -> {
                  ParquetFilters.Answer[] a = c.query(key, keyOff, keyLen);
                  if (select || json) {
                    rowGroups = a;
                    answer(out, line, off, len, key, keyOff, keyLen, ParquetFilters.couldHold(a));
                  } else {
                    printRowGroups(out, key, keyOff, keyLen, a);
                  }
                },
                header,
                out));
      }
      Format format = ForeignFiles.formatOf(file, "--file-format", fileFormat);
      if (format != ProbkitFormat.INSTANCE || longKeys) {
        if (format != ProbkitFormat.INSTANCE && (at != null || timeField != null)) {
          throw new IllegalArgumentException(
              (at != null ? "--at" : "--time-field")
                  + " is for window filters, not "
                  + format.name()
                  + " files");
        }
        ForeignFilter f =
            format != ProbkitFormat.INSTANCE
                ? ForeignFiles.filter(file, format)
                : ForeignFilter.converted(Location.of(file).read(Format.Kind.FILTER), file);
        return finish(
            out,
            Inputs.KeySink.answering(
                (line, off, len, key, keyOff, keyLen) ->
                    answer(
                        out,
                        line,
                        off,
                        len,
                        key,
                        keyOff,
                        keyLen,
                        longKeys
                            ? f.mightContain(ForeignFilter.longKey(key, keyOff, keyLen))
                            : f.mightContain(key, keyOff, keyLen)),
                header,
                out));
      }
      keyOptions.timeField = timeField;
      EventTimes times = timeField == null ? null : TimedKeys.times(keys, keyOptions);
      Location.QueryTime time = null;
      if (at != null && times != null) {
        throw new IllegalArgumentException("--at and --time-field exclude each other");
      } else if (at != null) {
        long t = WindowFilter.at(at);
        time = new Location.QueryTime("--at", (line, off, len) -> t);
      } else if (times != null) {
        time = new Location.QueryTime("--time-field", times::of);
      }
      return Location.of(file)
          .queryFilter(
              (line, off, len, key, keyOff, keyLen, in) ->
                  answer(out, line, off, len, key, keyOff, keyLen, in),
              times == null ? header : times.headerThen(header == null ? (b, o, n) -> {} : header),
              out,
              sink -> finish(out, sink),
              time);
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

    /** The row groups' answers for the Parquet key being answered, for --json. */
    private ParquetFilters.Answer[] rowGroups;

    /** KEY, tab, "row group I: ANSWER" for each row group, then KEY, tab, the summary. */
    private static void printRowGroups(
        OutputStream out, byte[] key, int keyOff, int keyLen, ParquetFilters.Answer[] a)
        throws IOException {
      for (int i = 0; i < a.length; i++) {
        out.write(key, keyOff, keyLen);
        out.write(("\trow group " + i + ": " + a[i] + "\n").getBytes(StandardCharsets.UTF_8));
      }
      out.write(key, keyOff, keyLen);
      out.write(("\t" + ParquetFilters.summary(a) + "\n").getBytes(StandardCharsets.UTF_8));
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
        if (rowGroups != null) {
          List<String> each = new ArrayList<>();
          for (ParquetFilters.Answer a : rowGroups) {
            each.add(a.json());
          }
          j.put("rowGroups", each);
        }
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
        names = "--format",
        paramLabel = "NAME",
        description =
            "The file's format: probkit (default), guava, spark (recognized by its first bytes"
                + " unless guava, which has none). A Guava or Spark file has no checksum: it is"
                + " described from unverified bytes.")
    String format;

    @Option(
        names = "--verify",
        description =
            "Also say that every checksum was checked (info checks them in any case: a mapped"
                + " filter's as it scans its bits).")
    boolean verify;

    @Override
    public Json describe(Path f, boolean json) {
      Format foreign = ForeignFiles.formatOf(f, "--format", format);
      if (foreign != ProbkitFormat.INSTANCE) {
        return ForeignFiles.filter(f, foreign).describe();
      }
      // Read again under the lock when a checksum fails: an add in place may race the scan.
      return FilterFiles.read(
          f,
          filter -> {
            if (!(filter instanceof MappedFilter)) {
              // Read in full: its checksum was checked.
              Json j = FilterDescriptions.describe(filter, json);
              return verify ? j.put("checksum", "verified") : j;
            }
            MappedFilter m = (MappedFilter) filter;
            if (verify) {
              m.verify();
            }
            Json j = FilterDescriptions.describeMapped(m, json);
            return verify ? j.put("checksum", "verified") : j;
          });
    }
  }

  @Command(
      name = "merge",
      mixinStandardHelpOptions = true,
      description = {
        "Merge the SRC filters into DEST, as Redis's PFMERGE: an existing DEST is part of the union.",
        "With --replace, DEST becomes the union of the SRCs alone. Bloom, blocked, counting and cuckoo filters of one type, size and hashing merge, and window filters of time of one shape (the union keeps the window of the latest of them).",
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
  }
}
