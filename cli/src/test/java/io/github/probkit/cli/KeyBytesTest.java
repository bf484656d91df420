package io.github.probkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.cli.input.Args;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Keys are bytes whatever the locale: from the arguments, standard input and files, and in every
 * output line, under {@code env -i} (no LANG at all: the JVM's charset is then ASCII) and the usual
 * minimal locales. Non-ASCII bytes never pass through Java strings of this test: the shell makes
 * them with printf, so that the test's own locale cannot change them either.
 */
class KeyBytesTest {
  /** café and 日本 in UTF-8, caf + é in Latin-1 (not UTF-8 at all), and a plain key. */
  private static final String KEYS_SH =
      "k1=$(printf 'caf\\303\\251'); k2=$(printf '\\346\\227\\245\\346\\234\\254'); k3=$(printf 'caf\\351'); ";

  private static final byte[] CAFE = {'c', 'a', 'f', (byte) 0xc3, (byte) 0xa9};
  private static final byte[] NIHON = {
    (byte) 0xe6, (byte) 0x97, (byte) 0xa5, (byte) 0xe6, (byte) 0x9c, (byte) 0xac
  };
  private static final byte[] LATIN1 = {'c', 'a', 'f', (byte) 0xe9};

  @TempDir static Path dir;
  private static Path keys;

  @BeforeAll
  static void writeKeys() throws IOException {
    keys = Files.write(dir.resolve("keys.txt"), lines(CAFE, NIHON, LATIN1));
  }

  private static byte[] lines(byte[]... keys) {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    for (byte[] k : keys) {
      b.writeBytes(k);
      b.write('\n');
    }
    return b.toByteArray();
  }

  private static byte[] answers(String... keyAndAnswer) {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    for (int i = 0; i < keyAndAnswer.length; i += 2) {
      String k = keyAndAnswer[i];
      b.writeBytes(
          k.equals("CAFE")
              ? CAFE
              : k.equals("NIHON")
                  ? NIHON
                  : k.equals("LATIN1") ? LATIN1 : k.getBytes(StandardCharsets.US_ASCII));
      b.writeBytes(('\t' + keyAndAnswer[i + 1] + '\n').getBytes(StandardCharsets.US_ASCII));
    }
    return b.toByteArray();
  }

  /** Runs {@code sh -c 'KEYS_SH exec env -i LOCALE java ... probkit ARGS'}, ARGS as shell words. */
  private static Probkit.Result run(String locale, String args) throws Exception {
    String java = String.join(" ", Probkit.command(List.of()));
    String sh = KEYS_SH + "exec env -i " + locale + " " + java + " " + args;
    Process p =
        new ProcessBuilder("sh", "-c", sh)
            .redirectInput(ProcessBuilder.Redirect.from(keys.toFile()))
            .start();
    return Probkit.finish(p);
  }

  /** Under env -i: filter create, filter query, cms add and query, top. */
  @Test
  void keysAreTheSameBytesFromArgumentsStdinAndFilesWithoutALocale() throws Exception {
    Probkit.Result created =
        run("", "filter create " + filter() + " --expected 100 --fpp 0.01 --keys " + keys);
    assertThat(created.exit()).as(created.toString()).isZero();
    queriesAnswerWithTheKeysBytes("");

    Path cms = dir.resolve("s.cms");
    // create counts the keys on its stdin (each once), then add counts the argument twice.
    assertThat(run("", "cms create " + cms + " --width 100 --depth 3").exit()).isZero();
    assertThat(run("", "cms add " + cms + " \"$k3\" \"$k3\"").exit()).isZero();
    assertThat(run("", "cms query " + cms + " \"$k3\" --items " + keys).stdout())
        .isEqualTo(answers("LATIN1", "3", "CAFE", "1", "NIHON", "1", "LATIN1", "3"));

    Path repeated =
        Files.write(dir.resolve("top.txt"), lines(LATIN1, CAFE, LATIN1, NIHON, CAFE, LATIN1));
    Probkit.Result top = run("", "top " + repeated);
    ByteArrayOutputStream expected = new ByteArrayOutputStream();
    for (Object[] line : new Object[][] {{3, LATIN1}, {2, CAFE}, {1, NIHON}}) {
      expected.writeBytes((line[0] + "\t" + line[0] + "\t").getBytes(StandardCharsets.US_ASCII));
      expected.writeBytes((byte[]) line[1]);
      expected.write('\n');
    }
    assertThat(top.stdout()).as(top.toString()).isEqualTo(expected.toByteArray());
  }

  /** The filter built under env -i answers the same in the other minimal locales. */
  @ParameterizedTest
  @ValueSource(strings = {"LANG=C", "LC_ALL=POSIX", "LC_ALL=C.UTF-8"})
  void keysAreTheSameBytesInEveryMinimalLocale(String locale) throws Exception {
    if (!Files.exists(filter())) {
      assertThat(
              run("", "filter create " + filter() + " --expected 100 --fpp 0.01 --keys " + keys)
                  .exit())
          .isZero();
    }
    queriesAnswerWithTheKeysBytes(locale);
  }

  private static Path filter() {
    return dir.resolve("f.bin");
  }

  private static void queriesAnswerWithTheKeysBytes(String locale) throws Exception {
    Probkit.Result args = run(locale, "filter query " + filter() + " \"$k1\" \"$k2\" \"$k3\" caf");
    assertThat(args.stdout())
        .as(args.toString())
        .isEqualTo(
            answers("CAFE", "present", "NIHON", "present", "LATIN1", "present", "caf", "absent"));
    Probkit.Result stdin = run(locale, "filter query " + filter());
    assertThat(stdin.stdout())
        .as(stdin.toString())
        .isEqualTo(answers("CAFE", "present", "NIHON", "present", "LATIN1", "present"));
  }

  @Test
  void argumentsDecodeToStringsThatGiveBackTheirBytes() {
    for (byte[] raw :
        new byte[][] {
          CAFE,
          NIHON,
          LATIN1,
          {(byte) 0xed, (byte) 0xa0, (byte) 0x80},
          {(byte) 0xff},
          {'a', (byte) 0xf0, (byte) 0x9f, (byte) 0x98},
          {}
        }) {
      assertThat(Args.bytes(Args.decode(raw))).isEqualTo(raw);
    }
    assertThat(Args.decode(CAFE)).isEqualTo("café");
    assertThat(Args.bytes("café")).isEqualTo(CAFE);
    assertThat(Args.bytes("\uD83D\uDE00"))
        .isEqualTo("\uD83D\uDE00".getBytes(StandardCharsets.UTF_8));
  }
}
