package io.github.probkit.filter;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.Concurrency;
import io.github.probkit.hash.HashStrategy;
import io.github.probkit.io.StructureType;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * A String key and its UTF-8 bytes are one key on every path: a String hashed from its chars
 * (HashStrategy#hash64(CharSequence)) or copied first. Real words (some not ASCII) and joins of
 * them up to 40 chars, under every kind of hash (derived second hash, exact modulo, mixed before
 * use), added as bytes and queried as Strings and back; a filter whose String query hashes from the
 * chars must pass it unchanged.
 */
class StringKeyFiltersTest {
  private static final HashStrategy[] HASHES = {
    HashStrategy.xxh3(),
    HashStrategy.xxh3(0x6a09e667f3bcc908L),
    HashStrategy.fnv1a(),
    HashStrategy.guava(),
    HashStrategy.spark(),
    HashStrategy.xxh64(),
    HashStrategy.redis()
  };

  private static List<String> keys() throws IOException {
    Path dict = Path.of("/usr/share/dict/words");
    Assumptions.assumeTrue(Files.isReadable(dict), "no /usr/share/dict/words");
    List<String> words = Files.readAllLines(dict, StandardCharsets.UTF_8);
    // Distinct: each word, and each word joined to the next two, cut to 9 to 40 chars.
    List<String> keys = new ArrayList<>(words.subList(0, 20_000));
    for (int i = 0; i < 20_000; i++) {
      String joined = "#" + words.get(i) + ":" + words.get(i + 1) + "/" + words.get(i + 2);
      keys.add(joined.substring(0, Math.min(joined.length(), 9 + i % 32)));
    }
    return keys.stream().distinct().toList();
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void keysAddedAsBytesAreFoundAsStringsAndBack() throws IOException {
    List<String> keys = keys();
    for (HashStrategy hash : HASHES) {
      for (Concurrency mode : Concurrency.values()) {
        List<MutableFilter> filters = new ArrayList<>();
        filters.add(BloomFilter.create(keys.size(), 0.01, hash, mode));
        if (StructureType.BLOCKED_BLOOM_FILTER.accepts(hash.algorithm())) {
          filters.add(BlockedBloomFilter.create(keys.size(), 0.01, hash, mode));
        }
        for (MutableFilter f : filters) {
          MutableFilter byString =
              f instanceof BloomFilter
                  ? BloomFilter.create(keys.size(), 0.01, hash, mode)
                  : BlockedBloomFilter.create(keys.size(), 0.01, hash, mode);
          for (String k : keys) {
            f.add(utf8(k));
            byString.add(k);
          }
          for (String k : keys) {
            assertThat(f.mightContain(k)).as("%s %s %s as String", f, hash, k).isTrue();
            assertThat(byString.mightContain(utf8(k))).as("%s %s %s as bytes", f, hash, k).isTrue();
          }
        }
      }
    }
  }

  @Test
  void aCountingFilterLosesNoKeptKeyWhenHalfAreRemovedAsBytes() throws IOException {
    // Added as Strings, half removed as bytes: a String hashed unlike its bytes would take counters
    // from the kept half.
    List<String> keys = keys();
    CountingBloomFilter f = CountingBloomFilter.create(keys.size(), 0.01);
    for (String k : keys) {
      f.add(k);
    }
    for (int i = 0; i < keys.size(); i += 2) {
      assertThat(f.remove(utf8(keys.get(i)))).isTrue();
    }
    for (int i = 1; i < keys.size(); i += 2) {
      assertThat(f.mightContain(keys.get(i))).as(keys.get(i)).isTrue();
      assertThat(f.mightContain(utf8(keys.get(i)))).as(keys.get(i)).isTrue();
    }
  }
}
