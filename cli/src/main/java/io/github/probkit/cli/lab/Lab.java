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

  Lab(Scale scale, long bigKeys, Path out) {
    this.scale = scale;
    this.bigKeys = bigKeys;
    this.out = out;
  }

  int pick(int tiny, int quick, int full) {
    return scale == Scale.TINY ? tiny : scale == Scale.QUICK ? quick : full;
  }

  long pick(long tiny, long quick, long full) {
    return scale == Scale.TINY ? tiny : scale == Scale.QUICK ? quick : full;
  }
}
