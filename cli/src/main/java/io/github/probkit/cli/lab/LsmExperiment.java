package io.github.probkit.cli.lab;

import io.github.probkit.cli.lab.Lab.Scaled;
import io.github.probkit.filter.BloomFilter;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * lsm: LevelDB's claim that a 10-bits-per-key filter per file cuts the unnecessary disk reads of a
 * lookup by about 100 times, on a small LSM store of sorted runs in real files.
 */
final class LsmExperiment extends Experiment {
  private static final int BLOCK = 4096;
  private static final int RECORD = 16;
  private static final int PER_BLOCK = BLOCK / RECORD;
  private static final int[] BITS_PER_KEY = {0, 2, 4, 6, 8, 10, 12, 14, 16};
  private static final int SEED_BITS = 10;

  private static final Scaled<Integer> RUNS = new Scaled<>(5, 10, 10);
  private static final Scaled<Integer> PER_RUN = new Scaled<>(5_000, 50_000, 200_000);
  private static final Scaled<Integer> LOOKUPS = new Scaled<>(5_000, 20_000, 100_000);

  LsmExperiment() {
    super("lsm", "Disk reads an LSM store saves with a Bloom filter per file");
  }

  @Override
  public String description(Lab lab) {
    return "A small LSM store: "
        + RUNS.in(lab)
        + " sorted runs of "
        + Unit.COUNT.format(PER_RUN.in(lab))
        + " random 64-bit keys each, written to real files of 4 kB blocks (16-byte records) in a temporary"
        + " directory, with an in-memory index of each block's first key. A lookup visits the runs newest"
        + " first, skips a run whose key range or filter rules the key out, and otherwise reads one block"
        + " with a positioned file read, until it finds the key. Every read of a run that does not hold"
        + " the key is unnecessary. Measured for "
        + Unit.COUNT.format(LOOKUPS.in(lab))
        + " absent and as many present keys, without filters and with a Bloom filter of b bits per key"
        + " (k = round(b ln 2)) per run. Theory: a filter lets an unnecessary read through with its"
        + " false-positive rate p, so the reduction is 1/p, about 122 at 10 bits per key; LevelDB's"
        + " documentation says about 100.";
  }

  /** One sorted run in a file: its fence keys, key range and (optionally) a filter. */
  private static final class Run implements AutoCloseable {
    final FileChannel channel;
    final long[] fences;
    final long min;
    final long max;
    final int keys;
    BloomFilter filter;

    Run(Path file, long[] sorted) throws IOException {
      keys = sorted.length;
      min = sorted[0];
      max = sorted[sorted.length - 1];
      fences = new long[(keys + PER_BLOCK - 1) / PER_BLOCK];
      ByteBuffer block = ByteBuffer.allocate(BLOCK).order(ByteOrder.LITTLE_ENDIAN);
      try (FileChannel w =
          FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
        for (int b = 0; b < fences.length; b++) {
          block.clear();
          fences[b] = sorted[b * PER_BLOCK];
          for (int i = b * PER_BLOCK; i < Math.min(keys, (b + 1) * PER_BLOCK); i++) {
            block.putLong(sorted[i]).putLong(value(sorted[i]));
          }
          while (block.hasRemaining()) {
            block.put((byte) 0);
          }
          block.flip();
          while (block.hasRemaining()) {
            w.write(block);
          }
        }
      }
      channel = FileChannel.open(file, StandardOpenOption.READ);
    }

    @Override
    public void close() throws IOException {
      channel.close();
    }
  }

  /** The value stored with a key: derived from it, so a lookup can be verified. */
  private static long value(long key) {
    return key * 0x9E3779B97F4A7C15L + 1;
  }

  /** The store: runs newest first, and the file reads counted. */
  private static final class Store {
    final Run[] runs;
    final ByteBuffer block = ByteBuffer.allocateDirect(BLOCK).order(ByteOrder.LITTLE_ENDIAN);
    long reads;
    long unnecessary;
    long wrongAnswers;

    Store(Run[] runs) {
      this.runs = runs;
    }

    /** Looks a key up; {@code owner} is the index of the run holding it, -1 when absent. */
    void lookup(long key, int owner, boolean useFilters) throws IOException {
      for (int r = 0; r < runs.length; r++) {
        Run run = runs[r];
        if (key < run.min || key > run.max) {
          continue;
        }
        if (useFilters && run.filter != null && !run.filter.mightContain(key)) {
          continue;
        }
        int b = Arrays.binarySearch(run.fences, key);
        b = b >= 0 ? b : -b - 2;
        block.clear();
        long position = (long) b * BLOCK;
        while (block.hasRemaining()) {
          if (run.channel.read(block, position + block.position()) < 0) {
            break;
          }
        }
        reads++;
        long found = search(block, Math.min(PER_BLOCK, run.keys - b * PER_BLOCK), key);
        if (r != owner) {
          unnecessary++;
        }
        if (found != Long.MIN_VALUE) {
          if (r != owner || found != value(key)) {
            wrongAnswers++;
          }
          return;
        }
      }
      if (owner >= 0) {
        wrongAnswers++;
      }
    }

    /** The value of {@code key} in a block of {@code records}, or Long.MIN_VALUE. */
    private static long search(ByteBuffer block, int records, long key) {
      int lo = 0;
      int hi = records - 1;
      while (lo <= hi) {
        int mid = (lo + hi) >>> 1;
        long k = block.getLong(mid * RECORD);
        if (k < key) {
          lo = mid + 1;
        } else if (k > key) {
          hi = mid - 1;
        } else {
          return block.getLong(mid * RECORD + 8);
        }
      }
      return Long.MIN_VALUE;
    }
  }

  /** Reads counted for one pass of lookups. */
  private static final class Pass {
    long reads;
    long unnecessary;
    long wrong;
    double seconds;
  }

  private static Pass pass(Store store, long[] keys, int[] owners, boolean useFilters)
      throws IOException {
    store.reads = 0;
    store.unnecessary = 0;
    store.wrongAnswers = 0;
    long t0 = System.nanoTime();
    for (int i = 0; i < keys.length; i++) {
      store.lookup(keys[i], owners[i], useFilters);
    }
    Pass p = new Pass();
    p.seconds = Measure.since(t0);
    p.reads = store.reads;
    p.unnecessary = store.unnecessary;
    p.wrong = store.wrongAnswers;
    return p;
  }

  @Override
  public void run(Lab lab, Section out) throws Exception {
    int r = RUNS.in(lab);
    int perRun = PER_RUN.in(lab);
    int q = LOOKUPS.in(lab);
    SplittableRandom random = new SplittableRandom(lab.random(0x5eed15a4c0ffee01L));
    Set<Long> all = new HashSet<>();
    long[][] data = new long[r][perRun];
    for (int i = 0; i < r; i++) {
      for (int j = 0; j < perRun; j++) {
        long k;
        do {
          k = random.nextLong();
        } while (!all.add(k));
        data[i][j] = k;
      }
    }
    long[] absent = new long[q];
    int[] noOwner = new int[q];
    Arrays.fill(noOwner, -1);
    for (int i = 0; i < q; i++) {
      long k;
      do {
        k = random.nextLong();
      } while (all.contains(k));
      absent[i] = k;
    }
    long[] present = new long[q];
    int[] owners = new int[q];
    for (int i = 0; i < q; i++) {
      owners[i] = random.nextInt(r);
      present[i] = data[owners[i]][random.nextInt(perRun)];
    }
    all = null;

    Path dir = Files.createTempDirectory("probkit-lab-lsm");
    Run[] runs = new Run[r];
    try {
      long fileBytes = 0;
      for (int i = 0; i < r; i++) {
        long[] sorted = data[i].clone();
        Arrays.sort(sorted);
        Path file = dir.resolve(String.format(java.util.Locale.ROOT, "run-%02d.sst", i));
        runs[i] = new Run(file, sorted);
        fileBytes += Files.size(file);
      }
      out.note(
          "Store: "
              + r
              + " runs, "
              + Unit.COUNT.format((long) r * perRun)
              + " keys, "
              + Unit.BYTES.format(fileBytes)
              + " of files in a temporary directory (deleted afterwards).");
      Store store = new Store(runs);
      Pass noneAbsent = pass(store, absent, noOwner, false);
      Pass nonePresent = pass(store, present, owners, false);

      Table t =
          Table.of(
              "File reads per lookup, "
                  + r
                  + " runs, "
                  + Unit.COUNT.format(q)
                  + " absent and "
                  + Unit.COUNT.format(q)
                  + " present lookups (page cache warm)",
              "bits/key",
              Unit.INTEGER,
              "k",
              Unit.INTEGER,
              "filter FPR (theory)",
              Unit.PERCENT,
              "absent: reads/lookup",
              Unit.NUMBER,
              "present: reads/lookup",
              Unit.NUMBER,
              "unnecessary reads",
              Unit.COUNT,
              "reduction",
              Unit.TIMES,
              "theory 1/p",
              Unit.TIMES,
              "us/lookup (absent)",
              Unit.NUMBER);
      t.row(
          "none",
          "-",
          "-",
          (double) noneAbsent.reads / q,
          (double) nonePresent.reads / q,
          noneAbsent.unnecessary + nonePresent.unnecessary,
          1.0,
          1.0,
          noneAbsent.seconds * 1e6 / q);
      long wrong = noneAbsent.wrong + nonePresent.wrong;
      int points = BITS_PER_KEY.length - 1;
      double[] cx = new double[points];
      double[] cy = new double[points];
      double[] clo = new double[points];
      double[] chi = new double[points];
      double[] ct = new double[points];
      // The consultations of filters on runs without the key: exactly the unnecessary reads of the
      // store without filters, each of which a filter lets through with probability p.
      long trials = noneAbsent.unnecessary + nonePresent.unnecessary;
      for (int i = 1; i < BITS_PER_KEY.length; i++) {
        int b = BITS_PER_KEY[i];
        long m = (long) b * perRun;
        int k = Theory.bloomHashes(m, perRun);
        for (int j = 0; j < r; j++) {
          runs[j].filter = BloomFilter.withBits(m, k);
          for (long key : data[j]) {
            runs[j].filter.add(key);
          }
        }
        Pass a = pass(store, absent, noOwner, true);
        Pass p = pass(store, present, owners, true);
        wrong += a.wrong + p.wrong;
        double fpr = Theory.bloomRate(m, perRun, k);
        long with = a.unnecessary + p.unnecessary;
        t.row(
            b,
            k,
            fpr,
            (double) a.reads / q,
            (double) p.reads / q,
            with,
            (double) trials / with,
            1 / fpr,
            a.seconds * 1e6 / q);
        // the count with filters: binomial over the consultations, plus the fill of r filters
        // averaged
        double[] count = Stats.binomial(trials, fpr);
        double fill = Stats.Z * Stats.fillSd(fpr, m, perRun, k) / Math.sqrt(r) * trials;
        double lo = Math.max(0, count[0] - fill);
        double hi = count[1] + fill;
        double[] ci = Stats.wilson(with, trials);
        double perAbsent = (double) noneAbsent.unnecessary / q;
        double[] ca = Stats.wilson(a.unnecessary, noneAbsent.unnecessary);
        cx[i - 1] = b;
        cy[i - 1] = (double) a.unnecessary / q;
        clo[i - 1] = ca[0] * perAbsent;
        chi[i - 1] = ca[1] * perAbsent;
        ct[i - 1] = fpr * perAbsent;
        out.checkInterval(
            "reduction of unnecessary reads at " + b + " bits/key",
            Unit.TIMES,
            (double) trials / with,
            1 / fpr,
            trials / hi,
            trials / Math.max(lo, 0.5),
            Stats.BINOMIAL + " of " + Unit.COUNT.format(trials) + " filter probes + fill");
        if (b == SEED_BITS) {
          out.checkStated(
              "reduction at 10 bits/key (LevelDB: about 100 times)",
              Unit.TIMES,
              (double) trials / with,
              1 / ci[1],
              1 / ci[0],
              100,
              Stats.halfUnit(100, 1),
              "100x");
          double absentReduction = (double) noneAbsent.unnecessary / a.unnecessary;
          out.checkStated(
              "reduction at 10 bits/key, absent keys only",
              Unit.TIMES,
              absentReduction,
              1 / ca[1],
              1 / ca[0],
              100,
              Stats.halfUnit(100, 1),
              "100x");
        }
      }
      out.table(t);
      out.checkExact(
          "wrong answers (a present key not found, or found with a wrong value)",
          Unit.COUNT,
          wrong,
          0,
          "a filter never hides a key");
      out.chart(
          Chart.xy(
                  "lsm-reads",
                  "LSM store: unnecessary file reads per absent lookup, " + r + " runs",
                  "filter bits per key",
                  "unnecessary reads per lookup")
              .logY()
              .points("measured (" + Stats.pct(Stats.CONFIDENCE) + " interval)", cx, cy, clo, chi)
              .line("theory: reads without filters x (1 - e^(-kn/m))^k", cx, ct)
              .dashedOwn(
                  "without filters: " + r + " reads",
                  new double[] {BITS_PER_KEY[1], BITS_PER_KEY[points]},
                  new double[] {
                    (double) noneAbsent.unnecessary / q, (double) noneAbsent.unnecessary / q
                  }));
    } finally {
      for (Run run : runs) {
        if (run != null) {
          run.close();
        }
      }
      try (var files = Files.list(dir)) {
        for (Path f : (Iterable<Path>) files::iterator) {
          Files.deleteIfExists(f);
        }
      }
      Files.deleteIfExists(dir);
    }
  }
}
