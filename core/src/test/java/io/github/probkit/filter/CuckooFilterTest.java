package io.github.probkit.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.GoldenFiles;
import io.github.probkit.hash.HashStrategy;
import io.github.probkit.io.SketchFormatException;
import io.github.probkit.io.StructureType;
import io.github.probkit.testing.Binomial;
import io.github.probkit.testing.Bytes;
import io.github.probkit.testing.Keys;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CuckooFilterTest {

  @Test
  void putThrowsWhenTheTableHasNoRoomAndNeverDropsAKey() {
    // put has no answer to give: on a full table it must throw, not return with the key lost.
    // Long and String keys alternate (put(long) and put(CharSequence) both).
    CuckooFilter f = CuckooFilter.withBuckets(16, 8);
    List<Long> stored = new ArrayList<>();
    boolean threw = false;
    for (long k = 0; k < 1_000 && !threw; k++) {
      long before = f.size();
      try {
        if (k % 2 == 0) {
          f.put(k);
        } else {
          f.put("key " + k);
        }
        stored.add(k);
      } catch (IllegalStateException full) {
        assertThat(full).hasMessageContaining("no room");
        assertThat(f.size()).isEqualTo(before);
        threw = true;
      }
    }
    assertThat(threw).as("the table filled up").isTrue();
    for (long k : stored) {
      assertThat(k % 2 == 0 ? f.mightContain(k) : f.mightContain("key " + k))
          .as("key %d", k)
          .isTrue();
    }
  }

  /**
   * Every fingerprint width, packed four to a word (up to 16 bits) or not: addIfAbsent stores a key
   * exactly when the filter did not already answer present, repeated keys take one slot, the hash
   * batches answer as the keys do, and after removing half the stored keys the other half all stay
   * present.
   */
  @ParameterizedTest
  @ValueSource(ints = {5, 8, 12, 16, 17, 20, 32})
  void addIfAbsentRemoveHalfAndHashBatchesKeepEveryKeptKey(int bits) {
    CuckooFilter f = CuckooFilter.withBuckets(1024, bits);
    List<byte[]> keys = Keys.sequential("nx:", 0, 3_000);
    List<byte[]> stored = new ArrayList<>();
    for (byte[] k : keys) {
      boolean present = f.mightContain(k);
      long size = f.size();
      boolean added = f.addIfAbsent(k);
      assertThat(added).as("stored exactly when not present before").isEqualTo(!present);
      assertThat(f.size()).isEqualTo(size + (added ? 1 : 0));
      assertThat(f.mightContain(k)).isTrue();
      if (added) {
        stored.add(k);
        assertThat(f.addIfAbsent(k)).as("a repeated key").isFalse();
        assertThat(f.size()).isEqualTo(size + 1);
      }
    }
    assertThat(stored.size()).as("false positives refused").isGreaterThan(keys.size() * 9 / 10);
    HashStrategy h = f.hashStrategy();
    long[] hashes = stored.stream().mapToLong(h::hash64).toArray();
    CuckooFilter byHash = CuckooFilter.withBuckets(1024, bits);
    assertThat(byHash.addAllHashes(hashes, 0, hashes.length)).isEqualTo(hashes.length);
    for (int i = 0; i < stored.size(); i++) {
      if (i % 2 == 0) {
        byte[] k = stored.get(i);
        int copies = f.count(k);
        assertThat(f.remove(k)).isTrue();
        assertThat(f.count(k)).as("one copy removed").isEqualTo(copies - 1);
        assertThat(byHash.remove(k)).isTrue();
      }
    }
    assertThat(f).as("the same keys by hash and by key").isEqualTo(byHash);
    long[] all = keys.stream().mapToLong(h::hash64).toArray();
    boolean[] present = new boolean[all.length];
    int found = f.mightContainAllHashes(all, 0, all.length, present);
    int expected = 0;
    for (int i = 0; i < keys.size(); i++) {
      assertThat(present[i]).as("key %d", i).isEqualTo(f.mightContain(keys.get(i)));
      expected += present[i] ? 1 : 0;
    }
    assertThat(found).isEqualTo(expected);
    for (int i = 1; i < stored.size(); i += 2) {
      assertThat(f.mightContain(stored.get(i))).as("kept key %d", i).isTrue();
      assertThat(f.count(stored.get(i))).as("kept key %d", i).isPositive();
    }
  }

  @Test
  void equalityFollowsTheTableAndTheShape() throws IOException {
    CuckooFilter f = CuckooFilter.withBuckets(64, 20);
    f.add("a");
    CuckooFilter read = CuckooFilter.readFrom(new ByteArrayInputStream(bytes(f)));
    assertThat(read).isEqualTo(f).hasSameHashCodeAs(f);
    assertThat(read.hashStrategy()).isEqualTo(f.hashStrategy());
    assertThat(read.isCompatible(f)).isTrue();
    read.add("b");
    assertThat(read).as("one more key").isNotEqualTo(f);
    CuckooFilter narrower = CuckooFilter.withBuckets(64, 12);
    assertThat(narrower).isNotEqualTo(CuckooFilter.withBuckets(64, 20));
    assertThat(narrower.isCompatible(f)).isFalse();
    assertThat(f.isCompatible(BloomFilter.create(100, 0.01))).isFalse();
    assertThat(f).isNotEqualTo("a");
    assertThat(f.toString()).contains("buckets=64", "fingerprintBits=20");
    assertThat(narrower.hashCode()).isNotEqualTo(f.hashCode());
    assertThat(f.mightContain(12_345L)).as("a long key never added").isFalse();
  }

  @Test
  void aMergeThatExactlyFillsTheTableIsAccepted() {
    List<byte[]> keys = Keys.sequential("fill:", 0, 5);
    CuckooFilter one = CuckooFilter.withBuckets(1, 16);
    CuckooFilter other = CuckooFilter.withBuckets(1, 16);
    one.add(keys.get(0));
    one.add(keys.get(1));
    other.add(keys.get(2));
    other.add(keys.get(3));
    assertThat(one.merge(other)).isSameAs(one);
    assertThat(one.size()).isEqualTo(4);
    for (byte[] k : keys.subList(0, 4)) {
      assertThat(one.mightContain(k)).isTrue();
    }
    CuckooFilter fifth = CuckooFilter.withBuckets(1, 16);
    fifth.add(keys.get(4));
    assertThatThrownBy(() -> one.merge(fifth))
        .hasMessageContaining("4 + 1 keys exceed the 4 slots");
  }

  private static final String GOLDEN = "cuckoo-v1.bin";

  private static byte[] bytes(MembershipFilter f) throws IOException {
    return GoldenFiles.bytes(f::writeTo);
  }

  /**
   * The table of each kind of bucket (6 bits: narrow, straddling words; 8 and 16: within a word;
   * 12; 20: wide, slot by slot) after filling to the point of refusals, removals and more adds: the
   * SHA-256 of its bytes as written by the code before the whole-bucket put (main at ef6dffe),
   * which must not change them. The golden file pins 10 bits only.
   */
  @Test
  void aFullTableHasTheSameBytesAsBeforeForEveryKindOfBucket() throws Exception {
    String[] expected = {
      "6 8860 0875de2006ab050e3a2652b3811b3c61e3c674d16240ac5b70466946cfa04f90",
      "8 8871 d3f23c2a76f2adafc083064ba26b92b6d383bb5041acc97d7a73afeaf19b2b4b",
      "12 8847 6dbd8ec20dc6ec9127b104ea9017e64b04cc94823d8b599c5a9391652e58f8ef",
      "16 8876 e466ff66ab540210a14e3a4be95a52259d1a4339308f449bb0651484dfe67325",
      "20 8856 1d95c301e8695be99ac08200b66c94e6a65565fa89e9635ca487ac8acc82d073",
    };
    List<String> actual = new ArrayList<>();
    for (int f : new int[] {6, 8, 12, 16, 20}) {
      CuckooFilter c = CuckooFilter.withBuckets(2000, f);
      int stored = 0;
      for (long i = 0; i < 8200; i++) {
        stored += c.add(i * 0x9E3779B97F4A7C15L) ? 1 : 0;
      }
      for (long i = 0; i < 1000; i++) {
        c.remove(i * 0x9E3779B97F4A7C15L);
      }
      for (long i = 0; i < 1000; i++) {
        stored += c.add(~i) ? 1 : 0;
      }
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      c.writeTo(out);
      byte[] sha = java.security.MessageDigest.getInstance("SHA-256").digest(out.toByteArray());
      actual.add(f + " " + stored + " " + java.util.HexFormat.of().formatHex(sha));
    }
    assertThat(actual).containsExactly(expected);
  }

  @Test
  void fingerprintBitsFollowThePaperBound() {
    // The least f with 8 / (2^f - 1) <= p.
    assertThat(CuckooFilter.fingerprintBits(0.01)).isEqualTo(10);
    assertThat(CuckooFilter.fingerprintBits(0.001)).isEqualTo(13);
    assertThat(CuckooFilter.fingerprintBits(0.03)).isEqualTo(9);
    assertThat(CuckooFilter.fingerprintBits(0.6)).isEqualTo(4);
    assertThat(CuckooFilter.fingerprintBits(0.5)).as("8/15 is above 0.5").isEqualTo(5);
    assertThat(CuckooFilter.fingerprintBits(8.0 / 1023)).isEqualTo(10);
    assertThat(CuckooFilter.fingerprintBits(1.0 / 128))
        .as("8/1023 is just above 2^-7")
        .isEqualTo(11);
    assertThatThrownBy(() -> CuckooFilter.fingerprintBits(1e-12)).hasMessageContaining("1.0E-12");
  }

  @Test
  void sizedForNinetyPercentLoad() {
    // ceil((1000 / 0.9 + 6 sqrt(1000 / 0.9)) / 4) = ceil(327.8) = 328 buckets of 4 slots of 10
    // bits:
    // 13,120 bits in 205 longs.
    CuckooFilter f = CuckooFilter.create(1000, 0.01);
    assertThat(f.bucketCount()).isEqualTo(328);
    assertThat(f.fingerprintBits()).isEqualTo(10);
    assertThat(f.bitSize()).isEqualTo(13_120);
    assertThat(f.byteSize()).isEqualTo(1640);
  }

  @Test
  void falsePositiveRateMatchesTheory() {
    int n = 50_000;
    int probes = 200_000;
    CuckooFilter f = CuckooFilter.create(n, 0.01);
    for (byte[] k : Keys.sequential("in:", 0, n)) {
      assertThat(f.add(k)).isTrue();
    }
    int fp = 0;
    for (byte[] k : Keys.sequential("out:", 0, probes)) {
      fp += f.mightContain(k) ? 1 : 0;
    }
    // Each query compares 8 * load fingerprints of 1 in 1023.
    double load = 50_000.0 / (4 * f.bucketCount());
    double theory = 1 - Math.pow(1 - 1.0 / 1023, 8 * load);
    assertThat(f.load()).isEqualTo(load);
    long[] interval = Binomial.interval(probes, theory, 0.999);
    assertThat((long) fp).isBetween(interval[0], interval[1]);
    assertThat(theory).isLessThan(0.01);
  }

  /**
   * Filling a table to the end: adds succeed to about 95 % load; a failed add leaves the table byte
   * for byte as it was, and no key that was stored is ever lost, however many adds fail.
   */
  @Test
  void aFullTableRefusesNewKeysAndLosesNone() throws IOException {
    CuckooFilter f = CuckooFilter.withBuckets(1000, 12);
    List<byte[]> stored = new ArrayList<>();
    double firstFailureLoad = -1;
    int failures = 0;
    for (byte[] k : Keys.randomBytes(5_000, 0x5eed3001L)) {
      byte[] before = firstFailureLoad < 0 ? null : bytes(f);
      if (f.add(k)) {
        stored.add(k);
      } else {
        failures++;
        if (firstFailureLoad < 0) {
          firstFailureLoad = f.load();
        } else {
          assertThat(bytes(f)).as("a failed add changed the table").isEqualTo(before);
        }
      }
    }
    assertThat(firstFailureLoad).as("load at the first failure").isGreaterThan(0.9);
    assertThat(failures).isGreaterThan(900);
    assertThat(f.size()).isEqualTo(stored.size());
    assertThat(f.load()).isLessThanOrEqualTo(1.0).isGreaterThan(0.95);
    for (byte[] k : stored) {
      assertThat(f.mightContain(k)).as("a stored key was lost").isTrue();
    }
    // Room made by removals is used again.
    for (byte[] k : stored.subList(0, 100)) {
      assertThat(f.remove(k)).isTrue();
    }
    int readded = 0;
    for (byte[] k : stored.subList(0, 100)) {
      readded += f.add(k) ? 1 : 0;
    }
    assertThat(readded).isGreaterThan(90);
  }

  @Test
  void theFirstFailedAddChangesNothingEither() throws IOException {
    CuckooFilter f = CuckooFilter.withBuckets(64, 8);
    for (byte[] k : Keys.randomBytes(1_000, 0x5eed3002L)) {
      byte[] before = bytes(f);
      if (!f.add(k)) {
        assertThat(bytes(f)).isEqualTo(before);
        return;
      }
    }
    throw new AssertionError("64 buckets took 1000 keys");
  }

  @Test
  void aKeyFitsEightTimesAndIsCounted() throws IOException {
    CuckooFilter f = CuckooFilter.create(1000, 0.01);
    for (int i = 1; i <= 8; i++) {
      assertThat(f.add("dup")).isTrue();
      assertThat(f.count("dup")).isEqualTo(i);
    }
    byte[] before = bytes(f);
    assertThat(f.add("dup")).as("both buckets hold only dup").isFalse();
    assertThat(bytes(f)).isEqualTo(before);
    assertThat(f.maxCopies("dup".getBytes(StandardCharsets.UTF_8), 0, 3))
        .as("what tells this refusal from a full table")
        .isEqualTo(8);
    for (int i = 7; i >= 0; i--) {
      assertThat(f.remove("dup")).isTrue();
      assertThat(f.count("dup")).isEqualTo(i);
    }
    assertThat(f.remove("dup")).isFalse();
    assertThat(f.size()).isZero();
  }

  @Test
  void aSingleBucketHoldsFour() {
    CuckooFilter f = CuckooFilter.withBuckets(1, 16);
    List<byte[]> keys = Keys.sequential("one:", 0, 5);
    for (byte[] k : keys.subList(0, 4)) {
      assertThat(f.add(k)).isTrue();
    }
    assertThat(f.add(keys.get(4))).isFalse();
    assertThat(f.load()).isEqualTo(1.0);
    // Every key's two buckets are the one bucket: 4 copies at most.
    assertThat(f.maxCopies(keys.get(4), 0, keys.get(4).length)).isEqualTo(4);
  }

  @Test
  void mergeStoresBothAllOrNothing() throws IOException {
    CuckooFilter a = CuckooFilter.create(10_000, 0.01);
    CuckooFilter b = CuckooFilter.create(10_000, 0.01);
    List<byte[]> ka = Keys.sequential("a:", 0, 4_000);
    List<byte[]> kb = Keys.sequential("b:", 0, 4_000);
    ka.forEach(a::add);
    kb.forEach(b::add);
    a.merge(b);
    assertThat(a.size()).isEqualTo(8_000);
    for (byte[] k : kb) {
      assertThat(a.mightContain(k)).isTrue();
      assertThat(a.remove(k)).isTrue();
    }
    for (byte[] k : ka) {
      assertThat(a.mightContain(k)).isTrue();
    }
    // a now holds 4,000 keys, c 7,600: 11,600 keys in 11,744 slots (99 %) is past the maximum load.
    CuckooFilter c = CuckooFilter.create(10_000, 0.01);
    Keys.sequential("c:", 0, 7_600).forEach(c::add);
    byte[] before = bytes(a);
    assertThatThrownBy(() -> a.merge(c))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("does not fit");
    assertThat(bytes(a)).as("a refused merge leaves the filter as it was").isEqualTo(before);
    assertThat(a.size()).isEqualTo(4_000);
    CuckooFilter d = CuckooFilter.create(10_000, 0.01);
    Keys.sequential("d:", 0, 8_000).forEach(d::add);
    assertThatThrownBy(() -> a.merge(d))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("exceed");
  }

  @Test
  void mergeRefusesIncompatibleFiltersNamingBothValues() {
    CuckooFilter a = CuckooFilter.withBuckets(100, 10);
    assertThatThrownBy(() -> a.merge(a)).hasMessageContaining("itself");
    assertThatThrownBy(() -> a.merge(CuckooFilter.withBuckets(101, 10)))
        .hasMessageContaining("100 buckets and 101");
    assertThatThrownBy(() -> a.merge(CuckooFilter.withBuckets(100, 12)))
        .hasMessageContaining("10 and 12");
    CuckooFilter seeded = CuckooFilter.withBuckets(100, 10, HashStrategy.xxh3(7));
    assertThatThrownBy(() -> a.merge(seeded)).hasMessageContaining("xxh3(seed=0x7)");
  }

  @Test
  void badShapesAreRefusedWithTheValue() {
    assertThatThrownBy(() -> CuckooFilter.withBuckets(0, 8))
        .hasMessageContaining("buckets")
        .hasMessageContaining("was 0");
    assertThatThrownBy(() -> CuckooFilter.withBuckets(10, 3))
        .hasMessageContaining("fingerprintBits")
        .hasMessageContaining("was 3");
    assertThatThrownBy(() -> CuckooFilter.withBuckets(10, 33)).hasMessageContaining("was 33");
  }

  @Test
  void corruptFieldsAreNamed() throws IOException {
    CuckooFilter f = CuckooFilter.withBuckets(10, 12);
    f.add("x");
    byte[] good = bytes(f);
    assertThatThrownBy(
            () -> Filters.readFrom(new ByteArrayInputStream(Bytes.putLong(good, Bytes.PARAMS, 0))))
        .isInstanceOf(SketchFormatException.class)
        .hasMessageContaining("'buckets' is 0");
    assertThatThrownBy(
            () ->
                Filters.readFrom(
                    new ByteArrayInputStream(Bytes.putInt(good, Bytes.PARAMS + 8, 40))))
        .isInstanceOf(SketchFormatException.class)
        .hasMessageContaining("'fingerprintBits' is 40");
    // 40 slots of 12 bits: 480 bits, 7 full words and 32 bits of the 8th.
    int lastWord = good.length - 4 - 8;
    assertThatThrownBy(
            () -> Filters.readFrom(new ByteArrayInputStream(Bytes.putLong(good, lastWord, -1L))))
        .isInstanceOf(SketchFormatException.class)
        .hasMessageContaining("beyond");
  }

  @Test
  void sizeIsCountedBackFromTheTable() throws IOException {
    CuckooFilter f = CuckooFilter.create(1000, 0.001);
    Keys.sequential("s:", 0, 700).forEach(f::add);
    CuckooFilter g = (CuckooFilter) Filters.readFrom(new ByteArrayInputStream(bytes(f)));
    assertThat(g.size()).isEqualTo(700);
    assertThat(g.approximateCount()).isEqualTo(700);
    assertThat(g).isEqualTo(f);
  }

  // ---- golden file: 200 keys at 1 %, 50 removed, one key added three times

  @Test
  void readsTheGoldenFile() throws IOException {
    byte[] file = GoldenFiles.golden(GOLDEN);
    MembershipFilter read = Filters.readFrom(new ByteArrayInputStream(file));
    assertThat(read.type()).isEqualTo(StructureType.CUCKOO_FILTER);
    CuckooFilter f = (CuckooFilter) read;
    // ceil(200 / 3.6) = 56 buckets; 10-bit fingerprints for 1 %.
    assertThat(f.bucketCount()).isEqualTo(56);
    assertThat(f.fingerprintBits()).isEqualTo(10);
    assertThat(f.expectedKeys()).isEqualTo(200);
    assertThat(f.targetFpp()).isEqualTo(0.01);
    assertThat(f.byteSize()).isEqualTo(8 * 35);
    assertThat(f.size()).isEqualTo(200 - 50 + 3);
    for (byte[] k : Keys.sequential("golden:", 50, 150)) {
      assertThat(f.mightContain(k)).isTrue();
    }
    assertThat(f.count("thrice")).isGreaterThanOrEqualTo(3);
    assertThat(bytes(f)).as("written back byte for byte").isEqualTo(file);
  }
}
