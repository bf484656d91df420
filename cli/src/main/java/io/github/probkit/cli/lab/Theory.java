package io.github.probkit.cli.lab;

/**
 * What the lab judges against: the papers' closed forms and the specification's sizing, written
 * here rather than taken from core ({@code falsePositiveRate}, {@code expectedFpp}, {@code
 * relativeStandardError}, {@code epsilon()}, {@code delta()}), so that a wrong formula in core
 * shows as a FAIL instead of moving the yardstick with it. Sizes are derived from what was
 * requested (n and p, epsilon and delta), not read back from the structure under test.
 */
final class Theory {
  /**
   * HyperLogLog's estimate: relative standard error times sqrt(m), sqrt(3 ln 2 - 1) = 1.039
   * (Flajolet et al.).
   */
  static final double HLL_RSE = Math.sqrt(3 * Math.log(2) - 1);

  /**
   * UltraLogLog's maximum-likelihood estimate: memory-variance product 4.631 over 8-bit registers
   * (Ertl 2024).
   */
  static final double ULL_RSE = Math.sqrt(4.631 / 8);

  private static final double LN2 = Math.log(2);

  private Theory() {}

  /** Standard Bloom bits for n keys at rate p: {@code ceil(-n ln p / (ln 2)^2)} (seed 001). */
  static long bloomBits(long n, double p) {
    return (long) Math.ceil(-n * Math.log(p) / (LN2 * LN2));
  }

  /** Bloom probes: {@code m/n ln 2} to the nearest integer, at least 1. */
  static int bloomHashes(long m, long n) {
    return (int) Math.max(1, Math.rint((double) m / n * LN2));
  }

  /** The Bloom rate {@code (1 - (1 - 1/m)^(kn))^k}. */
  static double bloomRate(long m, long n, int k) {
    return Math.pow(-Math.expm1((double) k * n * Math.log1p(-1.0 / m)), k);
  }

  /**
   * The keys offered to a Bloom layer that stores only keys it does not already report present,
   * when it stores {@code stored} of them: a key that is a false positive when it arrives sets no
   * bit, so every stored key sets at least one, and the layer fills as if it had taken more keys
   * than it counts. With {@code f(n)} the rate after n offered keys, each offered key is stored
   * with probability {@code 1 - f(n)}, so stored(n) = n - integral from 0 to n of f(s) ds; this
   * solves stored(n) = {@code stored} for n (Simpson's rule and bisection: stored(n) is
   * increasing).
   */
  static double offeredKeys(long m, long stored, int k) {
    double lo = stored;
    double hi = 2.0 * stored + 1;
    while (storedAfter(m, hi, k) < stored) {
      hi *= 2;
    }
    for (int i = 0; i < 100 && hi - lo > 1e-9 * hi; i++) {
      double mid = (lo + hi) / 2;
      if (storedAfter(m, mid, k) < stored) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return (lo + hi) / 2;
  }

  private static double storedAfter(long m, double offered, int k) {
    int steps = 2_000;
    double h = offered / steps;
    double sum = 0;
    for (int i = 0; i <= steps; i++) {
      double f = Math.pow(-Math.expm1(k * i * h * Math.log1p(-1.0 / m)), k);
      sum += f * (i == 0 || i == steps ? 1 : i % 2 == 1 ? 4 : 2);
    }
    return offered - sum * h / 3;
  }

  /** {@link #bloomRate} of a layer that stored {@code stored} keys as {@link #offeredKeys} says. */
  static double storedOnlyRate(long m, long stored, int k) {
    return Math.pow(-Math.expm1(k * offeredKeys(m, stored, k) * Math.log1p(-1.0 / m)), k);
  }

  /** Count-min width for epsilon: the least w with {@code e / w <= epsilon}. */
  static int countMinWidth(double epsilon) {
    return (int) Math.ceil(Math.E / epsilon);
  }

  /** Count-min depth for delta: the least d with {@code e^-d <= delta}, counted up. */
  static int countMinDepth(double delta) {
    int d = 1;
    while (Math.exp(-d) > delta) {
      d++;
    }
    return d;
  }

  /** Cuckoo fingerprint bits for rate p: the least f >= 4 with {@code 8 / (2^f - 1) <= p}. */
  static int cuckooFingerprintBits(double p) {
    int f = 4;
    while (8 / (Math.pow(2, f) - 1) > p) {
      f++;
    }
    return f;
  }

  /**
   * The cuckoo rate at load a: 8a occupied slots on average in an absent key's two buckets, each
   * matching its f-bit fingerprint (never 0) with probability {@code 1 / (2^f - 1)}.
   */
  static double cuckooRate(int f, double load) {
    return -Math.expm1(8 * load * Math.log1p(-1 / (Math.pow(2, f) - 1)));
  }

  /**
   * A blocked Bloom filter of B blocks of 512 bits, n keys and k probes per key drawn with
   * replacement inside one uniform block: {mean rate, standard deviation of one filter's rate}.
   * Loads are Poisson(n/B); for each load j the distribution of set bits after jk throws is
   * computed exactly, one throw at a time, so E[(X/512)^k] is exact.
   */
  static double[] blocked(long blocks, long n, int k) {
    int bits = 512;
    double lambda = (double) n / blocks;
    int maxJ = (int) Math.ceil(lambda + 14 * Math.sqrt(lambda) + 10);
    double[] dist = new double[bits + 1];
    dist[0] = 1;
    long thrown = 0;
    double poisson = Math.exp(-lambda);
    double mean = 0;
    double square = 0;
    for (int j = 0; j <= maxJ; j++) {
      if (j > 0) {
        poisson *= lambda / j;
      }
      for (long target = (long) j * k; thrown < target; thrown++) {
        for (int x = bits; x >= 0; x--) {
          dist[x] = dist[x] * x / bits + (x > 0 ? dist[x - 1] * (bits - x + 1) / bits : 0);
        }
      }
      for (int x = 1; x <= bits; x++) {
        double r = Math.pow((double) x / bits, k);
        mean += poisson * dist[x] * r;
        square += poisson * dist[x] * r * r;
      }
    }
    return new double[] {mean, Math.sqrt(Math.max(0, square - mean * mean) / blocks)};
  }
}
