package io.github.probkit.cli.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The report's three kinds of table (the summary, an experiment's own, its checks) in Markdown and
 * HTML: each row as that format spells a row, built here from the section's own values.
 */
class ReportTablesTest {
  @TempDir Path dir;

  private Lab lab;

  private Section section() {
    lab = new Lab(Lab.Scale.TINY, 0, dir, 0);
    Experiment e =
        new Experiment("row-check", "Rows <of> a | report") {
          @Override
          String description(Lab lab) {
            return "For the test of the report's tables.";
          }

          @Override
          void run(Lab lab, Section out) {}
        };
    Section s = new Section(e, lab, new PrintWriter(new StringWriter()));
    s.table(Table.of("Keys per name", "name", Unit.TEXT, "keys", Unit.COUNT).row("alpha", 1234));
    s.checkExact("one is one", Unit.INTEGER, 1, 1, "by definition");
    s.checkExact("two is one", Unit.INTEGER, 2, 1, "by definition");
    s.seconds = 2.54;
    return s;
  }

  @Test
  void markdownRowsHaveACellForEachValue() {
    Section s = section();
    String md = new Report(lab, List.of(s), "probkit lab row-check").markdown();
    assertThat(md)
        .contains("| [row-check](#row-check) | Rows <of> a \\| report | 1 | 1 | 2.5 |\n")
        .contains("| name | keys |\n|---|---|\n| alpha | 1,234 |\n");
    for (Check c : s.checks) {
      String verdict = c.pass ? "pass" : "**FAIL**";
      assertThat(md)
          .contains(
              "| "
                  + String.join(" | ", verdict, c.claim, c.measuredText, c.theoryText, c.tolerance)
                  + " |\n");
    }
  }

  @Test
  void htmlRowsHaveACellForEachValueNumbersAlignedRight() {
    Section s = section();
    String html = new Report(lab, List.of(s), "probkit lab row-check").html();
    assertThat(html)
        .contains(
            "<tr><td><a href=\"#row-check\">row-check</a></td><td>Rows &lt;of&gt; a | report</td>"
                + "<td class=\"n\">1</td><td class=\"n\">1</td><td class=\"n\">2.5</td></tr>\n")
        .contains("<tr><td>alpha</td><td class=\"n\">1,234</td></tr>\n");
    for (Check c : s.checks) {
      String verdict = c.pass ? "pass" : "FAIL";
      String tolerance = c.tolerance.replace(">", "&gt;").replace("<", "&lt;");
      assertThat(html)
          .contains(
              "<tr><td class=\""
                  + verdict
                  + "\">"
                  + verdict
                  + "</td><td>"
                  + String.join("</td><td>", c.claim, c.measuredText, c.theoryText, tolerance)
                  + "</td></tr>\n");
    }
  }
}
