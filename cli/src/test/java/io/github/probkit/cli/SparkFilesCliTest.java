package io.github.probkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.cardinality.CardinalitySketch;
import io.github.probkit.cardinality.HyperLogLog;
import io.github.probkit.cardinality.UltraLogLog;
import io.github.probkit.filter.BinaryFuseFilter;
import io.github.probkit.filter.BlockedBloomFilter;
import io.github.probkit.filter.BloomFilter;
import io.github.probkit.filter.CountingBloomFilter;
import io.github.probkit.filter.CuckooFilter;
import io.github.probkit.filter.MembershipFilter;
import io.github.probkit.frequency.CountMinSketch;
import io.github.probkit.frequency.HeavyHitters;
import io.github.probkit.frequency.WindowedCountMin;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command line reads every structure probkit-spark writes. An aggregate's {@code sketch} is the
 * library structure's {@code writeTo} bytes (spark's Sketches.writer), so each file here is made by
 * the library as probkit-spark's aggregates make it, without Spark.
 */
class SparkFilesCliTest {
  @TempDir Path dir;

  private Path write(String name, StructureFiles.Content s) throws IOException {
    return StructureFiles.write(dir.resolve(name), s);
  }

  /**
   * Lines where line i of {@code distinct} occurs about 3000 / i times, shuffled by {@code seed}.
   */
  private static List<String> skewed(int distinct, long seed) {
    List<String> lines = new ArrayList<>();
    for (int i = 1; i <= distinct; i++) {
      for (int j = 0; j < Math.max(1, 3000 / i); j++) {
        lines.add("user:" + i);
      }
    }
    SplittableRandom random = new SplittableRandom(seed);
    for (int i = lines.size() - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      String t = lines.get(i);
      lines.set(i, lines.get(j));
      lines.set(j, t);
    }
    return lines;
  }

  private static HeavyHitters summary(int capacity, List<String> lines) {
    HeavyHitters h = HeavyHitters.withCapacity(capacity); // as probkit_topk_agg(key, k, capacity)
    for (String l : lines) {
      h.add(l);
    }
    return h;
  }

  /** top's lines for {@code entries}: COUNT TAB AT_LEAST TAB LINE. */
  private static String topLines(List<HeavyHitters.Entry> entries) {
    StringBuilder b = new StringBuilder();
    for (HeavyHitters.Entry e : entries) {
      b.append(e.count()).append('\t').append(e.lowerBound()).append('\t');
      b.append(e.itemAsString()).append('\n');
    }
    return b.toString();
  }

  @Test
  void topFromAnExactSummaryPrintsTheTrueCountsOfEveryLine() throws IOException {
    for (long seed = 1; seed <= 5; seed++) {
      List<String> lines = skewed(300, 0x5A7C0000L + seed);
      Map<String, Long> truth = new HashMap<>();
      for (String l : lines) {
        truth.merge(l, 1L, Long::sum);
      }
      // Capacity above the distinct lines: every line kept, every count exact.
      Path f = write("exact-" + seed + ".topk", summary(1000, lines)::writeTo);
      Cli r = Cli.run("top", "--from", f.toString(), "-k", "1000");
      assertThat(r.exit).as(r.toString()).isZero();
      assertThat(r.err).isEmpty();
      Map<String, Long> printed = new HashMap<>();
      long previous = Long.MAX_VALUE;
      for (String line : r.out.split("\n")) {
        String[] c = line.split("\t", 3);
        long count = Long.parseLong(c[0]);
        assertThat(c[1]).as(line).isEqualTo(c[0]);
        assertThat(count).as("most frequent first: " + line).isLessThanOrEqualTo(previous);
        previous = count;
        assertThat(printed.put(c[2], count)).as("printed twice: " + line).isNull();
      }
      // Every line that occurred is printed, with its count: not one missing.
      assertThat(printed).isEqualTo(truth);

      List<Map.Entry<String, Long>> byCount = new ArrayList<>(truth.entrySet());
      byCount.sort(
          Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder())
              .thenComparing(Map.Entry.comparingByKey()));
      String top3 = Cli.run("top", "--from", f.toString(), "-k", "3").out;
      StringBuilder expected = new StringBuilder();
      for (Map.Entry<String, Long> e : byCount.subList(0, 3)) {
        long n = e.getValue();
        expected.append(n).append('\t').append(n).append('\t').append(e.getKey()).append('\n');
      }
      assertThat(top3).isEqualTo(expected.toString());
    }
  }

  @Test
  void topFromASummaryThatDroppedLinesPrintsTheLibrarysBoundsAndWarns() throws IOException {
    for (long seed = 1; seed <= 3; seed++) {
      // 5000 distinct lines through 1000 candidates (probkit_topk_agg's default capacity).
      HeavyHitters h = summary(1000, skewed(5000, 0x70F00000L + seed));
      assertThat(h.maxError()).isPositive();
      Path f = write("spark-" + seed + ".topk", h::writeTo);

      Cli r = Cli.run("top", "--from", f.toString(), "-k", "20");
      assertThat(r.exit).as(r.toString()).isZero();
      assertThat(r.out).isEqualTo(topLines(h.top(20)));

      // Every candidate the summary holds, none lost on the way; their counts are ranges.
      Cli all = Cli.run("top", "--from", f.toString(), "-k", "1000");
      assertThat(all.exit).as(all.toString()).isZero();
      assertThat(all.out).isEqualTo(topLines(h.top(1000)));
      assertThat(all.out.split("\n")).hasSize(h.size());
      assertThat(all.err).startsWith("probkit: warning: top: ").contains(f.toString());
      assertThat(all.err.split("\n")).hasSize(1);

      Cli json = Cli.run("top", "--from", f.toString(), "-k", "1", "--json");
      HeavyHitters.Entry first = h.top(1).get(0);
      assertThat(json.out)
          .startsWith(
              "{\"k\": 1, \"capacity\": 1000, \"totalCount\": "
                  + h.totalCount()
                  + ", \"distinctTracked\": "
                  + h.size()
                  + ", \"maxError\": "
                  + h.maxError()
                  + ", \"items\": [{\"item\": \""
                  + first.itemAsString()
                  + "\", \"count\": "
                  + first.count());
    }
  }

  @Test
  void topFromRefusesAFlippedByteAnotherStructureAndInputsWithOneLine() throws IOException {
    HeavyHitters h = summary(1000, skewed(2000, 0x0BADL));
    Path good = write("good.topk", h::writeTo);
    byte[] bytes = Files.readAllBytes(good);
    SplittableRandom random = new SplittableRandom(0xF11BL);
    for (int i = 0; i < 20; i++) {
      byte[] flipped = bytes.clone();
      int at = random.nextInt(flipped.length);
      flipped[at] ^= (byte) (1 << random.nextInt(8));
      Path bad = dir.resolve("flipped.topk");
      Files.write(bad, flipped);
      for (String[] args :
          List.of(
              new String[] {"top", "--from", bad.toString()},
              new String[] {"info", bad.toString()})) {
        Cli r = Cli.run(args);
        assertThat(r.exit).as("byte " + at + ": " + r).isEqualTo(1);
        assertThat(r.out).isEmpty();
        assertThat(r.err).startsWith("probkit: " + bad + ": ");
        assertThat(r.err.split("\n")).as(r.err).hasSize(1);
      }
    }
    Path bloom = write("bloom.bin", BloomFilter.create(1000, 0.01)::writeTo);
    Cli notTop = Cli.run("top", "--from", bloom.toString());
    assertThat(notTop.exit).as(notTop.toString()).isEqualTo(1);
    assertThat(notTop.err).startsWith("probkit: " + bloom + ": ");
    assertThat(notTop.err.split("\n")).hasSize(1);

    Path window =
        write(
            "window.cms",
            WindowedCountMin.create(
                    Duration.ofHours(1), Duration.ofMinutes(10), CountMinSketch.create(0.01, 0.01))
                ::writeTo);
    // info describes it now (issue 27); top --from still refuses it in one line.
    Cli described = Cli.run("info", window.toString());
    assertThat(described.exit).as(described.toString()).isZero();
    assertThat(described.out).contains("window-count-min").contains("slices:").contains("1h");
    Cli windowTop = Cli.run("top", "--from", window.toString());
    assertThat(windowTop.exit).as(windowTop.toString()).isEqualTo(1);
    assertThat(windowTop.err.split("\n")).hasSize(1);

    Cli both = Cli.run("top", "--from", good.toString(), "more.log");
    assertThat(both.exit).as(both.toString()).isEqualTo(2);
    assertThat(both.err).contains("--from").contains("more.log");
    assertThat(both.err.split("\n")).hasSize(1);
    Cli capacity = Cli.run("top", "--from", good.toString(), "--capacity", "10");
    assertThat(capacity.exit).as(capacity.toString()).isEqualTo(2);
    assertThat(capacity.err).contains("--capacity");
    Cli field = Cli.run("top", "--from", good.toString(), "--field", "2");
    assertThat(field.exit).as(field.toString()).isEqualTo(2);
    assertThat(field.err)
        .isEqualTo("probkit: --from " + good + " prints a saved summary: give no --field\n");
  }

  @Test
  void infoDescribesEveryStructureSparkWrites() throws IOException {
    List<String> keys = skewed(2000, 0x1F0L);
    List<byte[]> distinct = new ArrayList<>();
    for (int i = 1; i <= 2000; i++) {
      distinct.add(("user:" + i).getBytes(StandardCharsets.UTF_8));
    }
    BloomFilter bloom = BloomFilter.create(10_000, 0.01);
    BlockedBloomFilter blocked = BlockedBloomFilter.create(10_000, 0.01);
    CountingBloomFilter counting = CountingBloomFilter.create(10_000, 0.01);
    CuckooFilter cuckoo = CuckooFilter.create(10_000, 0.01);
    CountMinSketch cms = CountMinSketch.create(0.001, 0.01);
    HyperLogLog hll = HyperLogLog.create(14);
    UltraLogLog ull = UltraLogLog.create(14);
    for (String k : keys) {
      bloom.add(k);
      blocked.add(k);
      cms.add(k);
      hll.add(k);
      ull.add(k);
    }
    for (byte[] k : distinct) {
      counting.add(k);
      cuckoo.add(k);
    }
    // probkit_bloom_agg's bloom, blocked, binary-fuse8 and binary-fuse16; the counting and cuckoo
    // filters probkit_union_agg passes through.
    List<MembershipFilter> filters =
        List.of(
            bloom,
            blocked,
            BinaryFuseFilter.create(distinct, BinaryFuseFilter.FingerprintBits.BITS_8),
            BinaryFuseFilter.create(distinct, BinaryFuseFilter.FingerprintBits.BITS_16),
            counting,
            cuckoo);
    int n = 0;
    for (MembershipFilter f : filters) {
      Path file = write("filter-" + n++ + ".bin", f::writeTo);
      assertThat(info(file))
          .contains("\"type\": \"" + f.type().label() + "\"")
          .contains("\"bits\": " + f.bitSize() + ",")
          .contains("\"bytes\": " + f.byteSize() + ",");
    }
    assertThat(info(write("sketch.cms", cms::writeTo)))
        .startsWith("{\"type\": \"count-min\", \"width\": " + cms.width() + ", ")
        .contains("\"totalCount\": " + keys.size() + ",");
    for (CardinalitySketch s : List.<CardinalitySketch>of(hll, ull)) {
      assertThat(info(write(s.type().label() + ".bin", s::writeTo)))
          .startsWith("{\"type\": \"" + s.type().label() + "\", \"precision\": 14, ")
          .contains("\"estimate\": " + Math.round(s.estimate()) + ",");
    }
    HeavyHitters top = summary(1000, keys);
    Path topFile = write("users.topk", top::writeTo);
    assertThat(info(topFile))
        .isEqualTo(
            "{\"type\": \"heavy-hitters\", \"capacity\": 1000, \"distinctTracked\": "
                + top.size()
                + ", \"totalCount\": "
                + keys.size()
                + ", \"maxError\": "
                + top.maxError()
                + ", \"bytes\": "
                + HeavyHitters.readFrom(new ByteArrayInputStream(Files.readAllBytes(topFile)))
                    .byteSize()
                + "}\n");
    Cli table = Cli.run("info", topFile.toString());
    assertThat(table.exit).as(table.toString()).isZero();
    assertThat(table.out).contains("heavy-hitters").contains(Long.toString(keys.size()));
  }

  private static String info(Path file) {
    Cli r = Cli.run("info", file.toString(), "--json");
    assertThat(r.exit).as(file + ": " + r).isZero();
    assertThat(r.err).isEmpty();
    return r.out;
  }
}
