package io.github.probkit.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.Concurrency;
import io.github.probkit.filter.AgePartitionedBloomFilter.Layout;
import io.github.probkit.hash.HashStrategy;
import io.github.probkit.io.SketchFormatException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The window filter's golden files, as {@code GoldenFilesTest} does for the others (kept in their
 * own directory, which that test does not list): each file's SHA-256 is pinned, it reads and writes
 * back byte for byte, the filter rebuilt from its documented keys writes exactly its bytes, and
 * what it must say is checked from facts known without the code (its header and parameters, the
 * keys of its window).
 *
 * <p>{@code -Dprobkit.golden.write=true} writes a missing file once; a pin changes only with a new
 * format version.
 */
class WindowGoldenFilesTest {
  private static final Path DIR = Path.of("src/test/resources/golden-window");

  private static final Map<String, String> PINNED =
      Map.of(
          "window-count-v1.bin", "ab8b7b9c77f6dd94df5004d91981afb7c06700d974a41f9d7fa4b1d8aa7505e9",
          "window-time-v1.bin", "4de428766afd9b675468d8eda1cf218eecd17127aa7661ebd9c0973f240f6dbb",
          "window-blocked-count-v1.bin",
              "951ee7b65ce5fcb08139a36539d44b47e4965a7c7a7c3956c7bf4e53f24656b6",
          "window-blocked-time-v1.bin",
              "c49f002aafc3f583c5bd5a9f24e44a22dcea3abe70f388bdb1b7f3c939a4955f");

  /** The last 1,000 of keys "key-0" .. "key-2499", at 1 %. */
  static AgePartitionedBloomFilter byCount() {
    return withKeys(AgePartitionedBloomFilter.create(1_000, 0.01));
  }

  /** A 1 h window sized for 1,000 keys, "key-i" at 2023-11-14T22:13:20Z + 5 s i, i < 2,500. */
  static AgePartitionedBloomFilter byTime() {
    return withTimedKeys(
        AgePartitionedBloomFilter.create(
            Duration.ofHours(1), 1_000, 0.01, HashStrategy.xxh3(), Clock.systemUTC()));
  }

  /** As {@link #byCount}, in the blocked layout (type 51). */
  static AgePartitionedBloomFilter blockedByCount() {
    return withKeys(
        AgePartitionedBloomFilter.create(
            1_000, 0.01, HashStrategy.xxh3(), Concurrency.SINGLE_WRITER, Layout.BLOCKED));
  }

  /** As {@link #byTime}, in the blocked layout (type 51). */
  static AgePartitionedBloomFilter blockedByTime() {
    return withTimedKeys(
        AgePartitionedBloomFilter.create(
            Duration.ofHours(1),
            1_000,
            0.01,
            HashStrategy.xxh3(),
            Clock.systemUTC(),
            Concurrency.SINGLE_WRITER,
            Layout.BLOCKED));
  }

  /** {@code f} given keys "key-0" .. "key-2499" in order. */
  private static AgePartitionedBloomFilter withKeys(AgePartitionedBloomFilter f) {
    for (int i = 0; i < 2_500; i++) {
      f.add("key-" + i);
    }
    return f;
  }

  /** {@code f} given "key-i" at 2023-11-14T22:13:20Z + 5 s i, i < 2,500. */
  private static AgePartitionedBloomFilter withTimedKeys(AgePartitionedBloomFilter f) {
    for (int i = 0; i < 2_500; i++) {
      f.add("key-" + i, 1_700_000_000_000L + 5_000L * i);
    }
    return f;
  }

  private static final Map<String, Supplier<AgePartitionedBloomFilter>> RECIPES =
      Map.of(
          "window-count-v1.bin", WindowGoldenFilesTest::byCount,
          "window-time-v1.bin", WindowGoldenFilesTest::byTime,
          "window-blocked-count-v1.bin", WindowGoldenFilesTest::blockedByCount,
          "window-blocked-time-v1.bin", WindowGoldenFilesTest::blockedByTime);

  @Test
  void eachFileIsPinnedReadsBackAndIsItsRecipe() throws IOException, NoSuchAlgorithmException {
    for (Map.Entry<String, Supplier<AgePartitionedBloomFilter>> e : RECIPES.entrySet()) {
      Path file = DIR.resolve(e.getKey());
      byte[] built = AgePartitionedBloomFilterTest.bytes(e.getValue().get());
      if (!Files.exists(file) && Boolean.getBoolean("probkit.golden.write")) {
        Files.write(file, built);
      }
      byte[] b = Files.readAllBytes(file);
      String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
      assertThat(sha).as("SHA-256 of %s", e.getKey()).isEqualTo(PINNED.get(e.getKey()));
      MembershipFilter back = Filters.readFrom(new ByteArrayInputStream(b));
      assertThat(AgePartitionedBloomFilterTest.bytes(back)).isEqualTo(b);
      assertThat(built).as("%s rebuilt from its keys", e.getKey()).isEqualTo(b);
    }
  }

  /** Header and parameters as docs/FORMAT.md lays them out, read by hand. */
  @Test
  void theCountFileSaysWhatFormatMdSays() throws IOException {
    byte[] b = Files.readAllBytes(DIR.resolve("window-count-v1.bin"));
    ByteBuffer le = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
    assertThat(le.getInt(0)).isEqualTo(0x54494B50);
    assertThat(b[5]).isEqualTo((byte) 48);
    assertThat(le.getInt(16)).isEqualTo(48); // parameter bytes
    assertThat(le.getInt(28)).isEqualTo(11); // k at 1 %
    assertThat(le.getInt(32)).isEqualTo(44); // l
    assertThat(le.getLong(36)).isEqualTo(23); // ceil(1000 / 44) keys per generation
    assertThat(le.getLong(44)).isEqualTo(384); // ceil(11 * 23 / ln 2) = 366, to 64
    assertThat(le.getLong(52)).isZero(); // by count
    assertThat(le.getLong(60)).isEqualTo(1_000);
    assertThat(le.getDouble(68)).isEqualTo(0.01);
    assertThat(le.getLong(76)).isEqualTo(2_500 / 23 - (2_500 % 23 == 0 ? 1 : 0)); // generation
    long payload = le.getLong(20);
    assertThat(payload).isEqualTo(8 + 8 * 55 + 55 * 384 / 8);
  }

  /**
   * The blocked count file, rebuilt here from docs/FORMAT.md without the filter's code: key i of
   * the 2,500 went to generation i / 23 and set, in each of the k = 11 slices of generations i / 23
   * back to i / 23 - 10 not yet recycled, bit {@code (h2 * M_s) >>> 58} of word {@code block * 55 +
   * s} (s the physical slice, generation mod 55; block the high half of h1 times 7 blocks; h2 =
   * rotl(h1, 32) | 1; M_s = splitmix64((s + 1) * golden ratio) | 1). The 448 bits per slice are
   * those a Python transcription of the sizing gives (p = 1 % needs 7 words for 23 keys a
   * generation, where the sliced layout needs 6).
   */
  @Test
  void theBlockedCountFileIsItsKeysPlacedAsFormatMdSays() throws IOException {
    byte[] b = Files.readAllBytes(DIR.resolve("window-blocked-count-v1.bin"));
    ByteBuffer le = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
    assertThat(b[5]).isEqualTo((byte) 51);
    assertThat(le.getInt(16)).isEqualTo(48);
    int k = 11;
    int h = 55;
    int g = 23;
    int blocks = 7;
    assertThat(le.getInt(28)).isEqualTo(k);
    assertThat(le.getInt(32)).isEqualTo(h - k);
    assertThat(le.getLong(36)).isEqualTo(g);
    assertThat(le.getLong(44)).isEqualTo(64 * blocks);
    assertThat(le.getLong(52)).isZero();
    assertThat(le.getLong(60)).isEqualTo(1_000);
    assertThat(le.getDouble(68)).isEqualTo(0.01);
    long generation = 2_499 / g;
    assertThat(le.getLong(76)).isEqualTo(generation);
    assertThat(le.getLong(20)).isEqualTo(8 + 8 * h + 8 * h * blocks);
    long[] adds = new long[h];
    long[] words = new long[h * blocks];
    for (int i = 0; i < 2_500; i++) {
      byte[] key = ("key-" + i).getBytes(StandardCharsets.UTF_8);
      long h1 = HashStrategy.xxh3().hash64(key, 0, key.length);
      long h2 = Long.rotateLeft(h1, 32) | 1;
      int block =
          new BigInteger(Long.toUnsignedString(h1))
              .multiply(BigInteger.valueOf(blocks))
              .shiftRight(64)
              .intValueExact();
      long gen = i / g;
      if (gen > generation - h) {
        adds[(int) (gen % h)]++;
      }
      for (long x = gen; x > gen - k; x--) {
        if (x > generation - h && x >= 0) {
          int s = (int) (x % h);
          words[block * h + s] |= 1L << ((h2 * splitMixOdd(s + 1)) >>> 58);
        }
      }
    }
    for (int s = 0; s < h; s++) {
      assertThat(le.getLong(84 + 8 * s)).as("adds of slice %d", s).isEqualTo(adds[s]);
    }
    for (int w = 0; w < words.length; w++) {
      assertThat(le.getLong(84 + 8 * h + 8 * w)).as("word %d", w).isEqualTo(words[w]);
    }
  }

  /** SplitMix64's output for state i * 0x9E3779B97F4A7C15 (its published constants), made odd. */
  private static long splitMixOdd(long i) {
    long z = i * 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return (z ^ (z >>> 31)) | 1;
  }

  @Test
  void everyFlippedByteOfTheBlockedFilesIsRefused() throws IOException {
    for (String name : new String[] {"window-blocked-count-v1.bin", "window-blocked-time-v1.bin"}) {
      byte[] good = Files.readAllBytes(DIR.resolve(name));
      for (int i = 0; i < good.length; i++) {
        byte[] bad = good.clone();
        bad[i] ^= (byte) (1 << (i % 8));
        assertThatThrownBy(() -> Filters.readFrom(new ByteArrayInputStream(bad)))
            .as("%s byte %d flipped", name, i)
            .isInstanceOf(SketchFormatException.class);
      }
    }
  }

  @Test
  void theFilesHoldTheKeysOfTheirWindow() throws IOException {
    AgePartitionedBloomFilter c =
        AgePartitionedBloomFilter.readFrom(
            Files.newInputStream(DIR.resolve("window-count-v1.bin")));
    for (int i = 2_500 - 1_000; i < 2_500; i++) {
      assertThat(c.mightContain("key-" + i)).isTrue();
    }
    AgePartitionedBloomFilter t =
        AgePartitionedBloomFilter.readFrom(Files.newInputStream(DIR.resolve("window-time-v1.bin")));
    long last = 1_700_000_000_000L + 5_000L * 2_499;
    for (int i = 0; i < 2_500; i++) {
      long at = 1_700_000_000_000L + 5_000L * i;
      if (last - at < 3_600_000L) {
        assertThat(t.mightContain("key-" + i, last)).isTrue();
      }
    }
  }
}
