package io.github.probkit.frequency;

import static io.github.probkit.frequency.CountMinSketch.saturatedAdd;
import static org.assertj.core.api.Assertions.assertThat;

import com.dynatrace.hash4j.hashing.Hashing;
import io.github.probkit.hash.KeyEncoder;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Random operations on a summary and on two models: Space-Saving done the slow, obvious way, which
 * the summary must equal entry for entry (so the eviction order documented in HeavyHitters is the
 * one implemented), and exact counts, which every bound must bracket.
 */
class HeavyHittersModelTest {
  private static final Comparator<byte[]> BYTES = Arrays::compareUnsigned;

  /** Space-Saving with a map and a linear search for the item to replace. */
  static final class Model {
    final int capacity;
    long total;

    /** Item (ISO-8859-1, one char per byte) to {count, error, XXH3 of its bytes}. */
    final Map<String, long[]> counts = new HashMap<>();

    Model(int capacity) {
      this.capacity = capacity;
    }

    void add(byte[] item, long w) {
      if (w == 0) {
        return;
      }
      total = saturatedAdd(total, w);
      String k = latin1(item);
      long[] e = counts.get(k);
      if (e != null) {
        e[0] = saturatedAdd(e[0], w);
      } else if (counts.size() < capacity) {
        counts.put(k, entry(k, w, 0));
      } else {
        // The documented order: smallest count, then largest error, then smallest XXH3 (seed 0,
        // unsigned), then smallest bytes (unsigned).
        String victim = null;
        long[] v = null;
        for (Map.Entry<String, long[]> c : counts.entrySet()) {
          long[] x = c.getValue();
          if (v == null
              || x[0] < v[0]
              || x[0] == v[0]
                  && (x[1] > v[1]
                      || x[1] == v[1]
                          && (Long.compareUnsigned(x[2], v[2]) < 0
                              || x[2] == v[2]
                                  && BYTES.compare(bytes(c.getKey()), bytes(victim)) < 0))) {
            victim = c.getKey();
            v = x;
          }
        }
        counts.remove(victim);
        counts.put(k, entry(k, saturatedAdd(v[0], w), v[0]));
      }
    }

    long maxError() {
      return counts.size() == capacity
          ? counts.values().stream().mapToLong(e -> e[0]).min().orElse(0)
          : 0;
    }

    /** The mergeable-summaries merge, as HeavyHitters#merge documents it. */
    void merge(Model other) {
      long minThis = maxError();
      long minOther = other.maxError();
      Map<String, long[]> merged = new HashMap<>();
      counts.forEach(
          (k, e) -> {
            long[] o = other.counts.get(k);
            merged.put(
                k,
                entry(
                    k,
                    saturatedAdd(e[0], o != null ? o[0] : minOther),
                    saturatedAdd(e[1], o != null ? o[1] : minOther)));
          });
      other.counts.forEach(
          (k, o) ->
              merged.computeIfAbsent(
                  k, x -> entry(x, saturatedAdd(o[0], minThis), saturatedAdd(o[1], minThis))));
      total = saturatedAdd(total, other.total);
      counts.clear();
      listing(merged).stream().limit(capacity).forEach(k -> counts.put(k, merged.get(k)));
    }

    Model copy() {
      Model m = new Model(capacity);
      m.total = total;
      counts.forEach((k, e) -> m.counts.put(k, e.clone()));
      return m;
    }

    /** "item=count/error" in listing order. */
    List<String> entries() {
      return listing(counts).stream()
          .map(k -> k + "=" + counts.get(k)[0] + "/" + counts.get(k)[1])
          .collect(Collectors.toList());
    }

    /** Whether each of the top k is certain: its lower bound above every count outside the list. */
    List<Boolean> certain(int k) {
      List<String> order = listing(counts);
      long outside = k < order.size() ? counts.get(order.get(k))[0] : maxError();
      return order.stream()
          .limit(k)
          .map(x -> counts.get(x)[0] - counts.get(x)[1] > outside)
          .collect(Collectors.toList());
    }

    private static List<String> listing(Map<String, long[]> m) {
      return m.keySet().stream()
          .sorted(
              Comparator.<String>comparingLong(x -> -m.get(x)[0])
                  .thenComparingLong(x -> m.get(x)[1])
                  .thenComparing(x -> bytes(x), BYTES))
          .collect(Collectors.toList());
    }
  }

  static String latin1(byte[] b) {
    return new String(b, StandardCharsets.ISO_8859_1);
  }

  static byte[] bytes(String latin1) {
    return latin1.getBytes(StandardCharsets.ISO_8859_1);
  }

  private static long[] entry(String latin1, long count, long error) {
    return new long[] {count, error, Hashing.xxh3_64().hashBytesToLong(bytes(latin1))};
  }

  /** Entries as the model describes them. */
  static List<String> describe(List<HeavyHitters.Entry> entries) {
    return entries.stream()
        .map(e -> latin1(e.item()) + "=" + e.count() + "/" + e.error())
        .collect(Collectors.toList());
  }

  /** An item and the one way, of five, it is given to the summary. */
  private static final class Op {
    final byte[] bytes;
    final int form;

    /** Item k of the universe; when {@code colliding}, all items share one XXH3 hash. */
    Op(SplittableRandom r, int universe, boolean colliding) {
      int k = (int) Math.min(universe - 1, Math.abs(r.nextGaussian()) * universe / 5);
      if (r.nextInt(5) == 0) {
        k = r.nextInt(universe);
      }
      form = colliding ? 0 : r.nextInt(5);
      switch (colliding ? -1 : form) {
        case -1:
          bytes = HeavyHittersFloodTest.xxh3Collision(k, k * 0x9e3779b97f4a7c15L);
          break;
        case 0:
        case 1:
          bytes = ("item-" + k).getBytes(StandardCharsets.UTF_8);
          break;
        case 2:
          bytes = ("ítem→" + k).getBytes(StandardCharsets.UTF_8);
          break;
        case 3:
          bytes =
              ByteBuffer.allocate(8)
                  .order(ByteOrder.LITTLE_ENDIAN)
                  .putLong(0, k * 0x9e3779b97f4a7c15L)
                  .array();
          break;
        default:
          bytes = ByteBuffer.allocate(12).putInt(k).putLong(~k).array();
      }
    }

    void addTo(HeavyHitters h, long w) {
      switch (form) {
        case 0:
          byte[] padded = new byte[bytes.length + 6];
          System.arraycopy(bytes, 0, padded, 3, bytes.length);
          h.add(padded, 3, bytes.length, w);
          break;
        case 1:
        case 2:
          h.add(new String(bytes, StandardCharsets.UTF_8), w);
          break;
        case 3:
          h.add(ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getLong(), w);
          break;
        default:
          h.add(bytes, INT_LONG, w);
      }
    }

    long estimate(HeavyHitters h) {
      switch (form) {
        case 1:
        case 2:
          return h.estimate(new String(bytes, StandardCharsets.UTF_8));
        case 3:
          return h.estimate(ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getLong());
        case 4:
          return h.estimate(bytes, INT_LONG);
        default:
          return h.estimate(bytes);
      }
    }

    long lowerBound(HeavyHitters h) {
      switch (form) {
        case 1:
        case 2:
          return h.lowerBound(new String(bytes, StandardCharsets.UTF_8));
        case 3:
          return h.lowerBound(ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getLong());
        case 4:
          return h.lowerBound(bytes, INT_LONG);
        default:
          return h.lowerBound(bytes, 0, bytes.length);
      }
    }
  }

  /** Writes the 12 bytes as themselves, through the sink's int and long methods. */
  private static final KeyEncoder<byte[]> INT_LONG =
      (b, sink) -> {
        ByteBuffer in = ByteBuffer.wrap(b);
        sink.putInt(Integer.reverseBytes(in.getInt())).putLong(Long.reverseBytes(in.getLong()));
      };

  private static long weight(SplittableRandom r, int mode) {
    switch (mode) {
      case 0:
        return 1;
      case 1:
        return r.nextInt(4);
      case 2:
        // Counts far apart: weighted adds cross many buckets (the treap's work).
        return r.nextInt(8) == 0 ? 1 + r.nextLong(1L << 40) : 1 + r.nextInt(3);
      default:
        return r.nextInt(40) == 0 ? Long.MAX_VALUE / (1 + r.nextInt(4)) : 1 + r.nextInt(3);
    }
  }

  @Test
  void equalsTheModelUnderRandomOperations() throws IOException {
    SplittableRandom r = new SplittableRandom(0x6d0de1a5L);
    for (int seq = 0; seq < 100; seq++) {
      int capacity = seq % 15 == 0 || seq % 7 == 3 ? 200 + r.nextInt(400) : 1 + r.nextInt(60);
      int universe = 1 + r.nextInt(seq % 3 == 0 ? 50_000 : 400);
      int mode = r.nextInt(4);
      // Some streams of items with one XXH3 hash: ties in the eviction order go to the bytes.
      boolean colliding = seq % 7 == 3;
      HeavyHitters h = HeavyHitters.withCapacity(capacity);
      Model model = new Model(capacity);
      Map<String, Long> exact = new HashMap<>();
      String what =
          "sequence "
              + seq
              + ", capacity "
              + capacity
              + ", weights "
              + mode
              + (colliding ? ", colliding items" : "");
      // The model's linear search for the item to evict: fewer steps at large capacities.
      int steps = capacity > 100 ? 5000 : 3000 + r.nextInt(15_000);
      for (int step = 0; step < steps; step++) {
        Op op = new Op(r, universe, colliding);
        long w = weight(r, mode);
        op.addTo(h, w);
        model.add(op.bytes, w);
        exact.merge(latin1(op.bytes), w, CountMinSketch::saturatedAdd);
        switch (r.nextInt(2000)) {
          case 0:
            // Merge a summary of another part of the stream; its capacity must be at least ours.
            int otherCapacity = capacity + r.nextInt(30);
            HeavyHitters other = HeavyHitters.withCapacity(otherCapacity);
            Model otherModel = new Model(otherCapacity);
            for (int i = 0, n = r.nextInt(4000); i < n; i++) {
              Op o = new Op(r, universe, colliding);
              long ow = weight(r, mode);
              o.addTo(other, ow);
              otherModel.add(o.bytes, ow);
              exact.merge(latin1(o.bytes), ow, CountMinSketch::saturatedAdd);
            }
            List<HeavyHitters.Entry> before = other.entries();
            h.merge(other);
            model.merge(otherModel);
            assertThat(other.entries()).as("the merged-in summary is unchanged").isEqualTo(before);
            break;
          case 1:
            h.merge(h);
            model.merge(model.copy());
            exact.replaceAll((k, v) -> saturatedAdd(v, v));
            break;
          case 2:
            h = HeavyHittersTest.read(HeavyHittersTest.bytes(h));
            break;
          case 3:
            HeavyHitters copy = h.copy();
            h.add("only in the original");
            assertThat(copy.estimate("only in the original")).isEqualTo(copy.maxError());
            h = copy;
            break;
          default:
        }
        if (step % 1500 == 0 || step == steps - 1) {
          check(h, model, op, what + ", step " + step, r);
          if (mode != 3) {
            checkBounds(h, exact, what + ", step " + step);
          }
        }
      }
    }
  }

  private static void check(
      HeavyHitters h, Model model, Op probe, String what, SplittableRandom r) {
    assertThat(describe(h.entries())).as(what).isEqualTo(model.entries());
    assertThat(h.totalCount()).as(what).isEqualTo(model.total);
    assertThat(h.maxError()).as(what).isEqualTo(model.maxError());
    assertThat(h.size()).isEqualTo(model.counts.size());
    long[] e = model.counts.get(latin1(probe.bytes));
    assertThat(probe.estimate(h)).as(what).isEqualTo(e != null ? e[0] : model.maxError());
    assertThat(probe.lowerBound(h)).as(what).isEqualTo(e != null ? e[0] - e[1] : 0);
    int k = 1 + r.nextInt(model.capacity + 3);
    List<HeavyHitters.Entry> top = h.top(k);
    assertThat(describe(top))
        .isEqualTo(model.entries().subList(0, Math.min(k, model.counts.size())));
    assertThat(top.stream().map(HeavyHitters.Entry::isCertain).collect(Collectors.toList()))
        .as(what + ", top " + k)
        .isEqualTo(model.certain(k));
  }

  /** Space-Saving's guarantees against the true counts. */
  private static void checkBounds(HeavyHitters h, Map<String, Long> exact, String what) {
    long n = exact.values().stream().reduce(0L, CountMinSketch::saturatedAdd);
    if (n == Long.MAX_VALUE) {
      return; // saturated: the counts are bounds of nothing
    }
    assertThat(h.totalCount()).isEqualTo(n);
    assertThat((double) h.maxError() * h.capacity()).as(what).isLessThanOrEqualTo(n);
    Map<String, HeavyHitters.Entry> monitored = new HashMap<>();
    for (HeavyHitters.Entry e : h.entries()) {
      monitored.put(latin1(e.item()), e);
      long truth = exact.getOrDefault(latin1(e.item()), 0L);
      assertThat(truth).as("%s: %s", what, e).isBetween(e.lowerBound(), e.count());
      assertThat(e.error()).isBetween(0L, h.maxError());
    }
    List<String> guaranteed = new ArrayList<>();
    exact.forEach(
        (item, truth) -> {
          if (monitored.containsKey(item)) {
            return;
          }
          assertThat(truth).as("%s: unmonitored %s", what, item).isLessThanOrEqualTo(h.maxError());
          if ((double) truth * h.capacity() > n) {
            guaranteed.add(item);
          }
        });
    assertThat(guaranteed).as("%s: items above N/m that are not monitored", what).isEmpty();
  }
}
