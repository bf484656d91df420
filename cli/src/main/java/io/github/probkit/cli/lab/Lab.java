package io.github.probkit.cli.lab;

import java.nio.file.Path;

/** The settings of one lab run, shared by its experiments. */
final class Lab {
  /** How big the experiments are: TINY for the unit tests, QUICK for --quick, FULL otherwise. */
  enum Scale {
    TINY,
    QUICK,
    FULL
  }

  final Scale scale;

  /** Keys of the --big crawler filter, 0 when not asked for. */
  final long bigKeys;

  /** Where charts and the report go. */
  final Path out;

  /**
   * --seed: 0, the default, is the published run; any other value moves every key range and reseeds
   * every random source, so that a verdict can be checked on other data.
   */
  final long seed;

  Lab(Scale scale, long bigKeys, Path out, long seed) {
    this.seed = seed;
    this.scale = scale;
    this.bigKeys = bigKeys;
    this.out = out;
  }

  <T> T pick(T tiny, T quick, T full) {
    return scale == Scale.TINY ? tiny : scale == Scale.QUICK ? quick : full;
  }

  /** An experiment's size at each scale, declared once beside its constants. */
  record Scaled<T>(T tiny, T quick, T full) {
    T in(Lab lab) {
      return lab.pick(tiny, quick, full);
    }
  }

  /**
   * Key {@code i} of this run: {@code i} itself for seed 0, else moved by an offset below 2^61, far
   * enough from 0 and below overflow for every range the experiments use (absent keys start at
   * {@link Measure#ABSENT}).
   */
  long key(long i) {
    return seed == 0 ? i : i + (mix(seed) >>> 3);
  }

  /** A random source's seed: {@code constant} for seed 0, else mixed with the run's seed. */
  long random(long constant) {
    return seed == 0 ? constant : constant ^ mix(seed);
  }

  /** SplitMix64's finalizer. */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }
}
