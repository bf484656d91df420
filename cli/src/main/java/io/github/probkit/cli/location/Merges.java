package io.github.probkit.cli.location;

import io.github.probkit.cardinality.CardinalitySketch;
import io.github.probkit.cardinality.CardinalitySketches;
import io.github.probkit.cardinality.HyperLogLog;
import io.github.probkit.cardinality.UltraLogLog;
import io.github.probkit.cli.format.Format;
import io.github.probkit.cli.output.CliException;
import io.github.probkit.filter.AgePartitionedBloomFilter;
import io.github.probkit.filter.BlockedBloomFilter;
import io.github.probkit.filter.BloomFilter;
import io.github.probkit.filter.CountingBloomFilter;
import io.github.probkit.filter.CuckooFilter;
import io.github.probkit.filter.MembershipFilter;
import io.github.probkit.filter.SplitBlockBloomFilter;
import io.github.probkit.frequency.CountMinSketch;
import io.github.probkit.frequency.WindowedCountMin;
import io.github.probkit.io.StructureType;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** The union of structures read from their locations, for the merge commands and --replace. */
public final class Merges {
  private Merges() {}

  /** The union of the filters in {@code inputs}; one that cannot be merged is refused, named. */
  public static MembershipFilter merge(List<Path> inputs) {
    MembershipFilter union = FilterFiles.load(inputs.get(0));
    if (!(union instanceof BloomFilter
        || union instanceof BlockedBloomFilter
        || union instanceof SplitBlockBloomFilter
        || union instanceof CountingBloomFilter
        || union instanceof CuckooFilter
        || union instanceof AgePartitionedBloomFilter)) {
      throw new CliException(
          Location.of(inputs.get(0))
              + ": merging "
              + union.type().label()
              + " filters is not supported (bloom, blocked, split-block, counting, cuckoo and"
              + " window filters of time merge)");
    }
    for (Path p : inputs.subList(1, inputs.size())) {
      MembershipFilter f = FilterFiles.load(p);
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
        } else if (union instanceof SplitBlockBloomFilter) {
          ((SplitBlockBloomFilter) union).merge(f);
        } else if (union instanceof CountingBloomFilter) {
          ((CountingBloomFilter) union).merge((CountingBloomFilter) f);
        } else if (union instanceof AgePartitionedBloomFilter) {
          // Windows of time only: a count window has no "last N" common to two streams.
          ((AgePartitionedBloomFilter) union).merge(f);
        } else {
          ((CuckooFilter) union).merge((CuckooFilter) f);
        }
      } catch (IllegalArgumentException | IllegalStateException e) {
        throw new CliException(Location.of(p) + ": " + e.getMessage());
      }
    }
    return union;
  }

  /** Whether a count-min merge of {@code inputs} sums windows: its first one is a window. */
  public static boolean windowed(List<Path> inputs) {
    return Location.of(inputs.get(0)).type() == StructureType.WINDOWED_COUNT_MIN;
  }

  /**
   * The sum of the windowed count-min sketches in {@code inputs}, slice by slice ({@link
   * WindowedCountMin#merge}); one of other slices or sketches, or not windowed, is refused naming
   * it.
   */
  public static WindowedCountMin sumWindowed(List<Path> inputs) {
    WindowedCountMin sum = Location.of(inputs.get(0)).read(Format.Kind.WINDOWED_COUNT_MIN);
    for (Path p : inputs.subList(1, inputs.size())) {
      Location at = Location.of(p);
      if (at.type() != StructureType.WINDOWED_COUNT_MIN) {
        throw notWindowed(at, Location.of(inputs.get(0)));
      }
      try {
        sum.merge(at.read(Format.Kind.WINDOWED_COUNT_MIN));
      } catch (IllegalArgumentException e) {
        throw new CliException(at + ": " + e.getMessage());
      }
    }
    return sum;
  }

  /** The refusal of the plain sketch at {@code at} in a merge into the window at {@code into}. */
  static CliException notWindowed(Location at, Location into) {
    return new CliException(
        at
            + ": not a windowed count-min sketch (cms create --window), so it cannot be merged"
            + " into the window of "
            + into);
  }

  /** The sum of the sketches in {@code inputs}; one that cannot be added is refused, named. */
  public static CountMinSketch sum(List<Path> inputs) {
    CountMinSketch sum = Location.of(inputs.get(0)).read(Format.Kind.COUNT_MIN);
    for (Path p : inputs.subList(1, inputs.size())) {
      try {
        sum.merge(Location.of(p).read(Format.Kind.COUNT_MIN));
      } catch (IllegalArgumentException e) {
        throw new CliException(Location.of(p) + ": " + e.getMessage());
      }
    }
    return sum;
  }

  /**
   * The union of the sketches in {@code files} at the lowest of their precisions; a single file's
   * sketch as it is. Sketches that cannot be combined are refused naming the file.
   *
   * <p>A merge ends the martingale estimate, whose error is about 20 % lower than the registers'.
   * But when the union's registers are those of one input of the same precision that still has its
   * martingale estimate (the input merged with itself, or with subsets of its keys), that input is
   * the union, and its estimate stays valid: had the other inputs' keys been added to it one by
   * one, none would have changed a register, and so none the estimate. So {@code hll count A A}
   * prints what {@code hll count A} prints.
   */
  public static CardinalitySketch union(List<Path> files) {
    List<CardinalitySketch> sketches = new ArrayList<>();
    for (Path p : files) {
      CardinalitySketch s = Location.of(p).readCardinality();
      if (!sketches.isEmpty()) {
        CardinalitySketch first = sketches.get(0);
        if (s.type() != first.type()) {
          throw new CliException(
              Location.of(p)
                  + ": cannot combine "
                  + (s.type().label().startsWith("u") ? "an " : "a ")
                  + s.type().label()
                  + " sketch with the "
                  + first.type().label()
                  + " sketch of "
                  + Location.of(files.get(0)));
        }
        if (!s.hashStrategy().equals(first.hashStrategy())) {
          throw new CliException(
              Location.of(p)
                  + ": hashed with "
                  + s.hashStrategy()
                  + ", "
                  + Location.of(files.get(0))
                  + " with "
                  + first.hashStrategy()
                  + "; such sketches cannot be combined");
        }
      }
      sketches.add(s);
    }
    if (sketches.size() == 1) {
      return sketches.get(0);
    }
    CardinalitySketch union = CardinalitySketches.union(sketches);
    for (CardinalitySketch s : sketches) {
      if (s.martingaleEstimate().isPresent()
          && s.precision() == union.precision()
          && sameRegisters(s, union)) {
        return s;
      }
    }
    return union;
  }

  private static boolean sameRegisters(CardinalitySketch a, CardinalitySketch b) {
    if (a instanceof HyperLogLog) {
      return Arrays.equals(((HyperLogLog) a).registers(), ((HyperLogLog) b).registers());
    }
    return Arrays.equals(((UltraLogLog) a).registers(), ((UltraLogLog) b).registers());
  }
}
