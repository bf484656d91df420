package io.github.probkit.frequency;

/** Sorting of int indices by an order on what they index, without boxing or allocating. */
final class IndexSort {
  /** A strict order on indices. */
  interface Order {
    boolean before(int a, int b);
  }

  private IndexSort() {}

  /** Sorts {@code a[from, to)} in {@code order}. */
  static void sort(int[] a, int from, int to, Order order) {
    if (to - from > 8) {
      selectFirst(a, from, to, to - from, order);
      return;
    }
    for (int i = from + 1; i < to; i++) {
      int x = a[i];
      int j = i;
      for (; j > from && order.before(x, a[j - 1]); j--) {
        a[j] = a[j - 1];
      }
      a[j] = x;
    }
  }

  /**
   * Moves the {@code k} first of {@code a[from, to)} in {@code order} to {@code a[from, from + k)},
   * sorted; the rest of the range is left in no particular order. O(n log k).
   */
  static void selectFirst(int[] a, int from, int to, int k, Order order) {
    if (k <= 0) {
      return;
    }
    // A heap of the k first seen, the last of them in order at the root; anything before the root
    // replaces it. Then the heap is sorted in place.
    for (int i = (k >>> 1) - 1; i >= 0; i--) {
      siftDown(a, from, i, k, order);
    }
    for (int i = from + k; i < to; i++) {
      if (order.before(a[i], a[from])) {
        int t = a[from];
        a[from] = a[i];
        a[i] = t;
        siftDown(a, from, 0, k, order);
      }
    }
    for (int end = k - 1; end > 0; end--) {
      int t = a[from];
      a[from] = a[from + end];
      a[from + end] = t;
      siftDown(a, from, 0, end, order);
    }
  }

  /** Restores the heap (root last in order) of the n elements from {@code a[from]} below node i. */
  private static void siftDown(int[] a, int from, int i, int n, Order order) {
    int x = a[from + i];
    for (int child = 2 * i + 1; child < n; child = 2 * i + 1) {
      if (child + 1 < n && order.before(a[from + child], a[from + child + 1])) {
        child++;
      }
      if (!order.before(x, a[from + child])) {
        break;
      }
      a[from + i] = a[from + child];
      i = child;
    }
    a[from + i] = x;
  }
}
