package io.github.probkit.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.hash.KeyEncoder;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The filter API a Guava user expects: typed filters, addAll, collectors, merge and copy on the
 * interfaces.
 */
class FilterApiTest {
  record User(long id, String email) {}

  static final KeyEncoder<User> USER = (u, sink) -> sink.putLong(u.id()).putString(u.email());

  /** The same bytes as USER, but another encoder object. */
  static final KeyEncoder<User> SAME_BYTES = (u, sink) -> sink.putLong(u.id()).putString(u.email());

  static User user(int i) {
    return new User(i, "u" + i + "@example.com");
  }

  @Test
  void aTypedFilterKeepsItsEncoder() throws IOException {
    TypedFilter<User, BloomFilter> f = TypedFilter.of(BloomFilter.create(1000, 0.01), USER);
    assertThat(f.add(user(1))).isTrue();
    assertThat(f.addAll(List.of(user(2), user(3)))).isEqualTo(2);
    assertThat(f.addAll(Stream.of(user(4)))).isEqualTo(1);
    for (int i = 1; i <= 4; i++) {
      assertThat(f.mightContain(user(i))).isTrue();
      assertThat(f.filter().mightContain(user(i), USER))
          .as("the same bytes as the untyped call")
          .isTrue();
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    f.writeTo(out);
    TypedFilter<User, MutableFilter> read =
        TypedFilter.readFrom(new ByteArrayInputStream(out.toByteArray()), USER);
    assertThat(read.mightContain(user(3))).isTrue();
    assertThat(read.filter()).isEqualTo(f.filter());
  }

  @Test
  void typedFiltersMergeOnlyWithTheSameEncoder() {
    TypedFilter<User, BloomFilter> a = TypedFilter.of(BloomFilter.create(1000, 0.01), USER);
    TypedFilter<User, BloomFilter> b = TypedFilter.of(BloomFilter.create(1000, 0.01), USER);
    TypedFilter<User, BloomFilter> other =
        TypedFilter.of(BloomFilter.create(1000, 0.01), SAME_BYTES);
    b.add(user(7));
    assertThat(a.isCompatible(b)).isTrue();
    assertThat(a.isCompatible(other)).isFalse();
    assertThatThrownBy(() -> a.merge(other))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("cannot merge filters of different key encoders");
    assertThat(a.merge(b).mightContain(user(7))).isTrue();
    TypedFilter<User, BloomFilter> copy = a.copy();
    copy.add(user(8));
    assertThat(a.mightContain(user(8))).as("the copy is independent").isFalse();
    TypedFilter<User, ScalableBloomFilter> s =
        TypedFilter.of(ScalableBloomFilter.create(1000, 0.01), USER);
    assertThat(s.isCompatible(TypedFilter.of(ScalableBloomFilter.create(1000, 0.01), USER)))
        .isFalse();
    assertThatThrownBy(() -> s.merge(TypedFilter.of(ScalableBloomFilter.create(1000, 0.01), USER)))
        .hasMessage("cannot merge: a scalable filter does not merge");
  }

  @Test
  void collectorsFillFiltersSequentiallyAndInParallel() {
    List<String> keys =
        IntStream.range(0, 20_000).mapToObj(i -> "k" + i).collect(Collectors.toList());
    BloomFilter serial = BloomFilter.create(20_000, 0.01);
    assertThat(serial.addAll(keys))
        .as("the adds that changed the filter")
        .isEqualTo(serialAdds(keys));
    assertThat(keys.stream().collect(Filters.toBloomFilter(20_000, 0.01))).isEqualTo(serial);
    assertThat(keys.parallelStream().collect(Filters.toBloomFilter(20_000, 0.01)))
        .isEqualTo(serial);
    BlockedBloomFilter blocked =
        keys.parallelStream()
            .collect(Filters.toFilter(() -> BlockedBloomFilter.create(20_000, 0.01)));
    assertThat(keys).allMatch(blocked::mightContain);
    TypedFilter<User, BloomFilter> users =
        IntStream.range(0, 1000)
            .mapToObj(FilterApiTest::user)
            .parallel()
            .collect(Filters.toBloomFilter(USER, 1000, 0.01));
    assertThat(IntStream.range(0, 1000).mapToObj(FilterApiTest::user))
        .allMatch(users::mightContain);
    assertThatThrownBy(() -> Filters.toBloomFilter(0, 0.01)).hasMessageContaining("was 0");
  }

  private static long serialAdds(List<String> keys) {
    BloomFilter f = BloomFilter.create(20_000, 0.01);
    return keys.stream().filter(f::add).count();
  }

  @Test
  void addAllTakesLongsStreamsAndEncodedKeys() {
    BloomFilter f = BloomFilter.create(1000, 0.01);
    assertThat(f.addAll(new long[] {1, 2, 3})).isEqualTo(3);
    assertThat(f.addAll(new long[] {1, 2, 3})).as("all present already").isZero();
    assertThat(f.addAll(Stream.of("a", "b"))).isEqualTo(2);
    assertThat(f.addAll(List.of(user(1)), USER)).isEqualTo(1);
    assertThat(LongStream.of(1, 2, 3)).allMatch(f::mightContain);
    assertThat(f.mightContain("b")).isTrue();
    assertThat(f.mightContain(user(1), USER)).isTrue();
  }

  @Test
  void mergeAndCopyThroughTheInterfaces() {
    MergeableFilter bloom = BloomFilter.create(1000, 0.01);
    MembershipFilter cuckoo = CuckooFilter.create(1000, 0.01);
    assertThat(bloom.isCompatible(cuckoo)).isFalse();
    assertThatThrownBy(() -> bloom.merge(cuckoo))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("cannot merge a cuckoo filter into a bloom filter");
    MembershipFilter other = BloomFilter.create(1000, 0.01);
    ((MutableFilter) other).add("x");
    assertThat(bloom.isCompatible(other)).isTrue();
    assertThat(bloom.merge(other).mightContain("x")).isTrue();
    for (MembershipFilter f :
        List.<MembershipFilter>of(
            bloom,
            cuckoo,
            BlockedBloomFilter.create(100, 0.01),
            CountingBloomFilter.create(100, 0.01),
            ScalableBloomFilter.create(100, 0.01),
            BinaryFuseFilter.ofStrings(List.of("a"), BinaryFuseFilter.FingerprintBits.BITS_8))) {
      MembershipFilter copy = f.copy();
      assertThat(copy).isEqualTo(f).hasSameClassAs(f);
      if (f instanceof MutableFilter) {
        ((MutableFilter) copy).add("only in the copy");
        assertThat(f.mightContain("only in the copy")).as(f.type().label()).isFalse();
      }
    }
  }

  @Test
  void deletableFiltersCountAndAddOnceInEveryKeyForm() {
    for (DeletableFilter f :
        List.<DeletableFilter>of(
            CountingBloomFilter.create(1000, 0.01), CuckooFilter.create(1000, 0.01))) {
      f.add(42L);
      f.add(42L);
      assertThat(f.count(42L)).as(f.type().label()).isEqualTo(2);
      f.add(user(1), USER);
      assertThat(f.count(user(1), USER)).isEqualTo(1);
      assertThat(f.count(user(2), USER)).isZero();
      assertThat(f.addIfAbsent("once")).isTrue();
      assertThat(f.addIfAbsent("once")).isFalse();
      assertThat(f.addIfAbsent(7L)).isTrue();
      assertThat(f.addIfAbsent(user(1), USER)).isFalse();
      assertThat(f.count("once")).isEqualTo(1);
      assertThat(f.remove("once")).isTrue();
      assertThat(f.mightContain("once")).isFalse();
    }
  }
}
