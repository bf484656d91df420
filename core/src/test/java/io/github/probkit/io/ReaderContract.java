package io.github.probkit.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.github.probkit.cardinality.CardinalitySketch;
import io.github.probkit.filter.CuckooFilter;
import io.github.probkit.filter.MembershipFilter;
import io.github.probkit.filter.MutableFilter;
import io.github.probkit.filter.ScalableBloomFilter;
import io.github.probkit.frequency.CountMinSketch;
import io.github.probkit.frequency.HeavyHitters;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.reflect.InvocationTargetException;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/**
 * The contract every reader keeps on hostile bytes, shared by the seeded mutation test and the
 * Jazzer fuzz targets: the input ends in a SketchFormatException or in a structure that works — it
 * answers queries, keeps a key added to it, and writes bytes that read back to the same bytes — and
 * the reader never allocates out of proportion to the input.
 */
final class ReaderContract {
  private static final byte[] PROBE = "hostile-probe".getBytes(StandardCharsets.UTF_8);

  private ReaderContract() {}

  @FunctionalInterface
  interface Reader {
    Object read(InputStream in) throws IOException;
  }

  /**
   * Reads {@code input}; returns the structure, or null when the reader refused it with a
   * SketchFormatException. Any other outcome fails, naming {@code what} and the input in hex.
   */
  static Object check(String what, Reader reader, byte[] input) {
    long allocated = allocatedBytes();
    Object structure = read(what, reader, input);
    allocated = allocatedBytes() - allocated;
    // The reader's buffers (64 KiB scratch) plus at most twice the input for the structure. The
    // first read through a code path also loads classes and links call sites (string
    // concatenation, lambdas), which allocates; so an input over the bound is read once more, and
    // only that second measure counts.
    long bound = 4L * input.length + (1 << 20);
    if (allocated >= bound) {
      allocated = allocatedBytes();
      read(what, reader, input);
      allocated = allocatedBytes() - allocated;
      if (allocated >= bound) {
        fail(
            "%s allocated %d bytes for a %d-byte input %s",
            what, allocated, input.length, hex(input));
      }
    }
    if (structure != null) {
      try {
        exercise(structure, reader);
      } catch (Throwable t) {
        fail("%s: the structure read from %s fails: %s", what, hex(input), t, t);
      }
    }
    return structure;
  }

  private static Object read(String what, Reader reader, byte[] input) {
    try {
      return reader.read(new ByteArrayInputStream(input));
    } catch (SketchFormatException expected) {
      return null; // the one acceptable failure
    } catch (Throwable t) {
      return fail("%s: %s on %d bytes %s", what, t, input.length, hex(input), t);
    }
  }

  /**
   * Uses a structure read from untrusted bytes the way a caller would, then checks that it writes
   * bytes that read back to the same bytes.
   */
  static void exercise(Object s, Reader reader) throws IOException {
    if (s instanceof MembershipFilter) {
      MembershipFilter f = (MembershipFilter) s;
      f.mightContain(PROBE);
      f.mightContain(42L);
      assertThat(f.expectedFpp()).isBetween(0.0, 1.0);
      assertThat(f.byteSize()).isNotNegative();
      if (s instanceof MutableFilter && !(s instanceof ScalableBloomFilter)) {
        // A cuckoo table may be full (add returns false); every other add must stick.
        boolean stored = ((MutableFilter) s).add(PROBE);
        if (stored || !(s instanceof CuckooFilter)) {
          assertThat(f.mightContain(PROBE)).as("a key just added is present").isTrue();
        }
        ((MutableFilter) s).approximateCount();
      }
    } else if (s instanceof CountMinSketch) {
      CountMinSketch c = (CountMinSketch) s;
      long before = c.estimate(PROBE);
      c.add(PROBE, 3);
      assertThat(c.estimate(PROBE))
          .isGreaterThanOrEqualTo(Math.min(Long.MAX_VALUE - 3, before) + 3);
      assertThat(c.totalCount()).isNotNegative();
    } else if (s instanceof CardinalitySketch) {
      CardinalitySketch c = (CardinalitySketch) s;
      double before = c.estimate();
      assertThat(before).isNotNegative();
      c.martingaleEstimate();
      c.add(PROBE);
      assertThat(c.isEmpty()).isFalse();
      assertThat(c.estimate()).isGreaterThan(0.0);
      c.bestEstimate();
      if (c.precision() > 4) {
        c.downsize(c.precision() - 1).estimate();
      }
    } else if (s instanceof HeavyHitters) {
      HeavyHitters h = (HeavyHitters) s;
      h.add(PROBE, 2);
      assertThat(h.estimate(PROBE)).isGreaterThanOrEqualTo(2);
      assertThat(h.entries()).hasSize(h.size());
      h.top(1);
    }
    s.toString();
    s.hashCode();
    byte[] written = write(s);
    Object again = reader.read(new ByteArrayInputStream(written));
    assertThat(again).isEqualTo(s);
    assertThat(write(again)).as("written, read and written again").isEqualTo(written);
  }

  /**
   * The bytes {@code s.writeTo} writes (every structure has one; reflection keeps this generic).
   */
  static byte[] write(Object s) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      s.getClass().getMethod("writeTo", OutputStream.class).invoke(s, out);
    } catch (InvocationTargetException e) {
      if (e.getCause() instanceof IOException) {
        throw (IOException) e.getCause();
      }
      throw new AssertionError(e.getCause());
    } catch (ReflectiveOperationException e) {
      throw new AssertionError(s.getClass() + " has no public writeTo(OutputStream)", e);
    }
    return out.toByteArray();
  }

  static long allocatedBytes() {
    return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
        .getThreadAllocatedBytes(Thread.currentThread().getId());
  }

  /** The input as hex, for a failure message from which the input can be rebuilt (first 4 KiB). */
  static String hex(byte[] b) {
    return b.length <= 4096
        ? HexFormat.of().formatHex(b)
        : HexFormat.of().formatHex(b, 0, 4096) + "...";
  }
}
