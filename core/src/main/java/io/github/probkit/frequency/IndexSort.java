package io.github.probkit.frequency;

import java.util.Arrays;

/** Sorting of int indices by an order on what they index, without boxing. */
final class IndexSort {
  /** A strict order on indices. */
  interface Order {
    boolean before(int a, int b);
  }

  private IndexSort() {}

  /**
   * Moves the {@code k} first of {@code a[0, n)} in {@code order} to {@code a[0, k)}, sorted; the
   * rest of the range is left in no particular order. O(n log k).
   */
  static void selectFirst(int[] a, int n, int k, Order order) {
    if (k <= 0) {
      return;
    }
    // A heap of the k first seen, the last of them in order at the root; anything before the root
    // replaces it. Then the heap is sorted in place.
    for (int i = (k >>> 1) - 1; i >= 0; i--) {
      siftDown(a, i, k, order);
    }
    for (int i = k; i < n; i++) {
      if (order.before(a[i], a[0])) {
        int t = a[0];
        a[0] = a[i];
        a[i] = t;
        siftDown(a, 0, k, order);
      }
    }
    for (int end = k - 1; end > 0; end--) {
      int t = a[0];
      a[0] = a[end];
      a[end] = t;
      siftDown(a, 0, end, order);
    }
  }

  /** Sorts {@code a[from, to)} in {@code order}. */
  static void sort(int[] a, int from, int to, Order order) {
    if (to - from <= 8) {
      for (int i = from + 1; i < to; i++) {
        int x = a[i];
        int j = i;
        for (; j > from && order.before(x, a[j - 1]); j--) {
          a[j] = a[j - 1];
        }
        a[j] = x;
      }
      return;
    }
    int[] run = Arrays.copyOfRange(a, from, to);
    selectFirst(run, run.length, run.length, order);
    System.arraycopy(run, 0, a, from, run.length);
  }

  /** Restores the heap (root last in order) of {@code a[0, n)} below position {@code i}. */
  private static void siftDown(int[] a, int i, int n, Order order) {
    int x = a[i];
    for (int child = 2 * i + 1; child < n; child = 2 * i + 1) {
      if (child + 1 < n && order.before(a[child], a[child + 1])) {
        child++;
      }
      if (!order.before(x, a[child])) {
        break;
      }
      a[i] = a[child];
      i = child;
    }
    a[i] = x;
  }
}
