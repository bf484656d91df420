package io.github.probkit.filter;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.hash.HashStrategy;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
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
          "window-time-v1.bin", "4de428766afd9b675468d8eda1cf218eecd17127aa7661ebd9c0973f240f6dbb");

  /** The last 1,000 of keys "key-0" .. "key-2499", at 1 %. */
  static AgePartitionedBloomFilter byCount() {
    AgePartitionedBloomFilter f = AgePartitionedBloomFilter.create(1_000, 0.01);
    for (int i = 0; i < 2_500; i++) {
      f.add("key-" + i);
    }
    return f;
  }

  /** A 1 h window sized for 1,000 keys, "key-i" at 2023-11-14T22:13:20Z + 5 s i, i < 2,500. */
  static AgePartitionedBloomFilter byTime() {
    AgePartitionedBloomFilter f =
        AgePartitionedBloomFilter.create(
            Duration.ofHours(1), 1_000, 0.01, HashStrategy.xxh3(), Clock.systemUTC());
    for (int i = 0; i < 2_500; i++) {
      f.add("key-" + i, 1_700_000_000_000L + 5_000L * i);
    }
    return f;
  }

  private static final Map<String, Supplier<AgePartitionedBloomFilter>> RECIPES =
      Map.of(
          "window-count-v1.bin", WindowGoldenFilesTest::byCount,
          "window-time-v1.bin", WindowGoldenFilesTest::byTime);

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
