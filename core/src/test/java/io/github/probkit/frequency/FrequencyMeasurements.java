package io.github.probkit.frequency;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.testing.Zipf;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The figures quoted in reports: measured count-min error against its bound and heavy-hitters
 * recall, printed as tables. Slow, so opt-in: {@code mvn -o test -pl core
 * -Dtest=FrequencyMeasurements -Dprobkit.excludedGroups=}.
 */
@Tag("slow")
class FrequencyMeasurements {
  private static final int N = 1_000_000;
  private static final int ITEMS = 100_000;

  @Test
  void countMinErrorAgainstTheBound() {
    double epsilon = 0.001;
    double delta = 0.01;
    System.out.printf(
        Locale.ROOT,
        "count-min create(%s, %s): %d x %d, %d bytes; N = %,d, %,d possible items%n",
        epsilon,
        delta,
        CountMinSketch.depthFor(delta),
        CountMinSketch.widthFor(epsilon, delta),
        CountMinSketch.create(epsilon, delta).byteSize(),
        N,
        ITEMS);
    System.out.println(
        "stream       rule          distinct  over eps*N  fraction  mean over  max over  absent over eps*N");
    for (double s : new double[] {0.0, 0.8, 1.0, 1.2}) {
      int[] stream = new Zipf(ITEMS, s, 0x6e450001L).stream(N);
      Map<Integer, Long> exact = new HashMap<>();
      for (int item : stream) {
        exact.merge(item, 1L, Long::sum);
      }
      for (boolean conservative : new boolean[] {false, true}) {
        CountMinSketch cms = CountMinSketch.create(epsilon, delta);
        if (conservative) {
          cms = cms.withConservativeUpdate();
        }
        for (int item : stream) {
          cms.add(item);
        }
        long over = 0;
        long sum = 0;
        long max = 0;
        for (Map.Entry<Integer, Long> e : exact.entrySet()) {
          long err = cms.estimate(e.getKey()) - e.getValue();
          assertThat(err).isNotNegative();
          over += err > epsilon * N ? 1 : 0;
          sum += err;
          max = Math.max(max, err);
        }
        long absentOver = 0;
        for (int i = 0; i < 100_000; i++) {
          absentOver += cms.estimate(ITEMS + i) > epsilon * N ? 1 : 0;
        }
        System.out.printf(
            Locale.ROOT,
            "zipf s=%.1f  %-12s  %8d  %10d  %8.5f  %9.1f  %8d  %d of 100000%n",
            s,
            cms.updateRule(),
            exact.size(),
            over,
            (double) over / exact.size(),
            (double) sum / exact.size(),
            max,
            absentOver);
      }
    }
  }

  @Test
  void heavyHittersRecall() {
    System.out.println("heavy hitters: N = 1,000,000 lines, 100,000 possible items");
    System.out.println("stream       capacity  top-10 recall  certain  maxError  N/m    bytes");
    for (double s : new double[] {0.8, 1.0, 1.2}) {
      int[] stream = new Zipf(ITEMS, s, 0x70910002L).stream(N);
      Map<String, Long> exact = new HashMap<>();
      for (int item : stream) {
        exact.merge("term-" + item, 1L, Long::sum);
      }
      Set<String> trueTop =
          exact.entrySet().stream()
              .sorted(Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder()))
              .limit(10)
              .map(Map.Entry::getKey)
              .collect(Collectors.toSet());
      for (int capacity : new int[] {20, 50, 100, 1000}) {
        HeavyHitters h = HeavyHitters.withCapacity(capacity);
        for (int item : stream) {
          h.add("term-" + item);
        }
        List<HeavyHitters.Entry> top = h.top(10);
        Set<String> found = new HashSet<>();
        top.forEach(e -> found.add(e.itemAsString()));
        found.retainAll(trueTop);
        long certain = top.stream().filter(HeavyHitters.Entry::isCertain).count();
        System.out.printf(
            Locale.ROOT,
            "zipf s=%.1f  %8d  %10d/10  %7d  %8d  %5d  %,d%n",
            s,
            capacity,
            found.size(),
            certain,
            h.maxError(),
            N / capacity,
            h.byteSize());
      }
    }
  }
}
