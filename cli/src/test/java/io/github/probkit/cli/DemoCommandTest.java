package io.github.probkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.cli.command.DemoCommand;
import org.junit.jupiter.api.Test;

class DemoCommandTest {
  /** The ten output lines of seed 000's Bloom walkthrough, as the seed prints them. */
  static final String SEED_000_BLOOM =
      "add 'asha'   -> bits [10, 9]\n"
          + "add 'ravi'   -> bits [5, 2]\n"
          + "add 'meera'  -> bits [7, 12]\n"
          + "bit array: 0010010101101000 (6 of 16 bits set)\n"
          + "query 'ravi'   -> bits [5, 2]: probably present\n"
          + "query 'john'   -> bits [12, 13]: definitely absent\n"
          + "query 'kiran'  -> bits [10, 7]: probably present (a false positive)\n"
          + "query 'farah'  -> bits [15, 12]: definitely absent\n"
          + "query 'neel'   -> bits [5, 6]: definitely absent\n"
          + "query 'tara'   -> bits [7, 14]: definitely absent\n";

  @Test
  void bloomDemoPrintsTheSeedByteForByte() {
    Cli r = Cli.run("demo", "bloom");
    assertThat(r.exit).isZero();
    assertThat(r.out.replace(System.lineSeparator(), "\n")).isEqualTo(SEED_000_BLOOM);
  }

  @Test
  void demoAloneRunsEveryDemo() {
    Cli r = Cli.run("demo");
    assertThat(r.exit).isZero();
    assertThat(r.out).contains(SEED_000_BLOOM);
    for (String name : DemoCommand.DEMOS.keySet()) {
      assertThat(r.out).contains("== probkit demo " + name + " ==");
    }
  }

  @Test
  void unknownDemoIsAUsageError() {
    Cli r = Cli.run("demo", "nope");
    assertThat(r.exit).isEqualTo(2);
    assertThat(r.err).startsWith("probkit: unknown demo 'nope'").doesNotContain("Exception");
  }
}
