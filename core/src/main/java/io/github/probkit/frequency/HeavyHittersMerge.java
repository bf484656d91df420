package io.github.probkit.frequency;

import static io.github.probkit.frequency.CountMinSketch.saturatedAdd;

/**
 * Merging two Space-Saving summaries (Agarwal et al., Mergeable summaries): an item's count and
 * error are the sums of its count and error in each summary, where an item a summary does not
 * monitor counts that summary's smallest count (the most it can have occurred there) for both; the
 * {@code capacity} first in listing order are kept.
 */
final class HeavyHittersMerge {
  private HeavyHittersMerge() {}

  /** Merges {@code other}, of a capacity at least {@code into}'s, into {@code into}. */
  static void merge(HeavyHitters into, HeavyHitters other) {
    long total = saturatedAdd(into.totalCount(), other.totalCount());
    into.refill(entries(into, other), total);
  }

  /** The merged entries of {@code into} (whose item arrays they take over) and {@code other}. */
  private static Entries entries(HeavyHitters into, HeavyHitters other) {
    long minInto = into.maxError();
    long minOther = other.maxError();
    ItemTable a = into.table();
    ItemTable b = other.table();
    CountBuckets ca = into.buckets();
    CountBuckets cb = other.buckets();
    Entries e = new Entries(into.size() + other.size());
    for (int s = 0; s < into.size(); s++) {
      int o = b.find(a, s);
      e.add(
          a.item(s),
          a.length(s),
          a.orderHash(s),
          saturatedAdd(ca.count(s), o >= 0 ? cb.count(o) : minOther),
          saturatedAdd(ca.error(s), o >= 0 ? cb.error(o) : minOther));
    }
    for (int o = 0; o < other.size(); o++) {
      if (a.find(b, o) < 0) {
        e.add(
            b.copy(o),
            b.length(o),
            b.orderHash(o),
            saturatedAdd(cb.count(o), minInto),
            saturatedAdd(cb.error(o), minInto));
      }
    }
    return e;
  }
}
