package io.github.probkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.cli.command.DedupeCommand;
import io.github.probkit.filter.BlockedBloomFilter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * dedupe's one-sided error: no line printed twice, the output in input order, and the new lines
 * wrongly dropped as many as the filter's false-positive rate predicts, counted exactly against the
 * true first occurrences.
 */
class DedupeCommandTest {
  /**
   * {@code 2 n} lines drawn from n keys: about 0.86 n distinct, each first seen somewhere in the
   * stream.
   */
  private static List<String> stream(int n, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < 2 * n; i++) {
      lines.add("user:" + r.nextInt(n));
    }
    return lines;
  }

  /**
   * Runs dedupe on {@code lines}; returns how many first occurrences it dropped, after checking the
   * rest.
   */
  private static long wronglyDropped(List<String> lines, String... options) {
    String input = String.join("\n", lines) + "\n";
    List<String> args = new ArrayList<>(List.of("dedupe"));
    args.addAll(List.of(options));
    Cli r = Cli.runWithInput(input, args.toArray(String[]::new));
    assertThat(r.exit).as(r.err).isZero();
    List<String> out = r.out.isEmpty() ? List.of() : List.of(r.out.split("\n"));
    Set<String> seen = new HashSet<>();
    List<String> first = new ArrayList<>();
    for (String l : lines) {
      if (seen.add(l)) {
        first.add(l);
      }
    }
    // The output must be a subsequence of the first occurrences: in order, none twice.
    int i = 0;
    for (String l : out) {
      while (i < first.size() && !first.get(i).equals(l)) {
        i++;
      }
      assertThat(i)
          .as("'" + l + "' printed out of order, twice, or never seen")
          .isLessThan(first.size());
      i++;
    }
    assertThat(r.err)
        .startsWith(
            String.format(
                java.util.Locale.ROOT,
                "probkit: dedupe: kept %,d of %,d lines,",
                out.size(),
                lines.size()));
    return first.size() - out.size();
  }

  /**
   * Sized for the distinct lines: when j distinct lines have come, the next new one is dropped with
   * the filter's rate at j keys, so the drops add up to sum_j rate(j), within a tolerance of 6
   * standard deviations of that sum of Bernoulli trials (variance at most the mean) plus 2 % for
   * the rate formula's own accuracy.
   */
  @Test
  void aSizedFilterDropsAsManyNewLinesAsItsRatePredicts() {
    int n = 100_000;
    List<String> lines = stream(n, 0x5eedd3d0e1L);
    long distinct = new HashSet<>(lines).size();
    long dropped = wronglyDropped(lines, "--expected", Long.toString(distinct), "--fpp", "0.01");
    long bits = BlockedBloomFilter.optimalBits(distinct, 0.01);
    int k = BlockedBloomFilter.optimalHashes(bits, distinct);
    // The rate is smooth in j: the trapezoid rule over steps of 100 keys is exact to far below the
    // tolerance.
    double mean = 0;
    for (long j = 0; j < distinct; j += 100) {
      long to = Math.min(distinct, j + 100);
      mean +=
          (to - j)
              * (BlockedBloomFilter.falsePositiveRate(bits, j, k)
                  + BlockedBloomFilter.falsePositiveRate(bits, to, k))
              / 2;
    }
    assertThat(mean).as("at most P per new line").isLessThan(0.01 * distinct);
    assertThat((double) dropped)
        .isCloseTo(mean, org.assertj.core.data.Offset.offset(6 * Math.sqrt(mean) + 0.02 * mean));
  }

  /**
   * Growing (no --expected) past its first layer of a million keys: every new line is dropped with
   * probability at most P, so the drops stay below P times the distinct lines (plus 6 standard
   * deviations).
   */
  @Test
  void aGrowingFilterDropsAtMostPOfTheNewLines() {
    // 1.05 million keys in order, each followed by a repeat of an earlier one one time in ten.
    SplittableRandom r = new SplittableRandom(0x9a0f1e5L);
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < 1_050_000; i++) {
      lines.add("user:" + i);
      if (r.nextInt(10) == 0) {
        lines.add("user:" + r.nextInt(i + 1));
      }
    }
    long distinct = new HashSet<>(lines).size();
    assertThat(distinct).isGreaterThan(DedupeCommand.GROWING_FROM);
    long dropped = wronglyDropped(lines, "--fpp", "0.02");
    double bound = 0.02 * distinct;
    assertThat((double) dropped).isLessThan(bound + 6 * Math.sqrt(bound));
    assertThat(dropped).as("the filter is a filter: some new lines do collide").isPositive();
  }

  /**
   * The growing filter is sized by --fpp as the sized one is: a Bloom layer takes -ln(p) / ln(2)^2
   * bits per key, 4 times as many at 0.0001 as at 0.1 (3.3 times when the first layer gets half of
   * P); a filter that ignored --fpp would be the same size at both.
   */
  @Test
  void aGrowingFilterIsSizedByFpp() {
    double loose = growingFilterKiB("0.1");
    double tight = growingFilterKiB("0.0001");
    assertThat(tight).as("KiB at 0.0001 against %s at 0.1", loose).isGreaterThan(2.5 * loose);
  }

  private static double growingFilterKiB(String fpp) {
    Cli r = Cli.runWithInput("a\nb\na\n", "dedupe", "--fpp", fpp);
    assertThat(r.exit).isZero();
    assertThat(r.out).isEqualTo("a\nb\n");
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("in a filter of ([0-9.]+) (KiB|MiB)").matcher(r.err);
    assertThat(m.find()).as(r.err).isTrue();
    return Double.parseDouble(m.group(1)) * (m.group(2).equals("MiB") ? 1024 : 1);
  }

  @Test
  void aFilterSizedTooSmallSaysSo() {
    List<String> lines = stream(10_000, 0x51ee5L);
    Cli r = Cli.runWithInput(String.join("\n", lines) + "\n", "dedupe", "--expected", "1000");
    assertThat(r.exit).isZero();
    assertThat(r.err)
        .contains(
            "probkit: warning: dedupe kept",
            "more than the 1,000 of --expected:" + " a new line is now dropped with probability");
  }

  @Test
  void keysAreFieldsAndLinesArePrintedWhole() {
    Cli r =
        Cli.runWithInput(
            "id\tname\n1\talice\n2\tbob\n3\talice\n", "dedupe", "--header", "--field", "name");
    assertThat(r.out).isEqualTo("id\tname\n1\talice\n2\tbob\n");
  }

  @Test
  void aLineWithoutTheFieldHasTheEmptyKeyAndIsCounted() {
    // As awk '!seen[$2]++': "b" and "d" have an empty $2, so "b" is kept and "d" dropped; the
    // empty field of "e\t" is the same key.
    String in = "a\t1\nb\nc\t1\nd\ne\t\n";
    Cli r = Cli.runWithInput(in, "dedupe", "--field", "2");
    assertThat(r.exit).as(r.toString()).isZero();
    assertThat(r.out).isEqualTo("a\t1\nb\n");
    assertThat(r.err).startsWith("probkit: dedupe: kept 2 of 5 lines, dropped 3 ");
    Cli csv = Cli.runWithInput("a,1\nb\nc,1\nd\n", "dedupe", "--format", "csv", "--field", "2");
    assertThat(csv.out).isEqualTo("a,1\nb\n");
    assertThat(csv.err).startsWith("probkit: dedupe: kept 2 of 4 lines, dropped 2 ");
  }

  @Test
  void crlfLinesArePrintedAndComparedAsTheyCame() {
    // awk '!seen[$0]++' and sort -u tell "x\r" from "x"; the CR is printed back.
    Cli r = Cli.runWithInput("x\r\nx\ny\r\ny\r\nz", "dedupe");
    assertThat(r.exit).as(r.toString()).isZero();
    assertThat(r.out).isEqualTo("x\r\nx\ny\r\nz\n");
    assertThat(r.err).startsWith("probkit: dedupe: kept 4 of 5 lines, dropped 1 ");
    // A field's key has no line-ending CR; the header and lines are printed with theirs.
    Cli field =
        Cli.runWithInput(
            "id\tname\r\n1\talice\r\n2\talice\n3\tbob\r\n",
            "dedupe",
            "--header",
            "--field",
            "name");
    assertThat(field.out).isEqualTo("id\tname\r\n1\talice\r\n3\tbob\r\n");
    Cli csv =
        Cli.runWithInput(
            "name,n\r\n\"a,b\",1\r\nc,2\r\n\"a,b\",3\r\n",
            "dedupe",
            "--format",
            "csv",
            "--header",
            "--field",
            "name");
    assertThat(csv.out).isEqualTo("name,n\r\n\"a,b\",1\r\nc,2\r\n");
  }
}
