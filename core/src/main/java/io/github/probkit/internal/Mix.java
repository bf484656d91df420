package io.github.probkit.internal;

/**
 * A 64-bit bijective finalizer (Stafford's "variant 13", the one SplittableRandom uses): every
 * output bit depends on every input bit. Structures use it to re-randomise a key's hash with a
 * per-instance seed, or to spread a weak hash (FNV-1a) before taking bit fields from it. Not public
 * API.
 */
public final class Mix {
  private Mix() {}

  public static long mix64(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
