package io.github.probkit.frequency;

import com.dynatrace.hash4j.hashing.Hasher64;
import com.dynatrace.hash4j.hashing.Hashing;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.security.SecureRandom;

/**
 * Where a {@link HeavyHitters} summary places an item in its table: a 32-bit hash keyed by random
 * bits of the summary, never written, on which no result depends.
 *
 * <p>Items of up to {@link #SHORT} bytes, the usual case, are hashed by vector multiply-shift
 * (Dietzfelbinger 1996; Thorup, "High speed hashing for integers and strings", 2015, section 3.4):
 * the item, zero-padded, read as 32-bit words x_i, and its length, give {@code (a_0 + a_1 * len +
 * sum a_(i+2) * x_i) mod 2^64 >>> 32} with random 64-bit a_i. That family is strongly universal
 * into 32 bits (64 >= 32 + 32 - 1), so two distinct items share a place with probability 2^-32
 * whatever they are, which is all flood resistance needs: nobody who does not know the a_i can
 * choose items that crowd one probe run. It costs a multiply-add per 4 bytes, where PolymurHash, as
 * almost universal but for any length, cost ~7 ns for a 20-byte item (its 128-bit products and
 * reductions modulo 2^61 - 1), ~15 % of an add. Longer items are placed by PolymurHash 2.0 with an
 * independent key: each family's value is uniform, so a short and a long item share a place with
 * probability 2^-32 as well.
 */
final class Placement {
  /** The longest item placed by multiply-shift. */
  static final int SHORT = 64;

  private static final VarHandle LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle INT =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

  /** The source of the keys; a result never depends on what it draws. */
  private static final class Keys {
    static final SecureRandom RANDOM = new SecureRandom();
  }

  /** a_0, a_1, then two per 8 bytes of a short item; null when every item goes to {@code long}. */
  private final long[] keys;

  private final Hasher64 longItems;
  private final long prioritySeed;

  private Placement(long[] keys, Hasher64 longItems, long prioritySeed) {
    this.keys = keys;
    this.longItems = longItems;
    this.prioritySeed = prioritySeed;
  }

  /** A placement of fresh random keys. */
  static Placement random() {
    return keyed(Keys.RANDOM.longs(2 + SHORT / 4 + 3).toArray());
  }

  /**
   * The placement of the given keys (tests fix them): the multiply-shift keys first, then the
   * PolymurHash key and the seed of the treap's priorities.
   */
  static Placement keyed(long[] k) {
    int n = 2 + SHORT / 4;
    return new Placement(
        java.util.Arrays.copyOf(k, n), Hashing.polymurHash2_0(0, k[n], k[n + 1]), k[n + 2]);
  }

  /** Every item placed by {@code hash} (tests give a public one, to show what a flood does). */
  static Placement of(Hasher64 hash) {
    return new Placement(null, hash, hash.hashLongToLong(0x243f6a8885a308d3L));
  }

  /** A seed for the priorities of the count buckets' treap, as secret as the placement. */
  long prioritySeed() {
    return prioritySeed;
  }

  int place(byte[] b, int off, int len) {
    long[] a = keys;
    if (a == null || len > SHORT) {
      return (int) longItems.hashBytesToLong(b, off, len);
    }
    long sum = a[0] + a[1] * len;
    int k = 2;
    int i = 0;
    for (; i + 8 <= len; i += 8, k += 2) {
      long w = (long) LONG.get(b, off + i);
      sum += a[k] * (w & 0xffffffffL) + a[k + 1] * (w >>> 32);
    }
    int r = len - i;
    if (r > 0) {
      // The last r bytes as one zero-padded word, read in one or two loads; given the length, the
      // words still determine the item.
      long w;
      if (len >= 8) {
        w = (long) LONG.get(b, off + len - 8) >>> (64 - 8 * r);
      } else if (r >= 4) {
        w = ((int) INT.get(b, off) & 0xffffffffL) | (long) (int) INT.get(b, off + r - 4) << 32;
      } else {
        w = b[off] & 0xff;
        for (int j = 1; j < r; j++) {
          w |= (b[off + j] & 0xffL) << (8 * j);
        }
      }
      sum += a[k] * (w & 0xffffffffL) + a[k + 1] * (w >>> 32);
    }
    return (int) (sum >>> 32);
  }
}
