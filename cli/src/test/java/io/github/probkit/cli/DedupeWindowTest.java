package io.github.probkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.cli.command.DedupeCommand;
import io.github.probkit.cli.input.EventTimes;
import io.github.probkit.filter.AgePartitionedBloomFilter;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@code dedupe --window}, against an exact sliding-window dedupe over real words: no line printed
 * whose key occurred within the window (every occurrence counting, printed or not), and lines whose
 * key was last seen beyond the window and its slack dropped no more often than the rate allows.
 * Each input line carries its number in field 1, so every output line names the input line it is.
 */
class DedupeWindowTest {
  private static final double FPP = 0.01;

  private static List<String> words() throws IOException {
    List<String> w = new ArrayList<>();
    for (String s : Words.lines()) {
      if (!s.isEmpty() && s.indexOf('\t') < 0) {
        w.add(s);
      }
    }
    Collections.shuffle(w, new java.util.Random(0x5eedL));
    return w;
  }

  /**
   * Keys: a third new words, a third repeats of the key {@code d} lines back with d in [1, near], a
   * third with d in (far / 2, far]; chains of repeats inside the window follow from the first.
   */
  private static List<String> keys(int n, int near, int far, long seed) throws IOException {
    List<String> words = words();
    SplittableRandom r = new SplittableRandom(seed);
    List<String> keys = new ArrayList<>();
    int fresh = 0;
    for (int i = 0; i < n; i++) {
      int c = r.nextInt(3);
      if (c == 0 || i <= far) {
        keys.add(words.get(fresh++ % words.size()));
      } else {
        int d = c == 1 ? 1 + r.nextInt(near) : far / 2 + 1 + r.nextInt(far / 2);
        keys.add(keys.get(i - d));
      }
    }
    return keys;
  }

  /** The numbers (field 1) of the lines printed, from dedupe's output. */
  private static boolean[] printed(Cli r, int n) {
    assertThat(r.exit).as(r.toString()).isZero();
    boolean[] p = new boolean[n];
    for (String l : r.out.split("\n")) {
      if (!l.isEmpty()) {
        p[Integer.parseInt(l.substring(0, l.indexOf('\t')))] = true;
      }
    }
    return p;
  }

  /** Wrong drops among {@code shouldPrint} lines: at most the mean of Binomial(n, p) + 6 sd. */
  private static void assertDropsWithinRate(long wronglyDropped, long shouldPrint) {
    Rates.assertAtMostRate(wronglyDropped, shouldPrint, FPP, "lines beyond the window dropped");
  }

  @Test
  void aCountWindowNeverPrintsALineThatOccurredWithinItsLastNLines() throws IOException {
    int window = 2000;
    int n = 120_000;
    // Beyond this a key has left the window and its slack: it must be printed but at rate p.
    AgePartitionedBloomFilter shape = AgePartitionedBloomFilter.create(window, FPP);
    long forgotten = shape.window() + shape.slack() + shape.generationKeys();
    List<String> keys = keys(n, window, (int) (3 * window), 0xc0ffeeL);
    StringBuilder in = new StringBuilder();
    for (int i = 0; i < n; i++) {
      in.append(i).append('\t').append(keys.get(i)).append('\n');
    }
    boolean[] printed =
        printed(Cli.runWithInput(in.toString(), "dedupe", "--window", "2000", "--field", "2"), n);

    Map<String, Integer> last = new HashMap<>();
    Repeats repeats = new Repeats();
    for (int i = 0; i < n; i++) {
      Integer j = last.put(keys.get(i), i);
      repeats.count(j != null && i - j <= window, j == null || i - j > forgotten, printed[i]);
    }
    repeats.assertDeduped(n / 4, n / 4, "lines printed that occurred within the window");
  }

  @Test
  void everyOccurrenceCountsPrintedOrNot() {
    // "x" every 60 lines: each within a window of 100 of the one before, so printed once only,
    // though a window counted from the printed one alone ends after the first few.
    StringBuilder in = new StringBuilder();
    for (int i = 0; i < 3000; i++) {
      in.append(i % 60 == 0 ? "x" : "line " + i).append('\n');
    }
    Cli r = Cli.runWithInput(in.toString(), "dedupe", "--window", "100");
    assertThat(r.exit).as(r.toString()).isZero();
    assertThat(r.out.split("\n")).filteredOn("x"::equals).hasSize(1);
  }

  /**
   * A log of 150,000 lines over about 4 hours with its times in field 1, written in four forms
   * (ISO-8601 with Z, with an offset, epoch seconds with a fraction, epoch ms), one line in ten up
   * to 5 minutes late; the window ends at the latest time read.
   */
  @Test
  void aTimeWindowReplaysALogByItsTimesOutOfOrderLinesIncluded() throws IOException {
    Duration window = Duration.ofHours(1);
    int n = 150_000;
    long start = Instant.parse("2025-12-02T00:00:00Z").toEpochMilli();
    SplittableRandom r = new SplittableRandom(0x7173L);
    long[] time = new long[n];
    long clock = start;
    for (int i = 0; i < n; i++) {
      clock += r.nextInt(200);
      time[i] = r.nextInt(10) == 0 ? clock - r.nextInt(300_000) : clock;
    }
    // About 36,000 lines an hour: near repeats within ~45 min, far ones ~1.4 to 2.8 h back.
    List<String> keys = keys(n, 27_000, 100_000, 0xd1ceL);
    StringBuilder in = new StringBuilder();
    for (int i = 0; i < n; i++) {
      in.append(timeText(time[i], i % 4)).append('\t').append(i).append('\t');
      in.append(keys.get(i)).append('\n');
    }
    Cli result =
        Cli.runWithInput(
            in.toString(),
            "dedupe",
            "--window",
            "1h",
            "--time-field",
            "1",
            "--field",
            "3",
            "--expected",
            "40000");
    assertThat(result.exit).as(result.toString()).isZero();
    boolean[] printed = new boolean[n];
    for (String l : result.out.split("\n")) {
      printed[Integer.parseInt(l.split("\t")[1])] = true;
    }

    AgePartitionedBloomFilter shape = AgePartitionedBloomFilter.create(window, 40_000, FPP);
    long forgotten = shape.window() + shape.slack() + shape.generationMillis();
    Map<String, Long> lastTime = new HashMap<>();
    long latest = Long.MIN_VALUE;
    Repeats repeats = new Repeats();
    long late = 0;
    for (int i = 0; i < n; i++) {
      if (time[i] < latest) {
        late++;
      }
      latest = Math.max(latest, time[i]);
      Long t = lastTime.get(keys.get(i));
      repeats.count(
          t != null && latest - t < window.toMillis(),
          t == null || latest - t > forgotten,
          printed[i]);
      lastTime.merge(keys.get(i), time[i], Math::max);
    }
    assertThat(late).isGreaterThan(n / 20);
    repeats.assertDeduped(n / 10, n / 4, "lines printed that occurred within the hour");
  }

  /**
   * Lines seen again within the window (never to be printed) and lines new or last seen beyond the
   * window and its slack (to be printed, but for drops at the filter's rate).
   */
  private static final class Repeats {
    long inside;
    long insidePrinted;
    long beyond;
    long beyondDropped;

    void count(boolean withinWindow, boolean forgotten, boolean printed) {
      if (withinWindow) {
        inside++;
        if (printed) {
          insidePrinted++;
        }
      } else if (forgotten) {
        beyond++;
        if (!printed) {
          beyondDropped++;
        }
      }
    }

    /**
     * Both kinds were common; none seen again within the window was printed; few others dropped.
     */
    void assertDeduped(long minInside, long minBeyond, String insidePrintedMeans) {
      assertThat(inside).isGreaterThan(minInside);
      assertThat(beyond).isGreaterThan(minBeyond);
      assertThat(insidePrinted).as(insidePrintedMeans).isZero();
      assertDropsWithinRate(beyondDropped, beyond);
    }
  }

  private static String timeText(long ms, int form) {
    switch (form) {
      case 0:
        return Instant.ofEpochMilli(ms).toString();
      case 1:
        return Instant.ofEpochMilli(ms).atOffset(ZoneOffset.ofHours(-7)).toString();
      case 2:
        return String.format(java.util.Locale.ROOT, "%d.%03d", ms / 1000, ms % 1000);
      default:
        return Long.toString(ms);
    }
  }

  @Test
  void timesAreReadInEachForm() {
    long t = 1_764_680_859_000L; // 2025-12-02T13:07:39Z
    assertThat(EventTimes.parse("2025-12-02T13:07:39Z")).isEqualTo(t);
    assertThat(EventTimes.parse("2025-12-02T15:07:39.250+02:00")).isEqualTo(t + 250);
    assertThat(EventTimes.parse("1764680859")).isEqualTo(t);
    assertThat(EventTimes.parse("1764680859.25")).isEqualTo(t + 250);
    assertThat(EventTimes.parse("1764680859250")).isEqualTo(t + 250);
    // 10^11 - 1 s is in the year 5138; 10^11 ms is 1973-03-03T09:46:40Z.
    assertThat(EventTimes.parse("99999999999")).isEqualTo(99_999_999_999_000L);
    assertThat(EventTimes.parse("100000000000")).isEqualTo(100_000_000_000L);
    assertThat(EventTimes.parse("2025-12-02T13:07:39")).isNull();
    assertThat(EventTimes.parse("yesterday")).isNull();
  }

  @Test
  void windowUnitsAreLowerCaseSoThatOneMIsAMillionLines() {
    assertThat(DedupeCommand.SlidingWindow.parse("1M").lines).isEqualTo(1_000_000);
    assertThat(DedupeCommand.SlidingWindow.parse("10k").lines).isEqualTo(10_000);
    assertThat(DedupeCommand.SlidingWindow.parse("1m").time).isEqualTo(Duration.ofMinutes(1));
    assertThat(DedupeCommand.SlidingWindow.parse("7d").time).isEqualTo(Duration.ofDays(7));
    assertThat(DedupeCommand.SlidingWindow.parse("30s").time).isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void theClockTimesLinesWithoutATimeField() {
    Cli r = Cli.runWithInput("a\nb\na\nc\nb\n", "dedupe", "--window", "15m");
    assertThat(r.exit).as(r.toString()).isZero();
    assertThat(r.out).isEqualTo("a\nb\nc\n");
  }

  @Test
  void badWindowsAreRefusedNamingTheValue() {
    for (String bad : List.of("0", "5x", "-3", "0h", "1.5h", "")) {
      Cli r = Cli.runWithInput("a\n", "dedupe", "--window", bad);
      assertThat(r.exit).as(bad).isEqualTo(2);
      assertThat(r.err).as(bad).startsWith("probkit: --window must be").contains("'" + bad + "'");
      assertThat(r.err.strip().lines()).as(bad).hasSize(1);
      assertThat(r.out).isEmpty();
    }
  }

  @Test
  void aBadTimeStopsWithItsLineNumber() {
    String in = "1764680859\ta\n1764680860\tb\n13:07\tc\n1764680861\td\n";
    Cli r = Cli.runWithInput(in, "dedupe", "--window", "1h", "--time-field", "1", "--field", "2");
    assertThat(r.exit).isEqualTo(1);
    assertThat(r.err.strip())
        .isEqualTo(
            "probkit: line 3: '13:07' in --time-field 1 is not a time"
                + " (ISO-8601 with an offset, or epoch seconds or ms)");
  }

  @Test
  void aTimeFieldIsFoundByItsHeaderName() {
    String in = "when\twho\n1764680859\ta\n1764680860\ta\n1764690000\ta\nx\ta\n";
    Cli r =
        Cli.runWithInput(
            in, "dedupe", "--window", "1h", "--header", "--time-field", "when", "--field", "who");
    assertThat(r.exit).isEqualTo(1);
    assertThat(r.out).isEqualTo("when\twho\n1764680859\ta\n1764690000\ta\n");
    assertThat(r.err).startsWith("probkit: line 5: 'x' in --time-field when is not a time");
  }

  @Test
  void optionsThatDoNotGoTogetherAreRefused() {
    Cli r = Cli.run("dedupe", "--window", "100", "--expected", "5");
    assertThat(r.exit).isEqualTo(2);
    assertThat(r.err.strip())
        .isEqualTo(
            "probkit: --expected is for a time --window; a window of 100 lines is sized by its lines");
    r = Cli.run("dedupe", "--time-field", "1");
    assertThat(r.exit).isEqualTo(2);
    assertThat(r.err.strip()).isEqualTo("probkit: --time-field needs a time --window (such as 1h)");
  }

  @Test
  void aCsvTimeFieldIsReadAsCsvQuotesAndAll() {
    String in =
        "\"msg, with comma\",when\n"
            + "\"disk, full\",2025-12-02T10:00:00Z\n"
            + "\"disk, full\",\"2025-12-02T10:30:00Z\"\n"
            + "\"disk, full\",2025-12-02T12:30:00Z\n"
            + "fan,\"soon\"\n";
    Cli r =
        Cli.runWithInput(
            in,
            "dedupe",
            "--format",
            "csv",
            "--header",
            "--window",
            "1h",
            "--time-field",
            "when",
            "--field",
            "1");
    assertThat(r.exit).isEqualTo(1);
    assertThat(r.out)
        .isEqualTo(
            "\"msg, with comma\",when\n"
                + "\"disk, full\",2025-12-02T10:00:00Z\n"
                + "\"disk, full\",2025-12-02T12:30:00Z\n");
    assertThat(r.err.strip())
        .isEqualTo(
            "probkit: record 5: 'soon' in --time-field when is not a time"
                + " (ISO-8601 with an offset, or epoch seconds or ms)");
  }
}
