package io.github.probkit.filter;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.testing.Binomial;
import io.github.probkit.testing.Keys;
import io.github.probkit.testing.Theory;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The contract of filters that can remove keys, on top of {@link MembershipFilterContract}. */
public abstract class DeletableFilterContract extends MembershipFilterContract {

  /** An empty filter sized for {@code expectedKeys} at {@code fpp}. */
  protected abstract DeletableFilter empty(long expectedKeys, double fpp);

  @Override
  protected final MembershipFilter build(long expectedKeys, double fpp, List<byte[]> keys) {
    DeletableFilter f = empty(expectedKeys, fpp);
    for (byte[] k : keys) {
      assertThat(f.add(k)).as("add within the sized capacity").isTrue();
    }
    return f;
  }

  @Test
  void removingHalfKeepsTheOtherHalfAndForgetsTheRemoved() {
    int n = 20_000;
    double fpp = 0.01;
    DeletableFilter f = empty(n, fpp);
    List<byte[]> keys = Keys.sequential("key:", 0, n);
    keys.forEach(f::add);
    for (byte[] k : keys.subList(0, n / 2)) {
      assertThat(f.remove(k)).as("removing an added key").isTrue();
    }
    for (byte[] k : keys.subList(n / 2, n)) {
      assertThat(f.mightContain(k)).as("kept key reported absent after removals").isTrue();
    }
    int stillPresent = 0;
    for (byte[] k : keys.subList(0, n / 2)) {
      stillPresent += f.mightContain(k) ? 1 : 0;
    }
    // A removed key is now an absent key: present only as a false positive of the half-full filter,
    // at the rate predicted for n / 2 keys (two-sided: removals that leave traces raise it).
    long[] accept = Theory.accept(n / 2, predictedRate(f, n, fpp, n / 2));
    assertThat((long) stillPresent)
        .as("removed keys still reported present")
        .isBetween(accept[0], accept[1]);
  }

  @Test
  void removingEveryKeyGivesBackTheEmptyFilter() throws IOException {
    DeletableFilter f = empty(5_000, 0.01);
    byte[] emptyBytes = bytes(f);
    List<byte[]> keys = Keys.randomBytes(2_000, 0x5eed1001L);
    keys.forEach(f::add);
    keys.forEach(f::add);
    for (byte[] k : keys) {
      assertThat(f.remove(k)).isTrue();
      assertThat(f.remove(k)).isTrue();
    }
    assertThat(bytes(f)).isEqualTo(emptyBytes);
  }

  @Test
  void removingACertainlyAbsentKeyIsRefusedAndChangesNothing() throws IOException {
    DeletableFilter f = empty(2_000, 0.01);
    assertThat(f.remove("never added")).isFalse();
    Keys.randomBytes(2_000, 0x5eed1002L).forEach(f::add);
    byte[] before = bytes(f);
    int refused = 0;
    for (byte[] k : Keys.sequential("absent:", 0, 20_000)) {
      if (!f.mightContain(k)) {
        assertThat(f.remove(k)).isFalse();
        refused++;
      }
    }
    assertThat(refused).isGreaterThan(19_000);
    assertThat(bytes(f)).isEqualTo(before);
  }

  /**
   * Each of 1,000 keys offered 20 times (more copies than a cuckoo bucket pair holds, more than a
   * counter counts): addIfAbsent stores each once, except the few that were false positives when
   * they came, and removing the stored keys once each gives back the empty filter.
   */
  @Test
  void addIfAbsentStoresEachKeyOnceHoweverOftenItComes() throws IOException {
    DeletableFilter f = empty(1_000, 0.01);
    byte[] emptyBytes = bytes(f);
    List<byte[]> keys = Keys.randomBytes(1_000, 0x5eed1004L);
    List<byte[]> stored = new ArrayList<>();
    for (int round = 0; round < 20; round++) {
      for (byte[] k : keys) {
        if (f.addIfAbsent(k)) {
          assertThat(round).as("a key stored again").isZero();
          stored.add(k);
        }
      }
    }
    for (byte[] k : keys) {
      assertThat(f.mightContain(k)).isTrue();
    }
    long upper = Binomial.upper(keys.size(), promisedFpp(1_000, 0.01, 1_000), 0.999);
    assertThat((long) (keys.size() - stored.size()))
        .as("keys not stored (false positives)")
        .isLessThanOrEqualTo(upper);
    for (byte[] k : stored) {
      assertThat(f.remove(k)).isTrue();
    }
    assertThat(bytes(f)).isEqualTo(emptyBytes);
    assertThat(f.addIfAbsent("k")).isTrue();
    assertThat(f.addIfAbsent("k")).isFalse();
    assertThat(f.remove("k")).isTrue();
    assertThat(f.mightContain("k")).isFalse();
  }

  /**
   * Random adds and removes checked against an exact multiset: a key added more often than removed
   * is always reported present. Removes are only of keys the model holds, as the API requires.
   */
  @Test
  void agreesWithAnExactMultisetUnderRandomOperations() {
    SplittableRandom r = new SplittableRandom(0x5eed1003L);
    DeletableFilter f = empty(1_000, 0.01);
    Map<String, Integer> model = new HashMap<>();
    List<String> live = new ArrayList<>();
    for (int op = 0; op < 30_000; op++) {
      if (live.isEmpty() || (r.nextInt(100) < 55 && live.size() < 900)) {
        String k = "k" + r.nextInt(1_500);
        // false: the filter is unchanged (saturated counters, or a full cuckoo table), nothing
        // owed.
        if (f.add(k)) {
          if (model.merge(k, 1, Integer::sum) == 1) {
            live.add(k);
          }
        }
      } else {
        int i = r.nextInt(live.size());
        String k = live.get(i);
        assertThat(f.remove(k)).as("removing %s, added %d times", k, model.get(k)).isTrue();
        if (model.merge(k, -1, Integer::sum) == 0) {
          model.remove(k);
          live.set(i, live.get(live.size() - 1));
          live.remove(live.size() - 1);
        }
      }
      if (op % 500 == 0) {
        for (String k : live) {
          assertThat(f.mightContain(k)).as("op %d: %s held %d times", op, k, model.get(k)).isTrue();
        }
      }
    }
  }
}
