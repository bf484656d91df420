package io.github.probkit.internal;

import io.github.probkit.cardinality.CardinalitySketch;
import io.github.probkit.filter.MembershipFilter;
import io.github.probkit.frequency.FrequencySketch;
import java.util.Locale;

/**
 * Why two structures cannot be combined, found in one place for both {@code merge} (which throws an
 * IllegalArgumentException with the reason) and {@code isCompatible} (which asks whether there is
 * none). Not public API.
 *
 * <pre>
 *   Compatibility.of("merge", this, other, BloomFilter.class)
 *       .require(m == o.m, "filters of different sizes: %d bits and %d bits", m, o.m)
 *       ...
 * </pre>
 */
public final class Compatibility {
  private final String op;
  private String problem;

  private Compatibility(String op) {
    this.op = op;
  }

  /**
   * Starts the checks of {@code op} (such as "merge") of {@code other} into {@code self}: {@code
   * other} must be a non-null {@code type} other than {@code self}.
   */
  public static Compatibility of(String op, Object self, Object other, Class<?> type) {
    Compatibility c = ofSelfAllowed(op, self, other, type);
    if (c.problem == null && other == self) {
      c.problem = "cannot " + op + " a " + describe(self) + " with itself";
    }
    return c;
  }

  /** As {@link #of}, but {@code other} may be {@code self}. */
  public static Compatibility ofSelfAllowed(String op, Object self, Object other, Class<?> type) {
    Compatibility c = new Compatibility(op);
    if (other == null) {
      c.problem = "cannot " + op + " with null";
    } else if (!type.isInstance(other)) {
      c.problem = "cannot " + op + " a " + describe(other) + " into a " + describe(self);
    }
    return c;
  }

  /** "bloom filter", "hyperloglog sketch", "count-min sketch", or the class name. */
  static String describe(Object o) {
    if (o instanceof MembershipFilter) {
      return ((MembershipFilter) o).type().label() + " filter";
    }
    if (o instanceof CardinalitySketch) {
      return ((CardinalitySketch) o).type().label() + " sketch";
    }
    if (o instanceof FrequencySketch) {
      return ((FrequencySketch) o).type().label() + " sketch";
    }
    return o.getClass().getSimpleName();
  }

  /**
   * Records, unless a problem is already known, that {@code ok} fails: "cannot OP " + the formatted
   * text.
   */
  public Compatibility require(boolean ok, String format, Object... args) {
    if (problem == null && !ok) {
      problem = "cannot " + op + " " + String.format(Locale.ROOT, format, args);
    }
    return this;
  }

  /** Whether every check passed. */
  public boolean ok() {
    return problem == null;
  }

  /** Throws an IllegalArgumentException naming the first check that failed. */
  public void orThrow() {
    if (problem != null) {
      throw new IllegalArgumentException(problem);
    }
  }
}
