package io.github.probkit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.frequency.CountMinSketch;
import io.github.probkit.frequency.WindowedCountMin;
import io.github.probkit.hash.HashStrategy;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * How long {@link RedisWindowedCountMin#merge} holds Redis: the merge is one script whose arguments
 * are every non-zero counter of the source ring, and Redis runs one script at a time, so every
 * other client waits for all of it. Measures, per ring shape, the merge's wall time in the client,
 * the longest gap between replies seen by a second connection sending PING in a tight loop, the
 * script's SLOWLOG duration, the bytes Redis received and its peak memory. A measurement, not a
 * check: tagged slow, it prints its figures (docs/REDIS.md "Merge", bench/NOTES.md).
 *
 * <p>{@code -Dprobkit.mergeCases=abc}: the shapes to measure. {@code -Dprobkit.mergeFile.template=T
 * -Dprobkit.mergeFile.out=O}: also writes O, the ring of file T (say one made by {@code probkit cms
 * create T --window 1h --slice 1m ...}) with every counter of every slice non-zero, for trying
 * {@code probkit cms merge redis://...} on it.
 */
@Tag("slow")
class WindowedMergeBlockingTest extends WithServer {
  private static final HashStrategy HASH = HashStrategy.xxh3(0x5eed_0f_a9_e5L);
  // A whole hour, so that slices of a minute and of an hour both start on their boundaries.
  private static final long T0 = 1_699_999_200_000L;
  private static final int RUNS = 3;

  /** Distinct items per slice making about {@code fraction} of a row's counters non-zero. */
  private static int itemsFor(double fraction, int width) {
    // A counter stays zero with probability exp(-n / width) after n distinct items; "full" takes
    // n = 15 width, leaving about 0.3 empty counters in 815,700.
    return fraction >= 1 ? 15 * width : (int) Math.ceil(-width * Math.log(1 - fraction));
  }

  /** A ring of {@code window} in {@code slice}s, every slot filled to about {@code fraction}. */
  static WindowedCountMin ring(WindowedCountMin w, double fraction, int width) {
    int n = itemsFor(fraction, width);
    long slice = w.sliceMillis();
    for (int s = 0; s < w.sliceCount(); s++) {
      long t = T0 + s * slice + 1;
      for (int i = 0; i < n; i++) {
        w.add((long) s << 32 | i, 1 + (i % 7), t);
      }
    }
    return w;
  }

  /** One raw RESP connection of its own, so that its waits are not the store's. */
  private static final class Raw implements AutoCloseable {
    final Socket socket;
    final OutputStream out;
    final BufferedReader in;

    Raw(URI uri) throws IOException {
      socket = new Socket(uri.getHost(), uri.getPort());
      socket.setTcpNoDelay(true);
      out = socket.getOutputStream();
      in =
          new BufferedReader(
              new InputStreamReader(socket.getInputStream(), StandardCharsets.ISO_8859_1));
    }

    /** Sends an inline command and returns its reply's lines up to {@code lines}. */
    String[] call(String command, int lines) throws IOException {
      out.write((command + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
      String[] r = new String[lines];
      for (int i = 0; i < lines; i++) {
        r[i] = in.readLine();
      }
      return r;
    }

    /** A field of INFO, e.g. used_memory_peak. */
    long info(String section, String field) throws IOException {
      out.write(("INFO " + section + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
      int len = Integer.parseInt(in.readLine().substring(1));
      char[] body = new char[len + 2];
      for (int got = 0; got < body.length; ) {
        got += in.read(body, got, body.length - got);
      }
      for (String line : new String(body).split("\r\n")) {
        if (line.startsWith(field + ":")) {
          return Long.parseLong(line.substring(field.length() + 1).trim());
        }
      }
      throw new IllegalStateException("no " + field);
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }

  @Test
  void measure() throws Exception {
    URI uri = URI.create(server.uri().toString());
    String[][] shapes = {
      {"a", "60", "1m", "1.0"}, {"b", "60", "1m", "0.1"}, {"c", "24", "1h", "0.5"},
    };
    int width = CountMinSketch.widthFor(0.001, 0.01);
    int depth = CountMinSketch.depthFor(0.01);
    // INFO's used_memory_peak is the server's since it started (CONFIG RESETSTAT leaves it), so the
    // peak printed is the merge's only for the first merge of a run: -Dprobkit.mergeCases=a, b, c.
    String cases = System.getProperty("probkit.mergeCases", "abc");
    String template = System.getProperty("probkit.mergeFile.template");
    if (template != null) {
      WindowedCountMin t;
      try (InputStream in = Files.newInputStream(Path.of(template))) {
        t = WindowedCountMin.readFrom(in);
      }
      try (OutputStream out =
          Files.newOutputStream(Path.of(System.getProperty("probkit.mergeFile.out")))) {
        ring(t, 1.0, width).writeTo(out);
      }
    }
    long[][][] fig = new long[shapes.length][RUNS][];
    long[] pairs = new long[shapes.length];
    int[] slots = new int[shapes.length];
    try (Raw admin = new Raw(uri)) {
      for (int run = 0; run < RUNS; run++) {
        for (int k = 0; k < shapes.length; k++) {
          if (!cases.contains(shapes[k][0])) {
            continue;
          }
          int s = Integer.parseInt(shapes[k][1]);
          Duration slice = shapes[k][2].equals("1m") ? Duration.ofMinutes(1) : Duration.ofHours(1);
          Duration window = slice.multipliedBy(s);
          WindowedCountMin lib =
              ring(
                  WindowedCountMin.create(
                      window, slice, CountMinSketch.withDimensions(width, depth, HASH)),
                  Double.parseDouble(shapes[k][3]),
                  width);
          slots[k] = lib.sliceCount();
          pairs[k] = nonZero(lib, width, depth);
          admin.call("FLUSHALL", 1);
          RedisOptions o = RedisOptions.defaults().hash(HASH).maxSkew(Duration.ZERO);
          RedisWindowedCountMin r =
              RedisWindowedCountMin.create(
                  store, "m" + k + "-" + run, window, slice, width, depth, o);
          admin.call("SLOWLOG RESET", 1);
          admin.call("CONFIG RESETSTAT", 1);
          long mem0 = admin.info("memory", "used_memory");
          long in0 = admin.info("stats", "total_net_input_bytes");
          fig[k][run] = mergeWhilePinging(uri, r, lib);
          long in1 = admin.info("stats", "total_net_input_bytes");
          long peak = admin.info("memory", "used_memory_peak");
          // SLOWLOG GET 1: *1, *6 (or more), :id, :timestamp, :duration in µs, then the arguments.
          // The rest of the reply (the script's arguments, truncated) is left unread: own link.
          String[] log;
          try (Raw once = new Raw(uri)) {
            log = once.call("SLOWLOG GET 1", 5);
          }
          long slowUs = Long.parseLong(log[4].substring(1));
          admin.call("SLOWLOG RESET", 1);
          long pings = fig[k][run][2];
          long received = in1 - in0 - 6 * pings; // each PING is 6 bytes inline
          fig[k][run] = new long[] {fig[k][run][0], fig[k][run][1], slowUs, received, peak - mem0};
          // The Redis ring now holds what the library's merge would (spot check: the export).
          long end = (lib.newestSlice() + 1) * slice.toMillis() - 1;
          assertThat(r.sketchOfLast(window, end).totalCount())
              .isEqualTo(lib.sketchOfLast(window, end).totalCount());
          System.out.printf(
              "run %d case %s: S=%d pairs=%d merge %.1f ms, longest PING gap %.1f ms, slowlog %.1f ms,"
                  + " received %.1f MB, peak-over-before %.1f MB%n",
              run,
              shapes[k][0],
              slots[k],
              pairs[k],
              fig[k][run][0] / 1e6,
              fig[k][run][1] / 1e6,
              slowUs / 1e3,
              received / 1e6,
              (peak - mem0) / 1e6);
        }
      }
    }
    for (int k = 0; k < shapes.length; k++) {
      if (!cases.contains(shapes[k][0])) {
        continue;
      }
      System.out.printf(
          "MEDIAN case %s (%s slices of %s, %d x %d, fill %s): S=%d pairs=%d merge %.1f ms,"
              + " longest PING gap %.1f ms, slowlog %.1f ms, received %.1f MB, peak %.1f MB%n",
          shapes[k][0],
          shapes[k][1],
          shapes[k][2],
          width,
          depth,
          shapes[k][3],
          slots[k],
          pairs[k],
          median(fig[k], 0) / 1e6,
          median(fig[k], 1) / 1e6,
          median(fig[k], 2) / 1e3,
          median(fig[k], 3) / 1e6,
          median(fig[k], 4) / 1e6);
    }
  }

  /**
   * {merge ns, longest gap between PING replies ns, PINGs answered}, the pinger on its own link.
   */
  private static long[] mergeWhilePinging(URI uri, RedisWindowedCountMin r, WindowedCountMin lib)
      throws Exception {
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong longest = new AtomicLong();
    AtomicLong count = new AtomicLong();
    Thread pinger;
    try (Raw ping = new Raw(uri)) {
      // Warm the pinger and see it answered before the merge starts.
      ping.call("PING", 1);
      pinger =
          new Thread(
              () -> {
                long last = System.nanoTime();
                try {
                  while (!stop.get()) {
                    ping.call("PING", 1);
                    long now = System.nanoTime();
                    longest.accumulateAndGet(now - last, Math::max);
                    last = now;
                    count.incrementAndGet();
                  }
                } catch (IOException e) {
                  throw new IllegalStateException(e);
                }
              });
      pinger.start();
      Thread.sleep(50);
      long t0 = System.nanoTime();
      r.merge(lib);
      long wall = System.nanoTime() - t0;
      Thread.sleep(50);
      stop.set(true);
      pinger.join();
      return new long[] {wall, longest.get(), count.get()};
    }
  }

  /** The non-zero counters of every slot of the ring as its file holds it: the merge's pairs. */
  private static long nonZero(WindowedCountMin w, int width, int depth) throws IOException {
    java.io.ByteArrayOutputStream file = new java.io.ByteArrayOutputStream();
    w.writeTo(file);
    WindowedSlices.Ring ring =
        WindowedSlices.Ring.read(
            file.toByteArray(), io.github.probkit.io.StructureType.WINDOWED_COUNT_MIN);
    long n = 0;
    for (byte[] slice : ring.slices()) {
      CountMinSketch k = CountMinSketch.readFrom(new java.io.ByteArrayInputStream(slice));
      for (int row = 0; row < depth; row++) {
        for (int c = 0; c < width; c++) {
          if (k.counter(row, c) != 0) {
            n++;
          }
        }
      }
    }
    return n;
  }

  private static long median(long[][] runs, int i) {
    long[] v = new long[runs.length];
    for (int r = 0; r < runs.length; r++) {
      v[r] = runs[r][i];
    }
    Arrays.sort(v);
    return v[v.length / 2];
  }
}
