package io.github.probkit.filter;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.Concurrency;
import io.github.probkit.GoldenFiles;
import io.github.probkit.hash.HashStrategy;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The ways of building and reading the same filter agree: single-writer and concurrent, one key at
 * a time and in batches (of keys, of byte slices, of hashes), merged from parts in either mode or
 * built whole, held on the heap or mapped from its file, with large arrays aligned to cache lines
 * or not (each garbage collector: {@link CollectorsAgreeTest}). Same operations, same bits, answers
 * and bytes.
 */
class ModesAgreeTest {

  enum Kind {
    BLOOM,
    BLOOM_FNV,
    BLOCKED,
    BLOCKED_TIGHT;

    MutableFilter create(Concurrency c) {
      switch (this) {
        case BLOOM:
          return BloomFilter.create(20_000, 0.01, c);
        case BLOOM_FNV:
          return BloomFilter.create(20_000, 0.01, HashStrategy.fnv1a(), c);
        case BLOCKED:
          return BlockedBloomFilter.create(20_000, 0.01, c);
        default:
          return BlockedBloomFilter.create(20_000, 0.0001, c); // k > 7
      }
    }
  }

  enum Path_ {
    ONE_BY_ONE,
    SLICES,
    HASHES
  }

  private static byte[] bytes(MembershipFilter f) throws IOException {
    return GoldenFiles.bytes(f::writeTo);
  }

  private static byte[] keyBytes(long key) {
    return ("k" + key).getBytes(StandardCharsets.UTF_8);
  }

  /** Adds {@code keys} as "k" + number, by {@code path}. */
  private static void add(MutableFilter f, long[] keys, Path_ path) {
    switch (path) {
      case ONE_BY_ONE:
        for (long k : keys) {
          f.add(keyBytes(k));
        }
        break;
      case SLICES:
        {
          ByteArrayOutputStream buf = new ByteArrayOutputStream();
          int[] offsets = new int[keys.length];
          int[] lengths = new int[keys.length];
          for (int i = 0; i < keys.length; i++) {
            byte[] b = keyBytes(keys[i]);
            offsets[i] = buf.size();
            lengths[i] = b.length;
            buf.writeBytes(b);
            buf.write('\n');
          }
          f.addAll(buf.toByteArray(), offsets, lengths, keys.length);
          break;
        }
      default:
        long[] hashes = new long[keys.length];
        for (int i = 0; i < keys.length; i++) {
          hashes[i] = f.hashStrategy().hash64(keyBytes(keys[i]));
        }
        f.addAllHashes(hashes, 0, hashes.length);
    }
  }

  /**
   * Keys split in two parts, each built by every path in both modes, merged into one of either
   * mode, or into an empty filter: the bytes of one filter given all the keys one by one; its
   * answers, on the heap and mapped, one by one and in batches, those of that filter.
   */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void everyWayOfBuildingGivesTheSameFilter(Kind kind, @TempDir Path dir) throws IOException {
    SplittableRandom r = new SplittableRandom(0x40de5L + kind.ordinal());
    long[] left = r.longs(6_000).toArray();
    long[] right = r.longs(9_000).toArray();
    long[] absent = r.longs(20_000).toArray();
    MutableFilter whole = kind.create(Concurrency.SINGLE_WRITER);
    add(whole, left, Path_.ONE_BY_ONE);
    add(whole, right, Path_.ONE_BY_ONE);
    byte[] expected = bytes(whole);

    for (Concurrency into : Concurrency.values()) {
      for (Concurrency from : Concurrency.values()) {
        for (Path_ path : Path_.values()) {
          if (path == Path_.HASHES && !whole.hashSuffices()) {
            continue;
          }
          String as = "into " + into + " from " + from + " by " + path;
          MutableFilter a = kind.create(into);
          MutableFilter b = kind.create(from);
          add(a, left, path);
          add(b, right, path);
          ((MergeableFilter) a).merge(b);
          assertThat(bytes(a)).as(as).isEqualTo(expected);
          MutableFilter empty = kind.create(into);
          ((MergeableFilter) empty).merge(a);
          assertThat(bytes(empty)).as(as + ", then into an empty one").isEqualTo(expected);
          // Merged the other way round: OR is symmetric.
          ((MergeableFilter) b).merge(kind.create(into));
          MutableFilter c = kind.create(into);
          add(c, left, path);
          ((MergeableFilter) b).merge(c);
          assertThat(bytes(b)).as(as + ", the other way round").isEqualTo(expected);
        }
      }
    }

    Path file = dir.resolve("f");
    Files.write(file, expected);
    try (MappedFilter mapped = MappedFilter.open(file)) {
      long[] queries = new long[left.length + right.length + absent.length];
      System.arraycopy(left, 0, queries, 0, left.length);
      System.arraycopy(right, 0, queries, left.length, right.length);
      System.arraycopy(absent, 0, queries, left.length + right.length, absent.length);
      boolean[] heapBatch = new boolean[queries.length];
      boolean[] mappedBatch = new boolean[queries.length];
      whole.mightContainAll(queries, heapBatch);
      mapped.mightContainAll(queries, mappedBatch);
      int present = 0;
      for (int i = 0; i < queries.length; i++) {
        boolean one = whole.mightContain(queries[i]);
        assertThat(mapped.mightContain(queries[i])).as("key %d", i).isEqualTo(one);
        assertThat(heapBatch[i]).as("key %d", i).isEqualTo(one);
        assertThat(mappedBatch[i]).as("key %d", i).isEqualTo(one);
        byte[] kb = keyBytes(queries[i]);
        boolean added = i < left.length + right.length;
        assertThat(whole.mightContain(kb) || !added).as("added key %d", i).isTrue();
        assertThat(mapped.mightContain(kb))
            .as("key %d as bytes", i)
            .isEqualTo(whole.mightContain(kb));
        present += whole.mightContain(kb) ? 1 : 0;
      }
      assertThat(present).isGreaterThanOrEqualTo(left.length + right.length);
      assertThat(bytes(mapped)).isEqualTo(expected);
    }
  }
}
