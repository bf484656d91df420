package io.github.probkit.cli.lab;

import io.github.probkit.cli.lab.Lab.Scaled;
import io.github.probkit.filter.BloomFilter;
import java.util.BitSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.commons.math3.distribution.ZipfDistribution;
import org.apache.commons.math3.random.Well19937c;

/**
 * cdn: a cache that stores an object only on its second request, remembered by a Bloom filter,
 * under a Zipfian request stream whose objects are mostly requested once.
 */
final class CdnExperiment extends Experiment {
  /** Zipf exponent and universe (objects per request) giving about 3/4 one-hit wonders. */
  private static final double EXPONENT = 0.9;

  private static final int UNIVERSE_PER_REQUEST = 2;
  private static final double[] CACHE_SHARES = {0.01, 0.03, 0.1, 0.3};
  private static final double FILTER_FPP = 0.01;

  private static final Scaled<Integer> REQUESTS = new Scaled<>(50_000, 1_000_000, 5_000_000);

  CdnExperiment() {
    super("cdn", "A CDN cache that stores an object only on its second request");
  }

  @Override
  public String description(Lab lab) {
    return Unit.COUNT.format(REQUESTS.in(lab))
        + " requests drawn from a Zipf distribution (exponent "
        + EXPONENT
        + ") over "
        + Unit.COUNT.format((long) UNIVERSE_PER_REQUEST * REQUESTS.in(lab))
        + " objects of 1 kB to 1 MB (log-uniform), so that most objects are requested once (seed 001 cites"
        + " Akamai: about three quarters). An LRU cache of a share of the bytes of all objects requested"
        + " either stores every object it misses, or, guarded by a 1 % Bloom filter, only objects the"
        + " filter has seen before: a first request is stored only when the filter gives a false positive."
        + " Measured: bytes written to the cache and hit rates, with and without the filter.";
  }

  /** An object's size, 1 kB to 1 MB log-uniform, fixed by its id. */
  private static int size(int object) {
    long h = object * 0x9E3779B97F4A7C15L;
    h ^= h >>> 29;
    h *= 0xBF58476D1CE4E5B9L;
    h ^= h >>> 32;
    double u = (h >>> 11) * 0x1.0p-53;
    return (int) Math.round(1000 * Math.pow(1000, u));
  }

  /** One policy run over the stream. */
  private static final class Result {
    long hits;
    long hitBytes;
    long written;
    long writtenBytes;
    long oneHitBytesWritten;
    long firstRequestWrites;
    double expectedFirstRequestWrites;
    double varianceFirstRequestWrites;
  }

  private static Result simulate(
      int[] stream, BitSet oneHit, long capacity, boolean filtered, int distinct) {
    Result r = new Result();
    LinkedHashMap<Integer, Integer> lru = new LinkedHashMap<>(1 << 16, 0.75f, true);
    long used = 0;
    BloomFilter filter = filtered ? BloomFilter.create(distinct, FILTER_FPP) : null;
    long inFilter = 0;
    BitSet seen = new BitSet();
    for (int o : stream) {
      boolean first = !seen.get(o);
      seen.set(o);
      int size = size(o);
      if (lru.get(o) != null) {
        r.hits++;
        r.hitBytes += size;
        continue;
      }
      boolean store;
      if (filter == null) {
        store = true;
      } else {
        if (first) {
          double p = Theory.bloomRate(filter.bitSize(), Math.max(1, inFilter), filter.hashCount());
          p = inFilter == 0 ? 0 : p;
          r.expectedFirstRequestWrites += p;
          r.varianceFirstRequestWrites += p * (1 - p);
        }
        store = filter.mightContain(o);
        if (!store) {
          filter.add(o);
          inFilter++;
        }
      }
      if (!store || size > capacity) {
        continue;
      }
      r.written++;
      r.writtenBytes += size;
      r.firstRequestWrites += first ? 1 : 0;
      r.oneHitBytesWritten += oneHit.get(o) ? size : 0;
      lru.put(o, size);
      used += size;
      for (Iterator<Map.Entry<Integer, Integer>> it = lru.entrySet().iterator();
          used > capacity; ) {
        used -= it.next().getValue();
        it.remove();
      }
    }
    return r;
  }

  @Override
  public void run(Lab lab, Section out) throws Exception {
    int n = REQUESTS.in(lab);
    int universe = UNIVERSE_PER_REQUEST * n;
    ZipfDistribution zipf =
        new ZipfDistribution(new Well19937c(lab.random(0xcd17a9e5)), universe, EXPONENT);
    int[] stream = new int[n];
    int[] counts = new int[universe + 1];
    for (int i = 0; i < n; i++) {
      stream[i] = zipf.sample();
      counts[stream[i]]++;
    }
    int distinct = 0;
    int once = 0;
    long distinctBytes = 0;
    long requestedBytes = 0;
    long onceBytes = 0;
    BitSet oneHit = new BitSet(universe + 1);
    for (int o = 1; o <= universe; o++) {
      if (counts[o] > 0) {
        distinct++;
        distinctBytes += size(o);
        requestedBytes += (long) counts[o] * size(o);
      }
      if (counts[o] == 1) {
        once++;
        onceBytes += size(o);
        oneHit.set(o);
      }
    }
    counts = null;
    double share = (double) once / distinct;
    out.note(
        "Stream: "
            + Unit.COUNT.format(n)
            + " requests, "
            + Unit.COUNT.format(distinct)
            + " distinct objects ("
            + Unit.BYTES.format(distinctBytes)
            + "), "
            + Unit.COUNT.format(once)
            + " requested once ("
            + Unit.BYTES.format(onceBytes)
            + "); "
            + Unit.BYTES.format(requestedBytes)
            + " requested in all.");
    double[] shareCi = Stats.wilson(once, distinct);
    out.checkStated(
        "objects requested once (seed 001, after Akamai: about three quarters)",
        Unit.PERCENT,
        share,
        shareCi[0],
        shareCi[1],
        0.75,
        0.125,
        "3/4");

    Table t =
        Table.of(
            "LRU cache of a share of the requested objects' bytes, without and with a 1 % filter"
                + " admitting only objects seen before",
            "cache",
            Unit.TEXT,
            "policy",
            Unit.TEXT,
            "request hit rate",
            Unit.PERCENT,
            "byte hit rate",
            Unit.PERCENT,
            "objects written",
            Unit.COUNT,
            "bytes written",
            Unit.BYTES,
            "of which one-hit wonders",
            Unit.BYTES,
            "written on a first request",
            Unit.COUNT);
    int c = CACHE_SHARES.length;
    double[] x = new double[c];
    double[][] hit = new double[2][c];
    double[][] written = new double[2][c];
    for (int i = 0; i < c; i++) {
      long capacity = Math.round(CACHE_SHARES[i] * distinctBytes);
      x[i] = 100 * CACHE_SHARES[i];
      for (int policy = 0; policy < 2; policy++) {
        Result r = simulate(stream, oneHit, capacity, policy == 1, distinct);
        hit[policy][i] = (double) r.hitBytes / requestedBytes;
        written[policy][i] = r.writtenBytes / 1e9;
        t.row(
            Unit.sig(100 * CACHE_SHARES[i]) + " % (" + Unit.BYTES.format(capacity) + ")",
            policy == 0 ? "store on every miss" : "store on second request",
            (double) r.hits / n,
            (double) r.hitBytes / requestedBytes,
            r.written,
            r.writtenBytes,
            r.oneHitBytesWritten,
            r.firstRequestWrites);
        if (policy == 1 && i == 0) {
          // The filter evolves the same at every cache size (a key is added at its first request
          // unless that request was a false positive), so one check covers them all.
          double sd = Math.sqrt(r.varianceFirstRequestWrites);
          double[] accept = Stats.normal(r.expectedFirstRequestWrites, sd);
          out.checkInterval(
              "objects stored on their first request (the filter's false positives)",
              Unit.COUNT,
              r.firstRequestWrites,
              r.expectedFirstRequestWrites,
              Math.max(0, accept[0]),
              accept[1],
              Stats.pct(Stats.CONFIDENCE)
                  + " normal interval of the sum of each first request's FPR");
        }
      }
    }
    out.table(t);
    out.chart(
        policies("cdn-writes", "CDN cache: bytes written to the cache", "GB written", x, written));
    out.chart(policies("cdn-hits", "CDN cache: byte hit rate", "byte hit rate", x, hit));
  }

  /** A chart of one measure of both policies, {@code y[policy]}, against the cache's size. */
  private static Chart policies(
      String name, String title, String yLabel, double[] x, double[][] y) {
    return Chart.xy(name, title, "cache size (% of requested objects' bytes)", yLabel)
        .logX()
        .joinPoints()
        .points("store on every miss", x, y[0], null, null)
        .points("store on second request (1 % Bloom filter)", x, y[1], null, null);
  }
}
