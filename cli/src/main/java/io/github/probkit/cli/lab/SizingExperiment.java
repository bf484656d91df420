package io.github.probkit.cli.lab;

import com.sun.management.HotSpotDiagnosticMXBean;
import io.github.probkit.cli.lab.Lab.Scaled;
import io.github.probkit.filter.BloomFilter;
import java.lang.management.ManagementFactory;
import java.lang.ref.Reference;
import java.util.HashSet;
import java.util.Set;

/**
 * sizing: bits per key for each target rate, a million keys at 1 % against a HashSet of the same
 * keys (measured on the heap), and the crawler's billion URLs.
 */
final class SizingExperiment extends Experiment {
  private static final double LN2 = Math.log(2);
  private static final int SET_KEYS = 1_000_000;
  private static final long CRAWLER_URLS = 1_000_000_000L;
  private static final int URL_BYTES = 70;

  /** The seeds' key shapes: BENCHMARKING's "user:" + 15 digits, and the crawler's 70-byte URL. */
  private static final String USER_PREFIX = "user:";

  private static final String URL_PREFIX = "https://www.example.com/news/2024/05/world/story-id-";

  private static final Scaled<Integer> KEYS = new Scaled<>(10_000, 100_000, 1_000_000);
  private static final Scaled<Long> QUERIES = new Scaled<>(200_000L, 2_000_000L, 20_000_000L);

  SizingExperiment() {
    super(
        "sizing", "Bits per key for a target rate; a filter against an exact HashSet; the crawler");
  }

  @Override
  public String description(Lab lab) {
    return "Filters built by BloomFilter.create(n, p) for targets p from 10 % down, with n = "
        + Unit.COUNT.format(KEYS.in(lab))
        + " keys and "
        + Unit.COUNT.format(QUERIES.in(lab))
        + " absent queries each: the bits per key m/n = -ln p / (ln 2)^2, each tenfold drop of p"
        + " costing ln 10 / (ln 2)^2 = 4.79 bits (seed 001: about 4.8), and the measured rate"
        + " against theory. Then a million keys at 1 % (seeds: about 1.2 MB) against the heap a"
        + " java.util.HashSet<String> of the same keys takes, measured as the difference of the heap"
        + " in use after full collections and compared with the object-layout arithmetic of this JVM."
        + " Last the crawler of seed 001: a billion URLs at 1 % in about 1.2 GB against about 70 GB"
        + " for the URLs themselves"
        + (lab.bigKeys > 0
            ? ", and a filter of "
                + Unit.COUNT.format(lab.bigKeys)
                + " keys built and measured (--big)."
            : "; --big builds one of 10^8 keys.");
  }

  @Override
  public void run(Lab lab, Section out) throws Exception {
    targets(lab, out);
    seedFigures(lab, out);
    exactSet(out);
    crawler(out);
    if (lab.bigKeys > 0) {
      big(lab, out);
    }
  }

  /** Bits per key against the target rate, and the cost of each tenfold drop. */
  private static void targets(Lab lab, Section out) throws Exception {
    int n = KEYS.in(lab);
    long q = QUERIES.in(lab);
    int decades = lab.pick(3, 4, 5);
    Table t =
        Table.of(
            Table.fprTitle("Bits per key for each target rate", n, q),
            "target p",
            Unit.PERCENT,
            "bits/key",
            Unit.NUMBER,
            "step from previous",
            Unit.NUMBER,
            "k",
            Unit.INTEGER,
            "filter bytes",
            Unit.BYTES,
            "measured",
            Unit.PERCENT,
            "theory",
            Unit.PERCENT);
    double[] bits = new double[decades];
    double[] measuredDecades = new double[decades];
    double[] theoryDecades = new double[decades];
    double[] variance = new double[decades];
    double[] px = new double[decades];
    double[] py = new double[decades];
    double[] plo = new double[decades];
    double[] phi = new double[decades];
    double[] pt = new double[decades];
    String why = Stats.BINOMIAL + " of " + Unit.COUNT.format(q) + " queries + fill";
    for (int d = 1; d <= decades; d++) {
      double target = Math.pow(10, -d);
      BloomFilter f = BloomFilter.create(n, target);
      Measure.addRange(f, lab.key(0), n);
      long fp = Measure.positives(f, lab.key(Measure.ABSENT), q);
      double rate = (double) fp / q;
      long m = Theory.bloomBits(n, target);
      int k = Theory.bloomHashes(m, n);
      double theory = Theory.bloomRate(m, n, k);
      double[] accept = Stats.filterFpr(q, theory, m, n, k);
      double[] ci = Stats.wilson(fp, q);
      bits[d - 1] = (double) m / n;
      t.row(
          target,
          bits[d - 1],
          d == 1 ? Double.NaN : bits[d - 1] - bits[d - 2],
          k,
          f.byteSize(),
          rate,
          theory);
      out.checkInterval(
          "FPR of create(n, " + Unit.sig(target) + ")",
          Unit.PERCENT,
          rate,
          theory,
          accept[0],
          accept[1],
          why);
      measuredDecades[d - 1] = -Math.log10(rate);
      theoryDecades[d - 1] = -Math.log10(theory);
      // variance of log10 of the measured rate: binomial over the queries and the filter's fill
      double sdFill = Stats.fillSd(theory, m, n, k) / theory;
      variance[d - 1] =
          ((1 - theory) / (q * theory) + sdFill * sdFill) / (Math.log(10) * Math.log(10));
      px[d - 1] = bits[d - 1];
      py[d - 1] = rate;
      plo[d - 1] = ci[0];
      phi[d - 1] = ci[1];
      pt[d - 1] = theory;
    }
    out.table(t);
    // Bits per decade: the inverse of the slope of -log10(rate) against bits per key, by weighted
    // least squares; the theory's slope is taken through the same filters (integer k, rounded m).
    double[] measured = Stats.weightedSlope(bits, measuredDecades, variance);
    double[] theory = Stats.weightedSlope(bits, theoryDecades, variance);
    double perDecade = 1 / measured[0];
    double sePerDecade = measured[1] / (measured[0] * measured[0]);
    double theoryPerDecade = 1 / theory[0];
    double ideal = Math.log(10) / (LN2 * LN2);
    out.checkInterval(
        "bits per tenfold drop of the measured rate (fit over " + decades + " targets)",
        Unit.NUMBER,
        perDecade,
        theoryPerDecade,
        theoryPerDecade - Stats.Z * sePerDecade,
        theoryPerDecade + Stats.Z * sePerDecade,
        Stats.pct(Stats.CONFIDENCE) + " from the fit's standard error");
    out.checkStated(
        "bits per tenfold drop (seed 001: about 4.8; ln 10 / (ln 2)^2 = " + Unit.sig(ideal) + ")",
        Unit.NUMBER,
        perDecade,
        perDecade - Stats.Z * sePerDecade,
        perDecade + Stats.Z * sePerDecade,
        4.8,
        Stats.halfUnit(4.8, 2),
        "4.8");
    double[] line = new double[41];
    double[] lineY = new double[line.length];
    for (int i = 0; i < line.length; i++) {
      line[i] = 2 + i * 0.6;
      lineY[i] = Math.exp(-line[i] * LN2 * LN2);
    }
    out.chart(
        Chart.xy(
                "sizing-bits",
                "Bits per key against the false-positive rate",
                "bits per key (m/n)",
                "false-positive rate")
            .logY()
            .points(
                "create(n, p), measured (" + Stats.pct(Stats.CONFIDENCE) + " interval)",
                px,
                py,
                plo,
                phi)
            .dashedOwn("theory of those filters", px, pt)
            .line("p = e^(-(m/n)(ln 2)^2): 4.79 bits per decade", line, lineY));
  }

  /** The numbers the seeds print about a million keys at 1 %. */
  private static void seedFigures(Lab lab, Section out) {
    BloomFilter f = BloomFilter.create(SET_KEYS, 0.01);
    out.checkExact(
        "bits of create(1,000,000, 0.01) (seed 001 prints 9585059)",
        Unit.COUNT,
        f.bitSize(),
        9_585_059,
        "the seed's printed m");
    out.checkExact(
        "hashes of create(1,000,000, 0.01) (seed 001 prints 7)",
        Unit.INTEGER,
        f.hashCount(),
        7,
        "the seed's printed k");
    double perKey = (double) f.bitSize() / SET_KEYS;
    out.checkStated(
        "bits per key at 1 % (seed 001: 9.59)",
        Unit.NUMBER, perKey, perKey, perKey, 9.59, Stats.halfUnit(9.59, 3), "9.59");
    double tenth = (double) Theory.bloomBits(SET_KEYS, 0.001) / SET_KEYS;
    out.checkStated(
        "bits per key at 0.1 % (seed 001: about 14.4)",
        Unit.NUMBER, tenth, tenth, tenth, 14.4, Stats.halfUnit(14.4, 3), "14.4");
    out.checkStated(
        "bytes of a 1 % filter of a million keys (seeds: about 1.2 MB)",
        Unit.BYTES,
        f.byteSize(),
        f.byteSize(),
        f.byteSize(),
        1.2e6,
        Stats.halfUnit(1.2e6, 2),
        "1.2 MB");

    // Seed 001 measured its filter with 100,000 absent keys and got about 1.02 %: string keys here,
    // as there, then 100 times more queries for a sharp figure.
    for (int i = 0; i < SET_KEYS; i++) {
      f.add(USER_PREFIX + i);
    }
    long m = Theory.bloomBits(SET_KEYS, 0.01);
    int k = Theory.bloomHashes(m, SET_KEYS);
    double theory = Theory.bloomRate(m, SET_KEYS, k);
    int small = 100_000;
    long fp = 0;
    for (int i = 0; i < small; i++) {
      fp += f.mightContain("ghost:" + i) ? 1 : 0;
    }
    double[] accept = Stats.filterFpr(small, theory, m, SET_KEYS, k);
    out.checkInterval(
        "FPR of that filter, 100,000 absent string keys",
        Unit.PERCENT,
        (double) fp / small,
        theory,
        accept[0],
        accept[1],
        Stats.BINOMIAL + " of 100,000 queries + fill");
    out.checkInterval(
        "seed 001's 1.02 % over 100,000 absent keys, as a sample of the theory",
        Unit.PERCENT,
        0.0102,
        theory,
        accept[0],
        accept[1],
        Stats.BINOMIAL + " of 100,000 queries + fill");
    long large = lab.pick(200_000L, 2_000_000L, 10_000_000L);
    long fpLarge = fp;
    for (long i = small; i < large; i++) {
      fpLarge += f.mightContain("ghost:" + i) ? 1 : 0;
    }
    accept = Stats.filterFpr(large, theory, m, SET_KEYS, k);
    out.checkInterval(
        "FPR of that filter, " + Unit.COUNT.format(large) + " absent string keys",
        Unit.PERCENT,
        (double) fpLarge / large,
        theory,
        accept[0],
        accept[1],
        Stats.BINOMIAL + " of " + Unit.COUNT.format(large) + " queries + fill");
  }

  /**
   * The heap of a HashSet<String> of a million keys, measured and computed from the object layout.
   */
  private static void exactSet(Section out) {
    Layout layout = Layout.current();
    BloomFilter onePercent = BloomFilter.create(SET_KEYS, 0.01);
    Table t =
        Table.of(
            "A million keys: java.util.HashSet<String> on the heap against a 1 % Bloom filter ("
                + layout
                + ")",
            "keys",
            Unit.TEXT,
            "key bytes",
            Unit.INTEGER,
            "raw keys",
            Unit.BYTES,
            "HashSet measured",
            Unit.BYTES,
            "bytes per key",
            Unit.NUMBER,
            "layout estimate",
            Unit.BYTES,
            "1 % filter",
            Unit.BYTES,
            "HashSet / filter",
            Unit.TIMES);
    double userHeap = 0;
    double userEstimate = 0;
    for (int shape = 0; shape < 2; shape++) {
      String prefix =
          shape == 0 ? USER_PREFIX : URL_PREFIX + "x".repeat(URL_BYTES - 15 - URL_PREFIX.length());
      int length = prefix.length() + 15;
      long before = Measure.heapUsed();
      Set<String> set = new HashSet<>();
      for (int i = 0; i < SET_KEYS; i++) {
        set.add(prefix + (100_000_000_000_000L + i));
      }
      long heap = Measure.heapUsed() - before;
      Reference.reachabilityFence(set);
      set = null;
      long estimate = layout.hashSetOfStrings(SET_KEYS, length);
      String label = shape == 0 ? "\"user:\" + 15 digits" : length + "-byte URLs";
      t.row(
          label,
          length,
          (double) SET_KEYS * length,
          heap,
          (double) heap / SET_KEYS,
          estimate,
          onePercent.byteSize(),
          (double) heap / onePercent.byteSize());
      double slack = 0.02 * estimate;
      out.checkInterval(
          "HashSet<String> heap, " + label + ", against the layout arithmetic",
          Unit.BYTES,
          heap,
          estimate,
          estimate - slack,
          estimate + slack,
          "2 % for what else the heap holds");
      if (shape == 0) {
        userHeap = heap;
        userEstimate = estimate;
      }
    }
    out.table(t);
    out.checkInterval(
        "HashSet<String> of a million \"user:\" keys (seed 000: tens of MB; seed 004: hundreds)",
        Unit.BYTES,
        userHeap,
        userEstimate,
        10e6,
        1e9,
        "tens to hundreds of megabytes");
    out.checkBound(
        "HashSet / 1 % filter, \"user:\" keys (seeds: tens of MB against 1.2 MB)",
        Unit.TIMES, userHeap / onePercent.byteSize(), Double.NaN, 10, false, "at least ten times");
  }

  /** Seed 001's crawler: a billion URLs. */
  private static void crawler(Section out) {
    long bits = Theory.bloomBits(CRAWLER_URLS, 0.01);
    double filterBytes = bits / 8.0;
    double exactBytes = (double) CRAWLER_URLS * URL_BYTES;
    long javaSet = Layout.current().hashSetOfStrings(CRAWLER_URLS, URL_BYTES);
    Table t =
        Table.of(
            "The crawler: a billion URLs of 70 bytes at 1 % (computed)",
            "what", Unit.TEXT, "bytes", Unit.BYTES, "against the filter", Unit.TIMES);
    t.row(
        "Bloom filter, m = "
            + Unit.COUNT.format(bits)
            + " bits, k = "
            + Theory.bloomHashes(bits, CRAWLER_URLS),
        filterBytes,
        1.0);
    t.row("the URLs themselves (seed: at least 70 GB)", exactBytes, exactBytes / filterBytes);
    t.row("java.util.HashSet<String> of them (this JVM's layout)", javaSet, javaSet / filterBytes);
    out.table(t);
    out.checkStated(
        "crawler filter, 10^9 URLs at 1 % (seed 001: about 1.2 GB)",
        Unit.BYTES,
        filterBytes,
        filterBytes,
        filterBytes,
        1.2e9,
        Stats.halfUnit(1.2e9, 2),
        "1.2 GB");
    out.checkStated(
        "exact URLs against the filter (seed 001: about 60 times smaller)",
        Unit.TIMES,
        exactBytes / filterBytes,
        exactBytes / filterBytes,
        exactBytes / filterBytes,
        60,
        Stats.halfUnit(60, 1),
        "60x");
  }

  /** --big: the crawler's filter built for real. */
  private static void big(Lab lab, Section out) {
    long n = lab.bigKeys;
    long before = Measure.heapUsed();
    BloomFilter f;
    try {
      f = BloomFilter.create(n, 0.01);
    } catch (IllegalArgumentException | OutOfMemoryError e) {
      out.note(
          "--big: a 1 % filter of "
              + Unit.COUNT.format(n)
              + " keys was not built: "
              + e.getMessage()
              + " (raise the heap with JAVA_OPTS=-Xmx...)");
      return;
    }
    long heap = Measure.heapUsed() - before;
    long t0 = System.nanoTime();
    Measure.addRange(f, lab.key(0), n);
    double addSeconds = Measure.since(t0);
    long q = Math.min(n, lab.pick(1_000_000L, 2_000_000L, 10_000_000L));
    t0 = System.nanoTime();
    long fp = Measure.positives(f, lab.key(Measure.ABSENT), q);
    double querySeconds = Measure.since(t0);
    long m = Theory.bloomBits(n, 0.01);
    int k = Theory.bloomHashes(m, n);
    double theory = Theory.bloomRate(m, n, k);
    Table t =
        Table.of(
            "--big: a 1 % filter of " + Unit.COUNT.format(n) + " keys, built and measured",
            "keys",
            Unit.COUNT,
            "bits",
            Unit.COUNT,
            "k",
            Unit.INTEGER,
            "byteSize()",
            Unit.BYTES,
            "heap measured",
            Unit.BYTES,
            "add ns/key",
            Unit.NUMBER,
            "query ns/key",
            Unit.NUMBER,
            "measured FPR",
            Unit.PERCENT,
            "theory",
            Unit.PERCENT);
    t.row(
        n,
        f.bitSize(),
        f.hashCount(),
        f.byteSize(),
        heap,
        addSeconds * 1e9 / n,
        querySeconds * 1e9 / q,
        (double) fp / q,
        theory);
    out.table(t);
    double[] accept = Stats.filterFpr(q, theory, m, n, k);
    out.checkInterval(
        "FPR of the " + Unit.COUNT.format(n) + "-key filter",
        Unit.PERCENT,
        (double) fp / q,
        theory,
        accept[0],
        accept[1],
        Stats.BINOMIAL + " of " + Unit.COUNT.format(q) + " queries + fill");
    long expected = Layout.current().heapBytes(f.byteSize());
    double slack = 0.01 * expected + 1e6;
    out.checkInterval(
        "heap of the " + Unit.COUNT.format(n) + "-key filter against byteSize() in G1 regions",
        Unit.BYTES,
        heap,
        expected,
        expected - slack,
        expected + slack,
        "1 % + 1 MB for what else the heap holds");
    out.checkStated(
        "bytes per key at 1 % (seeds: a million keys in about 1.2 MB)",
        Unit.BYTES,
        (double) f.byteSize() / n * 1e6,
        (double) f.byteSize() / n * 1e6,
        (double) f.byteSize() / n * 1e6,
        1.2e6,
        Stats.halfUnit(1.2e6, 2),
        "1.2 MB per million keys");
    Reference.reachabilityFence(f);
  }

  /**
   * The object layout of this JVM, read from its flags, for computing what a HashSet<String> takes:
   * per key a String, its byte[] (Latin-1 keys: one byte a character) and a HashMap.Node, plus the
   * table of references (a power of two keeping the load at most 0.75). G1 gives an object of half
   * a region or more ("humongous") whole regions of its own, and counts them whole as used.
   */
  static final class Layout {
    final int header;
    final int arrayBase;
    final int ref;
    final int align;

    /** The G1 region size, 0 when the collector is not G1. */
    final long region;

    private Layout(boolean compressedOops, boolean compressedClass, int align, long region) {
      this.header = 8 + (compressedClass ? 4 : 8);
      this.arrayBase = compressedClass ? 16 : 24;
      this.ref = compressedOops ? 4 : 8;
      this.align = align;
      this.region = region;
    }

    static Layout current() {
      HotSpotDiagnosticMXBean hs =
          ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
      boolean g1 = flag(hs, "UseG1GC", "false").equals("true");
      return new Layout(
          flag(hs, "UseCompressedOops", "true").equals("true"),
          flag(hs, "UseCompressedClassPointers", "true").equals("true"),
          Integer.parseInt(flag(hs, "ObjectAlignmentInBytes", "8")),
          g1 ? Long.parseLong(flag(hs, "G1HeapRegionSize", "0")) : 0);
    }

    private static String flag(HotSpotDiagnosticMXBean hs, String name, String otherwise) {
      try {
        return hs.getVMOption(name).getValue();
      } catch (IllegalArgumentException e) {
        return otherwise;
      }
    }

    private long aligned(long bytes) {
      return (bytes + align - 1) / align * align;
    }

    long hashSetOfStrings(long keys, int latin1Length) {
      long string = aligned(header + ref + 4 + 1 + 1); // value, hash, coder, hashIsZero
      long bytes = aligned(arrayBase + latin1Length);
      long node = aligned(header + 4 + 3L * ref); // hash, key, value, next
      long capacity = 16;
      while (keys > capacity * 3 / 4) {
        capacity *= 2;
      }
      return keys * (string + bytes + node) + heapBytes(aligned(arrayBase + capacity * ref));
    }

    /**
     * What G1 counts for one object: a humongous one (half a region or more) takes whole regions.
     */
    long heapBytes(long objectBytes) {
      if (region == 0 || objectBytes < region / 2) {
        return objectBytes;
      }
      return (objectBytes + region - 1) / region * region;
    }

    @Override
    public String toString() {
      return "layout: "
          + header
          + "-byte headers, "
          + ref
          + "-byte references, "
          + (region > 0 ? "G1 regions of " + Unit.BYTES.format(region) : "not G1");
    }
  }
}
