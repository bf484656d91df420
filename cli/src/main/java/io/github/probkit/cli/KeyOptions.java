package io.github.probkit.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Where a command's keys come from, and which part of each line is the key. Keys come from the
 * arguments, from {@code --keys FILE}, or from standard input when neither is given (or with
 * {@code --keys -}); one key per line, or one column of each line with {@code --field}.
 */
final class KeyOptions {
  @Option(
      names = "--keys",
      paramLabel = "FILE",
      description = "Read keys from FILE, one per line ('-' for stdin; .gz is decompressed).")
  String keysFile;

  @Mixin InputFormat format = new InputFormat();

  /** Feeds every key to {@code sink} on the calling thread, in order; returns the number of keys. */
  long forEach(List<String> keys, InputStream stdin, LineReader.LineConsumer sink) throws IOException {
    return forEach(keys, stdin, Inputs.KeySink.inOrder(sink));
  }

  /** Feeds every key to {@code sink}; returns the number of keys. */
  long forEach(List<String> keys, InputStream stdin, Inputs.KeySink sink) throws IOException {
    long n = 0;
    for (String k : keys) {
      byte[] b = k.getBytes(StandardCharsets.UTF_8);
      sink.accept(b, 0, b.length);
      n++;
    }
    if (keysFile != null && !keysFile.equals("-")) {
      n += Inputs.forEachLine(List.of(keysFile), stdin, format, sink);
    } else if (keysFile != null || keys.isEmpty()) {
      n += Inputs.forEachLine(List.of("-"), stdin, format, sink);
    }
    return n;
  }
}
