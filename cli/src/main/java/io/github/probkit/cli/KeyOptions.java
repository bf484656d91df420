package io.github.probkit.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * Where a command's keys come from. The keys a command works on: from the arguments, from {@code --keys FILE}, or from standard input
 * when neither is given (or with {@code --keys -}). One key per line; keys are the line's bytes.
 */
final class KeyOptions {
  @Option(
      names = "--keys",
      paramLabel = "FILE",
      description = "Read keys from FILE, one per line ('-' for stdin; .gz is decompressed).")
  String keysFile;

  /** Feeds every key to {@code sink}; returns the number of keys. */
  long forEach(List<String> keys, InputStream stdin, LineReader.LineConsumer sink) throws IOException {
    long n = 0;
    for (String k : keys) {
      byte[] b = k.getBytes(StandardCharsets.UTF_8);
      sink.accept(b, 0, b.length);
      n++;
    }
    if (keysFile != null && !keysFile.equals("-")) {
      try (InputStream in = LineReader.maybeGunzip(Files.newInputStream(Path.of(keysFile)))) {
        n += LineReader.forEachLine(in, keysFile, sink);
      }
    } else if (keysFile != null || keys.isEmpty()) {
      n += LineReader.forEachLine(LineReader.maybeGunzip(stdin), "<stdin>", sink);
    }
    return n;
  }
}
