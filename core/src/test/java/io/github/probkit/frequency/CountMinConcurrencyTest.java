package io.github.probkit.frequency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.Concurrency;
import io.github.probkit.GoldenFiles;
import io.github.probkit.frequency.CountMinSketch.UpdateRule;
import io.github.probkit.hash.HashStrategy;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The two write modes of a count-min sketch differ only in how a count reaches memory: the same
 * adds give the same counters, the same estimates and the same file.
 */
class CountMinConcurrencyTest {

  private static byte[] bytes(CountMinSketch s) throws IOException {
    return GoldenFiles.bytes(s::writeTo);
  }

  /** Adds the same mixed stream (String, long, byte[] keys, counts above 1, saturation) to both. */
  private static void fill(CountMinSketch s, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    for (int i = 0; i < 20_000; i++) {
      long k = r.nextLong(3_000);
      switch (r.nextInt(4)) {
        case 0:
          s.add("key:" + k);
          break;
        case 1:
          s.add(k, 1 + r.nextInt(5));
          break;
        case 2:
          s.add(("bytes:" + k).getBytes(java.nio.charset.StandardCharsets.UTF_8));
          break;
        default:
          s.add("key:" + k, r.nextInt(3));
          break;
      }
    }
    s.add("huge", Long.MAX_VALUE - 3);
    s.add("huge", 7);
  }

  @ParameterizedTest
  @EnumSource(UpdateRule.class)
  void bothModesCountAlikeAndWriteTheSameBytes(UpdateRule rule) throws IOException {
    for (HashStrategy hash :
        new HashStrategy[] {HashStrategy.xxh3(), HashStrategy.xxh3(0x1234), HashStrategy.fnv1a()}) {
      int depth = hash.exactModulo() ? 2 : 5;
      CountMinSketch concurrent =
          CountMinSketch.withDimensions(997, depth, hash, rule, Concurrency.CONCURRENT);
      CountMinSketch single =
          CountMinSketch.withDimensions(997, depth, hash, rule, Concurrency.SINGLE_WRITER);
      fill(concurrent, 0x51e7ba5eL);
      fill(single, 0x51e7ba5eL);
      assertThat(single.concurrency()).isEqualTo(Concurrency.SINGLE_WRITER);
      assertThat(concurrent.concurrency()).isEqualTo(Concurrency.CONCURRENT);
      assertThat(single).isEqualTo(concurrent);
      assertThat(bytes(single)).isEqualTo(bytes(concurrent));
      assertThat(single.estimate("huge")).isEqualTo(Long.MAX_VALUE);
      for (long k = 0; k < 3_000; k += 7) {
        assertThat(single.estimate("key:" + k)).isEqualTo(concurrent.estimate("key:" + k));
        assertThat(single.estimate(k)).isEqualTo(concurrent.estimate(k));
      }

      CountMinSketch mergedSingle = single.copy().merge(concurrent);
      CountMinSketch mergedConcurrent = concurrent.copy().merge(single);
      assertThat(mergedSingle.concurrency()).isEqualTo(Concurrency.SINGLE_WRITER);
      assertThat(bytes(mergedSingle)).isEqualTo(bytes(mergedConcurrent));
      assertThat(mergedSingle.totalCount()).isEqualTo(Long.MAX_VALUE);
    }
  }

  @Test
  void readFromTakesTheMode() throws IOException {
    CountMinSketch s = CountMinSketch.create(0.01, 0.01, Concurrency.SINGLE_WRITER);
    fill(s, 0xfeedL);
    CountMinSketch back =
        CountMinSketch.readFrom(new ByteArrayInputStream(bytes(s)), Concurrency.SINGLE_WRITER);
    assertThat(back.concurrency()).isEqualTo(Concurrency.SINGLE_WRITER);
    assertThat(back).isEqualTo(s);
    assertThat(CountMinSketch.readFrom(new ByteArrayInputStream(bytes(s))).concurrency())
        .isEqualTo(Concurrency.CONCURRENT);
    assertThat(CountMinSketch.create(0.01, 0.01).concurrency()).isEqualTo(Concurrency.CONCURRENT);
    assertThat(s.copy().concurrency()).isEqualTo(Concurrency.SINGLE_WRITER);
    assertThatThrownBy(() -> CountMinSketch.create(0.01, 0.01, (Concurrency) null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("concurrency");
    assertThatThrownBy(() -> CountMinSketch.readFrom(new ByteArrayInputStream(bytes(s)), null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("concurrency");
  }

  /** The default mode loses no count when threads add at once; the exact total shows it. */
  @ParameterizedTest
  @EnumSource(UpdateRule.class)
  void concurrentAddsLoseNothing(UpdateRule rule) throws Exception {
    CountMinSketch s =
        CountMinSketch.withDimensions(64, 4, HashStrategy.xxh3(), rule, Concurrency.CONCURRENT);
    int threads = 4;
    int adds = 50_000;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      CountDownLatch start = new CountDownLatch(1);
      Future<?>[] done = new Future<?>[threads];
      for (int t = 0; t < threads; t++) {
        done[t] =
            pool.submit(
                () -> {
                  start.await();
                  for (int i = 0; i < adds; i++) {
                    s.add(i % 10); // few keys, few counters: every add races with the others
                  }
                  return null;
                });
      }
      start.countDown();
      for (Future<?> f : done) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(s.totalCount()).isEqualTo((long) threads * adds);
    for (int k = 0; k < 10; k++) {
      assertThat(s.estimate(k)).isGreaterThanOrEqualTo((long) threads * adds / 10);
    }
  }
}
