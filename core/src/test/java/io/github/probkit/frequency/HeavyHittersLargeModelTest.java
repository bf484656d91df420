package io.github.probkit.frequency;

import static io.github.probkit.frequency.HeavyHittersModelTest.describe;
import static io.github.probkit.frequency.HeavyHittersModelTest.latin1;
import static org.assertj.core.api.Assertions.assertThat;

import com.dynatrace.hash4j.hashing.Hashing;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * HeavyHitters against exact Space-Saving at capacities HeavyHittersModelTest's linear-search model
 * cannot reach: this model keeps its items in a tree in eviction order. The capacities straddle the
 * layouts that change with the number of slots: up to 2^15 slots a table entry carries the item's
 * home beside its slot number, beyond it the table reads the places; up to 2^16 slots the lowest
 * bucket is sorted with each slot's prefix packed beside it, beyond it prefixes are read again per
 * pass. The streams are skewed and mostly of weight 1, so that the lowest bucket holds hundreds to
 * thousands of items of a few errors.
 */
class HeavyHittersLargeModelTest {
  private static final Comparator<byte[]> BYTES = Arrays::compareUnsigned;

  /** An item of the model. */
  private static final class Item {
    final byte[] bytes;
    final long hash;
    long count;
    long error;

    Item(byte[] bytes, long count, long error) {
      this.bytes = bytes;
      this.hash = Hashing.xxh3_64().hashBytesToLong(bytes);
      this.count = count;
      this.error = error;
    }
  }

  /**
   * The documented eviction order: smallest count, largest error, smallest hash, smallest bytes.
   */
  private static final Comparator<Item> EVICTION =
      Comparator.<Item>comparingLong(i -> i.count)
          .thenComparing(i -> i.error, Comparator.reverseOrder())
          .thenComparing((a, b) -> Long.compareUnsigned(a.hash, b.hash))
          .thenComparing(i -> i.bytes, BYTES);

  /** Space-Saving with the monitored items in a tree in eviction order. */
  private static final class Model {
    final int capacity;
    final Map<String, Item> byKey = new HashMap<>();
    final TreeSet<Item> order = new TreeSet<>(EVICTION);

    Model(int capacity) {
      this.capacity = capacity;
    }

    void add(byte[] bytes, long w) {
      String k = latin1(bytes);
      Item i = byKey.get(k);
      if (i != null) {
        order.remove(i);
        i.count += w;
        order.add(i);
      } else if (byKey.size() < capacity) {
        i = new Item(bytes, w, 0);
        byKey.put(k, i);
        order.add(i);
      } else {
        Item v = order.pollFirst();
        byKey.remove(latin1(v.bytes));
        i = new Item(bytes, v.count + w, v.count);
        byKey.put(k, i);
        order.add(i);
      }
    }

    long maxError() {
      return byKey.size() == capacity ? order.first().count : 0;
    }

    /** Listing order: larger count, then smaller error, then smaller bytes. */
    List<String> entries() {
      return order.stream()
          .sorted(
              Comparator.<Item>comparingLong(i -> -i.count)
                  .thenComparingLong(i -> i.error)
                  .thenComparing(i -> i.bytes, BYTES))
          .map(i -> latin1(i.bytes) + "=" + i.count + "/" + i.error)
          .collect(Collectors.toList());
    }
  }

  /** Distinct real words (the system's dictionary when there is one), as UTF-8 bytes. */
  private static List<byte[]> words() throws IOException {
    Path dict = Path.of("/usr/share/dict/words");
    LinkedHashSet<String> distinct = new LinkedHashSet<>();
    if (Files.isReadable(dict)) {
      distinct.addAll(Files.readAllLines(dict, StandardCharsets.UTF_8));
    }
    for (int i = 0; distinct.size() < 100_000; i++) {
      distinct.add("word-" + i);
    }
    List<byte[]> out = new ArrayList<>(distinct.size());
    for (String w : distinct) {
      out.add(w.getBytes(StandardCharsets.UTF_8));
    }
    return out;
  }

  @ParameterizedTest
  @ValueSource(ints = {300, 20_000, 40_000, 70_000})
  void equalsExactSpaceSavingAcrossTheLayouts(int capacity) throws IOException {
    List<byte[]> words = words();
    SplittableRandom r = new SplittableRandom(0x51ed270b27b8a9c1L ^ capacity);
    HeavyHitters h = HeavyHitters.withCapacity(capacity);
    Model model = new Model(capacity);
    Map<String, Long> exact = new HashMap<>();
    int steps = 6 * capacity + 20_000;
    int universe = Math.min(words.size(), 3 * capacity);
    for (int step = 1; step <= steps; step++) {
      // Skewed: a cube of a uniform draw makes the first items frequent and most of them rare.
      double u = r.nextDouble();
      byte[] item = words.get((int) (u * u * u * universe));
      long w = r.nextInt(10) == 0 ? 1 + r.nextInt(5) : 1;
      if (r.nextBoolean()) {
        h.add(new String(item, StandardCharsets.UTF_8), w);
      } else {
        h.add(item, w);
      }
      model.add(item, w);
      exact.merge(latin1(item), w, Long::sum);
      if (step % (steps / 4) == 0) {
        String what = "capacity " + capacity + ", step " + step;
        assertThat(h.size()).as(what).isEqualTo(model.byKey.size());
        assertThat(h.maxError()).as(what).isEqualTo(model.maxError());
        assertThat(describe(h.entries())).as(what).isEqualTo(model.entries());
        for (Map.Entry<String, Long> e : exact.entrySet()) {
          byte[] b = HeavyHittersModelTest.bytes(e.getKey());
          assertThat(h.estimate(b)).as(what).isGreaterThanOrEqualTo(e.getValue());
          Item i = model.byKey.get(e.getKey());
          assertThat(h.lowerBound(b)).as(what).isEqualTo(i == null ? 0 : i.count - i.error);
        }
      }
    }
    assertThat(model.maxError()).as("items were evicted").isPositive();
  }
}
