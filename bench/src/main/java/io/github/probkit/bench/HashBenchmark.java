package io.github.probkit.bench;

import com.dynatrace.hash4j.hashing.Hasher64;
import com.dynatrace.hash4j.hashing.Hashing;
import com.google.common.hash.HashFunction;
import io.github.probkit.hash.HashStrategy;
import io.github.probkit.internal.KeyBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.commons.codec.digest.MurmurHash3;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Hashing one key to 64 bits: a 20-character String ({@code "user:"} + 15 digits) or a long, in ns
 * per key. probkit hashes the UTF-8 bytes of a String, read from its chars when it has at most 32,
 * all ASCII; {@code probkit-xxh3-buffered} is the same hash over the String copied into the
 * thread's buffer first (the way every String key went before, and longer ones still go), left out
 * of bench/run's set, for a before/after in one run. hash4j is shown both over the chars and over
 * {@code getBytes(UTF_8)}; Guava and commons-codec are the hashes their Bloom filters use.
 *
 * <pre>
 * java -jar bench/target/benchmarks.jar HashBenchmark -prof gc
 * </pre>
 */
@State(Scope.Thread)
public class HashBenchmark extends NsPerOperation {
  private static final int KEYS = 1 << 16;
  private static final int MASK = KEYS - 1;
  static final java.util.List<String> NAMES =
      java.util.List.of(
          "probkit-xxh3",
          "hash4j-xxh3-chars",
          "hash4j-xxh3-utf8",
          "guava-murmur3_128",
          "commons-murmur3_128");

  @Param({
    "probkit-xxh3",
    "probkit-xxh3-buffered",
    "hash4j-xxh3-chars",
    "hash4j-xxh3-utf8",
    "guava-murmur3_128",
    "commons-murmur3_128"
  })
  public String impl;

  private Contestant hash;
  private String[] strings;
  private long[] longs;
  private int next;

  /** One way of hashing a key. */
  abstract static class Contestant {
    abstract long hash(String s);

    abstract long hash(long k);
  }

  @Setup(Level.Trial)
  public void setup() {
    strings = Keys.strings(0, KEYS);
    longs = Keys.longs(0, KEYS);
    hash = contestant(impl);
  }

  static Contestant contestant(String impl) {
    switch (impl) {
      case "probkit-xxh3":
        {
          HashStrategy h = HashStrategy.xxh3();
          return new Contestant() {
            @Override
            long hash(String s) {
              return h.hash64(s);
            }

            @Override
            long hash(long k) {
              return h.hash64(k);
            }
          };
        }
      case "probkit-xxh3-buffered":
        {
          HashStrategy h = HashStrategy.xxh3();
          return new Contestant() {
            @Override
            long hash(String s) {
              KeyBuffer b = KeyBuffer.utf8(s);
              try {
                return h.hash64(b.bytes(), 0, b.length());
              } finally {
                b.release();
              }
            }

            @Override
            long hash(long k) {
              return h.hash64(k);
            }
          };
        }
      case "hash4j-xxh3-chars":
        {
          Hasher64 h = Hashing.xxh3_64();
          return new Contestant() {
            @Override
            long hash(String s) {
              return h.hashCharsToLong(s);
            }

            @Override
            long hash(long k) {
              return h.hashLongToLong(k);
            }
          };
        }
      case "hash4j-xxh3-utf8":
        {
          Hasher64 h = Hashing.xxh3_64();
          return new Contestant() {
            @Override
            long hash(String s) {
              return h.hashBytesToLong(s.getBytes(StandardCharsets.UTF_8));
            }

            @Override
            long hash(long k) {
              return h.hashLongToLong(k);
            }
          };
        }
      case "guava-murmur3_128":
        {
          HashFunction h = com.google.common.hash.Hashing.murmur3_128();
          return new Contestant() {
            @Override
            long hash(String s) {
              return h.hashString(s, StandardCharsets.UTF_8).asLong();
            }

            @Override
            long hash(long k) {
              return h.hashLong(k).asLong();
            }
          };
        }
      case "commons-murmur3_128":
        {
          byte[] buf = new byte[8];
          return new Contestant() {
            @Override
            long hash(String s) {
              byte[] b = s.getBytes(StandardCharsets.UTF_8);
              return MurmurHash3.hash128x64(b, 0, b.length, 0)[0];
            }

            @Override
            long hash(long k) {
              for (int i = 0; i < 8; i++) {
                buf[i] = (byte) (k >>> (8 * i));
              }
              return MurmurHash3.hash128x64(buf, 0, 8, 0)[0];
            }
          };
        }
      default:
        throw new IllegalArgumentException("unknown hash " + impl);
    }
  }

  @Benchmark
  public long hashString() {
    return hash.hash(strings[next++ & MASK]);
  }

  @Benchmark
  public long hashLong() {
    return hash.hash(longs[next++ & MASK]);
  }
}
