package io.github.probkit.testing;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

/** Seeded key sets for tests. */
public final class Keys {
  private Keys() {}

  /** The 8 little-endian bytes of {@code v}: the bytes probkit hashes for a long key. */
  public static byte[] littleEndian(long v) {
    return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(v).array();
  }

  /** {@code n} distinct random byte keys of 4 to 24 bytes. */
  public static List<byte[]> randomBytes(int n, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    Set<String> seen = new LinkedHashSet<>();
    List<byte[]> out = new ArrayList<>(n);
    while (out.size() < n) {
      byte[] k = new byte[4 + r.nextInt(21)];
      for (int i = 0; i < k.length; i++) {
        k[i] = (byte) r.nextInt(256);
      }
      if (seen.add(new String(k, StandardCharsets.ISO_8859_1))) {
        out.add(k);
      }
    }
    return out;
  }

  /** {@code prefix + i} for i in [from, from + n), as UTF-8 bytes: sequential, similar keys. */
  public static List<byte[]> sequential(String prefix, int from, int n) {
    List<byte[]> out = new ArrayList<>(n);
    for (int i = from; i < from + n; i++) {
      out.add((prefix + i).getBytes(StandardCharsets.UTF_8));
    }
    return out;
  }
}
