package io.github.probkit.filter;

/**
 * A filter that can take in the keys of another filter of the same type, shape and hashing, as if
 * they had been added to it: Bloom, blocked Bloom, counting Bloom and cuckoo filters. (A scalable
 * filter does not merge: the union of two filters' layers would not keep its rate below the target;
 * a binary fuse filter is static.)
 */
public interface MergeableFilter extends MutableFilter {

  /** Whether {@link #merge} would accept {@code other}: the same type, shape and hashing. */
  boolean isCompatible(MembershipFilter other);

  /**
   * Adds the keys of {@code other} to this filter. Throws IllegalArgumentException, naming the
   * difference, when {@code other} is not {@link #isCompatible compatible}.
   */
  MergeableFilter merge(MembershipFilter other);

  @Override
  MergeableFilter copy();
}
