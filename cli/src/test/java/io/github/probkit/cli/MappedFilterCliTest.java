package io.github.probkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.Concurrency;
import io.github.probkit.cli.format.FilterDescriptions;
import io.github.probkit.filter.BlockedBloomFilter;
import io.github.probkit.filter.Filters;
import io.github.probkit.filter.MembershipFilter;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * query and info answer from a mapped view of the file for the types that map, exactly as the
 * loaded filter (its answers and its description); info --verify checks the checksum that a mapped
 * view otherwise does not read; create and add write the bytes the library writes for the same
 * keys.
 */
class MappedFilterCliTest extends InTempDir {

  private Path keys(int from, int to) throws IOException {
    StringBuilder b = new StringBuilder();
    for (int i = from; i < to; i++) {
      b.append("user:").append(i).append('\n');
    }
    Path p = dir.resolve("keys-" + from + "-" + to + ".txt");
    Files.writeString(p, b);
    return p;
  }

  /** A blocked filter for 10,000 keys at 1% in {@code name}, holding {@code keys}. */
  private void createBlocked(String name, Path keys) {
    Cli c =
        Cli.run(
            Commands.sizedFilterCreate(
                f(name), "blocked", "10000", "0.01", "--keys", keys.toString()));
    assertThat(c.exit).as(c.toString()).isZero();
  }

  @Test
  void mappedAndLoadedFilesAnswerAndDescribeAlike() throws IOException {
    for (String type : new String[] {"bloom", "blocked", "binary-fuse8"}) {
      String file = f(type + ".bin");
      String keys = keys(0, 3000).toString();
      String[] create =
          type.startsWith("binary")
              ? Commands.filterCreate(file, type, "--keys", keys)
              : Commands.filterCreate(
                  file, type, "--expected", "3000", "--fpp", "0.05", "--keys", keys);
      assertThat(Cli.run(create).exit).as(type).isZero();
      MembershipFilter loaded;
      try (InputStream in = Files.newInputStream(Path.of(file))) {
        loaded = Filters.readFrom(in);
      }
      StringBuilder expected = new StringBuilder();
      for (int i = 2000; i < 6000; i++) {
        expected
            .append("user:")
            .append(i)
            .append(loaded.mightContain("user:" + i) ? "\tpresent\n" : "\tabsent\n");
      }
      Cli mapped = Cli.run("filter", "query", file, "--keys", keys(2000, 6000).toString());
      assertThat(mapped.exit).isZero();
      assertThat(mapped.out)
          .as(type)
          .isEqualTo(expected.toString())
          .contains("user:2000\tpresent")
          .contains("absent");
      assertThat(Cli.run("filter", "info", file, "--json").out)
          .as(type)
          .isEqualTo(FilterDescriptions.describe(loaded, true) + "\n");
      Cli verified = Cli.run("filter", "info", file, "--verify", "--json");
      assertThat(verified.exit).isZero();
      assertThat(verified.out).contains("\"checksum\": \"verified\"");
    }
  }

  @Test
  void aCorruptPayloadThatAQueryDoesNotReadIsStillAnError() throws IOException {
    createBlocked("f.bin", keys(0, 5000));
    byte[] b = Files.readAllBytes(dir.resolve("f.bin"));
    b[b.length / 2] ^= 0x01;
    Files.write(dir.resolve("f.bin"), b);
    for (String[] command :
        new String[][] {
          {"filter", "info", f("f.bin")},
          {"filter", "info", f("f.bin"), "--verify"},
          {"filter", "query", f("f.bin"), "user:1"}
        }) {
      Cli c = Cli.run(command);
      assertThat(c.exit).isEqualTo(1);
      assertThat(c.err).startsWith("probkit: ").contains("f.bin").contains("checksum mismatch");
    }
    assertThat(Cli.run("filter", "add", f("f.bin"), "x").err)
        .as("a full read checks it")
        .contains("checksum mismatch");
  }

  @Test
  void createAndAddWriteTheLibrarysBytes() throws IOException {
    Path first = keys(0, 4000);
    Path second = keys(3000, 9000);
    createBlocked("c.bin", first);
    assertThat(Cli.run("filter", "add", f("c.bin"), "--keys", second.toString()).exit).isZero();
    BlockedBloomFilter expected =
        BlockedBloomFilter.create(10_000, 0.01, Concurrency.SINGLE_WRITER);
    for (Path p : new Path[] {first, second}) {
      for (String k : Files.readAllLines(p)) {
        expected.add(k);
      }
    }
    MembershipFilter written;
    try (InputStream in = Files.newInputStream(dir.resolve("c.bin"))) {
      written = Filters.readFrom(in);
    }
    assertThat(written).isEqualTo(expected);
  }
}
