package io.github.probkit.filter;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.hash.HashStrategy;
import io.github.probkit.io.SketchWriter;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Supplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The promise of a filter that removes keys, as a property: over any interleaving of adds, removes
 * of added keys and queries, a key added more often than removed is never reported absent. For each
 * deletable type and each hash strategy it takes: XXH3 with the default and another seed, and
 * FNV-1a, which it refuses when created but reads from older files. (Neither type has the
 * concurrent write mode of the Bloom filters.)
 *
 * <p>The filters are tiny, so that keys collide often: a counting filter of 256 counters holding up
 * to 100 keys answers 30 % of absent keys present and saturates counters; a cuckoo table of 256
 * 6-bit slots, at most 100 of them used, about 5 %. The property fails within a few samples when
 * adds are made only for absent keys: for the counting filter with {@link
 * DeletableFilter#addIfAbsent} in place of add, for both with the command line's old rule ({@code
 * addIfAbsent(k) || mightContain(k)}: a key present already counts as added). (A cuckoo filter's
 * refusal and addIfAbsent's "present already" are one {@code false}, which a model that takes
 * refusals into account cannot tell apart.)
 *
 * <p>Sequences are drawn from a fixed seed; a failing one is shrunk (ops dropped while it still
 * fails) and reported whole, so that it can be replayed by hand.
 */
class DeletePromiseProperties {
  /** Keys in use at most, and copies of one key (a cuckoo filter holds 8). */
  private static final int MAX_LIVE = 100;

  private static final int MAX_COPIES = 7;

  enum Kind {
    COUNTING(() -> CountingBloomFilter.withCounters(256, 3)),
    COUNTING_SEEDED(() -> CountingBloomFilter.withCounters(256, 3, HashStrategy.xxh3(0x5eed7a1eL))),
    COUNTING_FNV1A(() -> rehashed(CountingBloomFilter.withCounters(256, 3), HashStrategy.fnv1a())),
    CUCKOO(() -> CuckooFilter.withBuckets(64, 6)),
    CUCKOO_SEEDED(() -> CuckooFilter.withBuckets(64, 6, HashStrategy.xxh3(0x5eed7a1eL))),
    CUCKOO_FNV1A(() -> rehashed(CuckooFilter.withBuckets(64, 6), HashStrategy.fnv1a()));

    final Supplier<DeletableFilter> empty;

    Kind(Supplier<DeletableFilter> empty) {
      this.empty = empty;
    }
  }

  /** Random sequences per kind, each of up to 400 ops. */
  private static final int TRIES = 100;

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aKeyAddedMoreOftenThanRemovedIsNeverAbsent(Kind kind) {
    SplittableRandom random = new SplittableRandom(0x6470_7e7e_5eedL + kind.ordinal());
    for (int t = 0; t < TRIES; t++) {
      int[] ops = random.ints(random.nextInt(401), 0, 1000).toArray();
      if (violation(kind, ops) != null) {
        int[] small = shrink(kind, ops);
        throw new AssertionError(
            kind
                + ", try "
                + t
                + ": "
                + violation(kind, small)
                + "; shrunk from "
                + ops.length
                + " to the ops "
                + Arrays.toString(small));
      }
    }
  }

  /** Drops ops, halves first, then one at a time, as long as the sequence still fails. */
  private static int[] shrink(Kind kind, int[] ops) {
    int[] cur = ops;
    for (int chunk = Math.max(1, cur.length / 2); chunk >= 1; chunk /= 2) {
      for (int at = 0; at + chunk <= cur.length; ) {
        int[] fewer = new int[cur.length - chunk];
        System.arraycopy(cur, 0, fewer, 0, at);
        System.arraycopy(cur, at + chunk, fewer, at, cur.length - at - chunk);
        if (violation(kind, fewer) != null) {
          cur = fewer;
        } else {
          at++;
        }
      }
    }
    return cur;
  }

  /**
   * Runs the ops on an empty filter of {@code kind}; returns what went wrong, or null. Each op is a
   * number: its last digit says what (0-4 add, 5-7 remove, 8-9 query), the rest which key (of 100)
   * or, for a remove, which of the keys held.
   */
  private static String violation(Kind kind, int[] ops) {
    DeletableFilter f = kind.empty.get();
    Map<String, Integer> held = new HashMap<>();
    List<String> live = new ArrayList<>();
    int copies = 0;
    for (int i = 0; i < ops.length; i++) {
      int what = ops[i] % 10;
      String key = key(ops[i] / 10);
      if (what < 5 && copies < MAX_LIVE && held.getOrDefault(key, 0) < MAX_COPIES) {
        // Every add counts, but one that a cuckoo filter refuses for want of room (returning
        // false, the filter unchanged): when the key's two buckets are full of keys that repeat,
        // or of FNV-1a's crowded keys. A counting filter's false (saturated counters) still counts.
        if (f.add(key) || !(f instanceof CuckooFilter)) {
          copies++;
          if (held.merge(key, 1, Integer::sum) == 1) {
            live.add(key);
          }
        }
      } else if (what < 8 && !live.isEmpty()) {
        int at = (ops[i] / 10) % live.size();
        String k = live.get(at);
        if (!f.remove(k)) {
          return "op " + i + ": removing " + k + ", held " + held.get(k) + " times, failed";
        }
        copies--;
        if (held.merge(k, -1, Integer::sum) == 0) {
          held.remove(k);
          live.set(at, live.get(live.size() - 1));
          live.remove(live.size() - 1);
        }
      }
      // Every key held, after every op (a query op asks the same of its key).
      for (String k : live) {
        if (!f.mightContain(k)) {
          return "after op "
              + i
              + " ("
              + ops[i]
              + "): "
              + k
              + " held "
              + held.get(k)
              + " times reads absent";
        }
      }
    }
    return null;
  }

  /** Key {@code i}: its bytes differ throughout from those of its neighbours. */
  private static String key(int i) {
    return Long.toHexString(Long.rotateLeft((i + 1) * 0x9E3779B97F4A7C15L, 17));
  }

  /** {@code empty} as a file written with {@code hash} would read: same shape, other hashing. */
  private static DeletableFilter rehashed(DeletableFilter empty, HashStrategy hash) {
    try {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      empty.writeTo(out);
      byte[] b = out.toByteArray();
      // Header: ... params length (u32) at 16, payload length (u64) at 20; params from 28.
      ByteBuffer header = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
      int params = header.getInt(16);
      long payload = header.getLong(20);
      ByteArrayOutputStream again = new ByteArrayOutputStream();
      SketchWriter w =
          SketchWriter.begin(
              again, empty.type(), hash, Arrays.copyOfRange(b, 28, 28 + params), payload);
      w.writeBytes(b, 28 + params, (int) payload);
      w.finish();
      DeletableFilter f =
          (DeletableFilter) Filters.readFrom(new ByteArrayInputStream(again.toByteArray()));
      assertThat(f.hashStrategy()).isEqualTo(hash);
      return f;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
