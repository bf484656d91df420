package io.github.probkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.cardinality.CardinalitySketches;
import io.github.probkit.filter.Filters;
import io.github.probkit.frequency.CountMinSketch;
import io.github.probkit.frequency.HeavyHitters;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every golden file, three ways: its SHA-256 is the one pinned here (so a file cannot be silently
 * regenerated, least of all by the code it guards); it reads and writes back byte for byte; and the
 * structure built today from its documented keys ({@link GoldenFiles#recipes}) writes exactly its
 * bytes (so hashing, sizing and layout are frozen). The per-type tests check what the files must
 * say from facts known without the code (the seeds' walkthroughs, the keys they hold).
 *
 * <p>A pin changes only with a new format version and a new file beside the old one
 * (docs/FORMAT.md, "Golden files").
 */
class GoldenFilesTest {
  private static final Path DIR = Path.of("src/test/resources/golden");

  /** SHA-256 of each checked-in file, as first written. */
  private static final Map<String, String> PINNED =
      Map.ofEntries(
          Map.entry(
              "binary-fuse16-v1.bin",
              "f1013250b41802ff4f63c9e9a6e51a60cba248247f49e5e9218793ebc15fc26c"),
          Map.entry(
              "binary-fuse16-derivation2-v1.bin",
              "8b78707fdc9285d9af0f734ceca2f17a4bbeaf150ccdf41554dd48e433dfa9a8"),
          Map.entry(
              "binary-fuse8-derivation2-v1.bin",
              "2a8498f4eb505b2dffb868fc4c54fc19c4d52c56100545a73c8bcdec019002a8"),
          Map.entry(
              "binary-fuse8-v1.bin",
              "3e6ce5cb7c67289a6228bf38cb3c29516272fe1170a808ef5004af70ab3ced1d"),
          Map.entry(
              "blocked-v1.bin", "aeca1e488f71aec29a4f5bb84f24f76030fcc33cc8acec0984536034ca55dbf6"),
          Map.entry(
              "bloom-fnv-seed000-v1.bin",
              "f864955834a52d2f4567715a2762b21cfc0c420c406ad65c1edaaa75b0302d36"),
          Map.entry(
              "bloom-xxh3-v1.bin",
              "ef45dbe3874f87115dd1b803d5c44e46f7f323a404126d2a676689c067126b09"),
          Map.entry(
              "bloom-xxh3-v2.bin",
              "1338d9b2dd9744a7911349f5bf4ab9652e02b22029031b2b58d715831a4e8c2d"),
          Map.entry(
              "count-min-conservative-v1.bin",
              "ecdb34d1974ba7556c32371a1c92247bf5dc618354c1fb3b40b2ff7bd16f1ff2"),
          Map.entry(
              "count-min-v1.bin",
              "a438feb17dd031fefd1b323fa3d30877022afbac235be4cba9b81d4a10d514f0"),
          Map.entry(
              "count-min-xxh3-v1.bin",
              "e6d769352567e22d4e25cf4b54d1f5c3f4c602352c6d18c67d7a1dfb12afdb69"),
          Map.entry(
              "counting-v1.bin",
              "bbf7265b975b3eeeb88e14af2d3e10215a590bf8daa0f15fe106cd66b9494e09"),
          Map.entry(
              "cuckoo-v1.bin", "1875e8f7e2a19edf86fec1412f86963332089a8ff483fbaaa1d662ecdae9ba98"),
          Map.entry(
              "heavy-hitters-v1.bin",
              "8c183e8c2f1f082995b457df01a77eef36798a602d45b7966b96b38f6cd4725e"),
          Map.entry(
              "hyperloglog-sparse-v1.bin",
              "7750275542aa50cb158d53f114e1b8bf4e60a5c187697445d30002459a529642"),
          Map.entry(
              "hyperloglog-v1.bin",
              "2335377757343fcb5c266d40bcc72aaa10db00b292c98d4bc9e637bec4d95a36"),
          Map.entry(
              "scalable-v1.bin",
              "b42111eadda0dab0b2477561b5d68a0988cfe3d79c2f96d50dfa0235d7bd93bd"),
          Map.entry(
              "ultraloglog-v1.bin",
              "d314068df5e53c38c94206061033ba4b1c20f5f8938b061f0bb87db9e3deca51"));

  private static TreeSet<String> filesOnDisk() throws IOException {
    try (Stream<Path> files = Files.list(DIR)) {
      return files
          .map(p -> p.getFileName().toString())
          .collect(java.util.stream.Collectors.toCollection(TreeSet::new));
    }
  }

  @Test
  void everyGoldenFileIsPinnedAndHasARecipe() throws IOException {
    assertThat(filesOnDisk()).isEqualTo(new TreeSet<>(PINNED.keySet()));
    TreeSet<String> rebuilt = new TreeSet<>(GoldenFiles.recipes().keySet());
    rebuilt.addAll(GoldenFiles.WITHOUT_RECIPE);
    assertThat(rebuilt).isEqualTo(new TreeSet<>(PINNED.keySet()));
  }

  @Test
  void everyGoldenFileHasItsPinnedHash() throws IOException, NoSuchAlgorithmException {
    for (String name : filesOnDisk()) {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(DIR.resolve(name)));
      assertThat(HexFormat.of().formatHex(digest))
          .as("SHA-256 of %s", name)
          .isEqualTo(PINNED.get(name));
    }
  }

  @Test
  void everyGoldenFileReadsAndWritesBackTheSameBytes() throws IOException {
    for (String name : filesOnDisk()) {
      byte[] file = Files.readAllBytes(DIR.resolve(name));
      assertThat(GoldenFiles.bytes(read(name, new ByteArrayInputStream(file))))
          .as("%s written back", name)
          .isEqualTo(file);
    }
  }

  @Test
  void everyGoldenFileIsTheStructureOfItsDocumentedKeys() throws IOException {
    for (Map.Entry<String, java.util.function.Supplier<GoldenFiles.Writable>> e :
        GoldenFiles.recipes().entrySet()) {
      assertThat(GoldenFiles.bytes(e.getValue().get()))
          .as("%s rebuilt from its keys", e.getKey())
          .isEqualTo(Files.readAllBytes(DIR.resolve(e.getKey())));
    }
  }

  /**
   * The version 2 file: its chunk checksums and the last one are those docs/FORMAT.md defines,
   * recomputed here, and it holds its keys, read whole and mapped.
   */
  @Test
  void theVersion2FileHasItsChunkChecksumsAndHoldsItsKeys() throws IOException {
    Path file = DIR.resolve("bloom-xxh3-v2.bin");
    byte[] b = Files.readAllBytes(file);
    java.nio.ByteBuffer le = java.nio.ByteBuffer.wrap(b).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    assertThat(b[4]).isEqualTo((byte) 2);
    int payload = 28 + le.getInt(16);
    int length = (int) le.getLong(20);
    assertThat(length).isEqualTo(1 << 20);
    java.util.zip.CRC32C last = new java.util.zip.CRC32C();
    last.update(b, 0, payload);
    for (int i = 0; i < 16; i++) {
      java.util.zip.CRC32C chunk = new java.util.zip.CRC32C();
      chunk.update(b, payload + 65536 * i, 65536);
      assertThat(le.getInt(payload + length + 4 * i)).isEqualTo((int) chunk.getValue());
    }
    last.update(b, payload + length, 64);
    assertThat(le.getInt(payload + length + 64)).isEqualTo((int) last.getValue());
    assertThat(b).hasSize(payload + length + 68);
    io.github.probkit.filter.MembershipFilter read = Filters.readFrom(new ByteArrayInputStream(b));
    try (io.github.probkit.filter.MappedFilter mapped =
        io.github.probkit.filter.MappedFilter.open(file)) {
      for (int i = 0; i < 1000; i++) {
        assertThat(read.mightContain("user:" + i)).isTrue();
        assertThat(mapped.mightContain("user:" + i)).isTrue();
      }
    }
  }

  /** The structure in a golden file, read by its type's reader. */
  private static GoldenFiles.Writable read(String name, InputStream in) throws IOException {
    if (name.startsWith("count-min")) {
      return CountMinSketch.readFrom(in)::writeTo;
    }
    if (name.startsWith("heavy-hitters")) {
      return HeavyHitters.readFrom(in)::writeTo;
    }
    if (name.startsWith("hyperloglog") || name.startsWith("ultraloglog")) {
      return CardinalitySketches.readFrom(in)::writeTo;
    }
    return Filters.readFrom(in)::writeTo;
  }
}
