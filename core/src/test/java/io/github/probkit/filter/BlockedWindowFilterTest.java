package io.github.probkit.filter;

/**
 * The window filter's contract (no false negative inside the window by count, by time, with late
 * events and racing threads; the rate within the binomial bound of p; the slack) run on the blocked
 * layout.
 */
class BlockedWindowFilterTest extends AgePartitionedBloomFilterTest {
  @Override
  AgePartitionedBloomFilter.Layout layout() {
    return AgePartitionedBloomFilter.Layout.BLOCKED;
  }
}
