package io.github.probkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.filter.CountingBloomFilter;
import io.github.probkit.filter.CuckooFilter;
import io.github.probkit.filter.Filters;
import io.github.probkit.filter.MembershipFilter;
import io.github.probkit.filter.ScalableBloomFilter;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code probkit filter} with the counting, cuckoo and scalable types, run in-process with captured
 * output.
 */
class FilterFamilyCliTest {
  @TempDir Path dir;

  private static Cli run(Object... args) {
    String[] a = new String[args.length];
    for (int i = 0; i < args.length; i++) {
      a[i] = args[i].toString();
    }
    return Cli.run(a);
  }

  /** {@code filter create f --type type --expected n --fpp fpp}, then {@code more} options. */
  private static Cli create(Path f, String type, int expected, double fpp, Object... more) {
    List<Object> args =
        new ArrayList<>(
            List.of("filter", "create", f, "--type", type, "--expected", expected, "--fpp", fpp));
    args.addAll(List.of(more));
    return run(args.toArray());
  }

  private Path keys(String name, String prefix, int n) throws IOException {
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      lines.add(prefix + i);
    }
    return Files.write(dir.resolve(name), lines);
  }

  private static MembershipFilter read(Path p) throws IOException {
    try (InputStream in = Files.newInputStream(p)) {
      return Filters.readFrom(in);
    }
  }

  @Test
  void createsEachTypeWithItsKeys() throws IOException {
    Path keys = keys("keys.txt", "user:", 500);
    for (String type : new String[] {"counting", "cuckoo", "scalable"}) {
      Path f = dir.resolve(type + ".bin");
      Cli r = create(f, type, 1000, 0.01, "--keys", keys);
      assertThat(r.exit).as(r.err).isZero();
      MembershipFilter m = read(f);
      assertThat(m.type().label()).isEqualTo(type);
      Cli q = run("filter", "query", f, "user:7", "user:499");
      assertThat(q.out).isEqualTo("user:7\tpresent\nuser:499\tpresent\n");
    }
    assertThat(read(dir.resolve("counting.bin"))).isInstanceOf(CountingBloomFilter.class);
    assertThat(((CuckooFilter) read(dir.resolve("cuckoo.bin"))).size()).isEqualTo(500);
    assertThat(((ScalableBloomFilter) read(dir.resolve("scalable.bin"))).initialCapacity())
        .isEqualTo(1000);
  }

  /**
   * The estimates {@code filter info} prints for a counting filter of 1,000 keys at 1 % (9,586
   * counters, 7 probes) are those of theory, computed here: about 1,000 keys (the fill's standard
   * deviation, 8 keys, four times over) and a rate of (1 - e^(-7n/m))^7 = 1.0 % (0.04 % four
   * times). Counted over the 4m bits instead of the m counters they would print about 760 keys and
   * 10^-6.
   */
  @Test
  void countingInfoEstimatesAreTheTheoryAtTheLoad() throws IOException {
    Path c = dir.resolve("c.bin");
    create(c, "counting", 1000, 0.01, "--keys", keys("k.txt", "key-", 1000));
    String json = run("filter", "info", c, "--json").out;
    double rate = Math.pow(1 - Math.exp(-7.0 * 1000 / 9586), 7);
    assertThat(number(json, "approximateCount")).as(json).isBetween(1000 - 33.0, 1000 + 33.0);
    assertThat(number(json, "expectedFpp")).as(json).isBetween(rate - 0.0016, rate + 0.0016);
  }

  private static double number(String json, String field) {
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("\"" + field + "\": ([0-9.eE+-]+)").matcher(json);
    assertThat(m.find()).as("%s in %s", field, json).isTrue();
    return Double.parseDouble(m.group(1));
  }

  @Test
  void infoShowsEachTypesFields() {
    Path c = dir.resolve("c.bin");
    Path q = dir.resolve("q.bin");
    Path s = dir.resolve("s.bin");
    create(c, "counting", 1000, 0.01);
    create(q, "cuckoo", 1000, 0.01);
    create(s, "scalable", 100, 0.01);
    run("filter", "add", c, "a", "b");
    run("filter", "add", q, "a", "b", "b"); // every add counts: b twice
    run("filter", "add", q, "--multiset", "a"); // --multiset, the default, changes nothing
    List<String> keys = new ArrayList<>(List.of("add", "x"));
    for (int i = 0; i < 150; i++) {
      keys.add("k" + i);
    }
    List<Object> args = new ArrayList<>(List.of("filter", "add", s));
    args.addAll(keys.subList(1, keys.size()));
    assertThat(run(args.toArray()).exit).isZero();

    String counting = run("filter", "info", c, "--json").out;
    assertThat(counting)
        .startsWith(
            "{\"type\": \"counting\", \"bits\": 38344, \"counters\": 9586, \"counterBits\": 4,"
                + " \"hashes\": 7, \"expectedKeys\": 1000, \"fpp\": 0.01,");
    assertThat(counting).contains("\"saturatedCounters\": 0").contains("\"bytes\": 4800");

    String cuckoo = run("filter", "info", q, "--json").out;
    assertThat(cuckoo)
        .startsWith(
            "{\"type\": \"cuckoo\", \"bits\": 13120, \"buckets\": 328, \"slotsPerBucket\": 4,"
                + " \"fingerprintBits\": 10, \"expectedKeys\": 1000, \"fpp\": 0.01, \"keys\": 4,");
    assertThat(cuckoo).contains("\"bytes\": 1640");

    String scalable = run("filter", "info", s, "--json").out;
    // The library raises a first layer below 1,000 keys to 1,000 and sizes the layers for 0.9 of
    // the rate.
    assertThat(scalable)
        .startsWith(
            "{\"type\": \"scalable\", \"bits\": 11248, \"initialCapacity\": 1000,"
                + " \"fpp\": 0.009000000000000001, \"growth\": 2, \"tightening\": 0.5, \"capacity\": 1000, \"layers\":"
                + " [{\"capacity\": 1000, \"keys\": 151, \"bits\": 11248, \"hashes\": 8, \"fpp\": 0.0045000000000000005}]");
    assertThat(scalable).contains("\"bytes\": " + 8 * 176);

    assertThat(run("filter", "info", q).out).containsPattern("\nfingerprintBits: +10\n");
  }

  @Test
  void removeDeletesFromCountingAndCuckooFilters() throws IOException {
    Path keys = keys("keys.txt", "key:", 1000);
    Path gone = keys("gone.txt", "key:", 500);
    for (String type : new String[] {"counting", "cuckoo"}) {
      Path f = dir.resolve(type + ".bin");
      create(f, type, 1000, 0.001, "--keys", keys);
      Cli r = run("filter", "remove", f, "--keys", gone);
      assertThat(r.exit).as(r.err).isZero();
      assertThat(r.out).isEqualTo("removed 500 of 500 keys (0 certainly absent)\n");
      MembershipFilter m = read(f);
      int stillThere = 0;
      for (int i = 0; i < 500; i++) {
        stillThere += m.mightContain("key:" + i) ? 1 : 0;
        assertThat(m.mightContain("key:" + (500 + i))).isTrue();
      }
      assertThat(stillThere).as("removed keys reported present at 0.1 %").isLessThan(10);
      Cli again = run("filter", "remove", f, "key:600", "never-added");
      assertThat(again.out).isEqualTo("removed 1 of 2 keys (1 certainly absent)\n");
    }
  }

  @Test
  void removeRefusesTypesThatCannotDeleteAndLeavesTheFile() throws IOException {
    for (String type : new String[] {"bloom", "scalable"}) {
      Path f = dir.resolve(type + ".bin");
      create(f, type, 100, 0.01);
      run("filter", "add", f, "a");
      byte[] before = Files.readAllBytes(f);
      Cli r = run("filter", "remove", f, "a");
      assertThat(r.exit).isEqualTo(Main.EXIT_RUNTIME);
      assertThat(r.err)
          .isEqualTo(
              "probkit: "
                  + f
                  + ": a "
                  + type
                  + " filter cannot delete keys (counting and cuckoo filters can); the file was not changed\n");
      assertThat(Files.readAllBytes(f)).isEqualTo(before);
    }
  }

  @Test
  void aFullCuckooFilterFailsTheAddAndLeavesTheFile() throws IOException {
    Path f = dir.resolve("small.bin");
    // CuckooFilter.bucketsFor(10, 10) = ceil((10 / 0.9 + 6 sqrt(10 / 0.9)) / 4) = 8 buckets: 32
    // slots.
    assertThat(create(f, "cuckoo", 10, 0.01).exit).isZero();
    run("filter", "add", f, "first", "second");
    byte[] before = Files.readAllBytes(f);
    Cli r = run("filter", "add", f, "--keys", keys("many.txt", "m:", 100));
    assertThat(r.exit).isEqualTo(Main.EXIT_RUNTIME);
    assertThat(r.err)
        .matches(
            "probkit: \\Q"
                + f
                + "\\E: the cuckoo filter is full after adding (2[6-9]|30) keys \\(load"
                + " \\d+\\.\\d %, the maximum is about 95 %\\); the file was left as it was\n");
    assertThat(Files.readAllBytes(f)).isEqualTo(before);
    assertThat(((CuckooFilter) read(f)).size()).isEqualTo(2);
    try (var files = Files.list(dir)) {
      assertThat(files.filter(p -> p.getFileName().toString().endsWith(".tmp"))).isEmpty();
    }

    Path g = dir.resolve("never.bin");
    Cli c = create(g, "cuckoo", 10, 0.01, "--keys", dir.resolve("many.txt"));
    assertThat(c.exit).isEqualTo(Main.EXIT_RUNTIME);
    assertThat(c.err).contains(g + ": the cuckoo filter is full after adding");
    assertThat(g).doesNotExist();
  }

  @Test
  void mergesCountingAndCuckooFiltersAndRefusesScalable() throws IOException {
    for (String type : new String[] {"counting", "cuckoo"}) {
      Path a = dir.resolve(type + "-a.bin");
      Path b = dir.resolve(type + "-b.bin");
      Path u = dir.resolve(type + "-u.bin");
      create(a, type, 1000, 0.01, "--keys", keys("a.txt", "a:", 300));
      create(b, type, 1000, 0.01, "--keys", keys("b.txt", "b:", 300));
      Cli r = run("filter", "merge", u, a, b);
      assertThat(r.exit).as(r.err).isZero();
      assertThat(run("filter", "query", u, "a:1", "b:299").out)
          .isEqualTo("a:1\tpresent\nb:299\tpresent\n");
      Path other = dir.resolve(type + "-other.bin");
      create(other, type, 5000, 0.01);
      Cli bad = run("filter", "merge", u, a, other);
      assertThat(bad.exit).isEqualTo(Main.EXIT_RUNTIME);
      assertThat(bad.err)
          .startsWith("probkit: " + other + ": cannot merge filters of different sizes");
    }
    Path s = dir.resolve("s.bin");
    create(s, "scalable", 100, 0.01);
    Cli r = run("filter", "merge", dir.resolve("su.bin"), s, s);
    assertThat(r.exit).isEqualTo(Main.EXIT_RUNTIME);
    assertThat(r.err)
        .isEqualTo(
            "probkit: "
                + s
                + ": merging scalable filters is not supported (bloom, blocked, split-block, counting,"
                + " cuckoo and window filters of time merge)\n");
    Cli mixed =
        run(
            "filter",
            "merge",
            dir.resolve("mx.bin"),
            dir.resolve("counting-a.bin"),
            dir.resolve("cuckoo-a.bin"));
    assertThat(mixed.err).contains("cannot merge a cuckoo filter into a counting filter");
  }

  @Test
  void unknownTypeIsAUsageError() {
    Cli r = create(dir.resolve("x.bin"), "quotient", 10, 0.01);
    assertThat(r.exit).isEqualTo(Main.EXIT_USAGE);
    assertThat(r.err).contains("bloom, counting, cuckoo, scalable").contains("'quotient'");
  }
}
