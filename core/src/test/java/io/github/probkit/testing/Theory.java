package io.github.probkit.testing;

import org.apache.commons.math3.distribution.NormalDistribution;

/**
 * The tests' own theory: the closed forms of the papers, written here a second time so that no test
 * judges a structure by the structure's own {@code expectedFpp}, {@code falsePositiveRate} or
 * {@code relativeStandardError}. Where core has the same formula, a test compares the two.
 *
 * <p>A prediction is a {@link Rate}: the mean false-positive rate over filters built alike, and the
 * standard deviation of one filter's rate around it (its fill varies). A measured count of false
 * positives among {@code q} absent keys is judged by {@link #accept}: the binomial interval of the
 * mean rate, widened on both sides by {@link #Z} standard deviations of the filter's rate.
 */
public final class Theory {
  /** Two-sided confidence of every acceptance interval built here. */
  public static final double CONFIDENCE = 0.9999;

  /** The standard-normal quantile of {@link #CONFIDENCE}, two-sided: 3.89. */
  public static final double Z =
      new NormalDistribution(null, 0, 1).inverseCumulativeProbability(1 - (1 - CONFIDENCE) / 2);

  /**
   * HyperLogLog's asymptotic relative variance times m, 3 ln 2 - 1 (Flajolet et al.; Ertl 2017).
   */
  public static final double HLL_VARIANCE = 3 * Math.log(2) - 1;

  /**
   * The martingale (HIP) estimator's relative variance times m for HyperLogLog: ln 2 (Ting 2014).
   */
  public static final double HLL_MARTINGALE_VARIANCE = Math.log(2);

  /**
   * UltraLogLog's maximum-likelihood estimator: memory-variance product 4.631 over 8 bits (Ertl
   * 2024, table 1).
   */
  public static final double ULL_VARIANCE = 4.631 / 8;

  /**
   * UltraLogLog's martingale estimator: memory-variance product 3.466 over 8 bits (Ertl 2024, table
   * 1).
   */
  public static final double ULL_MARTINGALE_VARIANCE = 3.466 / 8;

  private static final double LN2 = Math.log(2);

  private Theory() {}

  /** A predicted false-positive rate and the standard deviation of one filter's rate around it. */
  public record Rate(double mean, double sd) {
    public static Rate exactly(double p) {
      return new Rate(p, 0);
    }
  }

  // ---- sizing, as the papers and the specification define it

  /** Bloom bits for n keys at rate p: {@code ceil(-n ln p / (ln 2)^2)} (seed 001). */
  public static long bloomBits(long n, double p) {
    return (long) Math.ceil(-n * Math.log(p) / (LN2 * LN2));
  }

  /**
   * Bloom probes: {@code m/n ln 2} rounded half to even (the specification's Python), at least 1.
   */
  public static int bloomHashes(long m, long n) {
    return (int) Math.max(1, Math.rint((double) m / n * LN2));
  }

  /**
   * Count-min width: the least w with {@code e / w <= epsilon}, found by counting up, not by ceil.
   */
  public static int countMinWidth(double epsilon) {
    int w = (int) (Math.E / epsilon) - 1;
    while (Math.E / w > epsilon) {
      w++;
    }
    return Math.max(1, w);
  }

  /** Count-min depth: the least d >= 1 with {@code e^-d <= delta}, found by counting up. */
  public static int countMinDepth(double delta) {
    int d = 1;
    while (Math.exp(-d) > delta) {
      d++;
    }
    return d;
  }

  /**
   * Cuckoo fingerprint bits: the least f >= 4 with {@code 2b / (2^f - 1) <= p} for b = 4 slots a
   * bucket.
   */
  public static int cuckooFingerprintBits(double p) {
    int f = 4;
    while (8.0 / (Math.pow(2, f) - 1) > p) {
      f++;
    }
    return f;
  }

  // ---- false-positive rates

  /**
   * A Bloom filter of m bits (or counters) holding n keys of k probes each. The fill X/m is the
   * occupancy of kn balls in m bins: mean {@code 1 - (1 - 1/m)^kn}, variance from the pair term of
   * the occupancy distribution. The rate is {@code (X/m)^k}, so its standard deviation is {@code k
   * (X/m)^(k-1)} times that of the fill.
   */
  public static Rate bloom(long m, long n, int k) {
    double[] fill = fill(m, (double) k * n);
    double mean = Math.pow(fill[0], k);
    return new Rate(mean, k * Math.pow(fill[0], k - 1) * fill[1]);
  }

  /**
   * A Bloom filter sized as the specification says for n keys at rate p, holding {@code keys} keys.
   */
  public static Rate bloomSizedFor(long n, double p, long keys) {
    long m = bloomBits(n, p);
    return bloom(m, keys, bloomHashes(m, n));
  }

  /** Mean and standard deviation of the fraction of m bins hit by t uniform throws. */
  public static double[] fill(long m, double t) {
    double empty1 = Math.exp(t * Math.log1p(-1.0 / m));
    double empty2 = Math.exp(t * Math.log1p(-2.0 / m));
    // Var(empty bins) = m e1 + m (m - 1) e2 - m^2 e1^2.
    double var = m * empty1 + (double) m * (m - 1) * empty2 - (double) m * m * empty1 * empty1;
    return new double[] {1 - empty1, Math.sqrt(Math.max(0, var)) / m};
  }

  /**
   * The count of keys estimated from the fill of a Bloom filter of m bits, n keys and k probes
   * (Swamidass and Baldi: {@code -m/k ln(1 - X/m)}): n, with the fill's standard deviation carried
   * through the estimator's slope {@code m / (k (m - X))}.
   */
  public static Rate bloomCount(long m, long n, int k) {
    double[] fill = fill(m, (double) k * n);
    return new Rate(n, fill[1] / (k * (1 - fill[0])) * m);
  }

  /**
   * A blocked Bloom filter: n keys in B blocks of {@code blockBits}, each key's k probes drawn with
   * replacement inside one uniformly chosen block. Block loads are Poisson(n/B) (Putze, Sanders,
   * Singler 2007); for each load j the exact distribution of the set bits after jk throws is
   * computed by recurrence, so {@code E[(X/blockBits)^k]} is exact, not a series expansion. The
   * returned sd is that of the mean over B blocks (the filter's rate).
   */
  public static Rate blocked(long blocks, long n, int k, int blockBits) {
    double lambda = (double) n / blocks;
    int maxJ = (int) Math.ceil(lambda + 14 * Math.sqrt(lambda) + 10);
    // dist[x] = P(x bits set) after t throws, advanced one throw at a time.
    double[] dist = new double[blockBits + 1];
    dist[0] = 1;
    long t = 0;
    double poisson = Math.exp(-lambda);
    double mean = 0;
    double second = 0;
    for (int j = 0; j <= maxJ; j++) {
      if (j > 0) {
        poisson *= lambda / j;
      }
      for (long target = (long) j * k; t < target; t++) {
        for (int x = blockBits; x >= 0; x--) {
          double stay = dist[x] * x / blockBits;
          double arrive = x > 0 ? dist[x - 1] * (blockBits - x + 1) / blockBits : 0;
          dist[x] = stay + arrive;
        }
      }
      double r1 = 0;
      double r2 = 0;
      for (int x = 1; x <= blockBits; x++) {
        double r = Math.pow((double) x / blockBits, k);
        r1 += dist[x] * r;
        r2 += dist[x] * r * r;
      }
      mean += poisson * r1;
      second += poisson * r2;
    }
    return new Rate(mean, Math.sqrt(Math.max(0, second - mean * mean) / blocks));
  }

  /**
   * Parquet's split-block filter: n keys in B blocks of eight 32-bit words, each key setting one
   * uniform bit in every word of one uniform block. Block loads are Poisson(n/B); given j keys, the
   * words are independent and a word's fill X/32 has {@code E = 1 - a}, {@code E[(X/32)^2] = (1 -
   * a) / 32 + (31/32)(1 - 2a + b)} with {@code a = (31/32)^j}, {@code b = (30/32)^j}; the block's
   * rate is the product over its words. The returned sd is that of the mean over B blocks.
   */
  public static Rate splitBlock(long blocks, long n) {
    double lambda = (double) n / blocks;
    int maxJ = (int) Math.ceil(lambda + 14 * Math.sqrt(lambda) + 10);
    double poisson = Math.exp(-lambda);
    double mean = 0;
    double second = 0;
    for (int j = 0; j <= maxJ; j++) {
      if (j > 0) {
        poisson *= lambda / j;
      }
      double a = Math.pow(31.0 / 32, j);
      double b = Math.pow(30.0 / 32, j);
      mean += poisson * Math.pow(1 - a, 8);
      second += poisson * Math.pow((1 - a) / 32 + 31.0 / 32 * (1 - 2 * a + b), 8);
    }
    return new Rate(mean, Math.sqrt(Math.max(0, second - mean * mean) / blocks));
  }

  /**
   * A cuckoo filter at load a with f-bit fingerprints in [1, 2^f - 1]: an absent key compares its
   * fingerprint with the 8a occupied slots its two buckets hold on average, each matching with
   * probability {@code 1 / (2^f - 1)} (Fan et al. 2014, section 4).
   */
  public static Rate cuckoo(int f, double load) {
    return Rate.exactly(-Math.expm1(8 * load * Math.log1p(-1 / (Math.pow(2, f) - 1))));
  }

  /** Several filters answering as one (a key is present when any has it): 1 - prod(1 - p_i). */
  public static Rate anyOf(Rate... layers) {
    double none = 1;
    double var = 0;
    for (Rate r : layers) {
      none *= 1 - r.mean();
      var += r.sd() * r.sd();
    }
    return new Rate(1 - none, Math.sqrt(var));
  }

  // ---- acceptance

  /**
   * The counts of false positives among {@code queries} absent keys that are accepted for a filter
   * of predicted rate {@code r}: the central {@link #CONFIDENCE} binomial interval of the mean
   * rate, widened by {@link #Z} standard deviations of the filter's own rate on each side.
   */
  public static long[] accept(int queries, Rate r) {
    long[] b = Binomial.interval(queries, r.mean(), CONFIDENCE);
    double spread = Z * r.sd() * queries;
    return new long[] {(long) Math.floor(b[0] - spread), (long) Math.ceil(b[1] + spread)};
  }
}
