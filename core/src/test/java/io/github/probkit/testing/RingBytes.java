package io.github.probkit.testing;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.hash.HashStrategy;
import io.github.probkit.internal.SliceRing;
import io.github.probkit.io.SketchFormatException;
import io.github.probkit.io.StructureType;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.function.Supplier;

/**
 * The bytes of a windowed sketch that the writers never make: sound as a container (checksum and
 * all), but with an empty slice and slots chosen by the test, so that a reader's checks that the
 * parts agree with one another can be seen.
 */
public final class RingBytes {
  private RingBytes() {}

  /**
   * A ring of 3 one-hour slots whose empty slice is {@code empty}, its slot 0 {@code first.get()}
   * and the others {@code rest.get()} (so that a reader's message must name slot 1).
   */
  public static <S> byte[] of(
      StructureType type,
      HashStrategy hash,
      S empty,
      Supplier<S> first,
      Supplier<S> rest,
      SliceRing.Encoder<S> encoder)
      throws IOException {
    int[] made = {0};
    return of(
        3, 3_600_000L, type, hash, empty, () -> made[0]++ == 0 ? first.get() : rest.get(), encoder);
  }

  /** A ring of any number and span of slots, each {@code slot.get()}, unchecked. */
  public static <S> byte[] of(
      int slots,
      long sliceMillis,
      StructureType type,
      HashStrategy hash,
      S empty,
      Supplier<S> slot,
      SliceRing.Encoder<S> encoder)
      throws IOException {
    SliceRing<S> ring = new SliceRing<>(slots, sliceMillis, slot);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ring.writeTo(out, type, hash, empty, encoder);
    return out.toByteArray();
  }

  /** One of the windowed sketches' {@code readFrom}. */
  public interface Reader {
    Object read(InputStream in) throws IOException;
  }

  /** {@code reader} refuses {@code bytes} with a message naming {@code field}. */
  public static void assertRefused(Reader reader, byte[] bytes, String field) {
    assertThatThrownBy(() -> reader.read(new ByteArrayInputStream(bytes)))
        .isInstanceOf(SketchFormatException.class)
        .hasMessageContaining(field);
  }
}
