package io.github.probkit.cli.format;

import io.github.probkit.Concurrency;
import io.github.probkit.cli.input.Inputs;
import io.github.probkit.cli.input.KeyOptions;
import io.github.probkit.cli.output.CliException;
import io.github.probkit.filter.AgePartitionedBloomFilter;
import io.github.probkit.filter.BlockedBloomFilter;
import io.github.probkit.filter.BloomFilter;
import io.github.probkit.filter.CountingBloomFilter;
import io.github.probkit.filter.CuckooFilter;
import io.github.probkit.filter.DeletableFilter;
import io.github.probkit.filter.MappedFilter;
import io.github.probkit.filter.MembershipFilter;
import io.github.probkit.filter.MutableFilter;
import io.github.probkit.io.StructureType;
import java.io.IOException;
import java.io.PrintWriter;
import java.math.BigDecimal;
import java.math.MathContext;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import picocli.CommandLine.Model.CommandSpec;

/** What adding and removing keys does to a filter in memory, and what it says on the way. */
public final class FilterKeys {
  private FilterKeys() {}

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
    if (f instanceof AgePartitionedBloomFilter) {
      WindowFilters.addKeys((AgePartitionedBloomFilter) f, keys, from, spec, file);
      return;
    }
    if (from.timeField != null) {
      WindowFilters.timeBased(f, file, "--time-field");
    }
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
    } else if (f instanceof MappedFilter
        && ((MappedFilter) f).type() != StructureType.BINARY_FUSE_FILTER) {
      // A file just added to in place: its count is a scan of the mapped file.
      expected = ((MappedFilter) f).expectedKeys();
      target = ((MappedFilter) f).targetFpp();
    } else {
      return;
    }
    long n =
        f instanceof MappedFilter
            ? ((MappedFilter) f).approximateCount()
            : ((MutableFilter) f).approximateCount();
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
}
