package io.github.probkit.cli.lab;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.cli.Main;
import java.awt.image.BufferedImage;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every experiment in its tiny configuration, through the command line as a user runs it. */
class LabCommandTest {
  private static final Pattern CHART = Pattern.compile("(?m)^chart: (.+\\.png)$");
  private static final Pattern CHECK = Pattern.compile("(?m)^(pass|FAIL)  ([a-z-]+): (.+)$");

  private static final class Run {
    final int exit;
    final String out;
    final String err;

    Run(int exit, String out, String err) {
      this.exit = exit;
      this.out = out;
      this.err = err;
    }

    @Override
    public String toString() {
      return "exit " + exit + "\n--- out\n" + out + "--- err\n" + err;
    }
  }

  private static Run lab(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    var cl = Main.commandLine();
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    String[] all = new String[args.length + 1];
    all[0] = "lab";
    System.arraycopy(args, 0, all, 1, args.length);
    int code = cl.execute(all);
    return new Run(code, out.toString(), err.toString());
  }

  static Stream<String> experiments() {
    return LabCommand.EXPERIMENTS.keySet().stream();
  }

  @ParameterizedTest
  @MethodSource("experiments")
  void experimentPrintsTablesChecksAndWritesTheReport(String name, @TempDir Path dir)
      throws Exception {
    Run r = lab(name, "--tiny", "--out", dir.toString());

    assertThat(r.exit).as(r.toString()).isZero();
    assertThat(r.out).contains("== probkit lab " + name + ": ");
    // at least one table: a title line, then a header and a rule of dashes
    assertThat(r.out).containsPattern("(?m)^  -{2,}( +-{2,})*$");
    Matcher checks = CHECK.matcher(r.out);
    int pass = 0;
    while (checks.find()) {
      assertThat(checks.group(1)).as(checks.group()).isEqualTo("pass");
      assertThat(checks.group(2)).isEqualTo(name);
      assertThat(checks.group(3)).contains("measured ").contains("; theory ").contains("; accept ");
      pass++;
    }
    assertThat(pass).as("pass lines of " + name).isPositive();
    assertThat(r.out).contains(name + ": " + pass + " pass, 0 FAIL");

    List<String> charts = new ArrayList<>();
    Matcher m = CHART.matcher(r.out);
    while (m.find()) {
      Path png = Path.of(m.group(1));
      assertThat(png.getParent()).isEqualTo(dir);
      BufferedImage image = ImageIO.read(png.toFile());
      assertThat(image).as(png.toString()).isNotNull();
      assertThat(image.getWidth()).isEqualTo(Chart.WIDTH);
      assertThat(image.getHeight()).isEqualTo(Chart.HEIGHT);
      charts.add(png.getFileName().toString());
    }
    assertThat(charts)
        .as("charts of " + name)
        .isNotEmpty()
        .allMatch(c -> c.startsWith(name.split("-")[0]));

    String html = Files.readString(dir.resolve(Report.HTML));
    assertThat(html)
        .startsWith("<!DOCTYPE html>")
        .contains("id=\"" + name + "\"")
        .contains("</html>");
    for (String c : charts) {
      assertThat(html).contains("<img src=\"" + c + "\"");
    }
    assertThat(html).doesNotContain("http://").doesNotContain("https://").doesNotContain("<script");
    String markdown = Files.readString(dir.resolve(Report.MARKDOWN));
    assertThat(markdown).contains("## " + name).contains("| pass |").doesNotContain("**FAIL**");
    String json = Files.readString(dir.resolve(Report.JSON));
    assertThat(json)
        .startsWith("{")
        .contains("\"name\": \"" + name + "\"")
        .contains("\"passed\": " + pass)
        .contains("\"failed\": 0");
  }

  @Test
  void aFailedClaimPrintsFailAndExitsWithThree(@TempDir Path dir) throws Exception {
    Experiment wrong =
        new Experiment("always-wrong", "a claim that cannot hold") {
          @Override
          public String description(Lab lab) {
            return "For the test of the FAIL path.";
          }

          @Override
          public void run(Lab lab, Section out) {
            out.checkInterval("two is in [0, 1]", Unit.NUMBER, 2, 0.5, 0, 1, "by definition");
          }
        };
    LabCommand.EXPERIMENTS.put(wrong.name(), () -> wrong);
    try {
      Run r = lab("always-wrong", "--tiny", "--out", dir.toString());
      assertThat(r.exit).as(r.toString()).isEqualTo(LabCommand.EXIT_FAIL);
      assertThat(r.out)
          .contains("FAIL  always-wrong: two is in [0, 1]: measured 2")
          .contains("lab: 0 pass, 1 FAIL");
      assertThat(Files.readString(dir.resolve(Report.MARKDOWN))).contains("**FAIL**");
    } finally {
      LabCommand.EXPERIMENTS.remove(wrong.name());
    }
  }

  @Test
  void unknownExperimentIsAUsageError(@TempDir Path dir) {
    Run r = lab("nope", "--out", dir.toString());
    assertThat(r.exit).isEqualTo(Main.EXIT_USAGE);
    assertThat(r.err)
        .startsWith("probkit: unknown experiment 'nope'")
        .contains("bloom-fpr")
        .doesNotContain("Exception");
  }

  @Test
  void helpListsEveryExperiment() {
    Run r = lab("--help");
    assertThat(r.exit).isZero();
    for (String name : LabCommand.EXPERIMENTS.keySet()) {
      assertThat(r.out).contains(name);
    }
  }
}
