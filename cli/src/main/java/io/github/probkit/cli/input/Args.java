package io.github.probkit.cli.input;

import io.github.probkit.cli.output.CliException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Command-line arguments as the bytes they were passed as, whatever the locale. The JVM decodes
 * argv with the locale's charset: with LANG unset that is ASCII, and every other byte becomes
 * U+FFFD, so that {@code café} could never be queried. On Linux the bytes are in
 * /proc/self/cmdline; they are decoded as UTF-8, each byte that is not valid UTF-8 becoming a lone
 * surrogate U+DC80 to U+DCFF (as Python's "surrogateescape"), and {@link #bytes} turns such a
 * string back into exactly the bytes it came from.
 */
public final class Args {
  private Args() {}

  /**
   * {@code args} decoded from the bytes in /proc/self/cmdline, when its last {@code args.length}
   * entries are the same arguments (they agree on every ASCII character but '?'); else {@code
   * args}.
   */
  public static String[] asPassed(String[] args) {
    byte[] all;
    try {
      all = Files.readAllBytes(Path.of("/proc/self/cmdline"));
    } catch (IOException | RuntimeException e) {
      return args;
    }
    List<byte[]> argv = new ArrayList<>();
    for (int start = 0, i = 0; i < all.length; i++) {
      if (all[i] == 0) {
        argv.add(java.util.Arrays.copyOfRange(all, start, i));
        start = i + 1;
      }
    }
    if (argv.size() < args.length) {
      return args;
    }
    String[] out = new String[args.length];
    for (int i = 0; i < args.length; i++) {
      byte[] raw = argv.get(argv.size() - args.length + i);
      if (!sameAscii(raw, args[i])) {
        return args;
      }
      out[i] = decode(raw);
    }
    return out;
  }

  private static boolean sameAscii(byte[] raw, String arg) {
    StringBuilder a = new StringBuilder();
    for (byte b : raw) {
      if (b > 0 && b != '?') {
        a.append((char) b);
      }
    }
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < arg.length(); i++) {
      char c = arg.charAt(i);
      if (c > 0 && c < 0x80 && c != '?') {
        s.append(c);
      }
    }
    return a.toString().contentEquals(s);
  }

  /**
   * {@code name} as a path. The JVM encodes file names in the locale's charset: with LANG unset,
   * ASCII, so that no other name can be opened; the launcher sets a UTF-8 locale then.
   */
  public static Path path(String name) {
    try {
      return Path.of(name);
    } catch (InvalidPathException e) {
      throw new CliException(
          name
              + ": not a file name this JVM can encode in the locale's charset "
              + System.getProperty("sun.jnu.encoding")
              + " (set LC_ALL=C.UTF-8, as the launcher does)");
    }
  }

  /**
   * {@code raw} as UTF-8, each byte of an invalid sequence as the lone surrogate {@code U+DC00 +
   * byte}.
   */
  public static String decode(byte[] raw) {
    CharsetDecoder d =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer in = ByteBuffer.wrap(raw);
    CharBuffer out = CharBuffer.allocate(raw.length);
    while (true) {
      CoderResult r = d.decode(in, out, true);
      if (r.isUnderflow()) {
        break;
      }
      for (int i = 0; i < r.length(); i++) {
        out.put((char) (0xDC00 | (in.get() & 0xFF)));
      }
    }
    d.flush(out);
    return out.flip().toString();
  }

  /**
   * The bytes {@code s} came from: its UTF-8, except that lone surrogates U+DC80 to U+DCFF are
   * single bytes.
   */
  public static byte[] bytes(String s) {
    int from = 0;
    ByteArrayOutputStream b = null;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c >= 0xDC80 && c <= 0xDCFF && (i == 0 || !Character.isHighSurrogate(s.charAt(i - 1)))) {
        if (b == null) {
          b = new ByteArrayOutputStream(s.length() + 8);
        }
        b.writeBytes(s.substring(from, i).getBytes(StandardCharsets.UTF_8));
        b.write(c & 0xFF);
        from = i + 1;
      }
    }
    if (b == null) {
      return s.getBytes(StandardCharsets.UTF_8);
    }
    b.writeBytes(s.substring(from).getBytes(StandardCharsets.UTF_8));
    return b.toByteArray();
  }
}
