package io.github.probkit.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.GoldenFiles;
import io.github.probkit.cardinality.UltraLogLog;
import io.github.probkit.cardinality.WindowedCardinality;
import io.github.probkit.frequency.CountMinSketch;
import io.github.probkit.frequency.HeavyHitters;
import io.github.probkit.frequency.WindowedCountMin;
import io.github.probkit.frequency.WindowedHeavyHitters;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The windowed distinct counts (type 49), frequencies (type 50) and heavy hitters (type 52) in the
 * probkit format: golden files pinned by SHA-256 that read and write back byte for byte and are
 * rebuilt exactly from their documented events; header fields read by hand as docs/FORMAT.md lays
 * them out; a round trip that keeps answering and advancing as the original; and every single
 * flipped byte refused.
 *
 * <p>{@code -Dprobkit.golden.write=true} writes a missing file once.
 */
class WindowedSketchFormatTest {
  private static final Path DIR = Path.of("src/test/resources/golden-window");
  private static final long T0 = 1_700_000_000_000L;
  private static final long MINUTE = 60_000L;

  /**
   * ULL p = 10, windows up to 1 h in 10 min slices; "user-(i mod 700)" at T0 + 3 s i, i < 2,000.
   */
  static WindowedCardinality cardinality() {
    WindowedCardinality w =
        WindowedCardinality.create(
            Duration.ofHours(1), Duration.ofMinutes(10), UltraLogLog.create(10));
    for (int i = 0; i < 2_000; i++) {
      w.add("user-" + (i % 700), T0 + 3_000L * i);
    }
    return w;
  }

  /** Count-min 3 x 64, windows up to 1 h in 10 min slices; "term-(i mod 37)" at T0 + 3 s i. */
  static WindowedCountMin countMin() {
    WindowedCountMin w =
        WindowedCountMin.create(
            Duration.ofHours(1), Duration.ofMinutes(10), CountMinSketch.withDimensions(64, 3));
    for (int i = 0; i < 2_000; i++) {
      w.add("term-" + (i % 37), 1, T0 + 3_000L * i);
    }
    return w;
  }

  /**
   * Heavy hitters of capacity 8, windows up to 1 h in 10 min slices; "term-(i mod 37)" at T0 + 3 s
   * i (37 terms in summaries of 8: every slice evicts, so errors are written too).
   */
  static WindowedHeavyHitters heavyHitters() {
    WindowedHeavyHitters w =
        WindowedHeavyHitters.create(Duration.ofHours(1), Duration.ofMinutes(10), 8);
    for (int i = 0; i < 2_000; i++) {
      w.add("term-" + (i % 37), 1, T0 + 3_000L * i);
    }
    return w;
  }

  private static final String CARDINALITY = "window-cardinality-v1.bin";
  private static final String COUNT_MIN = "window-count-min-v1.bin";
  private static final String HEAVY_HITTERS = "window-heavy-hitters-v1.bin";

  @Test
  void goldenFilesArePinnedReadBackAndAreTheirRecipes()
      throws IOException, NoSuchAlgorithmException {
    byte[] c = golden(CARDINALITY, bytes(cardinality()));
    assertThat(sha256(c))
        .isEqualTo("3eda7ec7a0ad542e23a12df243044dad2e5cbb475d9e190f6b18857eeeda6f6b");
    assertThat(bytes(WindowedCardinality.readFrom(new ByteArrayInputStream(c)))).isEqualTo(c);
    byte[] f = golden(COUNT_MIN, bytes(countMin()));
    assertThat(sha256(f))
        .isEqualTo("853839bc95b126c924fe50116e8019ffa8a5d407713478b5c0c27e6675b71bf5");
    assertThat(bytes(WindowedCountMin.readFrom(new ByteArrayInputStream(f)))).isEqualTo(f);
    byte[] h = golden(HEAVY_HITTERS, bytes(heavyHitters()));
    assertThat(sha256(h))
        .isEqualTo("68ff5d8ce0296592122061858e30291ba41821c13f95527fb842b0b3a1cd5857");
    assertThat(bytes(WindowedHeavyHitters.readFrom(new ByteArrayInputStream(h)))).isEqualTo(h);
  }

  /** Header and parameters at the offsets docs/FORMAT.md gives. */
  @Test
  void theHeadersSayWhatFormatMdSays() throws IOException {
    String[] files = {CARDINALITY, COUNT_MIN, HEAVY_HITTERS};
    int[] types = {49, 50, 52};
    int[] partTypes = {33, 16, 17};
    for (int i = 0; i < files.length; i++) {
      byte[] b = Files.readAllBytes(DIR.resolve(files[i]));
      ByteBuffer le = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
      assertThat(le.getInt(0)).isEqualTo(0x54494B50);
      assertThat(b[4]).as("format version").isEqualTo((byte) 1);
      assertThat(b[5]).isEqualTo((byte) types[i]);
      assertThat(le.getInt(16)).as("parameter bytes").isEqualTo(20);
      assertThat(le.getLong(28)).as("slice ms").isEqualTo(10 * MINUTE);
      assertThat(le.getInt(36)).as("slots: 6 for the hour, 1 for its start").isEqualTo(7);
      long last = T0 + 3_000L * 1_999;
      assertThat(le.getLong(40)).as("newest slice").isEqualTo(last / (10 * MINUTE));
      // Payload: 8 nested containers (the empty sketch, then the 7 slots), each after its length.
      long payload = le.getLong(20);
      int at = 48;
      for (int part = 0; part < 8; part++) {
        int len = le.getInt(at);
        assertThat(le.getInt(at + 4)).as("part %d's magic", part).isEqualTo(0x54494B50);
        assertThat(b[at + 4 + 5]).as("part %d's type", part).isEqualTo((byte) partTypes[i]);
        at += 4 + len;
      }
      assertThat(at).isEqualTo(48 + payload);
      assertThat(b.length).isEqualTo(at + 4);
    }
  }

  @Test
  void aReadRingAnswersAndAdvancesAsTheOriginal() throws IOException {
    WindowedCardinality c = cardinality();
    WindowedCardinality c2 = WindowedCardinality.readFrom(new ByteArrayInputStream(bytes(c)));
    WindowedCountMin f = countMin();
    WindowedCountMin f2 = WindowedCountMin.readFrom(new ByteArrayInputStream(bytes(f)));
    long now = T0 + 3_000L * 1_999;
    for (Duration last : new Duration[] {Duration.ofMinutes(5), Duration.ofMinutes(50)}) {
      assertThat(c2.count(last, now)).isEqualTo(c.count(last, now));
      for (int t = 0; t < 37; t++) {
        assertThat(f2.estimate("term-" + t, last, now))
            .isEqualTo(f.estimate("term-" + t, last, now));
      }
    }
    // Later events, some late, then a jump of two slices: both rings drop the same slices.
    for (int i = 2_000; i < 2_600; i++) {
      long t = T0 + 3_000L * i - (i % 5 == 0 ? 20 * MINUTE : 0);
      c.add("user-" + i, t);
      c2.add("user-" + i, t);
      f.add("term-" + (i % 41), 1, t);
      f2.add("term-" + (i % 41), 1, t);
    }
    c.advanceTo(T0 + 3_000L * 2_600 + 20 * MINUTE);
    c2.advanceTo(T0 + 3_000L * 2_600 + 20 * MINUTE);
    f.advanceTo(T0 + 3_000L * 2_600 + 20 * MINUTE);
    f2.advanceTo(T0 + 3_000L * 2_600 + 20 * MINUTE);
    assertThat(bytes(c2)).isEqualTo(bytes(c));
    assertThat(bytes(f2)).isEqualTo(bytes(f));
  }

  /**
   * A heavy-hitters ring read back answers every window as the original and, with capacity above
   * the distinct items, as exact counts of the same slices; it then advances as the original.
   */
  @Test
  void aReadHeavyHittersRingKeepsExactCountsOfItsSlices() throws IOException {
    int n = 3_000;
    WindowedHeavyHitters w =
        WindowedHeavyHitters.create(Duration.ofHours(1), Duration.ofMinutes(10), 64);
    long[] times = new long[n];
    for (int i = 0; i < n; i++) {
      // 40 terms, every fifth event 20 min late: the late ones land in older slices.
      times[i] = T0 + 1_500L * i - (i % 5 == 0 ? 20 * MINUTE : 0);
      w.add("term-" + (i * i % 40), 1 + i % 3, times[i]);
    }
    WindowedHeavyHitters read = WindowedHeavyHitters.readFrom(new ByteArrayInputStream(bytes(w)));
    assertThat(read.capacity()).isEqualTo(64);
    assertThat(read.sliceMillis()).isEqualTo(10 * MINUTE);
    assertThat(read.sliceCount()).isEqualTo(7);
    assertThat(read.newestSlice()).isEqualTo(w.newestSlice());
    long now = T0 + 1_500L * (n - 1);
    for (Duration last :
        new Duration[] {Duration.ZERO, Duration.ofMinutes(15), Duration.ofMinutes(60)}) {
      long from = Math.floorDiv(now - last.toMillis(), 10 * MINUTE);
      long to = Math.floorDiv(now, 10 * MINUTE);
      Map<String, Long> exact = new TreeMap<>();
      for (int i = 0; i < n; i++) {
        long s = Math.floorDiv(times[i], 10 * MINUTE);
        if (s >= from && s <= to) {
          exact.merge("term-" + (i * i % 40), 1L + i % 3, Long::sum);
        }
      }
      assertThat(exact).as("the last %s holds events", last).isNotEmpty();
      Map<String, Long> listed = new TreeMap<>();
      for (HeavyHitters.Entry e : read.top(64, last, now)) {
        assertThat(e.error()).isZero();
        listed.put(e.itemAsString(), e.count());
      }
      assertThat(listed).as("the last %s", last).isEqualTo(exact);
      assertThat(read.summaryOfLast(last, now)).isEqualTo(w.summaryOfLast(last, now));
    }
    for (int i = n; i < n + 500; i++) {
      long t = T0 + 1_500L * i - (i % 7 == 0 ? 30 * MINUTE : 0);
      w.add("late-" + (i % 11), 2, t);
      read.add("late-" + (i % 11), 2, t);
    }
    w.advanceTo(T0 + 1_500L * (n + 500) + 25 * MINUTE);
    read.advanceTo(T0 + 1_500L * (n + 500) + 25 * MINUTE);
    assertThat(bytes(read)).isEqualTo(bytes(w));
  }

  @Test
  void everyFlippedByteIsRefused() throws IOException {
    byte[][] all = {bytes(cardinality()), bytes(countMin()), bytes(heavyHitters())};
    for (byte[] good : all) {
      for (int i = 0; i < good.length; i++) {
        byte[] bad = good.clone();
        bad[i] ^= (byte) (1 << (i % 8));
        ByteArrayInputStream in = new ByteArrayInputStream(bad);
        assertThatThrownBy(
                () -> {
                  if (good == all[0]) {
                    WindowedCardinality.readFrom(in);
                  } else if (good == all[1]) {
                    WindowedCountMin.readFrom(in);
                  } else {
                    WindowedHeavyHitters.readFrom(in);
                  }
                })
            .as("byte %d flipped", i)
            .isInstanceOf(SketchFormatException.class);
      }
    }
  }

  private static byte[] golden(String name, byte[] built) throws IOException {
    Path file = DIR.resolve(name);
    if (!Files.exists(file) && Boolean.getBoolean("probkit.golden.write")) {
      Files.write(file, built);
    }
    byte[] b = Files.readAllBytes(file);
    assertThat(built).as("%s rebuilt from its events", name).isEqualTo(b);
    return b;
  }

  private static String sha256(byte[] b) throws NoSuchAlgorithmException {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
  }

  private static byte[] bytes(WindowedCardinality w) throws IOException {
    return GoldenFiles.bytes(w::writeTo);
  }

  private static byte[] bytes(WindowedHeavyHitters w) throws IOException {
    return GoldenFiles.bytes(w::writeTo);
  }

  private static byte[] bytes(WindowedCountMin w) throws IOException {
    return GoldenFiles.bytes(w::writeTo);
  }
}
