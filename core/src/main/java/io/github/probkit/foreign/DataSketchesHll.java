package io.github.probkit.foreign;

import io.github.probkit.cardinality.HyperLogLog;
import io.github.probkit.hash.HashStrategy;
import io.github.probkit.internal.Ertl;
import io.github.probkit.io.SketchFormatException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.OptionalDouble;
import java.util.Set;

/**
 * Apache DataSketches' HLL sketch (datasketches-java's {@code HllSketch}; what Spark 4's {@code
 * hll_sketch_agg}, Druid and Pinot store): read from its compact or updatable bytes (HLL_4, HLL_6,
 * HLL_8; LIST, SET and HLL modes), counted, merged as DataSketches' union merges, converted to a
 * probkit {@link HyperLogLog} and written as HLL_8.
 *
 * <pre>
 *   offset  size  field (little-endian)
 *        0     1  preamble ints: 2 LIST, 3 SET, 10 HLL
 *        1     1  serial version: 1
 *        2     1  family: 7 (HLL)
 *        3     1  lgK, 4..21
 *        4     1  lgArr: log2 of the coupon (LIST, SET) or HLL_4 exception table's ints
 *        5     1  flags: 4 empty, 8 compact, 16 out of order, 32 rebuild (2 read-only, 1 unused)
 *        6     1  LIST: coupon count; HLL: curMin
 *        7     1  mode: bits 0-1 LIST 0, SET 1, HLL 2; bits 2-3 target type HLL_4 0, HLL_6 1, HLL_8 2
 *   LIST  8        coupons, 4 bytes each: value (6 bits) &lt;&lt; 26 | 26 bits of the key's hash
 *   SET   8     4  coupon count; 12: the coupons (compact) or their hash table (0 = free)
 *   HLL   8     8  HIP accumulator (double)
 *        16     8  kxq0: sum of 2^-v over the slots of value v &lt; 32
 *        24     8  kxq1: the same for v &gt;= 32
 *        32     4  slots at curMin
 *        36     4  HLL_4 exceptions
 *        40        the slots: HLL_8 a byte each; HLL_6 6 bits each, slot i in bits 6i .. 6i + 5
 *                  read little-endian, 3K/4 + 1 bytes; HLL_4 4 bits each (even slots in the low
 *                  nibble), value - curMin, 15 meaning "in the exceptions", then the exceptions as
 *                  coupons (compact) or their hash table
 * </pre>
 *
 * <p>An item's coupon comes from its MurmurHash3 x64 128 (seed 9001): the low 26 bits of the first
 * half are its address, one more than the leading zeros of the second (at most 63) its value; slot
 * = address mod K. {@link HashStrategy#datasketches(int)} is that hash arranged so that a probkit
 * sketch of precision lgK holds the same registers.
 *
 * <p>DataSketches has no checksum. What {@link #read} checks: every preamble field's range and the
 * length the mode implies, exactly; coupon and register values; HLL_4's exceptions against its
 * nibbles; curMin, its count and kxq0/kxq1 against the registers (unless a union's rebuild flag
 * says they are stale); in order, the HIP accumulator finite and within {@value #HIP_TOLERANCE_RSE}
 * standard errors of the registers' own estimate. A changed register or coupon that stays valid, or
 * a small change of the HIP accumulator, goes unseen.
 *
 * <p>Instances are immutable; thread-safe.
 */
public final class DataSketchesHll {
  /** DataSketches' smallest and largest lgK. */
  public static final int MIN_LG_K = 4;

  public static final int MAX_LG_K = 21;

  /** How the slots are kept: DataSketches' TgtHllType, in its ordinal order. */
  public enum Type {
    HLL_4,
    HLL_6,
    HLL_8
  }

  /** DataSketches' CurMode, in its ordinal order. */
  public enum Mode {
    LIST,
    SET,
    HLL
  }

  private static final String NAME = "datasketches hll";
  private static final int FAMILY = 7;
  private static final int LIST_PREINTS = 2;
  private static final int SET_PREINTS = 3;
  private static final int HLL_PREINTS = 10;
  private static final int HLL_START = 40;
  private static final int EMPTY = 4;
  private static final int COMPACT = 8;
  private static final int OUT_OF_ORDER = 16;
  private static final int REBUILD = 32;
  private static final int KNOWN_FLAGS = 1 | 2 | EMPTY | COMPACT | OUT_OF_ORDER | REBUILD;
  private static final int KEY_BITS = 26;
  private static final int AUX_TOKEN = 15;
  private static final int LIST_SIZE = 8;

  /**
   * log2 of the ints of an updatable HLL_4 sketch's exception table by lgK while it holds none
   * (datasketches-java's LG_AUX_ARR_INTS); with exceptions, the lgArr byte says.
   */
  private static final int[] LG_AUX_INTS = {
    0, 0, 0, 0, 2, 2, 2, 3, 3, 3, 4, 4, 5, 5, 6, 7, 8, 9, 10, 11, 12, 13
  };

  private static final double HLL_RSE = Math.sqrt(3 * Math.log(2) - 1);

  /** How far the HIP accumulator may be from the registers' estimate, in standard errors. */
  static final int HIP_TOLERANCE_RSE = 8;

  private final int lgK;
  private final Type type;

  /** The coupons in LIST or SET mode, null in HLL mode. */
  private final int[] coupons;

  /** One value per slot in HLL mode, null otherwise. */
  private final byte[] slots;

  private final double hipAccum;
  private final boolean outOfOrder;

  private DataSketchesHll(
      int lgK, Type type, int[] coupons, byte[] slots, double hipAccum, boolean outOfOrder) {
    this.lgK = lgK;
    this.type = type;
    this.coupons = coupons;
    this.slots = slots;
    this.hipAccum = hipAccum;
    this.outOfOrder = outOfOrder;
  }

  /** Whether {@code bytes} start as a DataSketches HLL sketch does (family 7, serial version 1). */
  public static boolean looksLikeHll(byte[] bytes) {
    return bytes.length >= 8
        && bytes[1] == 1
        && bytes[2] == FAMILY
        && (bytes[0] == LIST_PREINTS || bytes[0] == SET_PREINTS || bytes[0] == HLL_PREINTS);
  }

  // ---- reading

  /**
   * The sketch {@code bytes} hold: compact or updatable, any mode and target type.
   *
   * @throws SketchFormatException naming the field and the value when the bytes are not one
   */
  public static DataSketchesHll read(byte[] bytes) throws SketchFormatException {
    if (bytes.length < 8) {
      throw bad(bytes.length + " bytes, shorter than the 8-byte preamble");
    }
    ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    int preInts = bytes[0] & 0xFF;
    expect("serial version", bytes[1] & 0xFF, 1);
    expect("family id", bytes[2] & 0xFF, FAMILY);
    int lgK = bytes[3] & 0xFF;
    if (lgK < MIN_LG_K || lgK > MAX_LG_K) {
      throw bad("lgK is " + lgK + ", must be in [" + MIN_LG_K + ", " + MAX_LG_K + "]");
    }
    int lgArr = bytes[4] & 0xFF;
    int flags = bytes[5] & 0xFF;
    if ((flags & ~KNOWN_FLAGS) != 0) {
      throw bad("flags byte is 0x" + Integer.toHexString(flags) + ", has unknown bits");
    }
    int modeByte = bytes[7] & 0xFF;
    int modeBits = modeByte & 3;
    int typeBits = modeByte >>> 2;
    if (modeBits > 2 || typeBits > 2) {
      throw bad("mode byte is " + modeByte + ", must be in {0-2, 4-6, 8-10}");
    }
    Mode mode = Mode.values()[modeBits];
    Type type = Type.values()[typeBits];
    expect("preamble ints of " + mode + " mode", preInts, preambleInts(mode));
    boolean compact = (flags & COMPACT) != 0;
    boolean empty = (flags & EMPTY) != 0;
    if (mode == Mode.HLL) {
      return readHll(b, lgK, type, compact, flags);
    }
    int start = mode == Mode.LIST ? 8 : 12;
    if (bytes.length < start) {
      throw bad(bytes.length + " bytes, shorter than the " + start + "-byte preamble of a SET");
    }
    int count = mode == Mode.LIST ? bytes[6] & 0xFF : b.getInt(8);
    if (empty && count != 0) {
      throw bad("the empty flag is set and the coupon count is " + count);
    }
    int capacity = mode == Mode.LIST ? LIST_SIZE : 1 << (lgK - 3);
    if (count < 0 || count > capacity) {
      throw bad(mode + " coupon count is " + count + ", must be in [0, " + capacity + "]");
    }
    int[] coupons;
    if (compact) {
      expectLength(bytes, start + 4L * count, mode + " mode, " + count + " coupons, compact");
      coupons = new int[count];
      for (int i = 0; i < count; i++) {
        coupons[i] = checkCoupon(b.getInt(start + 4 * i), start + 4 * i);
      }
    } else {
      if (lgArr > lgK) {
        throw bad("lgArr is " + lgArr + ", above lgK " + lgK);
      }
      expectLength(bytes, start + (4L << lgArr), mode + " mode, lgArr " + lgArr + ", updatable");
      coupons = new int[count];
      int n = 0;
      for (int i = 0; i < 1 << lgArr; i++) {
        int c = b.getInt(start + 4 * i);
        if (c != 0) {
          if (n == count) {
            throw bad(mode + " coupon count is " + count + ", the table holds more");
          }
          coupons[n++] = checkCoupon(c, start + 4 * i);
        }
      }
      if (n != count) {
        throw bad(mode + " coupon count is " + count + ", the table holds " + n);
      }
    }
    if (Arrays.stream(coupons).distinct().count() != count) {
      throw bad("a coupon appears twice");
    }
    return new DataSketchesHll(lgK, type, coupons, null, 0, false);
  }

  private static int preambleInts(Mode mode) {
    return mode == Mode.LIST ? LIST_PREINTS : mode == Mode.SET ? SET_PREINTS : HLL_PREINTS;
  }

  private static int checkCoupon(int c, int at) throws SketchFormatException {
    int v = c >>> KEY_BITS;
    if (v < 1 || v > 63) {
      throw bad("coupon at byte " + at + " has value " + v + ", must be in [1, 63]");
    }
    return c;
  }

  private static DataSketchesHll readHll(
      ByteBuffer b, int lgK, Type type, boolean compact, int flags) throws SketchFormatException {
    boolean outOfOrder = (flags & OUT_OF_ORDER) != 0;
    byte[] bytes = b.array();
    int k = 1 << lgK;
    int arrBytes = slotBytes(type, lgK);
    if (bytes.length < HLL_START + arrBytes) {
      throw bad(
          bytes.length
              + " bytes, shorter than the "
              + (HLL_START + arrBytes)
              + " of an "
              + type
              + " sketch of lgK "
              + lgK);
    }
    int curMin = bytes[6] & 0xFF;
    double hip = b.getDouble(8);
    double kxq0 = b.getDouble(16);
    double kxq1 = b.getDouble(24);
    int atCurMin = b.getInt(32);
    int auxCount = b.getInt(36);
    byte[] slots = new byte[k];
    if (type == Type.HLL_8) {
      System.arraycopy(bytes, HLL_START, slots, 0, k);
    } else if (type == Type.HLL_6) {
      for (int i = 0; i < k; i++) {
        int bit = 6 * i;
        int at = HLL_START + (bit >>> 3);
        slots[i] = (byte) (((bytes[at] & 0xFF | (bytes[at + 1] & 0xFF) << 8) >>> (bit & 7)) & 63);
      }
    } else {
      readHll4(b, lgK, bytes[4] & 0xFF, compact, curMin, auxCount, slots);
    }
    if (type != Type.HLL_4) {
      expectLength(bytes, HLL_START + arrBytes, type + " sketch of lgK " + lgK);
      expect("exception count of an " + type + " sketch", auxCount, 0);
    }
    int min = 64;
    int atMin = 0;
    for (int i = 0; i < k; i++) {
      int v = slots[i];
      if (v < 0 || v > 63) {
        throw bad("slot " + i + " holds " + v + ", must be at most 63");
      }
      if (v < min) {
        min = v;
        atMin = 0;
      }
      if (v == min) {
        atMin++;
      }
    }
    DataSketchesHll s = new DataSketchesHll(lgK, type, null, slots, hip, outOfOrder);
    if ((flags & REBUILD) != 0) {
      // A union's updatable bytes: curMin, its count and kxq are stale until rebuilt.
      return s;
    }
    // HLL_6 and HLL_8 keep curMin at 0 (numAtCurMin then counts the zeros) until a union
    // rebuilds both from the registers; HLL_4 keeps the true minimum.
    int expectedAt = curMin == 0 ? (min == 0 ? atMin : 0) : atMin;
    if ((curMin != 0 && curMin != min) || atCurMin != expectedAt) {
      throw bad(
          "curMin "
              + curMin
              + " held by "
              + atCurMin
              + " slots, the registers' minimum is "
              + min
              + " held by "
              + atMin);
    }
    double[] kxq = kxq(slots, lgK);
    if (!near(kxq0, kxq[0], k) || !near(kxq1, kxq[1], k)) {
      throw bad(
          "kxq0/kxq1 are " + kxq0 + "/" + kxq1 + ", the registers give " + kxq[0] + "/" + kxq[1]);
    }
    if (outOfOrder) {
      // Estimated from the registers: the HIP accumulator is not used and a union leaves it stale.
      return s;
    }
    double registers = s.compositeEstimate();
    double tolerance = HIP_TOLERANCE_RSE * HLL_RSE / Math.sqrt(k) * registers + 2;
    if (!Double.isFinite(hip) || hip < 0 || Math.abs(hip - registers) > tolerance) {
      throw bad(
          "HIP accumulator is "
              + hip
              + ", the registers estimate "
              + Math.round(registers)
              + " (more than "
              + HIP_TOLERANCE_RSE
              + " standard errors apart)");
    }
    return s;
  }

  /**
   * DataSketches keeps kxq0 by adding and subtracting powers of two from K, so after millions of
   * updates it is off from the exact sum by rounding errors of K's magnitude.
   */
  private static boolean near(double stored, double exact, int k) {
    return Math.abs(stored - exact) <= 1e-6 * k;
  }

  private static void readHll4(
      ByteBuffer b, int lgK, int lgArr, boolean compact, int curMin, int auxCount, byte[] slots)
      throws SketchFormatException {
    byte[] bytes = b.array();
    int k = 1 << lgK;
    int tokens = 0;
    for (int i = 0; i < k; i++) {
      int nibble = (bytes[HLL_START + (i >>> 1)] >>> ((i & 1) << 2)) & 15;
      if (nibble == AUX_TOKEN) {
        tokens++;
        slots[i] = -1;
      } else {
        slots[i] = (byte) (nibble + curMin);
      }
    }
    if (curMin > 63) {
      throw bad("curMin is " + curMin + ", must be at most 63");
    }
    int auxStart = HLL_START + k / 2;
    int auxInts = (bytes.length - auxStart) / 4;
    if (auxCount < 0 || auxCount > k) {
      throw bad("exception count is " + auxCount + ", must be in [0, " + k + "]");
    }
    if (compact) {
      expectLength(
          bytes, auxStart + 4L * auxCount, "HLL_4 sketch with " + auxCount + " exceptions");
    } else {
      int lgAux = auxCount > 0 ? lgArr : LG_AUX_INTS[lgK];
      if (lgAux > lgK) {
        throw bad("lgArr is " + lgAux + ", above lgK " + lgK);
      }
      expectLength(bytes, auxStart + (4L << lgAux), "HLL_4 sketch with a table of 2^" + lgAux);
    }
    int n = 0;
    for (int i = 0; i < (compact ? auxCount : auxInts); i++) {
      int pair = b.getInt(auxStart + 4 * i);
      if (pair == 0) {
        continue;
      }
      int slot = pair & (k - 1);
      int v = pair >>> KEY_BITS;
      if (slots[slot] != -1) {
        throw bad("exception for slot " + slot + ", whose nibble is not 15 or is listed twice");
      }
      if (v < curMin + AUX_TOKEN || v > 63) {
        throw bad(
            "exception for slot "
                + slot
                + " holds "
                + v
                + ", must be in ["
                + (curMin + 15)
                + ", 63]");
      }
      slots[slot] = (byte) v;
      n++;
    }
    if (n != auxCount || n != tokens) {
      throw bad(
          "exception count is "
              + auxCount
              + ", the table holds "
              + n
              + " and "
              + tokens
              + " slots are marked as exceptions");
    }
  }

  private static int slotBytes(Type type, int lgK) {
    int k = 1 << lgK;
    return type == Type.HLL_8 ? k : type == Type.HLL_6 ? 3 * k / 4 + 1 : k / 2;
  }

  /** DataSketches' kxq0 and kxq1 of {@code slots}, summed in slot order as its union does. */
  private static double[] kxq(byte[] slots, int lgK) {
    double kxq0 = 1 << lgK;
    double kxq1 = 0;
    for (byte s : slots) {
      if (s > 0) {
        if (s < 32) {
          kxq0 += invPow2(s) - 1.0;
        } else {
          kxq1 += invPow2(s);
        }
      }
    }
    return new double[] {kxq0, kxq1};
  }

  private static double invPow2(int e) {
    return Double.longBitsToDouble((1023L - e) << 52);
  }

  private static void expect(String field, int value, int must) throws SketchFormatException {
    if (value != must) {
      throw bad(field + " is " + value + ", must be " + must);
    }
  }

  private static void expectLength(byte[] bytes, long length, String what)
      throws SketchFormatException {
    if (bytes.length != length) {
      throw bad(bytes.length + " bytes, a " + what + " is " + length);
    }
  }

  private static SketchFormatException bad(String message) {
    return new SketchFormatException(NAME + ": " + message);
  }

  // ---- what it holds

  public int lgK() {
    return lgK;
  }

  public Type type() {
    return type;
  }

  public Mode mode() {
    return slots != null ? Mode.HLL : coupons.length < LIST_SIZE ? Mode.LIST : Mode.SET;
  }

  public boolean isEmpty() {
    return coupons != null && coupons.length == 0;
  }

  /**
   * Whether the estimate comes from the registers rather than the HIP accumulator: after a union,
   * as DataSketches' {@code isOutOfOrder}.
   */
  public boolean isOutOfOrder() {
    return outOfOrder;
  }

  /** The value of every slot (DataSketches' registers), the coupons folded in LIST and SET mode. */
  public int[] registers() {
    int[] out = new int[1 << lgK];
    if (slots != null) {
      for (int i = 0; i < out.length; i++) {
        out[i] = slots[i];
      }
    } else {
      for (int c : coupons) {
        int i = c & (out.length - 1);
        out[i] = Math.max(out[i], c >>> KEY_BITS);
      }
    }
    return out;
  }

  // ---- estimating

  /**
   * DataSketches' {@code getEstimate} to its documented precision: in LIST and SET mode the number
   * of items whose expected number of distinct coupons is the coupon count (exact, where
   * DataSketches interpolates a table of the same mapping); in HLL mode the HIP accumulator
   * (DataSketches' own value, exactly) unless out of order, else Ertl's improved estimate of the
   * registers (where DataSketches interpolates its composite estimator), both within the standard
   * error 1.04/sqrt(K).
   */
  public double estimate() {
    if (slots == null) {
      return couponEstimate(coupons.length);
    }
    return outOfOrder ? compositeEstimate() : hipAccum;
  }

  /** The relative standard error of {@link #estimate()}, as DataSketches documents it. */
  public double relativeStandardError() {
    if (slots == null) {
      return 0.409 / (1 << 13);
    }
    return (outOfOrder ? HLL_RSE : Math.sqrt(Math.log(2))) / Math.sqrt(1 << lgK);
  }

  private double compositeEstimate() {
    int q = 64 - lgK;
    int[] histogram = new int[q + 2];
    for (byte s : slots) {
      histogram[Math.min(s, q + 1)]++;
    }
    return Ertl.improvedEstimate(1 << lgK, q, histogram);
  }

  /**
   * The n whose expected number of distinct coupons is {@code c}: an item's coupon is one of 2^26
   * addresses with value v at probability 2^-v, so E[c](n) = sum_v 2^26 (1 - (1 - 2^-(26+v))^n),
   * solved by bisection (monotone in n).
   */
  static double couponEstimate(int c) {
    if (c == 0) {
      return 0;
    }
    double lo = c;
    double hi = 2.0 * c + 16;
    for (int i = 0; i < 200 && hi - lo > 1e-9 * hi; i++) {
      double mid = (lo + hi) / 2;
      if (expectedCoupons(mid) < c) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return (lo + hi) / 2;
  }

  private static double expectedCoupons(double n) {
    double sum = 0;
    for (int v = 1; v <= 63; v++) {
      double p = Math.scalb(1.0, -(KEY_BITS + v));
      sum += -Math.expm1(n * Math.log1p(-p));
    }
    return Math.scalb(sum, KEY_BITS);
  }

  // ---- union

  /**
   * The union DataSketches' {@code HllUnion} of lgMaxK = the larger lgK returns (as HLL_8) after
   * {@code update(this)} then {@code update(other)}: coupons join coupons, and the sketch leaves
   * LIST/SET mode as DataSketches' does; an HLL-mode side takes the other's coupons one by one (its
   * HIP accumulator going on) or, when both are in HLL mode, the two merge slot by slot at the
   * smaller lgK (DataSketches folds slot i into i mod K) and the result is out of order.
   */
  public DataSketchesHll union(DataSketchesHll other) {
    int lgMaxK = Math.max(lgK, other.lgK);
    DataSketchesHll gadget = new DataSketchesHll(lgMaxK, Type.HLL_8, new int[0], null, 0, false);
    return gadget.unionWith(this).unionWith(other);
  }

  private DataSketchesHll unionWith(DataSketchesHll source) {
    if (source.isEmpty()) {
      return this;
    }
    if (source.slots == null) {
      return withCoupons(source.coupons);
    }
    if (slots == null) {
      DataSketchesHll s = source.asHll8();
      return isEmpty() ? s : s.withCoupons(coupons);
    }
    int lg = Math.min(lgK, source.lgK);
    byte[] merged = fold(slots, lg);
    byte[] theirs = fold(source.slots, lg);
    for (int i = 0; i < merged.length; i++) {
      merged[i] = (byte) Math.max(merged[i], theirs[i]);
    }
    return new DataSketchesHll(lg, Type.HLL_8, null, merged, hipAccum, true);
  }

  private DataSketchesHll asHll8() {
    return new DataSketchesHll(lgK, Type.HLL_8, null, slots, hipAccum, outOfOrder);
  }

  private static byte[] fold(byte[] slots, int lg) {
    byte[] out = new byte[1 << lg];
    for (int i = 0; i < slots.length; i++) {
      int j = i & (out.length - 1);
      out[j] = (byte) Math.max(out[j], slots[i]);
    }
    return out;
  }

  /** This sketch with {@code more} coupons added in order, as DataSketches' couponUpdate. */
  private DataSketchesHll withCoupons(int[] more) {
    if (slots == null) {
      Set<Integer> all = new LinkedHashSet<>();
      for (int c : coupons) {
        all.add(c);
      }
      int limit = lgK < 8 ? LIST_SIZE - 1 : 3 * (1 << lgK) / 32;
      int i = 0;
      for (; i < more.length && all.size() <= limit; i++) {
        all.add(more[i]);
      }
      int[] joined = all.stream().mapToInt(Integer::intValue).toArray();
      if (joined.length <= limit) {
        return new DataSketchesHll(lgK, Type.HLL_8, joined, null, 0, false);
      }
      // Promoted as DataSketches promotes: the coupons so far set the slots, the HIP accumulator
      // starts at their coupon estimate, and the rest go on one by one.
      DataSketchesHll promoted =
          new DataSketchesHll(lgK, Type.HLL_8, joined, null, 0, false).promote();
      return promoted.withCoupons(Arrays.copyOfRange(more, i, more.length));
    }
    byte[] s = slots.clone();
    double[] kxq = kxq(s, lgK);
    double hip = hipAccum;
    for (int c : more) {
      int slot = c & (s.length - 1);
      int v = c >>> KEY_BITS;
      int old = s[slot];
      if (v > old) {
        hip += (1 << lgK) / (kxq[0] + kxq[1]);
        kxq[old < 32 ? 0 : 1] -= invPow2(old);
        kxq[v < 32 ? 0 : 1] += invPow2(v);
        s[slot] = (byte) v;
      }
    }
    return new DataSketchesHll(lgK, Type.HLL_8, null, s, hip, outOfOrder);
  }

  private DataSketchesHll promote() {
    byte[] s = new byte[1 << lgK];
    for (int c : coupons) {
      int slot = c & (s.length - 1);
      s[slot] = (byte) Math.max(s[slot], c >>> KEY_BITS);
    }
    return new DataSketchesHll(lgK, Type.HLL_8, null, s, couponEstimate(coupons.length), false);
  }

  // ---- converting and writing

  /**
   * A probkit sketch of the same registers: precision lgK (folded to {@link
   * HyperLogLog#MAX_PRECISION} as DataSketches folds, when lgK is above it), hashed with {@link
   * HashStrategy#datasketches(int)} of that precision, so that probkit adds items as DataSketches
   * does. No martingale estimate (as after a merge).
   *
   * @throws IllegalArgumentException if a register exceeds what probkit keeps at that precision (65
   *     - lgK; DataSketches keeps up to 63, reached with probability 2^-(64 - lgK) per item)
   */
  public HyperLogLog toHyperLogLog() {
    int p = Math.min(lgK, HyperLogLog.MAX_PRECISION);
    int[] r = registers();
    byte[] values = new byte[r.length];
    for (int i = 0; i < r.length; i++) {
      values[i] = (byte) r[i];
    }
    byte[] folded = fold(values, p);
    byte[] packed = new byte[HyperLogLog.denseBytes(p) + 1];
    for (int i = 0; i < folded.length; i++) {
      int bit = 6 * i;
      int word = folded[i] << (bit & 7);
      packed[bit >>> 3] |= (byte) word;
      packed[(bit >>> 3) + 1] |= (byte) (word >>> 8);
    }
    return HyperLogLog.fromDenseRegisters(
        p, HashStrategy.datasketches(p), Arrays.copyOf(packed, packed.length - 1));
  }

  /**
   * The DataSketches sketch (HLL mode, HLL_8) of a probkit sketch's registers. Its HIP accumulator
   * is the sketch's martingale estimate when it has one (the same estimator as DataSketches' HIP),
   * else the registers' estimate with the out-of-order flag set, so that DataSketches estimates
   * from the registers as after a union.
   *
   * @throws IllegalArgumentException unless the sketch is hashed with {@link
   *     HashStrategy#datasketches(int)} of its own precision: only then are its registers those
   *     DataSketches would set
   */
  public static DataSketchesHll of(HyperLogLog sketch) {
    int p = sketch.precision();
    HashStrategy h = sketch.hashStrategy();
    if (!h.equals(HashStrategy.datasketches(p))) {
      throw new IllegalArgumentException(
          "a DataSketches HLL sketch holds registers of DataSketches' hash at its lgK: "
              + HashStrategy.datasketches(p)
              + " for precision "
              + p
              + ", this sketch is hashed with "
              + h);
    }
    int[] r = sketch.registers();
    byte[] s = new byte[r.length];
    for (int i = 0; i < r.length; i++) {
      s[i] = (byte) r[i];
    }
    OptionalDouble hip = sketch.martingaleEstimate();
    if (hip.isPresent()) {
      return new DataSketchesHll(p, Type.HLL_8, null, s, hip.getAsDouble(), false);
    }
    DataSketchesHll d = new DataSketchesHll(p, Type.HLL_8, null, s, 0, true);
    return new DataSketchesHll(p, Type.HLL_8, null, s, d.compositeEstimate(), true);
  }

  /**
   * The compact HLL_8 bytes of this sketch, which datasketches-java's {@code HllSketch.heapify}
   * reads: in LIST or SET mode its coupons (the set's in the order read, not DataSketches' table
   * order), in HLL mode a byte per slot with kxq0, kxq1, curMin and its count as DataSketches'
   * union rebuilds them.
   */
  public byte[] toCompactBytes() {
    Mode mode = mode();
    int start = mode == Mode.LIST ? 8 : mode == Mode.SET ? 12 : HLL_START;
    int length = slots == null ? start + 4 * coupons.length : HLL_START + slots.length;
    ByteBuffer b = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
    b.put(0, (byte) preambleInts(mode));
    b.put(1, (byte) 1);
    b.put(2, (byte) FAMILY);
    b.put(3, (byte) lgK);
    int flags = COMPACT | (isEmpty() ? EMPTY : 0) | (outOfOrder ? OUT_OF_ORDER : 0);
    b.put(5, (byte) flags);
    b.put(7, (byte) (mode.ordinal() | Type.HLL_8.ordinal() << 2));
    if (slots == null) {
      int lgArr = 3;
      while (mode == Mode.SET && (lgArr < 5 || 4 * coupons.length > 3 << lgArr)) {
        lgArr++;
      }
      b.put(4, (byte) lgArr);
      if (mode == Mode.LIST) {
        b.put(6, (byte) coupons.length);
      } else {
        b.putInt(8, coupons.length);
      }
      for (int i = 0; i < coupons.length; i++) {
        b.putInt(start + 4 * i, coupons[i]);
      }
      return b.array();
    }
    int min = 64;
    int atMin = 0;
    for (byte s : slots) {
      if (s < min) {
        min = s;
        atMin = 0;
      }
      if (s == min) {
        atMin++;
      }
    }
    double[] kxq = kxq(slots, lgK);
    b.put(6, (byte) min);
    b.putDouble(8, hipAccum);
    b.putDouble(16, kxq[0]);
    b.putDouble(24, kxq[1]);
    b.putInt(32, atMin);
    b.putInt(36, 0);
    b.put(HLL_START, slots);
    return b.array();
  }

  @Override
  public String toString() {
    return "DataSketches HLL sketch, lgK " + lgK + ", " + type + ", " + mode() + " mode";
  }
}
