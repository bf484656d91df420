package io.github.probkit.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.cardinality.CardinalitySketch;
import io.github.probkit.cardinality.HyperLogLog;
import io.github.probkit.cardinality.WindowedCardinality;
import io.github.probkit.hash.HashStrategy;
import io.github.probkit.io.StructureType;
import io.github.probkit.testing.RingBytes;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The ring's own limits and slice arithmetic, which the windowed sketches' tests reach only in
 * part.
 */
class SliceRingTest {
  private static final long HOUR = 3_600_000L;

  /**
   * A window ending before the newest slice: the slot of its oldest slice has been reused by the
   * newest one, so it must not be read as that older slice.
   */
  @Test
  void aWindowEndingBeforeTheNewestSliceLeavesOutWhatTheRingReused() {
    SliceRing<List<String>> ring = new SliceRing<>(3, HOUR, ArrayList::new);
    ring.at(7 * HOUR).add("seven");
    ring.at(8 * HOUR).add("eight");
    ring.at(10 * HOUR).add("ten"); // slot of 7 reused; 8 is now the oldest slice kept
    List<String> seen = new ArrayList<>();
    long[] span = ring.window(2 * HOUR, 9 * HOUR);
    assertThat(span).containsExactly(7, 9);
    ring.forEach(span[0], span[1], seen::addAll);
    assertThat(seen).containsExactly("eight");
  }

  @Test
  void windowsAreCheckedAndSaySoInOneLine() {
    SliceRing<List<String>> ring = new SliceRing<>(3, HOUR, ArrayList::new);
    assertThat(ring.window(0, 5 * HOUR)).containsExactly(5, 5);
    assertThatThrownBy(() -> ring.window(-1, 5 * HOUR))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("window must not be negative, was -1 ms");
    assertThatThrownBy(() -> ring.window(3 * HOUR, 5 * HOUR))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a window of 10800000 ms needs 4 slices of 3600000 ms, the ring keeps 3");
  }

  @Test
  void slotsForAcceptsItsLimitsAndRefusesBeyond() {
    assertThat(SliceRing.slotsFor(1, 1)).isEqualTo(2);
    assertThat(SliceRing.slotsFor(HOUR, HOUR)).isEqualTo(2);
    assertThat(SliceRing.slotsFor(HOUR + 1, HOUR)).isEqualTo(3);
    assertThat(SliceRing.slotsFor(SliceRing.MAX_SLOTS - 1, 1)).isEqualTo(SliceRing.MAX_SLOTS);
    assertThatThrownBy(() -> SliceRing.slotsFor(SliceRing.MAX_SLOTS, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("65537 slices, more than 65536");
    assertThatThrownBy(() -> SliceRing.slotsFor(HOUR, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("slice must be at least 1 ms, was 0 ms");
    assertThatThrownBy(() -> SliceRing.slotsFor(HOUR - 1, HOUR))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the window (3599999 ms) must be at least one slice (3600000 ms)");
  }

  /** The reader's limits on the slots and the slice span, each side of each. */
  @Test
  void aReadRingsSlotsAndSpanAreWithinTheirLimits() throws IOException {
    read(ring(2, 1));
    read(ring(SliceRing.MAX_SLOTS, HOUR));
    RingBytes.assertRefused(WindowedCardinality::readFrom, ring(1, HOUR), "slots");
    RingBytes.assertRefused(
        WindowedCardinality::readFrom, ring(SliceRing.MAX_SLOTS + 1, HOUR), "slots");
    RingBytes.assertRefused(WindowedCardinality::readFrom, ring(3, 0), "sliceMillis");
  }

  @Test
  void aSliceWithTrailingBytesIsRefused() throws IOException {
    HyperLogLog empty = HyperLogLog.create(4);
    byte[] bytes =
        RingBytes.of(
            3,
            HOUR,
            StructureType.WINDOWED_CARDINALITY,
            empty.hashStrategy(),
            empty,
            empty::copy,
            (s, out) -> {
              s.writeTo(out);
              out.write(0);
            });
    RingBytes.assertRefused(WindowedCardinality::readFrom, bytes, "trailing bytes");
  }

  private static byte[] ring(int slots, long sliceMillis) throws IOException {
    HyperLogLog empty = HyperLogLog.create(4);
    return RingBytes.of(
        slots,
        sliceMillis,
        StructureType.WINDOWED_CARDINALITY,
        HashStrategy.xxh3(),
        empty,
        empty::copy,
        CardinalitySketch::writeTo);
  }

  private static void read(byte[] bytes) throws IOException {
    WindowedCardinality.readFrom(new ByteArrayInputStream(bytes));
  }
}
