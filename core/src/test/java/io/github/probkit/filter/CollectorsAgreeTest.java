package io.github.probkit.filter;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.Concurrency;
import io.github.probkit.hash.HashStrategy;
import io.github.probkit.internal.BatchPasses;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The part of {@link ModesAgreeTest} that needs a JVM per garbage collector. */
class CollectorsAgreeTest {
  /**
   * A blocked filter of 16 MiB, the size from which batches rely on the heap's alignment of large
   * arrays, built by batches, queried by batches and one by one, in a JVM of each collector: Serial
   * and Parallel place the array anywhere, G1 and ZGC on a region or page boundary. The filter's
   * bytes and its answers are the same in all four.
   */
  @Test
  void everyCollectorGivesTheSameBytesAndAnswers() throws Exception {
    List<String> digests = new ArrayList<>();
    for (String gc :
        new String[] {"-XX:+UseSerialGC", "-XX:+UseParallelGC", "-XX:+UseG1GC", "-XX:+UseZGC"}) {
      Path java = Path.of(System.getProperty("java.home"), "bin", "java");
      Process p =
          new ProcessBuilder(
                  java.toString(),
                  gc,
                  "-Xmx512m",
                  "-cp",
                  System.getProperty("java.class.path"),
                  ForkedBuild.class.getName())
              .redirectErrorStream(true)
              .start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      assertThat(p.waitFor(5, TimeUnit.MINUTES)).isTrue();
      assertThat(p.exitValue()).as("%s: %s", gc, out).isZero();
      digests.add(out);
    }
    assertThat(digests.get(0)).contains("aligned=false");
    assertThat(digests.get(2)).contains("aligned=true");
    for (String d : digests) {
      assertThat(d.replaceAll("aligned=\\w+ ", ""))
          .isEqualTo(digests.get(0).replaceAll("aligned=\\w+ ", ""));
    }
  }

  /** The forked JVM's work: prints the alignment and the SHA-256 of the bytes and the answers. */
  public static final class ForkedBuild {
    public static void main(String[] args) throws IOException, NoSuchAlgorithmException {
      BlockedBloomFilter f =
          BlockedBloomFilter.withBits(16L << 23, 7, HashStrategy.xxh3(), Concurrency.SINGLE_WRITER);
      SplittableRandom r = new SplittableRandom(0x6cL);
      long[] keys = r.longs(1 << 20).toArray();
      f.addAll(keys, 0, keys.length / 2);
      for (int i = keys.length / 2; i < keys.length; i++) {
        f.add(keys[i]);
      }
      MessageDigest bytes = MessageDigest.getInstance("SHA-256");
      f.writeTo(
          new OutputStream() {
            @Override
            public void write(int b) {
              bytes.update((byte) b);
            }

            @Override
            public void write(byte[] b, int off, int len) {
              bytes.update(b, off, len);
            }
          });
      long[] queries = r.longs(1 << 20).toArray();
      System.arraycopy(keys, 0, queries, 0, 1 << 19);
      boolean[] present = new boolean[queries.length];
      f.mightContainAll(queries, present);
      MessageDigest answers = MessageDigest.getInstance("SHA-256");
      for (int i = 0; i < queries.length; i++) {
        if (present[i] != f.mightContain(queries[i]) || (i < 1 << 19 && !present[i])) {
          System.out.println("batch and one-by-one disagree on key " + i);
          System.exit(1);
        }
        answers.update((byte) (present[i] ? 1 : 0));
      }
      System.out.println(
          "aligned="
              + BatchPasses.largeArraysAligned()
              + " bytes="
              + HexFormat.of().formatHex(bytes.digest())
              + " answers="
              + HexFormat.of().formatHex(answers.digest()));
    }
  }
}
