package io.github.probkit.testing;

import io.github.probkit.hash.HashStrategy;
import io.github.probkit.internal.SliceRing;
import io.github.probkit.io.StructureType;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.function.Supplier;

/**
 * The bytes of a windowed sketch that the writers never make: sound as a container (checksum and
 * all), but with an empty slice and slots chosen by the test, so that a reader's checks that the
 * parts agree with one another can be seen.
 */
public final class RingBytes {
  private RingBytes() {}

  /** A ring of 3 one-hour slots, each {@code slot.get()}, whose empty slice is {@code empty}. */
  public static <S> byte[] of(
      StructureType type,
      HashStrategy hash,
      S empty,
      Supplier<S> slot,
      SliceRing.Encoder<S> encoder)
      throws IOException {
    SliceRing<S> ring = new SliceRing<>(3, 3_600_000L, slot);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ring.writeTo(out, type, hash, empty, encoder);
    return out.toByteArray();
  }
}
